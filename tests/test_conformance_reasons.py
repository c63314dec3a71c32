"""gapstate/conformance/reasons.py: why the table answered an event as it did, each guard with the values it came from."""

from __future__ import annotations

import functools

import gapstate
from gapstate.conformance.reasons import guard_reasons
from gapstate.run.event import Event
from gapstate.run.machine import Status
from gapstate.run.replayer import Session, machine_for

LOSS = {"event": "loss_voiced", "t": 120, "id": "iv-1"}
RELEASE = {"event": "floor_released", "t": 300}
COMMIT = {"event": "send_ok", "t": 420}


@functools.cache
def _machine():
    return machine_for(gapstate.load_spec())


def reasons(*trace: dict) -> tuple[Status, tuple[str, ...]]:
    """The reasons for the last event, read off a session as it stood before it, as `conformance.explained` does."""
    before, after = Session(_machine()), Session(_machine())
    for event in trace[:-1]:
        before.feed(Event(**event))
        after.feed(Event(**event))
    outcome = after.feed(Event(**trace[-1]))
    return outcome.status, guard_reasons(before, trace[-1], outcome)


def test_a_seen_payload_says_whether_its_value_came_before():
    assert reasons(LOSS) == (Status.OK, ("dup is false: id 'iv-1' was not yet seen this session",))
    assert reasons(LOSS, {**LOSS, "t": 130}) == (Status.OK, ("dup is true: id 'iv-1' was already seen this session",))


def test_an_after_payload_names_the_commit_and_the_loss_it_had_to_follow():
    at = reasons(LOSS, RELEASE, COMMIT, {"event": "evidence_turn", "t": 900, "speech_start": 420})[1]
    assert at == ("post_send is false: speech_start 420 is not strictly after the commit at 420 "
                  "and the last unseen loss_voiced at 120",)
    later = reasons(LOSS, RELEASE, COMMIT, {"event": "evidence_turn", "t": 900, "speech_start": 421})[1]
    assert later[0].startswith("post_send is true: speech_start 421 is strictly after the commit at 420")


def test_a_guard_on_a_counter_gives_the_counter_and_its_cap():
    status, said = reasons(LOSS, RELEASE)
    assert status is Status.OK
    assert said == (
        "busy is false: the interviewer is idle",
        "budget_left is true: session_requests is below its cap (session_requests is 0, its cap 3)",
        "attempts_left is true: episode_attempts is below its cap (episode_attempts is 0, its cap 2)",
    )


def test_a_refused_event_is_said_to_be_refused_in_its_state():
    assert reasons({"event": "send_ok", "t": 1}) == (Status.REFUSED, ("send_ok cannot occur in CLEAR: the row marks it as refused",))


def test_after_session_end_nothing_is_read_off_the_guards():
    ended = reasons({"event": "session_end", "t": 1}, {"event": "busy_start", "t": 2})
    assert ended == (Status.ENDED, ("the session already ended: nothing follows session_end",))
