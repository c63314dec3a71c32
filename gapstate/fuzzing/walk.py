"""A guided walk being drawn: the session so far, where it heads, and how each move is realized.

`strategies.traces` draws every choice through Hypothesis and asks this
module what the choice means: which target (a row, a hole of the table, or a
boundary goal of `goals`) the walk heads for next, which move a wandering
step takes, and how a payload realizes a guard's value. A goal is followed
by its `Guide.plan` (the shortest way to where its gadget fits, then the
gadget), realized at the boundary the gadget names: the previous event's
millisecond, speech 1 ms before, at or 1 ms after the horizon, a repeated
notice for an id of a given kind.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

from gapstate.fuzzing.goals import Goal, Story, Way, retold
from gapstate.fuzzing.guide import Guide
from gapstate.run.concrete import AFTER, AT, AT_DUP, BEFORE, KINDS, Concretizer
from gapstate.run.machine import Outcome, Status
from gapstate.run.replayer import Session
from gapstate.table.vocabulary import PAYLOADS, SEEN, Stimulus

Draw = Callable[[st.SearchStrategy[Any]], Any]  # Hypothesis' `draw`, or a `Chance`

# What each strategy the walks draw from gives, for `Chance`: (low, high) of an integer, None for a boolean.
_BOUNDS: weakref.WeakKeyDictionary[st.SearchStrategy[Any], tuple[int, int] | None] = weakref.WeakKeyDictionary()


def integers(low: int, high: int) -> st.SearchStrategy[int]:
    """st.integers(low, high), which `Chance` can draw too."""
    strategy = st.integers(low, high)
    _BOUNDS[strategy] = (low, high)
    return strategy


BOOL = st.booleans()
_BOUNDS[BOOL] = None


@lru_cache(maxsize=4096)
def upto(high: int) -> st.SearchStrategy[int]:
    """integers(0, high), built once per bound: building a strategy per draw costs more than the draw."""
    return integers(0, high)


_END = 7
_ENDS = integers(0, _END)  # about one target in eight is the end of the session
_GOAL = integers(0, 3)  # with goals to head for, a row walk makes one target in four a goal

SIMPLEST = 0.125  # how often `Chance` draws an integer's lower bound, as Hypothesis favours the simplest value


class Chance:
    """`draw` for the walks without Hypothesis: each strategy they draw from, sampled by a seeded `random.Random`.

    An integer is its lower bound one time in eight (Hypothesis too draws
    the simplest value often: it is what stops a trace, retargets a walk,
    takes the first id), else uniform over its range; a boolean is a coin.
    The walk code is the same as under Hypothesis, so the traces are the
    same kind of walk; only who chooses differs.
    """

    __slots__ = ("random", "known", "_next")

    def __init__(self, seed: int):
        self.random = random.Random(seed)
        self._next = self.random.random
        # the bounds of each strategy drawn from, looked up in _BOUNDS once: a weak dictionary's
        # lookup builds a weak reference each time (the strategies stay alive while this lives)
        self.known: dict[st.SearchStrategy[Any], tuple[int, int] | None] = {}

    def __call__(self, strategy: st.SearchStrategy[Any]) -> Any:
        bounds = self.known.get(strategy, _UNSEEN)
        if bounds is _UNSEEN:
            bounds = self.known[strategy] = _BOUNDS[strategy]
        if bounds is None:
            return self._next() < 0.5
        return self.integer(*bounds)

    def integer(self, low: int, high: int) -> int:
        """What drawing `integers(low, high)` gives, without the strategy."""
        chance = self._next()  # one draw decides: below SIMPLEST the lower bound, else where it falls above
        if chance < SIMPLEST:
            return low
        span = high - low
        above = int((chance - SIMPLEST) / _ABOVE * (span + 1))  # up to span, span + 1 if the product rounds up
        return low + (above if above <= span else span)


_UNSEEN: Any = object()  # a strategy Chance has not looked up yet
_ABOVE = 1 - SIMPLEST


def draw_upto(draw: Draw, high: int) -> int:
    """`draw(upto(high))`; a Chance draws it with no strategy built (about 90 us for each new bound, a time say)."""
    if type(draw) is Chance:
        return draw.integer(0, high)
    return draw(upto(high))


# The moves a trace can make: an event, and for an event whose payload sets a
# guard (`vocabulary.PAYLOADS`), which way the payload points: a SEEN value
# fresh or repeated, an AFTER value before, at or after the horizon.
FRESH, REPEAT = "fresh", "repeat"
_WAYS = {True: (FRESH, REPEAT), False: (BEFORE, AT, AFTER)}  # by "reads SEEN"


def moves_of(names: tuple[str, ...]) -> tuple[tuple[str, str | None], ...]:
    """Every move of the named events: the event, and which way its payload points (None: it has none)."""
    out: list[tuple[str, str | None]] = []
    for name in names:
        payload = PAYLOADS.get(name)
        if payload is None:
            out.append((name, None))
        else:
            out += [(name, way) for way in _WAYS[payload.reads == SEEN]]
    return tuple(out)


def _choice(seen: bool, committed: bool, way: str | None) -> bool | None:
    """The value a move gives its event's chosen guard in a session that has seen an id or not, committed or
    not; None when the move is impossible there."""
    if way == REPEAT:
        return True if seen else None
    if way in (AT, AFTER) and not committed:
        return None  # with nothing committed, speech has nothing to be at or after
    return way == AFTER


@lru_cache(maxsize=64)
def _positions(guide: Guide, pool: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The positions targets are drawn from: those that do not end the session, and those that do.

    Each target holds as many positions as events it takes to hit from the
    start: the rows deep in the table, behind the caps, are the ones random
    walks miss, so they are drawn more often. A row that fires from every
    configuration (a note, busy_start) is left to wandering: heading for it
    teaches nothing, and a walk that never depends on having fired it
    shrinks by deleting it.
    """
    kept = tuple(t for t in pool if not guide.everywhere(t)) or pool
    weighted = [t for t in kept for _ in range(guide.distance(guide.roadmap.initial, t) or 1)]
    return tuple(t for t in weighted if not guide.ends(t)), tuple(t for t in weighted if guide.ends(t))


class GuidedWalk:
    """A trace being drawn: the session so far, the target it heads for, the targets and goals it has hit."""

    __slots__ = ("concrete", "session", "guide", "pool", "kinds", "endings", "target", "hit", "stopped",
                 "goals", "names", "goal_walk", "plan", "story", "outcomes")

    def __init__(self, session: Session, guide: Guide, pool: tuple[Any, ...], goals: tuple[Goal, ...] = (),
                 goal_walk: bool = False, outcomes: list[Outcome] | None = None):
        self.concrete = Concretizer(session)  # the session, the time, the ids given and their kinds
        self.session = session  # the concretizer's: a walk replays as it is drawn
        self.guide = guide
        self.pool = pool  # the targets this walk heads for, in table order
        self.kinds = _positions(guide, pool)
        self.endings = _positions(guide, guide.targets)[1]
        self.target: Any = None  # a row's line, a hole, or a goal's name
        self.hit: set[Any] = set()
        self.stopped = False  # the last event fell into a hole of the table: nothing follows
        self.goals = {goal.name: goal for goal in goals}  # the boundary goals it may head for, by name
        self.names = tuple(self.goals)
        self.goal_walk = goal_walk  # every target a goal (while one's plan fits), not one in four
        self.plan: list[Way] = []  # the rest of the way to the goal it heads for, its gadget included
        self.story = Story()  # what the goals read of the history: the kinds of id seen
        self.outcomes = outcomes  # when kept: each event's Outcome, in order

    def feed(self, item: dict[str, Any]) -> dict[str, Any]:
        """Replay the drawn event (no `t`: the previous event's time) and note the target it hit and the story it tells."""
        name = item["event"]
        repeated = self.concrete.repeats(item)
        outcome = self.concrete.feed(item)
        assert outcome is not None
        if self.outcomes is not None:
            self.outcomes.append(outcome)
        if outcome.status is not Status.OK:  # a hole in the table: no configuration follows, the session stays
            self.hit.add((self.session.config.state, name))
            self.stopped = True
            return item
        assert outcome.row is not None, "a step taken names its row"
        self.hit.add(outcome.row.line)
        self.story = retold(self.story, name, repeated, outcome.actions)
        return item

    def choose(self, draw: Draw, unhit: bool) -> Any:
        """A target drawn by its fixed position in the pool; None if the walk can hit nothing more.

        With goals to head for, one choice in four (every choice, on a goal
        walk) is a goal this walk has not met, whose plan from here exists
        (the first of three tried from a drawn position); its plan becomes
        the walk's. Otherwise the first
        target at or after a drawn position that this session can still hit
        and (unless the walk is told to retarget) has not hit yet:
        GraphWalker's next unvisited edge. About one choice in eight is
        among the rows of `session_end`, which end the walk; so is a choice
        when nothing else can be hit any more (the requests are spent), and
        the next trace is a fresh session. Naming the target by position,
        not by its place among the targets reachable now, keeps a later
        event what it was when an earlier one is deleted, which is what lets
        a walk shrink.
        """
        guide, config = self.guide, self.session.config
        self.plan = []
        if self.goals and (self.goal_walk or draw(_GOAL) == 0):
            names = self.names
            start = draw_upto(draw, len(names) - 1)
            tried = 0
            for name in names[start:] + names[:start]:
                if name in self.hit:
                    continue
                plan = guide.plan(config, self.story, self.goals[name])
                if plan is not None:
                    self.plan = list(plan)
                    return name
                tried += 1
                if tried == 3:
                    break
        rest, ending = self.kinds
        pool = ending if (draw(_ENDS) == _END and ending) or not rest else rest
        start = draw_upto(draw, len(pool) - 1)
        reach = guide.reachable(config)
        hit = self.hit if unhit else ()
        for target in pool[start:] + pool[:start]:
            if target in reach and target not in hit:
                return target
        if unhit:  # all hit: any target will do
            for target in pool[start:] + pool[:start]:
                if target in reach:
                    return target
        return next((t for t in self.endings if t in reach), None)

    def planned(self) -> Way | None:
        """The next step of the plan, taken off it, or None (the plan dropped) when it no longer fits here.

        A plan fits while its next step is one the environment may send
        here and any repeated notice it asks for has an id of the kind it
        names; the walk's goal counts as hit when its last step is taken.
        """
        if not self.plan:
            return None
        way = self.plan[0]
        outcome = self.guide.machine.step(self.session.config, *way.sent)
        fits = outcome.status is Status.OK and not (way.how in KINDS and way.how not in self.concrete.kinds.values())
        if not fits:
            self.plan = []
            return None
        self.plan.pop(0)
        if not self.plan:
            self.hit.add(self.target)
        return way

    def speech(self, draw: Draw, how: str, choice: bool, t: int) -> int:
        """An evidence turn's speech_start for a planned step: at the boundary it names, else drawn as `realize` says."""
        horizon = self.session.horizon()
        dup_at = self.concrete.dup_at
        if how == AT_DUP and dup_at is not None:
            return dup_at
        if horizon is None:
            return draw_upto(draw, t)
        if how in (BEFORE, AT, AFTER):
            return max(0, horizon + {BEFORE: -1, AT: 0, AFTER: 1}[how])
        return horizon + 1 + (draw_upto(draw, 299) if draw(BOOL) else 0) if choice else horizon

    def repeated_id(self, draw: Draw, how: str) -> str:
        """The id a planned repeated notice names: one of the kind asked for, else any seen."""
        given = self.concrete.kinds
        ids = sorted(i for i, k in given.items() if how not in KINDS or k == how) or sorted(given)
        return ids[draw_upto(draw, len(ids) - 1)]


def wander(draw: Draw, allowed: frozenset[Stimulus], session: Session,
           moves: tuple[tuple[str, str | None], ...]) -> int | None:
    """A move the environment may send, as its index in the fixed list of moves, drawn at random.

    The move is named by its fixed position (the first allowed move at or
    after a drawn index), not by its place among the moves allowed now:
    deleting an earlier event then leaves the later ones what they were,
    which is what lets a failure shrink to a short trace.
    """
    accepted = _accepted(allowed, moves, bool(session.seen), session.horizon() is not None)
    if not accepted:
        return None
    start = draw_upto(draw, len(moves) - 1)
    return next((i for i in accepted if i >= start), accepted[0])


@lru_cache(maxsize=4096)
def _accepted(allowed: frozenset[Stimulus], moves: tuple[tuple[str, str | None], ...], seen: bool,
              committed: bool) -> tuple[int, ...]:
    """The indices of the moves `allowed` holds, in a session that has seen an id or not, committed or not.

    What wandering may take depends on nothing else, so it is worked out
    once for each (a few hundred in all, against one a wandering step).
    """
    return tuple(  # an impossible move's choice is None, in no Stimulus
        i for i, (name, way) in enumerate(moves) if (name, _choice(seen, committed, way)) in allowed
    )


def way_of(draw: Draw, session: Session, name: str, choice: bool) -> str | None:
    """How the payload realizes a guided move's guard choice."""
    payload = PAYLOADS.get(name)
    if payload is None:
        return None
    if payload.reads == SEEN:
        return REPEAT if choice else FRESH
    if choice:
        return AFTER
    return AT if session.horizon() is not None and draw(BOOL) else BEFORE
