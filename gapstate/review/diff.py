"""`gapstate diff`: what a change to the table does to behaviour, not which characters moved.

Two tables are compared valuation by valuation: for every state either
names, every event, and every valuation of the guards that either table's
rows for that (state, event) name, the row each table matches (through
`machine.valuations`, the same matching the interpreter and the proof use)
gives an outcome: the state it leads to and its actions, `invalid`, or no
row. Valuing both tables over the union of their guards is what makes a row
split in two, with the same outcome over the same valuations, compare equal.
Caps, the names the tables use and the allow-list are compared as sets; the
proof is asked only which rows fire, for rows that both tables hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from gapstate.results import Result
from gapstate.run.machine import Machine, guard_names, valuations
from gapstate.table.load import Spec
from gapstate.table.model import STAY, Literal, Row, Table, format_guards
from gapstate.table.vocabulary import EVENTS

Valuation = tuple[tuple[str, bool], ...]


class RowEffect(NamedTuple):
    """What the matched row does in one state: where it leads and its actions (`invalid` included)."""

    line: int
    next: str  # resolved: `=` becomes the state itself
    actions: tuple[str, ...]

    @property
    def behaviour(self) -> tuple[str, tuple[str, ...]]:
        return self.next, self.actions

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "next": self.next, "actions": list(self.actions)}


class Case(NamedTuple):
    """Valuations of one (state, event) that went from one outcome to another (None: no row matches)."""

    valuations: tuple[Valuation, ...]
    old: RowEffect | None
    new: RowEffect | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "valuations": [dict(v) for v in self.valuations],
            "old": self.old.to_dict() if self.old else None,
            "new": self.new.to_dict() if self.new else None,
        }


class BehaviourChanged(NamedTuple):
    """A (state, event) pair that now does something else for some guard valuations."""

    state: str
    event: str
    cases: tuple[Case, ...]
    @property
    def kind(self) -> str:
        return "behaviour"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "state": self.state, "event": self.event, "cases": [c.to_dict() for c in self.cases]}


class NameChanged(NamedTuple):
    """A state, event or guard that one table names and the other does not."""

    kind: str  # "name_added" or "name_removed"
    role: str  # "state", "event" or "guard"
    name: str
    line: int  # the first line naming it, in the table that names it

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()


class CapChanged(NamedTuple):
    """A counter whose cap changed, appeared or went away (None: no `@cap` line)."""

    counter: str
    old: int | None
    new: int | None
    old_line: int | None
    new_line: int | None
    @property
    def kind(self) -> str:
        return "cap"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self._asdict()}


class AllowanceChanged(NamedTuple):
    """An `@unreachable` entry added to or removed from the allow-list."""

    kind: str  # "allowance_added" or "allowance_removed"
    state: str
    event: str
    guards: str  # as the table that holds it writes them
    line: int  # in the table that holds it

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()


class ReachabilityChanged(NamedTuple):
    """A row both tables hold (same state, event and guards) that fires in one and not the other."""

    state: str
    event: str
    guards: str  # as the new table writes them
    old_line: int
    new_line: int
    reachable: bool  # in the new table
    @property
    def kind(self) -> str:
        return "reachability"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self._asdict()}


class BoundChanged(NamedTuple):
    """A bound of `check` (the most sends one gap can take, ...) that differs; None: no bound."""

    name: str
    old: int | None
    new: int | None

    @property
    def kind(self) -> str:
        return "bound"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self._asdict()}


Change = BehaviourChanged | NameChanged | CapChanged | AllowanceChanged | ReachabilityChanged | BoundChanged
KINDS = ("behaviour", "name_added", "name_removed", "cap", "allowance_added", "allowance_removed", "reachability",
         "bound")


@dataclass(frozen=True)
class DiffResult(Result):
    """The outcome of `diff`, shaped like its JSON output."""

    _attributes = frozenset({"ok", "same"})

    old: str
    new: str
    changes: tuple[Change, ...]
    traces: Any = None  # with --traces: the recorded sessions under both tables (`sessions.SessionsResult`)

    @property
    def same(self) -> bool:
        return not self.changes

    @property
    def differs(self) -> bool:
        """The tables differ, or some recorded session behaves differently (what exit 1 means)."""
        return not self.same or bool(self.traces is not None and self.traces.differing)

    @property
    def ok(self) -> bool:
        """Nothing changed (exit 0): `ok`, as every other document has it, so a program reads one key."""
        return not self.differs

    def to_dict(self) -> dict[str, Any]:
        out = {"ok": self.ok, "same": self.same, "old": self.old, "new": self.new, "changes": [c.to_dict() for c in self.changes]}
        if self.traces is not None:
            out["traces"] = self.traces.to_dict()
        return out


def diff(old: Spec, new: Spec) -> DiffResult:
    """Every change of behaviour, names, caps, allow-list, reachability and bounds from `old` to `new`."""
    before, after = old.require_steppable("compared"), new.require_steppable("compared")
    changes: list[Change] = []
    changes.extend(behaviour_changes(before, after))
    changes.extend(name_changes(before, after))
    changes.extend(cap_changes(before, after))
    changes.extend(allowance_changes(before, after))
    changes.extend(reachability_changes(before, after))
    changes.extend(bound_changes(before, after))
    return DiffResult(old.path, new.path, tuple(changes))


def behaviour_changes(old: Table, new: Table) -> list[BehaviourChanged]:
    """Per (state, event), the valuations whose outcome differs, grouped by (old outcome, new outcome)."""
    changes: list[BehaviourChanged] = []
    states = tuple(dict.fromkeys(old.states + new.states))
    events = tuple(dict.fromkeys((*EVENTS, *(r.event for r in old.rows), *(r.event for r in new.rows))))
    for state in states:
        for event in events:
            names = guard_names(old.rows_for(state, event) + new.rows_for(state, event))
            before = _outcomes(old, state, event, names)
            after = _outcomes(new, state, event, names)
            grouped: dict[tuple[RowEffect | None, RowEffect | None], list[Valuation]] = {}
            for values, was in before.items():
                now = after[values]
                if _behaviour(was) != _behaviour(now):
                    grouped.setdefault((was, now), []).append(tuple(zip(names, values, strict=True)))
            if grouped:
                cases = tuple(Case(tuple(vals), was, now) for (was, now), vals in grouped.items())
                changes.append(BehaviourChanged(state, event, cases))
    return changes


def _outcomes(table: Table, state: str, event: str, names: tuple[str, ...]) -> dict[tuple[bool, ...], RowEffect | None]:
    """Each valuation's outcome in `table`: the first matching row's, as the interpreter steps it.

    A state the table does not name has no rows there, even `*` ones.
    """
    _, matches = valuations(table, state, event, names)
    named = state in table.states
    return {values: RowEffect(rows[0].line, rows[0].target(state), rows[0].actions) if rows and named else None for values, rows in matches}


def _behaviour(outcome: RowEffect | None) -> tuple[str, tuple[str, ...]] | None:
    return outcome.behaviour if outcome else None


def _names(table: Table) -> dict[tuple[str, str], int]:
    """(role, name) -> the first line naming it, for states, events and guards."""
    named: dict[tuple[str, str], int] = {}
    for row in table.rows:
        found = [("event", row.event)] + [("guard", lit.guard) for lit in row.guards]
        if row.state != "*":
            found.append(("state", row.state))
        if row.next != STAY:
            found.append(("state", row.next))
        for key in found:
            named.setdefault(key, row.line)
    return named


def name_changes(old: Table, new: Table) -> list[NameChanged]:
    before, after = _names(old), _names(new)
    added = [NameChanged("name_added", role, name, line) for (role, name), line in after.items() if (role, name) not in before]
    removed = [NameChanged("name_removed", role, name, line) for (role, name), line in before.items() if (role, name) not in after]
    return sorted(added, key=lambda c: c.line) + sorted(removed, key=lambda c: c.line)


def cap_changes(old: Table, new: Table) -> list[CapChanged]:
    before = {cap.counter: cap for cap in old.caps}
    after = {cap.counter: cap for cap in new.caps}
    changes = []
    for counter in dict.fromkeys((*before, *after)):
        was, now = before.get(counter), after.get(counter)
        if was is None or now is None or was.limit != now.limit:
            changes.append(
                CapChanged(
                    counter,
                    was.limit if was else None,
                    now.limit if now else None,
                    was.line if was else None,
                    now.line if now else None,
                )
            )
    return changes


def _key(state: str, event: str, guards: tuple[Literal, ...]) -> tuple[str, str, frozenset[Literal]]:
    return state, event, frozenset(guards)


def allowance_changes(old: Table, new: Table) -> list[AllowanceChanged]:
    before = {_key(a.state, a.event, a.guards): a for a in old.allowances}
    after = {_key(a.state, a.event, a.guards): a for a in new.allowances}
    added = [
        AllowanceChanged("allowance_added", a.state, a.event, format_guards(a.guards), a.line)
        for key, a in after.items()
        if key not in before
    ]
    removed = [
        AllowanceChanged("allowance_removed", a.state, a.event, format_guards(a.guards), a.line)
        for key, a in before.items()
        if key not in after
    ]
    return added + removed


def reachability_changes(old: Table, new: Table) -> list[ReachabilityChanged]:
    """Rows both tables hold (by state, event and guard set) that fire in one table only.

    `invalid` rows never fire and are left out; rows only one table holds
    show up as behaviour changes instead.
    """
    from gapstate.proof.explore import explore

    fired_before = explore(Machine(old)).fired
    fired_after = explore(Machine(new)).fired
    before: dict[tuple[str, str, frozenset[Literal]], Row] = {}
    for row in old.rows:
        before.setdefault(_key(row.state, row.event, row.guards), row)
    changes = []
    seen = set()
    for row in new.rows:
        key = _key(row.state, row.event, row.guards)
        was = before.get(key)
        if was is None or key in seen or row.invalid or was.invalid:
            continue
        seen.add(key)
        now_fires = row.line in fired_after
        if (was.line in fired_before) != now_fires:
            changes.append(ReachabilityChanged(row.state, row.event, format_guards(row.guards), was.line, row.line, now_fires))
    return changes


def bound_changes(old: Table, new: Table) -> list[BoundChanged]:
    """The bounds `check` computes (`table.bounds`) whose value differs between the tables.

    A bound is behaviour a reviewer reads as a number ("a gap can now take 4
    committed requests, was 3"), so a change of one is a change of behaviour
    even where no single row says it.
    """
    from gapstate.proof.explore import explore
    from gapstate.proof.progress import progress

    before = progress(old, explore(Machine(old)))
    after = progress(new, explore(Machine(new)))
    return [BoundChanged(was.name, was.value, now.value)
            for was, now in zip(before.bounds, after.bounds, strict=True) if was.value != now.value]
