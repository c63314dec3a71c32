"""gapstate/fuzzing/goals.py: where each boundary goal's gadget fits, the story a step tells, and plans made concrete as replayable traces."""

from __future__ import annotations

import functools

import gapstate
from gapstate.fuzzing.boundaries import catalogue
from gapstate.fuzzing.goals import Way, realize, retell
from gapstate.run.concrete import AFTER, AT, BEFORE, EPISODE, SAME_MS, SETTLED, STEP_MS, WRITTEN_OFF
from gapstate.run.replayer import machine_for

LOSS, RELEASE, COMMIT, EVIDENCE = Way.of("loss_voiced"), Way.of("floor_released"), Way.of("send_ok"), Way.of("evidence_turn")
TO_REQUESTED = [LOSS, RELEASE, COMMIT]  # a gap opened, its request sent and committed
SETTLED_PLAN = TO_REQUESTED + [Way.of("evidence_turn", True, AFTER)]  # speech after the commit: the gap is settled


@functools.cache
def machine():
    return machine_for(gapstate.load_spec())


def walk(plan):
    """The configuration and story after a plan's steps."""
    config, story = machine().initial, frozenset()
    for way in plan:
        outcome = machine().step(config, *way.sent)
        config, story = outcome.config, retell(story, way, outcome.actions)
    return config, story


def states_after(trace, skip):
    steps = gapstate.replay(gapstate.load_spec(), trace).steps
    return [step.outcome.config.state for step in steps][skip:]


def test_every_goal_that_fits_is_realized_as_a_trace_through_the_states_it_expects():
    config, story = walk(TO_REQUESTED)
    fitting = [goal for goal in catalogue(machine()) if goal.fit(machine(), config, story) is not None]
    assert {"post_send:before", "post_send:at", "post_send:after", "post_send:after-dup"} <= {g.name for g in fitting}
    for goal in fitting:
        trace = realize(machine(), TO_REQUESTED + list(goal.steps))
        assert states_after(trace, len(TO_REQUESTED)) == list(goal.expect), goal.name
        assert goal.fit(machine(), config, story)[0].state == goal.expect[-1]


def test_a_goal_does_not_fit_where_its_condition_fails_or_its_id_was_never_seen():
    initial, nothing = machine().initial, frozenset()
    goals = {goal.name: goal for goal in catalogue(machine())}
    assert goals["post_send:at"].fit(machine(), initial, nothing) is None  # not in REQUESTED
    assert goals["id:settled:CLEAR"].fit(machine(), initial, nothing) is None  # no settled id to repeat
    settled = walk(SETTLED_PLAN)
    assert settled[0].state == "CLEAR" and goals["id:settled:CLEAR"].fit(machine(), *settled) == settled


def test_a_refusal_goal_fits_after_the_end_and_leaves_the_walk_where_it_stood():
    ended, story = walk([Way.of("session_end")])
    goal = {goal.name: goal for goal in catalogue(machine())}["after_end:send_ok"]
    assert goal.fit(machine(), ended, story) == (ended, story)
    assert goal.fit(machine(), machine().initial, story) is None


def test_evidence_speaks_before_at_or_after_the_last_commit_as_asked():
    commit = STEP_MS * len(TO_REQUESTED)
    for how, offset in ((BEFORE, -1), (AT, 0), (AFTER, 1)):
        trace = realize(machine(), TO_REQUESTED + [Way.of("evidence_turn", how == AFTER, how)])
        assert trace[-1]["speech_start"] == commit + offset
    assert realize(machine(), [LOSS, EVIDENCE])[-1]["speech_start"] == 0  # nothing committed: it speaks at 0


def test_times_step_unless_asked_to_stay_and_a_refused_step_ends_the_trace():
    trace = realize(machine(), [LOSS, Way.of("floor_released", how=SAME_MS), Way.of("busy_start")])
    assert [event["t"] for event in trace] == [STEP_MS, STEP_MS, 2 * STEP_MS]
    assert realize(machine(), [COMMIT, LOSS]) == [{"event": "send_ok", "t": STEP_MS}]  # refused in CLEAR


def test_a_repeated_notice_names_an_id_of_the_kind_asked_for():
    assert walk(SETTLED_PLAN)[1] == frozenset({SETTLED})
    trace = realize(machine(), SETTLED_PLAN + [LOSS, Way.of("loss_voiced", True, SETTLED), Way.of("loss_voiced", True, EPISODE)])
    assert [event["id"] for event in trace if "id" in event] == ["iv-1", "iv-2", "iv-1", "iv-2"]


def test_the_story_files_an_episode_s_ids_as_it_ends():
    opened = retell(frozenset(), LOSS, ("open_gap",))
    assert opened == {EPISODE}
    assert retell(opened, Way.of("loss_voiced", True), ("note_dup",)) == {EPISODE}  # a repeat adds no id
    written_off = next(iter(gapstate.table.vocabulary.WRITE_OFFS))
    assert retell(opened, RELEASE, (written_off,)) == {WRITTEN_OFF}
