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

from types import SimpleNamespace
from typing import Any

from hypothesis import strategies as st

from .machine import OK
from .replayer import Session, machine_for
from .semantics import EVENTS
from .spec import Spec, load_spec

__all__ = ["any_traces", "events", "traces"]

_IDS = tuple(f"iv-{n}" for n in range(1, 7))
_GAPS = (0, 0, 1, 5, 40, 250, 1000)  # ms between events: equal times are common
_GAP = st.integers(0, len(_GAPS) - 1)


def _spec(spec: Any) -> Spec:
    return spec if isinstance(spec, Spec) else load_spec(spec)


def _event_names(spec: Spec) -> tuple[str, ...]:
    named = {row.event for row in spec.table.rows} if spec.table else set()
    return tuple(name for name in EVENTS if name in named) or tuple(EVENTS)


def events(spec: Any = None) -> st.SearchStrategy[dict[str, Any]]:
    """One well-formed event of an event the table names, with a plausible payload."""
    names = _event_names(_spec(spec))
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


def _reference(session: Session) -> int | None:
    """The time evidence speech has to be strictly after, when anything was committed."""
    if session.last_commit is None:
        return None
    return max(session.last_commit, session.last_loss or 0)


def _choice(session: Session, name: str, way: str | None) -> bool | None:
    """The value the move gives the event's chosen guard, or None when the move is impossible."""
    if way == _REPEAT:
        return True if session.seen else None
    if way in (_AT, _AFTER) and _reference(session) is None:
        return None  # with nothing committed, speech has nothing to be at or after
    return way == _AFTER


def traces(spec: Any = None, max_size: int = 60, min_size: int = 0) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Well-formed traces of at most `max_size` events (plus an optional `session_end`).

    Built by walking the table: each event is drawn among the moves the
    table accepts from the configuration reached so far, so every trace
    replays without `invalid_event` or `after_session_end` and shrinks to a
    shorter trace that still does.
    """
    machine = machine_for(_spec(spec))
    # session_end comes only last (or not at all): mid-trace it would cut
    # every trace short of the corners that take many steps to reach.
    moves = _moves(tuple(name for name in _event_names(_spec(spec)) if name != "session_end"))

    @st.composite
    def build(draw: st.DrawFn) -> list[dict[str, Any]]:
        session = Session(machine)
        trace: list[dict[str, Any]] = []
        t = 0
        for _ in range(draw(st.integers(min_value=min_size, max_value=max_size))):
            if session.config.ended:
                break
            allowed, productive = [], []
            for name, way in moves:
                choice = _choice(session, name, way)
                if choice is None:
                    continue
                outcome = machine.step(session.config, name, choice)
                if outcome.status == OK:
                    allowed.append((name, way))
                    if outcome.config != session.config:
                        productive.append((name, way))
            if not allowed:
                break
            # Moves that change the configuration weigh three times as much,
            # so that traces get deep enough to spend the caps instead of
            # drowning in notes. One integer draw per choice keeps generation
            # cheap: Hypothesis' draws are most of a fuzz run's time.
            pool = productive * 3 + allowed
            name, way = pool[draw(st.integers(0, len(pool) - 1))]
            previous = t
            t += _GAPS[draw(_GAP)]
            item: dict[str, Any] = {"event": name, "t": t}
            if way == _FRESH:
                item["id"] = next((i for i in _IDS if i not in session.seen), f"iv-{len(session.seen) + 1}")
            elif way == _REPEAT:
                item["id"] = draw(st.sampled_from(sorted(session.seen)))
            elif name == "evidence_turn":
                reference = _reference(session)
                if reference is None:
                    item["speech_start"] = draw(st.integers(min_value=0, max_value=t))
                elif way == _AFTER:
                    item["speech_start"] = reference + draw(st.integers(min_value=1, max_value=300))
                    t = item["t"] = max(t, item["speech_start"])
                elif way == _AT or reference == 0:
                    item["speech_start"] = reference
                else:
                    item["speech_start"] = reference - draw(st.integers(min_value=1, max_value=reference))
            if trace and t == previous and draw(st.booleans()):
                del item["t"]  # absent: the previous event's time
            outcome = session.feed(SimpleNamespace(**{"id": None, "speech_start": None, **item, "t": t}))
            assert outcome.status == OK, (item, outcome.status)
            trace.append(item)
        if not session.config.ended and draw(st.booleans()):
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
    return st.one_of(traces(spec, max_size=max_size), st.lists(item, max_size=max_size))
