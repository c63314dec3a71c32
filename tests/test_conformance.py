"""Comparing an implementation with the table: the protocol's answers, divergences, shrinking, the Python API."""

from __future__ import annotations

import pytest

import gapstate
from gapstate import vectors
from gapstate.conformance import differences, protocol_problem, wire

from .support import room_loop_module

room_loop = room_loop_module()
STEP = {"state": "OPEN", "actions": ["open_gap", "preserve_debt"], "counters": {"session_requests": 0, "episode_attempts": 0}, "debt_owed": True}


@pytest.mark.parametrize(
    "answer",
    [
        [1],
        "OPEN",
        None,
        {},
        {"actions": []},
        {"state": "OPEN"},
        {"state": 3, "actions": []},
        {"state": "OPEN", "actions": "noop"},
        {"state": "OPEN", "actions": [1]},
        {"state": "OPEN", "actions": [], "debt": True},
        {"state": "OPEN", "actions": [], "counters": {"session_requests": 0}},
        {"state": "OPEN", "actions": [], "counters": {"session_requests": 0, "episode_attempts": True}},
        {"state": "OPEN", "actions": [], "debt_owed": "yes"},
        {"refused": "nope"},
        {"refused": "invalid_event", "state": "OPEN"},
    ],
)
def test_an_answer_outside_the_protocol_is_named(answer):
    assert protocol_problem(answer)


@pytest.mark.parametrize(
    "answer",
    [STEP, {"state": "WHATEVER", "actions": []}, {"refused": "invalid_event"}, {"refused": "after_session_end"}],
)
def test_answers_in_the_protocol_pass_even_with_unknown_names(answer):
    assert protocol_problem(answer) is None


def test_counters_and_debt_are_compared_only_when_given():
    assert differences(STEP, {"state": "OPEN", "actions": ["open_gap", "preserve_debt"]}) == ()
    wrong = {**STEP, "counters": {"session_requests": 1, "episode_attempts": 0}, "debt_owed": False}
    assert differences(STEP, wrong) == ("counters", "debt_owed")
    assert differences(STEP, {**STEP, "actions": ["preserve_debt", "open_gap"]}) == ("actions",)


def test_a_refusal_must_match_in_kind():
    assert differences({"refused": "invalid_event"}, {"refused": "invalid_event"}) == ()
    assert differences({"refused": "invalid_event"}, {"refused": "after_session_end"}) == ("refused",)
    assert differences({"refused": "invalid_event"}, STEP) == ("refused",)
    assert differences(STEP, {"refused": "invalid_event"}) == ("refused",)


def test_events_go_out_with_t_always_present():
    trace = [{"event": "loss_voiced", "t": 5, "id": "a"}, {"event": "floor_released"}, {"event": "busy_start", "t": 9}]
    assert wire(trace) == [
        {"event": "loss_voiced", "t": 5, "id": "a"},
        {"event": "floor_released", "t": 5},
        {"event": "busy_start", "t": 9},
    ]


def test_the_room_loop_conforms_in_process():
    result = gapstate.conform(room_loop.RoomLoop(bug=""), examples=30)
    assert result.ok, result.report()
    assert result.vectors == len(vectors.build(gapstate.load_spec()).vectors)
    assert result.traces == 30 and result.events > 0
    assert result.to_dict()["divergence"] is None


class Sparse:
    """The room loop answering only state and actions."""

    def __init__(self):
        self.loop = room_loop.RoomLoop(bug="")

    def reset(self):
        self.loop.reset()

    def step(self, event):
        answer = self.loop.step(event)
        return {k: v for k, v in answer.items() if k in ("state", "actions", "refused")}


def test_an_implementation_that_gives_no_counters_or_debt_is_judged_on_state_and_actions():
    assert gapstate.conform(Sparse(), examples=10).ok


@pytest.mark.parametrize("bug", sorted(room_loop.BUGS))
def test_each_deliberate_bug_is_found_with_a_short_trace_the_table_replays(bug):
    result = gapstate.conform(room_loop.RoomLoop(bug=bug), examples=60)
    assert not result.ok
    found = result.divergence
    assert len(found.trace) <= 5, result.report()
    assert found.index == len(found.trace) - 1
    # the expected answer is what the table does with that trace
    replayed = gapstate.replay(gapstate.load_spec(), list(found.trace))
    if "refused" in found.expected:
        assert replayed.error.index == found.index and replayed.error.kind == found.expected["refused"]
    else:
        last = replayed.steps[-1].to_dict()
        assert (last["to"], last["actions"], last["counters"]) == (
            found.expected["state"],
            found.expected["actions"],
            found.expected["counters"],
        )
    document = result.to_dict()
    assert set(document) == {"ok", "vectors", "traces", "events", "divergence"}
    assert set(document["divergence"]) == {"trace", "index", "expected", "actual"}


def test_the_actual_answer_is_the_implementations_own():
    loop = room_loop.RoomLoop(bug="send_while_busy")
    found = gapstate.conform(loop, examples=20).divergence
    loop.reset()
    answers = [loop.step(dict(event)) for event in found.trace]
    assert answers[-1] == found.actual


def test_a_divergence_is_found_by_generated_traces_alone_and_shrunk(tmp_path):
    # a vectors folder holding one harmless trace: only generated traces can find the bug
    (tmp_path / "calm.jsonl").write_text('{"event": "loss_silent", "t": 0}\n', encoding="utf-8")
    result = gapstate.conform(room_loop.RoomLoop(bug="send_while_busy"), vectors=tmp_path, examples=200)
    assert result.vectors == 1 and not result.ok
    assert result.divergence.source == "generated"
    assert [e["event"] for e in result.divergence.trace] == ["loss_voiced", "busy_start", "floor_released"]


def test_an_answer_that_is_not_a_dict_raises_the_documented_error():
    class Broken:
        def reset(self):
            pass

        def step(self, event):
            return "CLEAR"

    with pytest.raises(gapstate.GapstateError, match="not in the protocol"):
        gapstate.conform(Broken(), examples=1)
