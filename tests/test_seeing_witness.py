"""Witness traces: the shortest clean way to every row, and why some rows never fire."""

from __future__ import annotations

import json

import pytest

import gapstate
from gapstate.errors import GapstateError
from gapstate.run.replayer import replay
from gapstate.run.trace import from_dicts
from gapstate.seeing.witness import FIRES, REFUSED, UNREACHABLE, Ways, locate, witness

from .support import SPEC_TEXT, line_of, run, variant

SPEC = gapstate.load_spec(SPEC_TEXT)
TABLE = SPEC.table
ALLOWED = {row.line for row in TABLE.rows if any(a.names(row) for a in TABLE.allowances)}
FIRING = [row for row in TABLE.rows if not row.invalid and row.line not in ALLOWED]
REFUSING = [row for row in TABLE.rows if row.invalid]


@pytest.fixture(scope="module")
def ways():
    return Ways(SPEC)


def test_every_reachable_row_has_a_witness_that_replays_to_it(ways):
    for row in FIRING:
        found = witness(ways, row)
        assert found.status == FIRES, row
        result = replay(SPEC, from_dicts(found.trace))
        assert result.ok and result.steps[-1].row == row.line, row
        assert list(found.steps) == [step.to_dict() for step in result.steps]


def test_the_allowed_rows_have_no_witness_because_an_attempt_is_always_left(ways):
    assert len(ALLOWED) == 3
    for line in ALLOWED:
        found = witness(ways, locate(TABLE, str(line), "spec")[0])
        assert found.status == UNREACHABLE and found.trace is None
        assert "`!attempts_left` never holds" in found.reason
        assert "attempts_left (episode_attempts is below its cap) is true in every one of the" in found.reason


def test_every_invalid_row_gets_the_shortest_trace_ending_on_its_refusal(ways):
    for row in REFUSING:
        found = witness(ways, row)
        assert found.status == REFUSED and "refused" in found.reason
        result = replay(SPEC, from_dicts(found.trace))
        assert result.error.kind == "invalid_event" and result.error.index == len(found.trace) - 1, row
        assert f"row at line {row.line}" in result.error.message
        assert len(found.steps) == len(found.trace) - 1


def test_rows_are_found_by_line_or_by_address_with_guards_in_any_order():
    row = locate(TABLE, "OPEN | floor_released | attempts_left, !busy ,budget_left", "spec")[0]
    assert str(row) == "OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request"
    assert locate(TABLE, str(row.line), "spec")[0] == row
    assert locate(TABLE, "*|loss_silent|-", "spec")[0].actions == ("note_trim",)


def test_a_state_that_a_star_row_covers_names_that_row_fired_in_that_state():
    row, state = locate(TABLE, "REQUESTED | loss_silent | -", "spec")
    assert (row.state, row.actions, state) == ("*", ("note_trim",), "REQUESTED")
    ways = Ways(SPEC)
    found = witness(ways, row, state)
    assert found.status == FIRES and found.steps[-1]["from"] == "REQUESTED" and found.steps[-1]["row"] == row.line
    assert len(found.trace) > len(witness(ways, row).trace) == 1  # from CLEAR it takes one event


@pytest.mark.parametrize(
    "address, says",
    [
        ("1", "line 1 holds no row"),
        ("OPEN | floor_released | busy,budget_left", "no row `OPEN | floor_released | busy,budget_left`"),
        ("NOWHERE | loss_silent | -", "nearest rows: `* | loss_silent | -`"),
        ("OPEN | floor_released", "a row's address is state | event | guards"),
    ],
)
def test_an_address_that_names_no_row_says_why(address, says):
    with pytest.raises(GapstateError) as error:
        locate(TABLE, address, "spec.md")[0]
    assert says in str(error.value) and str(error.value).startswith("spec.md")


def test_a_witness_on_a_defective_table_walks_only_steps_that_break_no_rule():
    # Sending on candidate_start from CLEAR breaks send-while-candidate-active
    # on a way into SENDING shorter (2 events to send_ok) than the clean one
    # (3): the witness of a SENDING row must take the clean way.
    text = variant("CLEAR | candidate_start | - | = | noop", "CLEAR | candidate_start | - | SENDING | send_request")
    spec = gapstate.load_spec(text)
    ways = Ways(spec)
    row = locate(spec.table, "SENDING | send_ok | !late_loss", "spec")[0]
    found = witness(ways, row)
    result = replay(spec, from_dicts(found.trace))
    assert result.ok and result.steps[-1].row == row.line
    assert [event["event"] for event in found.trace] == ["loss_voiced", "floor_released", "send_ok"]
    assert found.detour is False


# from the command line --------------------------------------------------------------


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
    assert set(document) == {"ok", "row", "state", "event", "guards", "trace", "steps"}
    assert document["ok"] is True
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


def test_a_row_reachable_only_by_breaking_a_rule_is_said_so_with_its_trace_marked(tmp_path):
    spec = tmp_path / "spec.md"
    spec.write_text(
        variant("OPEN | loss_voiced | !dup | = | merge_gap", "OPEN | loss_voiced | !dup | = | send_request,merge_gap"),
        encoding="utf-8",
    )
    address = "OPEN | floor_released | !busy,budget_left,!attempts_left"
    result = run("witness", address, "--spec", str(spec), "--format", "json")
    assert result.exit_code == 1 and "Traceback" not in result.output
    document = json.loads(result.stdout)
    assert document["breaks_rule"] is True and document["trace"]
    assert "reachable only by breaking a rule first" in document["reason"]
    assert "send-only-on-release" in document["reason"]
    text = run("witness", address, "--spec", str(spec))
    assert text.exit_code == 1 and "reachable only by breaking a rule first" in text.stderr
    assert [json.loads(line) for line in text.stdout.splitlines()] == document["trace"]


@pytest.mark.parametrize("address", ["1", "OPEN | nothing | -", "OPEN |", "999", "9" * 5000, "²"])
def test_witness_of_no_such_row_exits_2(address):
    result = run("witness", address, "--format", "json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["ok"] is False and "Traceback" not in result.output


@pytest.mark.parametrize(
    "address",
    ["OPEN | loss_voiced | !dup | = | merge_gap", "  OPEN|loss_voiced |  !dup  ", "OPEN | loss_voiced | !dup|=|merge_gap"],
    ids=["pasted row", "odd spacing", "pasted, no spaces"],
)
def test_a_pasted_row_or_odd_spacing_names_the_same_row(address):
    by_line = run("witness", str(line_of(SPEC_TEXT, "OPEN | loss_voiced | !dup | = | merge_gap")))
    result = run("witness", address)
    assert result.exit_code == 0, result.output
    assert result.stdout == by_line.stdout


def test_guards_in_any_order_name_the_same_row():
    assert run("witness", "DUE | busy_end | attempts_left,budget_left").stdout == run("witness", "DUE | busy_end | budget_left,attempts_left").stdout


def test_a_pasted_row_whose_outcome_differs_from_the_table_is_refused_saying_what_differs():
    result = run("witness", "OPEN | loss_voiced | !dup | DUE | merge_gap")
    assert result.exit_code == 2
    assert "NEXT is =, not DUE" in result.output


def test_an_address_that_names_no_row_lists_the_nearest_rows_with_their_lines():
    result = run("witness", "OPEN | loss_voiced | zzz")
    assert result.exit_code == 2
    assert "nearest rows:" in result.output
    assert f"`OPEN | loss_voiced | dup` (line {line_of(SPEC_TEXT, 'OPEN | loss_voiced | dup |')})" in result.output
