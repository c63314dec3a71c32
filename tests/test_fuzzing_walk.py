"""gapstate.fuzzing.walk: a drawn walk follows a goal's plan and realizes each step at the boundary it names."""

from __future__ import annotations

import gapstate
from gapstate.fuzzing.goals import Way
from gapstate.fuzzing.guide import guide_for
from gapstate.fuzzing.walk import GuidedWalk
from gapstate.run.concrete import AFTER, AT, AT_DUP, BEFORE, EPISODE, SETTLED
from gapstate.run.replayer import Session, machine_for

SPEC = gapstate.load_spec()
MACHINE = machine_for(SPEC)
GUIDE = guide_for(MACHINE)


def no_draw(strategy):
    raise AssertionError("a boundary step draws nothing")


def walk_after(*events: dict) -> GuidedWalk:
    walk = GuidedWalk(Session(MACHINE), GUIDE, GUIDE.targets)
    for item in events:
        walk.feed(item)
    return walk


COMMITTED = ({"event": "loss_voiced", "t": 100, "id": "iv-1"}, {"event": "floor_released", "t": 200}, {"event": "send_ok", "t": 300})


def test_a_plan_is_taken_step_by_step_and_its_goal_counts_as_hit_at_its_last():
    walk = walk_after()
    walk.target, walk.plan = "g", [Way.of("loss_voiced"), Way.of("floor_released")]
    assert walk.planned() == Way.of("loss_voiced") and "g" not in walk.hit
    walk.feed({"event": "loss_voiced", "t": 100, "id": "iv-1"})
    assert walk.planned() == Way.of("floor_released") and "g" in walk.hit and walk.plan == []


def test_a_plan_whose_next_step_the_table_refuses_here_is_dropped():
    walk = walk_after()
    walk.target, walk.plan = "g", [Way.of("send_ok")]  # an invalid row in CLEAR
    assert walk.planned() is None and walk.plan == [] and "g" not in walk.hit


def test_speech_is_put_one_ms_before_at_or_one_ms_after_the_commit():
    walk = walk_after(*COMMITTED)
    assert [walk.speech(no_draw, how, how == AFTER, 400) for how in (BEFORE, AT, AFTER)] == [299, 300, 301]


def test_speech_at_a_repeated_notice_is_at_its_time_and_a_repeat_names_the_kind_asked():
    walk = walk_after(*COMMITTED, {"event": "loss_voiced", "t": 350, "id": "iv-1"})
    assert walk.concrete.dup_at == 350 and walk.speech(no_draw, AT_DUP, True, 400) == 350
    assert walk.concrete.kinds == {"iv-1": EPISODE}
    settled = walk_after(*COMMITTED, {"event": "evidence_turn", "t": 400, "speech_start": 301})
    assert settled.concrete.kinds == {"iv-1": SETTLED} and SETTLED in settled.story
    assert settled.repeated_id(lambda strategy: 0, SETTLED) == "iv-1"
