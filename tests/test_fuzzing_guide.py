"""gapstate.fuzzing.guide and the proof's Roadmap: how far every row is, and which event heads for it."""

from __future__ import annotations

from collections import deque

import pytest

import gapstate
from gapstate.fuzzing.guide import guide_for
from gapstate.run.machine import Status
from gapstate.run.replayer import machine_for
from gapstate.table.vocabulary import EVENTS

from .support import SPEC_TEXT, line_of, variant

SPEC = gapstate.load_spec()
MACHINE = machine_for(SPEC)
GUIDE = guide_for(MACHINE)


def first_firing_depths(machine) -> dict:
    """By plain breadth-first search: the fewest events after which each row (or hole) is hit from the start."""
    depth: dict = {}
    seen = {machine.initial}
    queue = deque([(machine.initial, 0)])
    while queue:
        config, n = queue.popleft()
        if config.ended or not machine.within_caps(config):
            continue
        for event in EVENTS:
            for choice in machine.choices(config, event):
                outcome = machine.step(config, event, choice)
                if outcome.status is Status.OK:
                    depth.setdefault(outcome.row.line, n + 1)
                    if outcome.config not in seen:
                        seen.add(outcome.config)
                        queue.append((outcome.config, n + 1))
                elif outcome.status is Status.UNMATCHED:
                    depth.setdefault((config.state, event), n + 1)
    return depth


def walk_to(guide, target) -> list:
    """Follow `toward` from the start until the target is hit: the moves taken."""
    config, taken = guide.roadmap.initial, []
    while True:
        move = guide.toward(config, target)
        taken.append(move)
        if move.hits == target:
            return taken
        config = move.outcome.config
        assert len(taken) < 50


def test_every_reachable_row_is_as_far_as_a_breadth_first_search_says_and_toward_gets_there_that_fast():
    depths = first_firing_depths(MACHINE)
    assert set(GUIDE.roadmap.rows) == {t for t in depths if isinstance(t, int)}
    for row in GUIDE.roadmap.rows:
        assert GUIDE.distance(GUIDE.roadmap.initial, row) == depths[row]
        assert len(walk_to(GUIDE, row)) == depths[row]


def test_the_row_behind_the_session_cap_is_eleven_events_away():
    row = line_of(SPEC_TEXT, "DUE | floor_released | !busy,!budget_left | CLEAR | unrepaired_budget")
    assert GUIDE.distance(GUIDE.roadmap.initial, row) == 11
    assert [m.sent.event for m in walk_to(GUIDE, row)][-3:] == ["send_ok", "request_undelivered", "floor_released"]


def test_a_deleted_row_is_a_hole_the_guide_walks_into():
    holed = machine_for(gapstate.load_spec(variant("SENDING | send_failed | attempts_left,candidate_active | OPEN | supersede", "")))
    guide = guide_for(holed)
    assert guide.roadmap.holes == (("SENDING", "send_failed"),)
    moves = walk_to(guide, ("SENDING", "send_failed"))
    assert moves[-1].outcome.status is Status.UNMATCHED
    assert len(moves) == first_firing_depths(holed)[("SENDING", "send_failed")] == 4


def test_wandering_never_strands_the_target():
    row = GUIDE.roadmap.rows[-1]
    for config in GUIDE.roadmap.distance[row]:
        kept = GUIDE.keeping(config, row)
        for move in GUIDE.moves(config):
            if move.sent in kept and move.hits != row:
                assert GUIDE.distance(move.outcome.config, row) is not None


def test_only_the_rows_that_fire_from_anywhere_are_left_to_wandering():
    everywhere = {row for row in GUIDE.roadmap.rows if GUIDE.everywhere(row)}
    assert everywhere == {line_of(SPEC_TEXT, f"* | {e} |") for e in ("loss_silent", "sdk_unknown", "busy_start")}


def test_a_plan_kept_for_a_place_on_another_s_way_or_search_is_the_one_a_search_from_there_finds():
    """One search fills in the plan of every place on the way it found (or, finding none, of every place it reached)."""
    from gapstate.fuzzing.goal_coverage import fuzz_goals
    from gapstate.fuzzing.guide import Guide

    goals = fuzz_goals(MACHINE).goals
    searched = Guide(MACHINE, GUIDE.roadmap)
    for goal in goals:
        for config in GUIDE._live[::32]:
            searched.search(config, frozenset(), goal)
    kept = dict(searched._plans)
    assert None in kept.values() and len(kept) > 2 * len(goals) * len(GUIDE._live[::32])  # besides where it searched
    fresh = Guide(MACHINE, GUIDE.roadmap)
    for (config, story, name), plan in kept.items():
        goal = next(g for g in goals if g.name == name)
        fresh._plans.clear()
        assert fresh.search(config, story, goal) == plan


@pytest.mark.parametrize("every", [9, pytest.param(1, marks=pytest.mark.slow)])
def test_a_goal_planned_backwards_has_from_every_place_the_plan_a_search_from_there_finds(every):
    """The first plan asked of a goal plans it from every place a walk reaches; each is what a search finds.

    Every plan is searched afresh under `pytest -m slow` (16,632 searches, about 1.2 s of
    CPU); every ninth, across every goal, in the fast suite.
    """
    from gapstate.fuzzing.goal_coverage import fuzz_goals
    from gapstate.fuzzing.guide import Guide

    goals = fuzz_goals(MACHINE).goals
    backwards = Guide(MACHINE, GUIDE.roadmap)
    places = backwards._places()[0]
    for goal in goals:
        backwards.plan(MACHINE.initial, frozenset(), goal)
    planned = dict(backwards._plans)
    assert len(planned) == len(goals) * len(places) and None in planned.values()
    assert any(plan is not None and len(plan) > len(next(g for g in goals if g.name == name).steps) + 3
               for (_, _, name), plan in planned.items())  # ways of several steps, not only gadgets
    fresh = Guide(MACHINE, GUIDE.roadmap)
    for (config, story, name), plan in list(planned.items())[::every]:
        goal = next(g for g in goals if g.name == name)
        fresh._plans.clear()
        assert fresh.search(config, story, goal) == plan
