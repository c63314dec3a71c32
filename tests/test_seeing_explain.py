"""`gapstate explain`: one row in a reviewer's words."""

from __future__ import annotations

import json

import pytest

import gapstate
from gapstate.seeing.explain import explain
from gapstate.seeing.witness import FIRES, REFUSED, UNREACHABLE, Ways, locate, witness

from .support import SPEC_TEXT, run

SPEC = gapstate.load_spec(SPEC_TEXT)
TABLE = SPEC.table
ALLOWED = {row.line for row in TABLE.rows if any(a.names(row) for a in TABLE.allowances)}


@pytest.fixture(scope="module")
def ways():
    return Ways(SPEC)


def test_explain_counts_configurations_and_checks_the_rules_of_a_send(ways):
    row = locate(TABLE, "OPEN | floor_released | !busy,budget_left,attempts_left", "spec")[0]
    said = explain(ways, row).to_dict()
    assert said["status"] == "fires" and said["configurations"] == len({w.config for w in ways.of(row)}) > 0
    rules = {note["id"]: note for note in said["rules"]}
    assert {"send-while-busy", "send-without-budget", "second-send-in-flight"} <= set(rules)
    assert all(note["kept"] is True for note in rules.values())
    assert "send_request: episode_attempts +1; a send is in flight; no late loss is remembered" in said["effects"]
    assert [g["guard"] for g in said["when"]] == ["!busy", "budget_left", "attempts_left"]
    assert said["trace"] == list(witness(ways, row).trace)


def test_explain_of_an_allowed_row_says_why_it_never_fires(ways):
    line = min(ALLOWED)
    said = explain(ways, locate(TABLE, str(line), "spec")[0]).to_dict()
    assert said["status"] == "unreachable" and said["allowed_unreachable"] is True
    assert said["configurations"] == 0 and said["trace"] is None
    assert "never holds" in said["reason"]
    assert all(note["kept"] is None for note in said["rules"])


def test_every_row_is_explained_with_the_status_its_witness_has(ways):
    for row in TABLE.rows:
        said = explain(ways, row)
        expected = REFUSED if row.invalid else UNREACHABLE if row.line in ALLOWED else FIRES
        assert said.status == expected, row
        assert (said.configurations > 0) == (expected != UNREACHABLE)
        json.dumps(said.to_dict())


# from the command line ---------------------------------------------------------------------------


def test_explain_tells_when_what_rules_and_a_trace():
    result = run("explain", "SENDING | send_ok | late_loss")
    assert result.exit_code == 0
    text = result.stdout
    assert "fires on" in text and "late_loss: an unseen voiced loss arrived while the send was in flight" in text
    assert "commit_request: session_requests +1" in text and "a fresh attempt allowance" in text
    assert "commit-without-send-result: kept on all" in text
    assert '{"event": "send_ok"' in text.splitlines()[-1]  # the trace ends the report; the summary is on stderr
    assert result.stderr.splitlines()[-1].endswith(": fires")


def test_explain_of_an_allowed_row_says_why_it_cannot_be_reached():
    document = json.loads(run("explain", "198", "--format", "json").stdout)
    assert document["status"] == "unreachable" and document["allowed_unreachable"] is True
    assert document["ok"] is True  # every row of the table is explained, reachable or not
    assert "never holds" in document["reason"] and document["trace"] is None


def test_a_star_row_asked_of_one_state_is_explained_in_that_state():
    said = json.loads(run("explain", "REQUESTED | loss_silent | -", "--format", "json").stdout)
    everywhere = json.loads(run("explain", "* | loss_silent | -", "--format", "json").stdout)
    assert said["row"] == everywhere["row"]
    assert 0 < said["configurations"] < everywhere["configurations"]
    assert said["trace"][-1]["event"] == "loss_silent" and len(said["trace"]) > len(everywhere["trace"]) == 1
