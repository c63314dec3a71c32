"""The Hypothesis strategies' implementation: `gapstate.strategies` is their public face.

What each strategy gives is said there; how `traces` walks the table is
`walk` and `guide`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from gapstate.fuzzing.guide import guide_for
from gapstate.fuzzing.walk import (
    BOOL,
    FRESH,
    REPEAT,
    Chance,
    Draw,
    GuidedWalk,
    draw_upto,
    integers,
    moves_of,
    wander,
    way_of,
)
from gapstate.run.concrete import AFTER, AT, SAME_MS
from gapstate.run.event import FIELDS, TEXTS, TIMES, fresh_id
from gapstate.run.machine import Outcome, Status
from gapstate.run.replayer import Session, machine_for
from gapstate.table.load import Spec, resolve
from gapstate.table.vocabulary import EVENTS, PAYLOADS, SEEN, SESSION_END

_IDS = tuple(fresh_id(n) for n in range(1, 7))
_GAPS = (0, 0, 1, 5, 40, 250, 1000)  # ms between events: equal times are common
_GAP = integers(0, len(_GAPS) - 1)
_MORE = integers(0, 255)  # 0 twice stops the trace: long traces, and stopping is what shrinks
# Each event heads for the walk's target, or draws a new target first
# (_RETARGET, rarely while generating, and where shrinking leads: an event
# that names its own target stays what it was when earlier events go), or
# wanders (_WANDER and up, one in four).
_RETARGET, _WANDER = 0, 48
_MODES = integers(0, 63)


def _event_names(spec: Spec) -> tuple[str, ...]:
    named = {row.event for row in spec.table.rows} if spec.table else set()
    return tuple(name for name in EVENTS if name in named) or tuple(EVENTS)


def events(spec: Any = None) -> st.SearchStrategy[dict[str, Any]]:
    """One well-formed event of an event the table names, with a plausible payload."""
    names = _event_names(resolve(spec))
    times = st.integers(min_value=0, max_value=3_600_000)

    def payload(name: str) -> st.SearchStrategy[dict[str, Any]]:
        fields: dict[str, st.SearchStrategy[Any]] = {"event": st.just(name)}
        payload = PAYLOADS.get(name)
        if payload is not None:
            fields[payload.field] = st.sampled_from(_IDS) if payload.reads == SEEN else times
        return st.fixed_dictionaries(fields, optional={"t": times})

    return st.sampled_from(names).flatmap(payload)


def _targets(spec: Spec, toward: Any) -> tuple[int, ...] | None:
    """`toward` checked against the table: lines of rows that are not `invalid`."""
    if toward is None:
        return None
    lines = (toward,) if isinstance(toward, int) else tuple(toward)
    rows = {row.line: row for row in spec.table.rows} if spec.table else {}
    for line in lines:
        if not isinstance(line, int) or line not in rows or rows[line].invalid:
            raise InvalidArgument(f"toward={line!r} is not the line of a row of {spec.path} that can fire")
    return lines


def traces(spec: Any = None, max_size: int = 60, toward: Any = None, goals: Any = None, *,
           _goal_walks: bool = True) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Traces of at most `max_size` events that walk the table, heading for its rows and boundary goals.

    Each event is one the environment may send in the configuration reached
    so far (anything the table does not mark `invalid`), so on a total table
    every trace replays without error; on a table that is not total a trace
    may end with an event no row matches. Most events follow a shortest way
    to a target: a row not yet fired on this walk, or an event the table
    forgot (see `GuidedWalk.choose`); the others wander, never past the target
    for good. `toward` (a row's line, or several) makes walks head for
    those rows only. `goals` (True for every boundary goal a walk can meet,
    the default unless `toward` is given; goal names as `gapstate vectors`
    lists them; False for none) makes half the walks goal walks, every
    target a goal (followed by its plan and realized at its boundary) while
    one's plan fits, and the other half row walks, one target in four a
    goal: so a boundary bug, such as a repeated notice that moves the loss
    time, is found within Hypothesis' default 100 examples, and every row
    is still fired. (`_goal_walks=False` is for `gapstate fuzz`, which
    steers its last fifth to the goals not met itself: every walk a row
    walk.) Each
    trace calls `hypothesis.event()` once per row it fires. The table is
    explored on the first draw, not here, so building the strategy (at
    import of a test module) costs nothing.
    """
    spec = resolve(spec)
    wanted = _targets(spec, toward)
    if goals is None:
        goals = wanted is None  # heading for rows of one's own, or for the boundaries too
    return _walk(_drawing(spec, max_size, wanted, goals, _goal_walks))


def _drawing(spec: Spec, max_size: int, wanted: tuple[int, ...] | None, goals: Any, goal_walks: bool) -> _Drawing:
    machine = machine_for(spec)
    labels = {row.line: f"row {row.line}: {row}" for row in spec.table.rows} if spec.table else {}  # for hypothesis.event()
    # session_end ends the walk: it is sent when a walk heads for one of its
    # rows, or at the very end, never while wandering.
    moves = moves_of(tuple(name for name in _event_names(spec) if name != SESSION_END))
    return _Drawing(machine, wanted, labels, moves, max_size, goals, goal_walks)


def chance_walks(spec: Spec, seed: int, max_size: int = 60) -> Iterator[tuple[list[dict[str, Any]], list[Outcome]]]:
    """The walks of `traces(spec, max_size)`, without end, every choice drawn by `walk.Chance(seed)`, not Hypothesis.

    The same code walks the table (rows, holes and boundary goals as
    targets, half the walks goal walks); the choices come from a seeded
    `random.Random`, so a seed gives the same traces every time, at a
    small fraction of what Hypothesis' engine costs a choice. Nothing here
    shrinks: `conform` shrinks what diverges by itself. Each trace comes
    with the table's Outcome of each of its events, as the walk replayed
    them drawing it: what a fresh `Session` fed the trace gives, event by
    event (a walk ends at an event the table does not take), so `conform`
    compares an implementation's answers with these rather than replaying
    the trace again.
    """
    drawing = _drawing(spec, max_size, None, True, True)
    draw = Chance(seed)
    while True:
        outcomes: list[Outcome] = []
        yield _walked(draw, drawing, lambda: _stepped(draw, drawing), None, outcomes), outcomes


class _Drawing:
    """What the walks of one `traces` strategy are drawn with; the composites below are built once, at import.

    (`st.composite` reads the source of the function it wraps: defined
    inside `traces`, they were read again on every call.)
    """

    __slots__ = ("machine", "wanted", "labels", "moves", "max_size", "goals", "goal_walks", "walking", "one_step")

    def __init__(self, machine: Any, wanted: tuple[int, ...] | None, labels: dict[int, str],
                 moves: tuple[tuple[str, str | None], ...], max_size: int, goals: Any, goal_walks: bool):
        self.machine = machine
        self.wanted = wanted
        self.labels = labels
        self.moves = moves
        self.max_size = max_size
        self.goals = goals
        self.goal_walks = goal_walks
        self.walking: list[GuidedWalk] = []  # the walk being drawn, for `_step` (one strategy object, built once)
        self.one_step = _step(self)


@st.composite
def _step(draw: st.DrawFn, drawing: _Drawing) -> tuple[dict[str, Any], int] | None:
    """One more event and its time, or None to stop: one span, so the shrinker can delete it whole."""
    return _stepped(draw, drawing)


def _stepped(draw: Draw, drawing: _Drawing) -> tuple[dict[str, Any], int] | None:
    if not draw(_MORE) and not draw(_MORE):
        return None
    walk = drawing.walking[-1]
    t, first = walk.concrete.t, walk.concrete.fed == 0
    session, guide = walk.session, walk.guide
    config = session.config
    move = planned = None
    mode = draw(_MODES)
    if mode != _RETARGET:
        planned = walk.planned()  # a walk on a goal's plan keeps to it: wandering would leave its boundary
    if mode < _WANDER:
        target = walk.target
        if planned is None and (mode == _RETARGET or target is None or target in walk.hit
                                or target in walk.goals or target not in guide.reachable(config)):
            target = walk.target = walk.choose(draw, unhit=mode != _RETARGET)
            planned = walk.planned()
        if planned is None and target is not None and target not in walk.goals:
            move = guide.toward(config, target)
    if planned is not None:
        name = planned.sent.event
        way = way_of(draw, session, name, planned.sent.choice)
    elif move is not None:
        name = move.sent.event
        way = way_of(draw, session, name, move.sent.choice)
    else:
        walk.plan = []  # a wandering step leaves the plan's way
        allowed = guide.keeping(config, walk.target if walk.target not in walk.hit else None)
        index = wander(draw, allowed, session, drawing.moves)
        if index is None:
            return None
        name, way = drawing.moves[index]
    previous = t
    gap = _GAPS[draw(_GAP)]
    t += 0 if planned is not None and planned.how == SAME_MS else gap
    seen: str | None = None  # a repeated id, drawn (a fresh one is the concretizer's next)
    after: int | None = None  # a speech start, drawn
    if way is not None:
        reference = session.horizon()
        if way == REPEAT:
            if planned is not None:
                seen = walk.repeated_id(draw, planned.how)
            else:
                ids = sorted(session.seen)
                seen = ids[draw_upto(draw, len(ids) - 1)]
        elif way == FRESH:
            pass
        elif planned is not None:
            after = walk.speech(draw, planned.how, planned.sent.choice, t)
            t = max(t, after)
        elif reference is None:
            after = draw_upto(draw, t)
        elif way == AFTER:
            # half the time 1 ms after the horizon: the boundary a non-strict comparison gets wrong
            after = reference + 1 + (draw_upto(draw, 299) if draw(BOOL) else 0)
            t = max(t, after)
        elif way == AT or reference == 0:
            after = reference
        else:
            after = reference - 1 - (draw_upto(draw, reference - 1) if draw(BOOL) else 0)
    item = walk.concrete.item(name, t=t, seen=seen, after=after)
    if not first and t == previous and draw(BOOL):
        del item["t"]  # absent: the previous event's time
    return item, t


@st.composite
def _walk(draw: st.DrawFn, drawing: _Drawing) -> list[dict[str, Any]]:
    """One trace, drawn a step at a time (see `traces`)."""
    return _walked(draw, drawing, lambda: draw(drawing.one_step), event)


def _walked(draw: Draw, drawing: _Drawing, step: Callable[[], tuple[dict[str, Any], int] | None],
            label: Callable[[str], None] | None, outcomes: list[Outcome] | None = None) -> list[dict[str, Any]]:
    """One trace: `step` draws each event, `label` (`hypothesis.event`, under Hypothesis) is told each row it fired.

    `outcomes`, when given, gets the Outcome of each event of the trace, in order.
    """
    machine, wanted, walking = drawing.machine, drawing.wanted, drawing.walking
    guide = guide_for(machine)
    goals = _goals(machine, drawing.goals)
    goal_walk = bool(goals) and drawing.goal_walks and draw(BOOL)  # drawn first: shrinking turns it to a row walk
    walk = GuidedWalk(Session(machine), guide, guide.targets if wanted is None else wanted, goals, goal_walk, outcomes)
    if wanted is not None and not guide.nearest(machine.initial, wanted):
        raise InvalidArgument(f"toward={wanted!r}: no such row fires on a reachable configuration")
    session = walk.session
    trace: list[dict[str, Any]] = []
    walking.append(walk)
    try:
        while len(trace) < drawing.max_size - 1 and not session.config.ended:  # room for session_end
            drawn = step()
            if drawn is None:
                break
            trace.append(walk.feed(drawn[0]))
            if walk.stopped:
                break
    finally:
        walking.pop()
    if not walk.stopped and machine.step(session.config, SESSION_END).status not in (Status.REFUSED, Status.ENDED):
        if draw(BOOL):
            trace.append(walk.feed({"event": SESSION_END, "t": walk.concrete.t + _GAPS[draw(_GAP)]}))
    if label is not None:
        for target in walk.hit:
            if target in drawing.labels or isinstance(target, tuple):
                label(drawing.labels[target] if target in drawing.labels else _hole_label(target))
    return trace


def _goals(machine: Any, goals: Any) -> tuple[Any, ...]:
    """The boundary goals a walk heads for: none, every one it can meet (True), or those named."""
    if not goals:
        return ()
    from gapstate.fuzzing.goal_coverage import fuzz_goals

    meetable = fuzz_goals(machine).goals
    if goals is True:
        return meetable
    named = {goal.name: goal for goal in meetable}
    for name in goals:
        if name not in named:
            raise InvalidArgument(f"goals: {name!r} is not a boundary goal a walk can meet on this table")
    return tuple(named[name] for name in goals)


def _hole_label(hole: tuple[str, str]) -> str:
    """What `hypothesis.event()` records for an event that fell into a hole of the table."""
    state, name = hole
    return f"no row matches {name} in {state}"


def any_traces(spec: Any = None, max_size: int = 30) -> st.SearchStrategy[list[Any]]:
    """Arbitrary sequences: well-formed events, events in any order, and malformed values."""
    names = st.sampled_from(tuple(EVENTS))
    scalar = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-10, max_value=10**7),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
        names,
    )
    keys = st.one_of(st.sampled_from(FIELDS), st.text(max_size=6))
    loose = st.dictionaries(keys, scalar, max_size=5)
    near = {key: st.integers(min_value=-5, max_value=5000) for key in TIMES}  # times, some negative
    near.update({key: st.sampled_from(_IDS + ("",)) for key in TEXTS})  # ids, some empty
    labelled = st.fixed_dictionaries({"event": names}, optional={key: near[key] for key in FIELDS if key != "event"})
    item = st.one_of(events(spec), labelled, labelled, loose, scalar, st.lists(scalar, max_size=3))
    # Well-formed events in any order, times left out so they never go back:
    # what an interpreter must refuse as invalid_event or after_session_end.
    unordered = st.lists(events(spec).map(lambda e: {k: v for k, v in e.items() if k != "t"}), max_size=max_size)
    return st.one_of(traces(spec, max_size=max_size), unordered, st.lists(item, max_size=max_size))
