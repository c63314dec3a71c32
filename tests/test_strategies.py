"""gapstate.strategies, the public Hypothesis strategies (the `gapstate fuzz` command is in test_cli.py)."""

from __future__ import annotations

import pytest
from hypothesis import Phase, find, given, settings

import gapstate
import gapstate.strategies as strategies
from gapstate.strategies import any_traces, events, traces

from .support import variant

SPEC = gapstate.load_spec()
# Existence, not minimality: generate until found, and skip the costly shrinking.
FIND = settings(phases=[Phase.generate], max_examples=1000, derandomize=True, database=None, deadline=None)
BUSY = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")


def test_the_public_names_are_exactly_all():
    """Every public name the module defines itself is in __all__, and nothing else is."""
    defined = {
        name
        for name, value in vars(strategies).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == strategies.__name__
    }
    assert defined == set(strategies.__all__)


@given(events(SPEC))
def test_a_single_event_is_well_formed(item):
    gapstate.replay(SPEC, [item])  # raises GapstateError if malformed


@given(traces(SPEC, max_size=30))
def test_a_trace_replays_without_error_with_times_that_never_go_back(trace):
    result = gapstate.replay(SPEC, trace)
    assert result.ok, result.error
    times = [item["t"] for item in trace if "t" in item]
    assert times == sorted(times)
    assert all(item["event"] != "session_end" for item in trace[:-1])


@pytest.mark.parametrize(
    "wanted",
    [
        lambda tr: any(a.get("id") == b.get("id") for i, a in enumerate(tr) for b in tr[i + 1 :] if a["event"] == b["event"] == "loss_voiced"),
        lambda tr: len({e.get("id") for e in tr if e["event"] == "loss_voiced"}) >= 3,
        lambda tr: tr and tr[-1]["event"] == "session_end",
        lambda tr: any("t" not in e for e in tr[1:]),
        lambda tr: gapstate.replay(SPEC, tr).final.session_requests == 3,
        lambda tr: any(s.actions == ("settle",) for s in gapstate.replay(SPEC, tr).steps),
        lambda tr: any(s.guards == {"post_send": False} and s.source == "REQUESTED" for s in gapstate.replay(SPEC, tr).steps),
    ],
    ids=["a repeated id", "three fresh ids", "ending with session_end", "a time left out",
         "the session cap spent", "a settlement", "evidence too early in REQUESTED"],
)
def test_the_strategy_reaches(wanted):
    find(traces(SPEC), wanted, settings=FIND)  # raises NoSuchExample if it cannot


def test_evidence_speech_is_drawn_before_at_and_after_the_commit():
    def offsets(tr):
        commit, out, t = None, set(), 0
        for step, item in zip(gapstate.replay(SPEC, tr).steps, tr):
            t = item.get("t", t)
            if step.actions and step.actions[0] == "commit_request":
                commit = t
            if item["event"] == "evidence_turn" and commit is not None:
                out.add((item["speech_start"] > commit) - (item["speech_start"] < commit))
        return out

    for sign in (-1, 0, 1):
        find(traces(SPEC), lambda tr, sign=sign: sign in offsets(tr), settings=FIND)


def test_arbitrary_traces_can_be_ill_formed():
    def ill_formed(trace):
        try:
            gapstate.replay(SPEC, trace)
        except gapstate.GapstateError:
            return True
        return False

    find(any_traces(SPEC), ill_formed, settings=FIND)


@pytest.mark.parametrize("kind", ["invalid_event", "after_session_end"])
def test_arbitrary_traces_reach_each_refusal(kind):
    def refused(trace):
        try:
            error = gapstate.replay(SPEC, trace).error
        except gapstate.GapstateError:
            return False
        return error is not None and error.kind == kind

    find(any_traces(SPEC), refused, settings=FIND)
