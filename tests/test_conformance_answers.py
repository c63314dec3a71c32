"""gapstate/conformance/answers.py: the table's answer in the protocol's shape, and what the protocol allows of an implementation's.

Which answers are outside the protocol, and which fields differ, are tested
beside the conformance run in tests/test_conformance_conform.py.
"""

from __future__ import annotations

from itertools import islice

import pytest
from hypothesis import given
from hypothesis import strategies as st

import gapstate
from gapstate.conformance.answers import (
    Answers,
    agrees,
    differences,
    protocol_problem,
    shown,
    table_answer,
    table_answers,
    wire,
)
from gapstate.fuzzing.strategies import chance_walks
from gapstate.run.replayer import Session, machine_for

from .defects import DEFECTS
from .support import SPEC_TEXT, line_of, variant

LOSS = {"event": "loss_voiced", "t": 5, "id": "iv-1"}


def _session() -> Session:
    return Session(machine_for(gapstate.load_spec()))


def test_the_wire_always_carries_t_the_last_one_given_and_only_the_protocol_s_fields():
    sent = wire([{"event": "busy_start"}, {**LOSS, "session": "s1"}, {"event": "evidence_turn", "speech_start": 3}])
    assert sent == [
        {"event": "busy_start", "t": 0},
        {"event": "loss_voiced", "t": 5, "id": "iv-1"},
        {"event": "evidence_turn", "t": 5, "speech_start": 3},
    ]


def test_the_table_answers_with_state_actions_counters_and_debt_and_the_row_that_decided():
    session = _session()
    answer, row = table_answer(session, LOSS)
    assert answer == {"state": "OPEN", "actions": ["open_gap", "preserve_debt"],
                      "counters": {"session_requests": 0, "episode_attempts": 0}, "debt_owed": True}
    assert row == line_of(SPEC_TEXT, "CLEAR | loss_voiced | !dup")
    assert protocol_problem(answer) is None  # the table's own answers are in the protocol


def test_a_refused_event_leaves_the_session_as_it_was():
    session = _session()
    table_answer(session, LOSS)
    before = session.config
    answer, row = table_answer(session, {"event": "send_ok", "t": 6})
    assert answer == {"refused": "invalid_event"} and row == line_of(SPEC_TEXT, "OPEN | send_ok |")
    assert session.config == before


def test_after_session_end_every_event_is_refused_as_such_with_no_row():
    session = _session()
    assert table_answer(session, {"event": "session_end", "t": 1})[0]["state"] == "CLEAR"
    assert table_answer(session, {"event": "session_end", "t": 2}) == ({"refused": "after_session_end"}, None)


@pytest.mark.parametrize("answer, kind", [([], "an array"), ("OPEN", "a string"), (None, "null"), (True, "a boolean"), (1.5, "a number")])
def test_an_answer_that_is_not_an_object_is_named_by_its_json_kind(answer, kind):
    assert protocol_problem(answer) == f"an answer must be a JSON object, not {kind}"


def test_an_answer_is_shown_as_its_json_cut_short_or_sketched_where_json_cannot_write_it():
    assert shown({"state": "OPEN"}) == '{"state": "OPEN"}'
    long = shown({"state": "x" * 500})
    assert len(long) == 203 and long.endswith("...")
    assert shown({1, 2}) == "<set>"
    assert shown({"refused": 10**5000}) == '{"refused": <a number of 5001 digits>}'  # repr raised ValueError


_DEFECTS = {name: (old, new) for name, old, new in DEFECTS}


@pytest.mark.parametrize("defect, seen", [(None, None), ("send-while-busy", "broken"), ("hole after a failed send", "hole")])
def test_a_generated_walk_s_own_outcomes_are_the_table_s_answers_to_its_trace(defect, seen):
    """conform compares with what the walk saw drawing the trace: the answers a fresh session gives the trace, as many.

    On a table whose steps break a rule (the replay goes on past them) and
    on one with a hole (the walk ends in it) too.
    """
    spec = gapstate.load_spec(variant(*_DEFECTS[defect]) if defect else None)
    machine, shaped = machine_for(spec), Answers()
    found = set()
    for trace, outcomes in islice(chance_walks(spec, 0), 200):
        expected = table_answers(Session(machine), wire(trace))
        assert list(map(shaped, outcomes)) == expected
        found |= {"broken" for outcome in outcomes if outcome.broken} | {"hole" for answer, _ in expected if "refused" in answer}
    assert found == ({seen} if seen else set())


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-1, 3), st.floats(0, 2), st.sampled_from(["OPEN", "CLEAR", "invalid_event"]))
_ANSWERS = st.fixed_dictionaries({}, optional={
    "state": st.one_of(st.sampled_from(["OPEN", "CLEAR"]), _VALUES),
    "actions": st.one_of(st.sampled_from([["open_gap", "preserve_debt"], ["open_gap"], []]), st.lists(_VALUES, max_size=2),
                         st.just(("open_gap", "preserve_debt"))),
    "counters": st.one_of(st.fixed_dictionaries({"session_requests": _VALUES, "episode_attempts": _VALUES},
                                                optional={"other": _VALUES}),
                          st.just({"session_requests": 0, "episode_attempts": 0}), _VALUES),
    "debt_owed": _VALUES,
    "refused": _VALUES,
    "row": _VALUES,
})


@given(st.one_of(_ANSWERS, _VALUES, st.lists(_VALUES, max_size=2)))
def test_an_answer_agrees_only_where_the_protocol_allows_it_and_no_field_differs(actual):
    """`agrees`, conform's fast path, says yes only where protocol_problem finds nothing and differences none."""
    expected, _ = table_answer(_session(), LOSS)
    if agrees(expected, actual):
        assert protocol_problem(actual) is None and differences(expected, actual) == ()


def test_the_answer_most_adapters_give_agrees():
    expected, _ = table_answer(_session(), LOSS)
    assert agrees(expected, {**expected, "row": 178, "flags": {"busy": False}})
    assert not agrees(expected, {**expected, "counters": {"session_requests": False, "episode_attempts": 0}})
