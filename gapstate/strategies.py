"""Hypothesis strategies for fuzzing the gap-state table, or an implementation of it.

- `events(spec)`: single well-formed events with plausible payloads.
- `traces(spec, max_size=..., toward=...)`: well-formed traces that walk
  the table towards its rows along the proof's shortest ways (`guide`):
  each event is one the environment may send in the configuration reached
  so far (anything the table does not mark `invalid`), times never go back
  (and sometimes stand still, or are left out), interval ids are sometimes
  fresh and sometimes repeated, evidence speech starts before, at or after
  the later of the last commit and the last unseen loss (often 1 ms either
  side of it, where a comparison that is not strict errs), and the trace ends
  with or without `session_end`.
- `any_traces(spec)`: arbitrary sequences, well-formed or not, for checking
  that whatever reads traces rejects what it must.

Every trace is a list of dicts in the trace format, so a failing example
pastes into `gapstate replay` as JSON Lines. `spec` is a loaded spec, a
path, markdown text, or None for the bundled spec.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from gapstate.testing.guide import Guide, guide_for
from gapstate.run.machine import Status
from gapstate.run.replayer import Session, machine_for
from gapstate.spec.vocabulary import EVENTS, PAYLOADS, SEEN
from gapstate.spec.load import Spec, resolve
from gapstate.run.trace import Event

__all__ = ["any_traces", "events", "traces"]

_BOOL = st.booleans()


@lru_cache(maxsize=4096)
def _upto(high: int) -> st.SearchStrategy[int]:
    """integers(0, high), built once per bound: building a strategy per draw costs more than the draw."""
    return st.integers(0, high)


_IDS = tuple(f"iv-{n}" for n in range(1, 7))
_GAPS = (0, 0, 1, 5, 40, 250, 1000)  # ms between events: equal times are common
_GAP = st.integers(0, len(_GAPS) - 1)
_MORE = st.integers(0, 255)  # 0 twice stops the trace: long traces, and stopping is what shrinks
# Each event heads for the walk's target, or draws a new target first
# (_RETARGET, rarely while generating, and where shrinking leads: an event
# that names its own target stays what it was when earlier events go), or
# wanders (_WANDER and up, one in four).
_RETARGET, _WANDER = 0, 48
_MODES = st.integers(0, 63)
_END = 7
_ENDS = st.integers(0, _END)  # about one target in eight is the end of the session


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


# The moves a trace can make: an event, and for an event whose payload sets a
# guard (`vocabulary.PAYLOADS`), which way the payload points: a SEEN value
# fresh or repeated, an AFTER value before, at or after the horizon.
_FRESH, _REPEAT = "fresh", "repeat"
_BEFORE, _AT, _AFTER = "before", "at", "after"
_WAYS = {True: (_FRESH, _REPEAT), False: (_BEFORE, _AT, _AFTER)}  # by "reads SEEN"


def _moves(names: tuple[str, ...]) -> tuple[tuple[str, str | None], ...]:
    out: list[tuple[str, str | None]] = []
    for name in names:
        payload = PAYLOADS.get(name)
        if payload is None:
            out.append((name, None))
        else:
            out += [(name, way) for way in _WAYS[payload.reads == SEEN]]
    return tuple(out)


def _choice(session: Session, name: str, way: str | None) -> bool | None:
    """The value the move gives the event's chosen guard, or None when the move is impossible."""
    if way == _REPEAT:
        return True if session.seen else None
    if way in (_AT, _AFTER) and session.horizon() is None:
        return None  # with nothing committed, speech has nothing to be at or after
    return way == _AFTER


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


class _Walk:
    """A trace being drawn: the session so far, the target it heads for, the targets it has hit."""

    __slots__ = ("session", "guide", "pool", "kinds", "endings", "target", "hit", "stopped", "t", "fed")

    def __init__(self, session: Session, guide: Guide, pool: tuple[Any, ...]):
        self.session = session
        self.guide = guide
        self.pool = pool  # the targets this walk heads for, in table order
        self.kinds = _positions(guide, pool)
        self.endings = _positions(guide, guide.targets)[1]
        self.target: Any = None
        self.hit: set[Any] = set()
        self.stopped = False  # the last event fell into a hole of the table: nothing follows
        self.t = 0  # the time of the last event
        self.fed = 0  # events so far

    def feed(self, item: dict[str, Any], t: int) -> dict[str, Any]:
        """Replay the drawn event (its time filled in) and note the target it hit."""
        session = self.session
        state = session.config.state
        self.fed += 1
        outcome = session.feed(Event(**{**item, "t": t}))
        if outcome.status is Status.OK:
            self.hit.add(outcome.row.line)
        else:  # a hole in the table: no configuration follows
            self.hit.add((state, item["event"]))
            self.stopped = True
        return item

    def choose(self, draw: st.DrawFn, unhit: bool) -> Any:
        """A target drawn by its fixed position in the pool; None if the walk can hit nothing more.

        The first target at or after a drawn position that this session can
        still hit and (unless the walk is told to retarget) has not hit yet:
        GraphWalker's next unvisited edge. About one choice in eight is
        among the rows of `session_end`, which end the walk; so is a choice
        when nothing else can be hit any more (the requests are spent), and
        the next trace is a fresh session. Naming the target by position,
        not by its place among the targets reachable now, keeps a later
        event what it was when an earlier one is deleted, which is what lets
        a walk shrink.
        """
        guide, config = self.guide, self.session.config
        rest, ending = self.kinds
        pool = ending if (draw(_ENDS) == _END and ending) or not rest else rest
        start = draw(_upto(len(pool) - 1))
        for target in pool[start:] + pool[:start]:
            if not (unhit and target in self.hit) and guide.distance(config, target) is not None:
                return target
        if unhit:  # all hit: any target will do
            for target in pool[start:] + pool[:start]:
                if guide.distance(config, target) is not None:
                    return target
        return next((t for t in self.endings if guide.distance(config, t) is not None), None)


def _wander(draw: st.DrawFn, allowed: set[tuple[str, bool]], session: Session, moves: tuple[tuple[str, str | None], ...]) -> int | None:
    """A move the environment may send, as its index in the fixed list of moves, drawn at random.

    The move is named by its fixed position (the first allowed move at or
    after a drawn index), not by its place among the moves allowed now:
    deleting an earlier event then leaves the later ones what they were,
    which is what lets a failure shrink to a short trace.
    """
    accepted = [
        i for i, (name, way) in enumerate(moves) if (name, _choice(session, name, way)) in allowed
    ]
    if not accepted:
        return None
    start = draw(_upto(len(moves) - 1))
    return next((i for i in accepted if i >= start), accepted[0])


def _way(draw: st.DrawFn, session: Session, name: str, choice: bool) -> str | None:
    """How the payload realizes a guided move's guard choice."""
    payload = PAYLOADS.get(name)
    if payload is None:
        return None
    if payload.reads == SEEN:
        return _REPEAT if choice else _FRESH
    if choice:
        return _AFTER
    return _AT if session.horizon() is not None and draw(_BOOL) else _BEFORE


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


def traces(spec: Any = None, max_size: int = 60, toward: Any = None) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Traces of at most `max_size` events that walk the table, heading for its rows.

    Each event is one the environment may send in the configuration reached
    so far (anything the table does not mark `invalid`), so on a total table
    every trace replays without error; on a table that is not total a trace
    may end with an event no row matches. Most events follow a shortest way
    to a target: a row not yet fired on this walk, or an event the table
    forgot (see `_Walk.choose`); the others wander, never past the target
    for good. `toward` (a row's line, or several) makes walks head for
    those rows only. Each trace calls `hypothesis.event()` once per row it
    fires. The table is explored on the first draw, not here, so building
    the strategy (at import of a test module) costs nothing.
    """
    spec = resolve(spec)
    machine = machine_for(spec)
    wanted = _targets(spec, toward)
    labels = {row.line: f"row {row.line}: {row}" for row in spec.table.rows}  # what hypothesis.event() records
    # session_end ends the walk: it is sent when a walk heads for one of its
    # rows, or at the very end, never while wandering.
    moves = _moves(tuple(name for name in _event_names(spec) if name != "session_end"))

    walking: list[_Walk] = []  # the walk being drawn, for `step` (one strategy object, built once)

    @st.composite
    def step(draw: st.DrawFn) -> tuple[dict[str, Any], int] | None:
        """One more event and its time, or None to stop: one span, so the shrinker can delete it whole."""
        if not draw(_MORE) and not draw(_MORE):
            return None
        walk = walking[-1]
        t, first = walk.t, walk.fed == 0
        session, guide = walk.session, walk.guide
        config = session.config
        move = None
        mode = draw(_MODES)
        if mode < _WANDER:
            target = walk.target
            if mode == _RETARGET or target is None or target in walk.hit or guide.distance(config, target) is None:
                target = walk.target = walk.choose(draw, unhit=mode != _RETARGET)
            move = None if target is None else guide.toward(config, target)
        if move is not None:
            name = move.event
            way = _way(draw, session, name, move.choice)
        else:
            allowed = guide.keeping(config, walk.target if walk.target not in walk.hit else None)
            index = _wander(draw, allowed, session, moves)
            if index is None:
                return None
            name, way = moves[index]
        previous = t
        t += _GAPS[draw(_GAP)]
        item: dict[str, Any] = {"event": name, "t": t}
        if way is not None:
            field = PAYLOADS[name].field
            reference = session.horizon()
            if way == _FRESH:
                item[field] = next((i for i in _IDS if i not in session.seen), f"iv-{len(session.seen) + 1}")
            elif way == _REPEAT:
                seen = sorted(session.seen)
                item[field] = seen[draw(_upto(len(seen) - 1))]
            elif reference is None:
                item[field] = draw(_upto(t))
            elif way == _AFTER:
                # half the time 1 ms after the horizon: the boundary a non-strict comparison gets wrong
                item[field] = reference + 1 + (draw(_upto(299)) if draw(_BOOL) else 0)
                t = item["t"] = max(t, item[field])
            elif way == _AT or reference == 0:
                item[field] = reference
            else:
                item[field] = reference - 1 - (draw(_upto(reference - 1)) if draw(_BOOL) else 0)
        if not first and t == previous and draw(_BOOL):
            del item["t"]  # absent: the previous event's time
        return item, t

    one_step = step()

    @st.composite
    def build(draw: st.DrawFn) -> list[dict[str, Any]]:
        guide = guide_for(machine)
        walk = _Walk(Session(machine), guide, guide.targets if wanted is None else wanted)
        if wanted is not None and not guide.nearest(machine.initial, wanted):
            raise InvalidArgument(f"toward={wanted!r}: no such row fires on a reachable configuration")
        session = walk.session
        trace: list[dict[str, Any]] = []
        walking.append(walk)
        try:
            while len(trace) < max_size - 1 and not session.config.ended:  # room for session_end
                drawn = draw(one_step)
                if drawn is None:
                    break
                item, walk.t = drawn
                trace.append(walk.feed(item, walk.t))
                if walk.stopped:
                    break
        finally:
            walking.pop()
        if not walk.stopped and machine.step(session.config, "session_end").status not in (Status.REFUSED, Status.ENDED):
            if draw(_BOOL):
                walk.t += _GAPS[draw(_GAP)]
                trace.append(walk.feed({"event": "session_end", "t": walk.t}, walk.t))
        for target in walk.hit:
            event(labels[target] if target in labels else _hole_label(target))
        return trace

    return build()


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
    keys = st.one_of(st.sampled_from(("event", "t", "id", "speech_start")), st.text(max_size=6))
    loose = st.dictionaries(keys, scalar, max_size=5)
    labelled = st.fixed_dictionaries(
        {"event": names},
        optional={
            "t": st.integers(min_value=-5, max_value=5000),
            "id": st.sampled_from(_IDS + ("",)),
            "speech_start": st.integers(min_value=-5, max_value=5000),
        },
    )
    item = st.one_of(events(spec), labelled, labelled, loose, scalar, st.lists(scalar, max_size=3))
    # Well-formed events in any order, times left out so they never go back:
    # what an interpreter must refuse as invalid_event or after_session_end.
    unordered = st.lists(events(spec).map(lambda e: {k: v for k, v in e.items() if k != "t"}), max_size=max_size)
    return st.one_of(traces(spec, max_size=max_size), unordered, st.lists(item, max_size=max_size))
