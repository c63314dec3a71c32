"""Which boundary goals a replayed trace meets: the goals `vectors` plans, read off any trace.

The vectors claim a goal when their own planned gadget shows in the
replay; `fuzz` draws its traces at random (heading for the same goals, see
`guide.Guide.plan`), so it reads each replay instead: every step is read as
the `Way` it could realize (its event, the value of its chosen guard, and
how: at the previous event's millisecond, speech 1 ms before, at or 1 ms
after the horizon or at a repeated notice's time, the kind of id a repeated
notice names), and a goal is met where its gadget's steps follow each other
from a configuration and story where it applies (on the bundled table they
lead through the states the gadget expects; on a table under test they may
not, and the boundary was exercised all the same). Transition pairs are named as the vectors name
them, `pair:A>B` for rows at lines A and B fired one right after the other.

Goals that end in a refusal (`refuse:LINE`, `after_end:...`) are left out:
`fuzz` replays a table and sends only what the table accepts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any, NamedTuple

from gapstate.fuzzing.boundaries import catalogue
from gapstate.fuzzing.goals import REFUSED, Goal, Story, Way, retell
from gapstate.run.concrete import AFTER, AT, AT_DUP, BEFORE, EPISODE, SAME_MS, SETTLED, WRITTEN_OFF
from gapstate.run.machine import Machine
from gapstate.run.replayer import ReplayResult
from gapstate.table.vocabulary import ENDINGS, PAYLOADS, SEEN, WRITE_OFFS, Config, Stimulus


class Reading(NamedTuple):
    """One replayed step as a goal reads it."""

    config: Config  # before the step
    story: Story  # before the step
    sent: Stimulus
    hows: frozenset[str]  # the realizations it fits (Way.how); "" fits any
    state: str  # the state after it
    clean: bool  # it broke no rule
    ended: bool  # it ended the session
    row: int


def readings(result: ReplayResult) -> list[Reading]:
    """Each replayed step of `result` with what the goals read of it."""
    out: list[Reading] = []
    story = Story()
    kinds: dict[str, str] = {}  # interval id -> the kind of id it now is
    dup_at = previous = None
    for step in result.steps or ():
        item, outcome = step.item, step.outcome
        t = item.t if item is not None and item.t is not None else previous  # no t: the previous event's
        hows: set[str] = set()
        if t is not None and t == previous:
            hows.add(SAME_MS)
        choice = False
        payload = PAYLOADS.get(step.event)
        if item is None or payload is None:
            pass  # no payload sets a guard: the choice is False
        elif payload.reads == SEEN:  # an interval id: fresh, or a repeat of one of a kind
            choice = item.id in kinds
            if choice:
                hows.add(kinds[item.id])
                dup_at = t
            else:
                kinds[item.id] = EPISODE
        else:  # speech against the horizon
            horizon = step.horizon  # the replayer's: the later of the commit and the last unseen loss
            speech = item.speech_start
            choice = horizon is not None and speech > horizon
            if horizon is not None:
                hows.update({-1: (BEFORE,), 0: (AT,), 1: (AFTER,)}.get(speech - horizon, ()))
            if dup_at is not None and speech == dup_at:
                hows.add(AT_DUP)
        out.append(Reading(step.before, story, Stimulus(step.event, choice), frozenset(hows), outcome.config.state,
                           not outcome.broken, outcome.config.ended, outcome.row.line if outcome.row else 0))
        story = retell(story, Way.of(step.event, choice), outcome.actions)
        if ENDINGS.intersection(outcome.actions):
            kind = WRITTEN_OFF if WRITE_OFFS.intersection(outcome.actions) else SETTLED
            kinds.update((i, kind) for i, k in kinds.items() if k == EPISODE)
        previous = t
    return out


def _fits(way: Way, reading: Reading) -> bool:
    return way.sent == reading.sent and (not way.how or way.how in reading.hows)


def met(goals: Iterable[Goal], result: ReplayResult) -> set[str]:
    """The names of the goals, and the `pair:A>B` names, that the replay shows."""
    steps = readings(result)
    found = {f"pair:{a.row}>{b.row}" for a, b in pairwise(steps) if a.clean and b.clean}
    by_event: dict[str, list[Goal]] = {}
    for goal in goals:
        by_event.setdefault(goal.steps[0].sent.event, []).append(goal)
    for start, first in enumerate(steps):
        for goal in by_event.get(first.sent.event, ()):
            if goal.name not in found and _shows(goal, steps, start):
                found.add(goal.name)
    return found


def _shows(goal: Goal, steps: list[Reading], start: int) -> bool:
    """Whether the gadget's steps, as it names them, were sent from `start` on, where the goal applies.

    What the table then did is not asked (on a table under test it may lead
    elsewhere, or break a rule, which ends the replay: the boundary was
    still exercised).
    """
    if not goal.when(steps[start].config, steps[start].story):
        return False
    for offset, way in enumerate(goal.steps):
        if start + offset >= len(steps):
            return False
        reading = steps[start + offset]
        if not _fits(way, reading) or (reading.ended and not goal.ends):
            return False
        if not reading.clean:
            return True
    return True


@dataclass(frozen=True)
class Goals:
    """What a fuzz run can meet on a table: the goals a planned suite meets without a refusal, and the possible pairs."""

    goals: tuple[Goal, ...]
    pairs: tuple[str, ...]  # `pair:A>B` for every two rows that can fire one right after the other

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(goal.name for goal in self.goals)


def possible_pairs(exploration: Any) -> set[tuple[int, int]]:
    """Every two rows that can fire one right after the other, along moves that break no rule."""
    clean = {node: [m for m in exploration.moves(node) if not m.breaks] for node in exploration.nodes()}
    return {(first.row, second.row) for firsts in clean.values() for first in firsts for second in clean[first.target]}


@lru_cache(maxsize=8)
def fuzz_goals(machine: Machine) -> Goals:
    """The machine's goals that a walk without refusals can meet, and its possible pairs."""
    from gapstate.fuzzing.guide import guide_for

    guide = guide_for(machine)
    goals = guide.meetable(tuple(goal for goal in catalogue(machine) if REFUSED not in goal.expect))
    pairs = sorted(possible_pairs(guide.roadmap.exploration))
    return Goals(goals, tuple(f"pair:{a}>{b}" for a, b in pairs))


