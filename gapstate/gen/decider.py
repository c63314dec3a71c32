"""The table as a decider, in no language yet: what each generator writes out, row by row.

`plan(table, stamp)` reads the table model and the vocabulary once and gives
every generator (`python.py`, `rust.py`) the same plain data: the names, the
caps, how each guard gets its value, and for each row the assignments its
event and actions make, in the order the interpreter makes them
(`run.machine`): the event's `sets` before the guards are read, its `then`
after, then each action's effects, then the next state. A generator only
spells this in its language; none of them reads the vocabulary itself, so
the meaning of the table is decided here once.
"""

from __future__ import annotations

from typing import NamedTuple

from gapstate.table.model import ANY_STATE, Table
from gapstate.table.vocabulary import (
    ACTIONS,
    AFTER,
    CHOICE_OF,
    COMMITS,
    COUNTERS,
    EVENTS,
    FLAGS,
    GUARDS,
    INVALID,
    PAYLOADS,
    SEEN,
    action,
)


class GuardPlan(NamedTuple):
    """How one guard gets its value: `how` is FLAG, BELOW_CAP, SEEN or AFTER; `what` the field it reads."""

    name: str
    how: str
    what: str  # the flag or counter, or for a payload guard the event field
    event: str | None  # for a payload guard, the event that carries it (false on every other)


class Assign(NamedTuple):
    """One assignment to a field of the configuration: `field = value`, or `field += value` when `add`."""

    field: str
    value: bool | int
    add: bool = False


class RowPlan(NamedTuple):
    """One row, ready to write out: what it matches and everything it does, in order."""

    line: int
    text: str  # the row as the spec writes it, for a comment beside its code
    state: str  # a state name, or `*`
    event: str
    literals: tuple[tuple[str, bool], ...]  # guard -> the value the row needs, in guard order
    refuses: bool  # an `invalid` row: the event is refused, nothing changes
    next: str | None  # the next state, None to stay
    actions: tuple[str, ...]
    assigns: tuple[Assign, ...]  # the event's `sets`, its `then`, then each action's effects
    commits: bool  # stamps the commit time with the event's t
    remembers: str  # whether a taken SEEN event remembers its value: "always", "unless_seen" or "never"


class Plan(NamedTuple):
    """Everything a generator needs, named as the table names it."""

    spec: str  # the spec's path, as the generated file names it
    sha256: str
    version: str  # gapstate's
    states: tuple[str, ...]  # the initial state first
    events: tuple[str, ...]
    actions: tuple[str, ...]  # every action a row names except `invalid`, in the order rows first name them
    counters: tuple[str, ...]
    flags: tuple[str, ...]
    caps: tuple[tuple[str, int], ...]
    guards: tuple[GuardPlan, ...]
    rows: tuple[RowPlan, ...]  # in line order
    seen_event: str  # the event whose payload is remembered (an interval id)
    seen_field: str
    after_event: str  # the event whose payload is compared with the horizon
    after_field: str

    def flags_set_by(self, flag: str) -> tuple[tuple[str, bool | int], ...]:
        """The events whose `sets` give `flag` a value before the guards are read, with that value."""
        return tuple((name, _value(EVENTS[name].sets[flag])) for name in self.events if flag in EVENTS[name].sets)

    def rows_for(self, state: str, event: str) -> tuple[RowPlan, ...]:
        """The rows that apply to `event` in `state` (its own and the `*` ones), in line order."""
        return tuple(r for r in self.rows if r.event == event and r.state in (state, ANY_STATE))


def _value(value: object) -> bool | int:
    """A value the vocabulary gives a field: a flag's or a counter's."""
    assert isinstance(value, (bool, int)), value
    return value


def plan(table: Table, spec: str, sha256: str, version: str) -> Plan:
    """The decider the table is, for a table that checks clean (one row per valuation, every name known)."""
    guards = []
    for name, guard in GUARDS.items():
        if guard.payload is not None:
            guards.append(GuardPlan(name, guard.payload.reads, guard.payload.field, guard.payload.event))
        else:
            assert guard.form is not None, f"the vocabulary says how a generator reads {name}"
            guards.append(GuardPlan(name, *guard.form, None))
    (seen_event,) = [e for e, p in PAYLOADS.items() if p.reads == SEEN]
    (after_event,) = [e for e, p in PAYLOADS.items() if p.reads == AFTER]
    order = {name: i for i, name in enumerate(GUARDS)}
    rows = []
    for row in sorted(table.rows, key=lambda r: r.line):
        literals = tuple(sorted(((lit.guard, lit.positive) for lit in row.guards), key=lambda p: order[p[0]]))
        effect = EVENTS[row.event]
        assigns = [Assign(f, _value(v)) for f, v in (*effect.sets.items(), *effect.then.items())]
        for name in row.actions:
            found = action(name)
            assigns += [Assign(f, d, add=True) for f, d in found.add.items()]
            assigns += [Assign(f, _value(v)) for f, v in found.sets.items()]
        named = dict(literals).get(CHOICE_OF[seen_event])
        remembers = "never" if row.event != seen_event or named is True else "always" if named is False else "unless_seen"
        rows.append(RowPlan(
            line=row.line,
            text=str(row),
            state=row.state,
            event=row.event,
            literals=literals,
            refuses=row.invalid,
            next=None if row.next == "=" else row.next,
            actions=row.actions,
            assigns=tuple(assigns),
            commits=bool(COMMITS.intersection(row.actions)),
            remembers=remembers,
        ))
    named_actions = tuple(dict.fromkeys(a for row in table.rows for a in row.actions if a != INVALID))
    known = [a for a in ACTIONS if a in named_actions]
    return Plan(
        spec=spec,
        sha256=sha256,
        version=version,
        states=table.states,
        events=tuple(EVENTS),
        actions=tuple(known + [a for a in named_actions if a not in known]),
        counters=tuple(COUNTERS),
        flags=tuple(FLAGS),
        caps=tuple((cap.counter, cap.limit) for cap in table.caps if cap.limit is not None),
        guards=tuple(guards),
        rows=tuple(rows),
        seen_event=seen_event,
        seen_field=PAYLOADS[seen_event].field,
        after_event=after_event,
        after_field=PAYLOADS[after_event].field,
    )


def header(plan: Plan, target: str, regenerate: str) -> list[str]:
    """The lines every generated file opens with (each language puts them in its comments)."""
    return [
        f"Generated by gapstate {plan.version} from {plan.spec}: do not edit by hand.",
        f"gapstate-generated: target={target} spec-sha256={plan.sha256}",
        f"spec: {plan.spec}",
        f"Regenerate with `{regenerate}`; `gapstate gen --verify` proves it is the table.",
    ]
