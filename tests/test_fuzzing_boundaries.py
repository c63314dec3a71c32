"""gapstate/fuzzing/boundaries.py: the catalogue of boundary goals, each written in the vocabulary's names."""

from __future__ import annotations

import functools

import gapstate
from gapstate.fuzzing.boundaries import catalogue
from gapstate.fuzzing.goals import REFUSED
from gapstate.run.concrete import AFTER, AT, AT_DUP, BEFORE, KINDS, SAME_MS
from gapstate.run.replayer import machine_for
from gapstate.table.load import parse_spec
from gapstate.table.vocabulary import EVENTS, PAYLOADS, STATES

from .support import variant


@functools.cache
def machine():
    return machine_for(gapstate.load_spec())


def test_goal_names_are_unique_and_follow_the_caps():
    names = [goal.name for goal in catalogue(machine())]
    assert len(names) == len(set(names)) == 38
    three = machine_for(parse_spec(variant("@cap episode_attempts 2", "@cap episode_attempts 3"), "spec.md"))
    more = {goal.name for goal in catalogue(three)} - set(names)
    assert more == {"episode_attempts:fresh-from-REQUESTED-after-3", "episode_attempts:fresh-from-CLEAR-after-3"}


def test_every_gadget_sends_known_events_realized_as_their_payload_can_be_and_expects_known_states():
    hows = {"", SAME_MS, BEFORE, AT, AFTER, AT_DUP, *KINDS}
    for goal in catalogue(machine()):
        assert goal.steps and len(goal.expect) == len(goal.steps), goal.name
        for way in goal.steps:
            assert way.sent.event in EVENTS and way.how in hows, (goal.name, way)
            assert not way.sent.choice or way.sent.event in PAYLOADS, (goal.name, way)  # only a payload's guard is chosen
        assert all(state in STATES or state in (None, REFUSED) for state in goal.expect), goal.name
        assert goal.covers and goal.name.split(":")[0], goal.name
