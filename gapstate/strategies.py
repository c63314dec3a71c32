"""Hypothesis strategies for fuzzing the gap-state table, or an implementation of it.

- `events(spec)`: single well-formed events with plausible payloads.
- `traces(spec, max_size=...)`: well-formed traces: each event is one the
  table does not refuse in the configuration reached so far, times never go
  back (and sometimes stand still, or are left out), interval ids are
  sometimes fresh and sometimes repeated, evidence speech starts before, at
  or after the later of the last commit and the last unseen loss, and the
  trace ends with or without `session_end`.
- `any_traces(spec)`: arbitrary sequences, well-formed or not, for checking
  that whatever reads traces rejects what it must.

Every trace is a list of dicts in the trace format, so a failing example
pastes into `gapstate replay` as JSON Lines. `spec` is a loaded spec, a
path, markdown text, or None for the bundled spec.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from .machine import Status
from .replayer import Session, machine_for
from .semantics import EVENTS
from .spec import Spec, resolve
from .trace import Event

__all__ = ["any_traces", "events", "traces"]

_IDS = tuple(f"iv-{n}" for n in range(1, 7))
_GAPS = (0, 0, 1, 5, 40, 250, 1000)  # ms between events: equal times are common
_GAP = st.integers(0, len(_GAPS) - 1)
_MORE = st.integers(0, 255)  # 0 stops the trace: long traces, and stopping is what shrinks


def _event_names(spec: Spec) -> tuple[str, ...]:
    named = {row.event for row in spec.table.rows} if spec.table else set()
    return tuple(name for name in EVENTS if name in named) or tuple(EVENTS)


def events(spec: Any = None) -> st.SearchStrategy[dict[str, Any]]:
    """One well-formed event of an event the table names, with a plausible payload."""
    names = _event_names(resolve(spec))
    times = st.integers(min_value=0, max_value=3_600_000)

    def payload(name: str) -> st.SearchStrategy[dict[str, Any]]:
        fields: dict[str, st.SearchStrategy[Any]] = {"event": st.just(name)}
        if name == "loss_voiced":
            fields["id"] = st.sampled_from(_IDS)
        if name == "evidence_turn":
            fields["speech_start"] = times
        return st.fixed_dictionaries(fields, optional={"t": times})

    return st.sampled_from(names).flatmap(payload)


# The moves a trace can make: an event, and for the two events whose guard
# comes from the payload, which way the payload points.
_FRESH, _REPEAT = "fresh", "repeat"
_BEFORE, _AT, _AFTER = "before", "at", "after"


def _moves(names: tuple[str, ...]) -> tuple[tuple[str, str | None], ...]:
    out: list[tuple[str, str | None]] = []
    for name in names:
        if name == "loss_voiced":
            out += [(name, _FRESH), (name, _REPEAT)]
        elif name == "evidence_turn":
            out += [(name, _BEFORE), (name, _AT), (name, _AFTER)]
        else:
            out.append((name, None))
    return tuple(out)


def _choice(session: Session, name: str, way: str | None) -> bool | None:
    """The value the move gives the event's chosen guard, or None when the move is impossible."""
    if way == _REPEAT:
        return True if session.seen else None
    if way in (_AT, _AFTER) and session.horizon() is None:
        return None  # with nothing committed, speech has nothing to be at or after
    return way == _AFTER


def _pick(draw: st.DrawFn, tiers: tuple[list[int], ...], count: int) -> int:
    """A move, as its index in the fixed list of moves.

    Two thirds of the time the move must change the configuration, and half
    of those the state too, so that traces get deep enough to spend the caps
    instead of drowning in notes. The move is named by its fixed position
    (the first accepted move at or after a drawn index), not by its place
    among the moves accepted now: deleting an earlier event then leaves the
    later ones what they were, which is what lets a failure shrink to a
    short trace. Both draws shrink towards "any move, the first one".
    """
    tier = draw(st.integers(0, 2))
    candidates = next(t for t in (tiers[tier], tiers[1], tiers[0]) if t)
    start = draw(st.integers(0, count - 1))
    return next((index for index in candidates if index >= start), candidates[0])


def traces(spec: Any = None, max_size: int = 60) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Well-formed traces of at most `max_size` events, the last one maybe `session_end`.

    Built by walking the table: each event is drawn among the moves the
    table accepts from the configuration reached so far, so every trace
    replays without `invalid_event` or `after_session_end` and shrinks to a
    shorter trace that still does.
    """
    spec = resolve(spec)
    machine = machine_for(spec)
    # session_end comes only last (or not at all): mid-trace it would cut
    # every trace short of the corners that take many steps to reach.
    moves = _moves(tuple(name for name in _event_names(spec) if name != "session_end"))

    @st.composite
    def step(draw: st.DrawFn, session: Session, t: int, first: bool) -> tuple[dict[str, Any], int] | None:
        """One more event and its time, or None to stop: one span, so the shrinker can delete it whole."""
        if not draw(_MORE):
            return None
        tiers: tuple[list[int], list[int], list[int]] = ([], [], [])
        for index, (name, way) in enumerate(moves):
            choice = _choice(session, name, way)
            if choice is None:
                continue
            outcome = machine.step(session.config, name, choice)
            if outcome.status == Status.OK:
                tiers[0].append(index)
                if outcome.config != session.config:
                    tiers[1].append(index)
                if outcome.config.state != session.config.state:
                    tiers[2].append(index)
        if not tiers[0]:
            return None
        name, way = moves[_pick(draw, tiers, len(moves))]
        previous = t
        t += _GAPS[draw(_GAP)]
        item: dict[str, Any] = {"event": name, "t": t}
        if way == _FRESH:
            item["id"] = next((i for i in _IDS if i not in session.seen), f"iv-{len(session.seen) + 1}")
        elif way == _REPEAT:
            item["id"] = draw(st.sampled_from(sorted(session.seen)))
        elif name == "evidence_turn":
            reference = session.horizon()
            if reference is None:
                item["speech_start"] = draw(st.integers(min_value=0, max_value=t))
            elif way == _AFTER:
                item["speech_start"] = reference + draw(st.integers(min_value=1, max_value=300))
                t = item["t"] = max(t, item["speech_start"])
            elif way == _AT or reference == 0:
                item["speech_start"] = reference
            else:
                item["speech_start"] = reference - draw(st.integers(min_value=1, max_value=reference))
        if not first and t == previous and draw(st.booleans()):
            del item["t"]  # absent: the previous event's time
        return item, t

    @st.composite
    def build(draw: st.DrawFn) -> list[dict[str, Any]]:
        session = Session(machine)
        trace: list[dict[str, Any]] = []
        t = 0
        while len(trace) < max_size - 1 and not session.config.ended:  # room for session_end
            drawn = draw(step(session, t, not trace))
            if drawn is None:
                break
            item, t = drawn
            outcome = session.feed(Event(**{**item, "t": t}))
            assert outcome.status == Status.OK, (item, outcome.status)
            trace.append(item)
        ending = machine.step(session.config, "session_end").status == Status.OK
        if ending and draw(st.booleans()):
            trace.append({"event": "session_end", "t": t + _GAPS[draw(_GAP)]})
        return trace

    return build()


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
