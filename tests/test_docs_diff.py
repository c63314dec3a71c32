"""docs/diff.md: every example change prints the lines the page shows; the recorded-sessions text and pull-request step work as shown."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from gapstate.cli import main
from gapstate.conformance.vectors import build
from gapstate.review.diff import KINDS
from gapstate.table.load import parse_spec

from .support import ROOT, SPEC_TEXT, git, run

PAGE = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r"## `(\w+)`.*?```diff\n(.*?)```\n\n```text\n(.*?)```", PAGE, flags=re.S)


def apply(diff: str) -> str:
    """The bundled spec with the `-` lines of its table removed and the `+` lines put where the first was."""
    removed = [line[1:] for line in diff.splitlines() if line.startswith("-")]
    added = [line[1:] for line in diff.splitlines() if line.startswith("+")]
    lines = SPEC_TEXT.splitlines()
    header = lines.index("# state | event | guards | next | actions")
    at = [header + lines[header:].index(line) for line in removed]
    kept = [line for i, line in enumerate(lines) if i not in at]
    first = at[0] - sum(1 for i in at if i < at[0])
    return "\n".join(kept[:first] + added + kept[first:]) + "\n"


def test_every_change_kind_has_an_example():
    assert sorted(kind for kind, _, _ in EXAMPLES) == sorted(KINDS)


@pytest.mark.parametrize("kind, diff, shown", EXAMPLES, ids=[k for k, _, _ in EXAMPLES])
def test_the_example_prints_what_the_page_shows(tmp_path, monkeypatch, kind, diff, shown):
    (tmp_path / "old.md").write_text(SPEC_TEXT, encoding="utf-8")
    (tmp_path / "new.md").write_text(apply(diff), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["diff", "old.md", "new.md"])
    assert result.exit_code == 1, result.output
    output = result.output.splitlines()  # as a terminal shows it: the report, then the summary line from stderr
    for line in shown.splitlines():
        assert line in output
    assert any(line.startswith(kind + ":") for line in shown.splitlines())


# recorded sessions -------------------------------------------------------------------------

SESSIONS = PAGE.split("## Recorded sessions: `--traces`", 1)[1]
SHOWN = re.search(r"```text\n(.*?)```\n", SESSIONS, flags=re.S).group(1)
WORKFLOW = re.search(r"```yaml\n(.*?)```\n", SESSIONS, flags=re.S).group(1)
STEP = WORKFLOW.split("- name: What the change does to recorded sessions\n", 1)[1].split("run: |\n", 1)[1]
SCRIPT = "\n".join(line.strip() for line in STEP.splitlines())
OLD_ROW = "OPEN | floor_released | busy | DUE | defer_no_interrupt"
NEW_ROWS = "OPEN | floor_released | busy,budget_left | DUE | defer_no_interrupt\nOPEN | floor_released | busy,!budget_left | CLEAR | unrepaired_budget"
CHANGED = SPEC_TEXT.replace(OLD_ROW + "\n", NEW_ROWS + "\n", 1)


def record(folder) -> None:
    """The bundled table's conformance vectors, as a team's recorded sessions."""
    folder.mkdir()
    for vector in build(parse_spec(SPEC_TEXT, "spec.md")).vectors:
        (folder / f"{vector.name}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in vector.trace), encoding="utf-8")


def test_the_page_shows_what_diff_traces_prints(tmp_path, monkeypatch):
    (tmp_path / "old.md").write_text(SPEC_TEXT, encoding="utf-8")
    (tmp_path / "new.md").write_text(CHANGED, encoding="utf-8")
    record(tmp_path / "recorded")
    monkeypatch.chdir(tmp_path)
    result = run("diff", "old.md", "new.md", "--traces", "recorded/", "--jobs", "1")
    assert result.exit_code == 1
    assert result.output == SHOWN and result.stdout == SHOWN[: SHOWN.rindex("gapstate diff: ")]


@pytest.mark.slow  # the page's CI step whole: git, bash and four gapstate processes, two seconds of CPU
@pytest.mark.skipif(shutil.which("git") is None or shutil.which("bash") is None, reason="needs git and bash")
def test_the_pull_request_step_annotates_and_summarises_in_a_real_repository(tmp_path):
    upstream = tmp_path / "upstream"
    (upstream / "spec").mkdir(parents=True)
    (upstream / "spec" / "gap-state.md").write_text(SPEC_TEXT, encoding="utf-8")
    record(upstream / "recorded")
    git(upstream, "init", "-q", "-b", "main")
    git(upstream, "add", ".")
    git(upstream, "commit", "-q", "-m", "the table and recorded sessions")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(upstream), str(clone))
    (clone / "spec" / "gap-state.md").write_text(CHANGED, encoding="utf-8")  # the pull request's change
    summary = tmp_path / "summary.md"
    bin_folder = tmp_path / "bin"  # `gapstate` as CI has it after `pip install`
    bin_folder.mkdir()
    launcher = bin_folder / "gapstate"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gapstate "$@"\n', encoding="utf-8")
    launcher.chmod(0o755)
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary), "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["bash", "-e", "-c", SCRIPT], cwd=clone, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr  # exit 1 (sessions differ) is for the reviewer
    [warning] = [line for line in done.stdout.splitlines() if line.startswith("::warning ")]
    new_row = CHANGED.splitlines().index(NEW_ROWS.splitlines()[1]) + 1
    assert warning.startswith(f"::warning file=spec/gap-state.md,line={new_row},title=recorded sessions::")
    affected = re.search(r"recorded sessions: (\d+ of \d+) behave differently", SHOWN).group(1)  # as the page shows
    assert f"{affected} recorded sessions behave differently here" in warning
    written = summary.read_text(encoding="utf-8")
    assert f"recorded sessions: {affected} behave differently" in written
    assert "HEAD" not in written and "origin/main:spec/gap-state.md -> spec/gap-state.md" in written
    # a table git cannot show fails the step: exit 2 is not for the reviewer
    (clone / "spec" / "gap-state.md").write_text("no table here\n", encoding="utf-8")
    failed = subprocess.run(["bash", "-e", "-c", SCRIPT], cwd=clone, env=env, capture_output=True, text=True)
    assert failed.returncode != 0
