"""gapstate/cli/review.py: what `gapstate diff` adds to the comparison: its arguments, the traces it replays, its formats and exit code.

The comparison is tested in tests/test_review_diff.py and test_review_sessions.py, its text in test_cli_render_review.py.
"""

from __future__ import annotations

import json

import pytest

from .support import SPEC_TEXT, run, variant

REFUSES_BUSY_END = variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | invalid")


@pytest.fixture
def tables(tmp_path):
    old, new = tmp_path / "old.md", tmp_path / "new.md"
    old.write_text(SPEC_TEXT, encoding="utf-8")
    new.write_text(REFUSES_BUSY_END, encoding="utf-8")
    log = tmp_path / "log.jsonl"
    log.write_text('{"event":"busy_end","session":"s1"}\n{"event":"busy_start","session":"s2"}\n', encoding="utf-8")
    return str(old), str(new), str(log)


@pytest.mark.parametrize("args, said", [
    (["a.md"], "diff takes OLD and NEW (or --git REV PATH); got 1 path"),
    (["a.md", "b.md", "c.jsonl"], "diff takes OLD and NEW (or --git REV PATH); got 3 paths"),
    (["--git", "HEAD", "a.md", "b.md"], "--git REV PATH takes one PATH; got 2 paths"),
    (["a.md", "b.md", "--split-by", "session"], "--split-by says how to read the traces of --traces"),
])
def test_arguments_that_do_not_make_a_comparison_are_a_usage_error(args, said):
    result = run("diff", *args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert said in result.stderr


def test_no_change_prints_nothing_but_the_summary_on_stderr(tables):
    old, _, _ = tables
    result = run("diff", old, old)
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr.splitlines()[-1] == f"gapstate diff: {old} -> {old}: no change in behaviour, caps, names, allow-list, reachability or bounds"
    assert run("diff", old, old, "--format", "github").stdout == ""


def test_a_change_exits_1_and_the_text_lists_it(tables):
    old, new, _ = tables
    result = run("diff", old, new)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == "behaviour: CLEAR | busy_end"
    assert result.stderr.splitlines()[-1] == f"gapstate diff: {old} -> {new}: 1 change"


def test_paths_after_old_and_new_are_traces_too_and_replay_under_both_tables(tables):
    old, new, log = tables
    given = run("diff", old, new, "--traces", log, "--split-by", "session", "--jobs", "1", "--format", "json")
    after = run("diff", old, new, log, "--traces", log, "--split-by", "session", "--jobs", "1", "--format", "json")
    assert given.exit_code == after.exit_code == 1
    traces = json.loads(given.stdout)["traces"]
    assert (traces["read"], traces["affected"]) == (2, 1)
    assert json.loads(after.stdout)["traces"]["read"] == 4  # the log named twice is read twice
    assert given.stderr.splitlines()[-1].endswith(": 1 change; 1 of 2 recorded sessions behave differently")
