"""The Hypothesis strategies behind gapstate.strategies (its face: test_strategies.py; `gapstate fuzz`: test_fuzzing_fuzzer.py).

That guided traces are well-formed, replay, and fire every reachable row is
proved once, beside the interpreter and the explorer, in test_properties.py.
"""

from __future__ import annotations

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis.errors import InvalidArgument, NoSuchExample

import gapstate
import gapstate.fuzzing.strategies as implementation
from gapstate.fuzzing.guide import guide_for
from gapstate.run.replayer import machine_for
from gapstate.strategies import any_traces, events, traces

from .support import SPEC_TEXT, line_of, variant

SPEC = gapstate.load_spec()
# Existence, not minimality: generate until found, and skip the costly shrinking.
FIND = settings(phases=[Phase.generate], max_examples=1000, derandomize=True, database=None, deadline=None)
SHRINK = settings(max_examples=1000, derandomize=True, database=None, deadline=None)


@given(events(SPEC))
def test_a_single_event_is_well_formed(item):
    gapstate.replay(SPEC, [item])  # raises GapstateError if malformed


REACHABLE = set(guide_for(machine_for(SPEC)).roadmap.rows)


@pytest.mark.slow  # two samples of 40 traces
def test_toward_heads_for_the_named_row_first():
    deep = line_of(SPEC_TEXT, "DUE | floor_released | !busy,!budget_left | CLEAR | unrepaired_budget")

    def share(strategy):
        fired = []

        @settings(max_examples=40, phases=[Phase.generate])
        @given(strategy)
        def walk(trace):
            fired.append(deep in {step.row for step in gapstate.replay(SPEC, trace).steps})

        walk()
        return sum(fired) / len(fired)

    # 11 events is the shortest way there; the first few examples Hypothesis draws are tiny
    assert share(traces(SPEC, toward=deep)) > max(0.5, share(traces(SPEC)))


@pytest.mark.parametrize("bad", [3, 10_000, "195", 199])  # a blank line, past the end, not an int, an invalid row
def test_toward_must_name_a_row_that_can_fire(bad):
    text = variant("OPEN | send_ok | - | = | invalid", "OPEN | send_ok | - | = | invalid")
    if bad == 199:
        bad = line_of(text, "OPEN | send_ok | - | = | invalid")
    with pytest.raises(InvalidArgument):
        traces(gapstate.load_spec(text), toward=bad)


@pytest.mark.slow  # generating until a settlement is found, then shrinking it: seconds of CPU
def test_a_failing_trace_shrinks_to_the_events_the_failure_needs():
    """Every choice is drawn through Hypothesis: a failure found deep in a walk shrinks to a short trace."""
    settled = find(traces(SPEC), lambda tr: any(s.actions == ("settle",) for s in gapstate.replay(SPEC, tr).steps), settings=SHRINK)
    assert [e["event"] for e in settled] == ["loss_voiced", "floor_released", "send_ok", "evidence_turn"]


def test_each_row_a_trace_fires_is_a_hypothesis_event():
    seen: list[str] = []

    @settings(max_examples=5)
    @given(traces(SPEC))
    def records(trace):
        pass

    import hypothesis.control as control

    real = control.event

    def spy(value, payload=""):
        seen.append(value)
        return real(value, payload)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(implementation, "event", spy)
        records()
    assert seen and all(label.startswith("row ") for label in seen)
    line = int(seen[0].split()[1].rstrip(":"))
    assert line in REACHABLE


@pytest.mark.slow  # a search of up to 1,000 traces; fuzz walks into a hole fast in test_fuzzing_fuzzer.py
def test_on_a_table_with_a_hole_some_traces_end_with_the_event_no_row_matches():
    """The environment may send any event the table does not mark invalid: a deleted row is walked into."""
    holed = gapstate.load_spec(variant("OPEN | busy_end | - | = | noop", ""))

    def falls_in(trace):
        error = gapstate.replay(holed, trace).error
        return error is not None and error.kind == "invalid_event" and error.index == len(trace) - 1

    found = find(traces(holed), falls_in, settings=FIND)
    assert found[-1]["event"] == "busy_end"
    assert gapstate.replay(holed, found).error.message.startswith("no row matches busy_end in OPEN")


@pytest.mark.parametrize(
    "wanted",
    [
        lambda tr: any(a.get("id") == b.get("id") for i, a in enumerate(tr) for b in tr[i + 1 :] if a["event"] == b["event"] == "loss_voiced"),
        pytest.param(lambda tr: len({e.get("id") for e in tr if e["event"] == "loss_voiced"}) >= 3, marks=pytest.mark.slow),
        lambda tr: tr and tr[-1]["event"] == "session_end",
        lambda tr: any("t" not in e for e in tr[1:]),
        pytest.param(lambda tr: gapstate.replay(SPEC, tr).final.session_requests == 3, marks=pytest.mark.slow),
        lambda tr: any(s.actions == ("settle",) for s in gapstate.replay(SPEC, tr).steps),
        pytest.param(lambda tr: any(s.guards == {"post_send": False} and s.source == "REQUESTED" for s in gapstate.replay(SPEC, tr).steps),
                     marks=pytest.mark.slow),
    ],  # the three that take a few hundred traces to find run under `pytest -m slow`
    ids=["a repeated id", "three fresh ids", "ending with session_end", "a time left out",
         "the session cap spent", "a settlement", "evidence too early in REQUESTED"],
)
def test_the_strategy_reaches(wanted):
    find(traces(SPEC), wanted, settings=FIND)  # raises NoSuchExample if it cannot


@pytest.mark.slow  # three searches of up to 1,000 traces each
def test_evidence_speech_is_drawn_before_at_and_after_the_commit():
    def offsets(tr):
        commit, out, t = None, set(), 0
        for step, item in zip(gapstate.replay(SPEC, tr).steps, tr, strict=True):
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


# Boundary goals ---------------------------------------------------------------------


def _meets(name):
    from gapstate.fuzzing.goal_coverage import fuzz_goals, met

    goals = fuzz_goals(machine_for(SPEC)).goals
    return lambda trace: name in met(goals, gapstate.replay(SPEC, trace))


def test_a_walk_heading_for_a_goal_realizes_its_boundary():
    """A loss, the release and the commit at one ms, then speech at that ms and 1 ms later."""
    find(traces(SPEC, goals=["post_send:loss-at-commit"]), _meets("post_send:loss-at-commit"), settings=FIND)


@pytest.mark.slow  # 100 traces without goals, each time: seconds of CPU
@pytest.mark.parametrize("name", ["post_send:loss-at-commit", "late_loss:cleared-by-failure", "episode_attempts:fresh-from-CLEAR-after-2"])
def test_goals_lead_walks_to_boundaries_that_walks_toward_rows_miss(name):
    budget = settings(FIND, max_examples=100)
    with pytest.raises(NoSuchExample):
        find(traces(SPEC, goals=False), _meets(name), settings=budget)
    find(traces(SPEC, goals=[name]), _meets(name), settings=budget)


def test_goals_must_be_ones_a_walk_can_meet():
    with pytest.raises(InvalidArgument, match="refuse:210"):
        find(traces(SPEC, goals=["refuse:210"]), lambda trace: True, settings=FIND)
    with pytest.raises(InvalidArgument, match="no-such-goal"):
        find(traces(SPEC, goals=["no-such-goal"]), lambda trace: True, settings=FIND)
