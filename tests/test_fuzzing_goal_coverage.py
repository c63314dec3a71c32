"""gapstate.fuzzing.goal_coverage: the boundary goals and transition pairs a replayed trace meets."""

from __future__ import annotations

import gapstate
from gapstate.conformance.vectors import build
from gapstate.fuzzing.goal_coverage import fuzz_goals, met, readings
from gapstate.run.replayer import machine_for

SPEC = gapstate.load_spec()
GOALS = fuzz_goals(machine_for(SPEC))
COMMITTED = [  # a loss, its send committed at 300: the horizon is 300
    {"event": "loss_voiced", "t": 100, "id": "iv-1"},
    {"event": "floor_released", "t": 200},
    {"event": "send_ok", "t": 300},
]


def goals_of(trace: list[dict]) -> set[str]:
    return {name for name in met(GOALS.goals, gapstate.replay(SPEC, trace)) if not name.startswith("pair:")}


def test_every_goal_and_pair_a_vector_claims_is_read_off_its_replay():
    """The vectors plan their goals; reading any trace must find the same ones (refusals aside: fuzz sends none)."""
    suite = build(SPEC)
    found: set[str] = set()
    for vector in suite.vectors:
        seen = met(GOALS.goals, vector.result)
        assert {name for name in vector.goals if name in GOALS.names} <= seen, vector.name
        found |= seen
    assert set(GOALS.names) <= found
    assert {f"pair:{a}>{b}" for a, b in suite.pairs} == {name for name in found if name.startswith("pair:")}


def test_refusal_goals_are_not_what_fuzz_can_meet():
    assert not any(name.startswith(("refuse:", "after_end:")) for name in GOALS.names)
    assert "post_send:at" in GOALS.names and "session_requests:at-cap" in GOALS.names
    assert len(GOALS.pairs) == len(build(SPEC).possible_pairs)


def test_speech_exactly_at_one_ms_before_and_one_ms_after_the_commit_meet_three_goals():
    assert "post_send:at" in goals_of(COMMITTED + [{"event": "evidence_turn", "t": 400, "speech_start": 300}])
    assert "post_send:before" in goals_of(COMMITTED + [{"event": "evidence_turn", "t": 400, "speech_start": 299}])
    assert "post_send:after" in goals_of(COMMITTED + [{"event": "evidence_turn", "t": 400, "speech_start": 301}])


def test_speech_away_from_the_boundary_meets_no_boundary_goal():
    assert not goals_of(COMMITTED + [{"event": "evidence_turn", "t": 400, "speech_start": 350}]) & {
        "post_send:at", "post_send:before", "post_send:after"}
    assert not goals_of(COMMITTED + [{"event": "evidence_turn", "t": 400, "speech_start": 5}]) & {
        "post_send:at", "post_send:before", "post_send:after"}


def test_a_repeated_notice_is_read_with_the_kind_of_id_it_names():
    settled = COMMITTED + [{"event": "evidence_turn", "t": 400, "speech_start": 301}, {"event": "loss_voiced", "t": 500, "id": "iv-1"}]
    assert "id:settled:CLEAR" in goals_of(settled)
    assert "id:episode:REQUESTED" in goals_of(COMMITTED + [{"event": "loss_voiced", "t": 400, "id": "iv-1"}])
    steps = readings(gapstate.replay(SPEC, settled))
    assert steps[-1].sent.choice and "settled" in steps[-1].hows


def test_an_event_without_t_is_at_the_previous_millisecond():
    trace = [{"event": "loss_voiced", "t": 100, "id": "iv-1"}, {"event": "floor_released"}]
    assert "same_ms" in readings(gapstate.replay(SPEC, trace))[1].hows


def test_a_fuzz_result_lists_goals_met_and_missed_by_name_and_counts_pairs():
    from gapstate.fuzzing.fuzzer import FuzzResult

    result = FuzzResult("spec.md", (0,), 1, 1, None, (), (), goals=GOALS.names, met=("post_send:at", GOALS.pairs[0]),
                        pairs=len(GOALS.pairs))
    report = result.goal_coverage
    assert report["met"] == ["post_send:at"]
    assert len(report["missed"]) == len(GOALS.names) - 1
    assert report["pairs"] == {"possible": len(GOALS.pairs), "covered": 1}
