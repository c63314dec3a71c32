"""`gapstate graph` from the command line, and the diagram the spec carries (`stale_diagram`, `--update`)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import gapstate
from gapstate.cli import main
from gapstate.table.diagram import MARKER, build, mermaid

from .support import SPEC_PATH, SPEC_TEXT, line_of, run, without_diagram

TABLE = gapstate.load_spec(SPEC_TEXT).table


# The spec's own diagram ---------------------------------------------------------


def test_the_bundled_spec_carries_a_current_diagram_after_its_table(tmp_path):
    lines = SPEC_TEXT.splitlines()
    marker = lines.index(MARKER)
    assert lines[marker + 1] == "```mermaid" and marker > TABLE.rows[-1].line
    assert run("check").exit_code == 0
    copy = tmp_path / "gap-state.md"
    copy.write_bytes(SPEC_PATH.read_bytes())
    assert run("graph", "--update", "--spec", str(copy)).exit_code == 0
    assert copy.read_bytes() == SPEC_PATH.read_bytes()


@pytest.fixture
def stale(tmp_path):
    """The bundled spec with a row changed and its diagram left as it was."""
    path = tmp_path / "gap-state.md"
    path.write_bytes(
        SPEC_TEXT.replace("REQUESTED | loss_voiced | !dup | OPEN | reopen_gap", "REQUESTED | loss_voiced | !dup | OPEN | open_gap").encode()
    )
    return path


def test_a_stale_diagram_is_exactly_one_finding_at_its_fence(stale):
    result = run("check", "--spec", str(stale), "--format", "json")
    assert result.exit_code == 1
    findings = json.loads(result.stdout)["findings"]
    assert [(f["kind"], f["line"]) for f in findings] == [("stale_diagram", line_of(SPEC_TEXT, "```mermaid"))]


def test_the_stale_diagram_message_names_the_command_that_mends_this_file(stale):
    """Not the project's default spec: `graph --update` alone would redraw another file."""
    [finding] = json.loads(run("check", str(stale), "--format", "json").stdout)["findings"]
    fix, update = [part.split("`")[0] for part in finding["message"].split("`gapstate ")[2:]]
    assert (fix, update) == (f"check --fix {stale}", f"graph --update --spec {stale}")
    assert run(*update.split()).exit_code == 0
    assert run("check", str(stale)).exit_code == 0


def test_check_fix_redraws_a_stale_diagram_says_so_and_reports_what_is_left(stale):
    result = run("check", "--fix", str(stale))
    assert result.exit_code == 0, result.output
    assert f"gapstate check --fix: {stale}: diagram updated" in result.stderr
    assert b"loss_voiced [!dup] / open_gap" in stale.read_bytes()
    assert run("check", str(stale)).exit_code == 0
    again = run("check", "--fix", str(stale))  # nothing left to mend: the file is not touched
    assert again.exit_code == 0 and "diagram" not in again.stderr


def test_update_mends_the_block_and_touches_nothing_else(stale):
    before = stale.read_bytes()
    result = run("graph", "--update", "--spec", str(stale))
    assert result.exit_code == 0, result.output
    after = stale.read_bytes()
    assert run("check", "--spec", str(stale)).exit_code == 0
    start = before.index(b"```mermaid\n") + len(b"```mermaid\n")
    assert after[:start] == before[:start]
    assert after[after.index(b"\n```\n", start) :] == before[before.index(b"\n```\n", start) :]
    assert b"loss_voiced [!dup] / open_gap" in after[start:]
    assert list(stale.parent.iterdir()) == [stale], "no temporary file is left behind"


def test_update_adds_a_block_at_the_end_of_a_spec_without_one(tmp_path):
    path = tmp_path / "plain.md"
    plain = without_diagram(SPEC_TEXT)
    path.write_text(plain, encoding="utf-8")
    assert run("check", "--spec", str(path)).exit_code == 0  # no marker: no finding
    assert run("graph", "--update", "--spec", str(path)).exit_code == 0
    text = path.read_text(encoding="utf-8")
    assert text.startswith(plain) and text.endswith(f"{MARKER}\n```mermaid\n{mermaid(build(TABLE))}```\n")
    assert run("check", "--spec", str(path)).exit_code == 0


def test_update_of_a_spec_with_an_unclosed_block_changes_nothing_and_exits_2(tmp_path):
    path = tmp_path / "open.md"
    path.write_text(without_diagram(SPEC_TEXT) + f"\n{MARKER}\n```mermaid\nflowchart LR\n", encoding="utf-8")
    before = path.read_bytes()
    result = run("graph", "--update", "--spec", str(path))
    assert result.exit_code == 2 and "never closed" in result.output and str(path) in result.output
    assert path.read_bytes() == before


# graph -----------------------------------------------------------------------------


def test_graph_prints_mermaid_by_default_and_dot_on_request():
    assert run("graph").stdout == mermaid(build(TABLE))
    dot = run("graph", "--format", "dot", "--all")
    assert dot.exit_code == 0 and dot.stdout.startswith("digraph gapstate {")
    assert "loss_silent / note_trim" in dot.stdout and "style=dotted" in dot.stdout


def test_graph_coverage_colours_edges_by_the_traces(tmp_path):
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"event": "loss_voiced", "t": 1, "id": "a"}\n{"event": "floor_released", "t": 2}\n', encoding="utf-8")
    result = run("graph", "--coverage", str(trace))
    assert result.exit_code == 0
    fired = [line for line in result.stdout.splitlines() if "linkStyle" in line and "#1a7f37" in line]
    assert len(fired) == 2  # CLEAR -> OPEN and OPEN -> SENDING
    assert run("graph", str(trace)).exit_code == 2  # a trace without --coverage is a usage error


def test_update_through_a_symlink_keeps_the_link_a_bom_and_crlf_line_ends(stale, tmp_path):
    crlf = b"\xef\xbb\xbf" + stale.read_bytes().replace(b"\n", b"\r\n")
    stale.write_bytes(crlf)
    link = tmp_path / "link.md"
    link.symlink_to(stale.name)
    assert run("graph", "--update", "--spec", str(link)).exit_code == 0
    assert link.is_symlink()
    after = stale.read_bytes()
    assert after.startswith(b"\xef\xbb\xbf") and b"\n" not in after.replace(b"\r\n", b"")
    assert run("check", "--spec", str(link)).exit_code == 0
    start = crlf.index(b"```mermaid")
    assert after[:start] == crlf[:start]


@pytest.mark.parametrize("spec", [None, "-"])
def test_update_refuses_the_bundled_spec_and_standard_input(spec, tmp_path, monkeypatch):
    """Neither is a file the user edits: rewriting site-packages or reading stdin twice helps nobody."""
    monkeypatch.chdir(tmp_path)  # no pyproject.toml: without --spec the bundled spec is meant
    args = ["graph", "--update"] + (["--spec", spec] if spec else [])
    result = CliRunner().invoke(main, args, input=SPEC_TEXT)
    assert result.exit_code == 2 and "--update rewrites a spec file in place" in result.output


# witness --bound ----------------------------------------------------------------------------

LOOPING = SPEC_TEXT.replace("SENDING | send_failed | attempts_left,!candidate_active | DUE | keep_debt",
                            "SENDING | send_failed | attempts_left,!candidate_active | DUE | reopen_gap")


def test_witness_bound_prints_a_run_that_replays_to_the_bound(tmp_path):
    result = run("witness", "--bound", "commits_per_gap")
    assert result.exit_code == 0
    assert result.stderr.splitlines()[-1].endswith(
        "commits_per_gap = 3: a gap can take at most 3 committed requests; a run of 13 events reaches it")
    trace = tmp_path / "run.jsonl"
    trace.write_text(result.stdout, encoding="utf-8")
    replayed = gapstate.replay(None, [json.loads(line) for line in result.stdout.splitlines()])
    assert replayed.ok and replayed.final.session_requests == 3


def test_witness_bound_exits_1_with_the_loop_when_the_table_sets_no_bound(tmp_path):
    spec = tmp_path / "looping.md"
    spec.write_text(LOOPING, encoding="utf-8")
    result = run("witness", "--bound", "sends_per_gap", "--spec", str(spec), "--format", "json")
    document = json.loads(result.stdout)
    assert result.exit_code == 1 and document["ok"] is False and document["value"] is None
    assert document["bound"] == "sends_per_gap"
    # the run goes through the failed send that starts a fresh allowance, the rule the loop follows from
    error = gapstate.replay(str(spec), document["trace"]).error
    assert error is not None and error.kind == "rule" and "allowance-outside-episode-start" in error.message


@pytest.mark.parametrize("args", [[], ["12", "--bound", "sends_per_gap"], ["--bound", "sends"]])
def test_witness_takes_a_row_or_a_known_bound(args):
    assert run("witness", *args).exit_code == 2
