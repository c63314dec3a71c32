"""`gapstate graph`, `witness`, `explain` and `coverage` from the command line; the spec's own diagram."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import gapstate
from gapstate.cli import main
from gapstate.diagram import MARKER, build, mermaid

from .support import SPEC_PATH, SPEC_TEXT, line_of, without_diagram

TABLE = gapstate.load_spec(SPEC_TEXT).table


def run(*args: str):
    return CliRunner().invoke(main, list(args))


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
        SPEC_TEXT.replace("DUE | candidate_start | - | OPEN | supersede", "DUE | candidate_start | - | OPEN | supersede,keep_debt").encode()
    )
    return path


def test_a_stale_diagram_is_exactly_one_finding_at_its_fence(stale):
    result = run("check", "--spec", str(stale), "--format", "json")
    assert result.exit_code == 1
    findings = json.loads(result.stdout)["findings"]
    assert [(f["kind"], f["line"]) for f in findings] == [("stale_diagram", line_of(SPEC_TEXT, "```mermaid"))]


def test_update_mends_the_block_and_touches_nothing_else(stale):
    before = stale.read_bytes()
    result = run("graph", "--update", "--spec", str(stale))
    assert result.exit_code == 0, result.output
    after = stale.read_bytes()
    assert run("check", "--spec", str(stale)).exit_code == 0
    start = before.index(b"```mermaid\n") + len(b"```mermaid\n")
    assert after[:start] == before[:start]
    assert after[after.index(b"\n```\n", start) :] == before[before.index(b"\n```\n", start) :]
    assert b"supersede, keep_debt" in after[start:]
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


# witness ---------------------------------------------------------------------------


def test_witness_prints_a_trace_that_replays_to_the_row(tmp_path):
    address = "REQUESTED | evidence_turn | post_send"
    result = run("witness", address)
    assert result.exit_code == 0
    path = tmp_path / "w.jsonl"
    path.write_text(result.stdout, encoding="utf-8")
    replayed = json.loads(run("replay", str(path), "--format", "json").stdout)
    assert replayed["ok"] and replayed["steps"][-1]["row"] == line_of(SPEC_TEXT, address)


def test_witness_json_has_the_contract_keys():
    document = json.loads(run("witness", "OPEN|floor_released|busy", "--format", "json").stdout)
    assert set(document) == {"row", "state", "event", "guards", "trace", "steps"}
    assert document["guards"] == {"busy": True} and document["state"] == "OPEN"
    assert [s["event"] for s in document["steps"]] == [e["event"] for e in document["trace"]]
    assert document["steps"][-1]["row"] == document["row"]


def test_witness_of_an_allowed_row_exits_1_saying_why():
    result = run("witness", "DUE | busy_end | budget_left,!attempts_left")
    assert result.exit_code == 1 and result.stdout == ""
    assert "never holds" in result.stderr and "reachable DUE configurations" in result.stderr


def test_witness_of_an_invalid_row_exits_1_and_still_prints_the_refused_trace():
    result = run("witness", "REQUESTED | send_ok | -")
    assert result.exit_code == 1 and "refused in REQUESTED" in result.stderr
    assert json.loads(result.stdout.splitlines()[-1])["event"] == "send_ok"


@pytest.mark.parametrize("address", ["1", "OPEN | nothing | -", "OPEN |", "999"])
def test_witness_of_no_such_row_exits_2(address):
    result = run("witness", address, "--format", "json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["ok"] is False and "Traceback" not in result.output


# explain ---------------------------------------------------------------------------


def test_explain_tells_when_what_rules_and_a_trace():
    result = run("explain", "SENDING | send_ok | late_loss")
    assert result.exit_code == 0
    text = result.stdout
    assert "fires on" in text and "late_loss: an unseen voiced loss arrived while the send was in flight" in text
    assert "commit_request: session_requests +1" in text and "a fresh attempt allowance" in text
    assert "commit-without-send-result: kept on all" in text
    assert '{"event": "send_ok"' in text.splitlines()[-1]


def test_explain_of_an_allowed_row_says_why_it_cannot_be_reached():
    document = json.loads(run("explain", "198", "--format", "json").stdout)
    assert document["status"] == "unreachable" and document["allowed_unreachable"] is True
    assert "never holds" in document["reason"] and document["trace"] is None


# coverage --------------------------------------------------------------------------


def test_coverage_json_has_the_contract_shape_and_require_all_gates(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"event": "loss_voiced", "t": 1, "id": "a"}\n{"event": "send_ok"}\n', encoding="utf-8")
    (tmp_path / "b.jsonl").write_text('{"event": "busy_start"}\n', encoding="utf-8")
    result = run("coverage", str(tmp_path), "--format", "json", "--jobs", "1")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert set(document) == {"traces", "events", "fired", "never", "reachable", "stopped"}
    assert (document["traces"], document["events"], document["reachable"]) == (2, 3, 52)
    loss = str(line_of(SPEC_TEXT, "CLEAR | loss_voiced | !dup"))
    assert document["fired"][loss] == 1 and int(loss) not in document["never"]
    assert document["stopped"] == [{"trace": str(tmp_path / "a.jsonl"), "index": 1, "kind": "invalid_event"}]
    assert len(document["never"]) == 50
    assert run("coverage", str(tmp_path), "--require-all").exit_code == 1


def test_coverage_of_a_malformed_trace_exits_2_naming_it_and_its_line(tmp_path):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text('{"event": "busy_start"}\n', encoding="utf-8")
    bad.write_text('{"event": "busy_start"}\n{"event": "nap"}\n', encoding="utf-8")
    result = run("coverage", str(good), str(bad))
    assert result.exit_code == 2 and f"{bad}:2:" in result.stderr and "unknown event 'nap'" in result.stderr
    assert run("coverage", str(tmp_path / "missing.jsonl")).exit_code == 2


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
