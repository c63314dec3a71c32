"""The interpreter: one pure step function, shared by the explorer and replay.

`Machine.step(config, event, choice)` looks the row up in a table compiled
once per (state, event), applies the vocabulary of `semantics`, and checks
every rule on the way. It has no clock, ids or I/O: `choice` is the value of
the event's chosen guard (`dup` for `loss_voiced`, `post_send` for
`evidence_turn`), which the explorer picks both ways and replay derives from
its history. Because the result depends only on its arguments and the finite
`Config`, it is memoised: after warm-up a replay step is a dictionary hit.
"""

from __future__ import annotations

from itertools import product
from typing import NamedTuple

from .semantics import ACTIONS, CHOICE_OF, COMMITS, EVENTS, GUARDS, RULES, Config, Transition
from .table import Row, Table

OK = "ok"
INVALID = "invalid"  # the matched row is `invalid`
UNMATCHED = "unmatched"  # no row matches: the table is not total here
ENDED = "ended"  # the session already ended


class Outcome(NamedTuple):
    """What one step did."""

    status: str
    config: Config  # after the step; unchanged unless status is OK
    row: Row | None
    guards: tuple[tuple[str, bool], ...]  # the guards the row names, with their values
    actions: tuple[str, ...]
    broken: tuple[str, ...]  # ids of the rules this step breaks
    commits: bool  # an action stamped the commit time


class Machine:
    """A table compiled for stepping. The table must name only known things."""

    def __init__(self, table: Table):
        self.table = table
        self.caps = table.cap_limits()
        self.initial_state = table.initial
        self.initial = Config(state=table.initial)
        self._lookup: dict[tuple[str, str], tuple[tuple[str, ...], dict[tuple[bool, ...], Row]]] = {}
        for state in table.states:
            for event in EVENTS:
                self._lookup[(state, event)] = compile_pair(table, state, event)
        self._memo: dict[tuple[Config, str, bool], Outcome] = {}

    def choices(self, config: Config, event: str) -> tuple[bool, ...]:
        """The values the event's chosen guard can take here (just False if it has none)."""
        name = CHOICE_OF.get(event)
        if name is not None and GUARDS[name].possible(config):
            return (False, True)
        return (False,)

    def within_caps(self, config: Config) -> bool:
        return all(getattr(config, counter) <= limit for counter, limit in self.caps.items())

    def step(self, config: Config, event: str, choice: bool = False) -> Outcome:
        key = (config, event, choice)
        outcome = self._memo.get(key)
        if outcome is None:
            outcome = self._memo[key] = self._step(config, event, choice)
        return outcome

    def _step(self, before: Config, event: str, choice: bool) -> Outcome:
        if before.ended:
            return Outcome(ENDED, before, None, (), (), (), False)
        spec = EVENTS[event]
        mid = before._replace(**spec.sets) if spec.sets else before
        chosen = CHOICE_OF.get(event)
        values = {
            name: (choice if name == chosen else False)
            if guard.event is not None
            else guard.derive(mid, self.caps)
            for name, guard in GUARDS.items()
        }
        names, rows = self._lookup[(mid.state, event)]
        row = rows.get(tuple(values[n] for n in names))
        if row is None:
            return Outcome(UNMATCHED, before, None, (), (), (), False)
        named = tuple((n, values[n]) for n in sorted({lit.guard for lit in row.guards}, key=_guard_order))
        if row.invalid:
            return Outcome(INVALID, before, row, named, row.actions, (), False)
        fields = mid._asdict()
        fields.update(spec.then)
        for name in row.actions:
            action = ACTIONS[name]
            for counter, delta in action.add.items():
                fields[counter] += delta
            fields.update(action.sets)
        fields["state"] = row.target(mid.state)
        after = Config(**fields)
        transition = Transition(
            before, mid, after, event, values, row.actions, self.initial_state, self.caps
        )
        broken = tuple(rule.id for rule in RULES if rule.broken(transition))
        commits = bool(COMMITS.intersection(row.actions))
        return Outcome(OK, after, row, named, row.actions, broken, commits)


_GUARD_INDEX = {name: i for i, name in enumerate(GUARDS)}


def _guard_order(name: str) -> int:
    return _GUARD_INDEX[name]


def compile_pair(
    table: Table, state: str, event: str
) -> tuple[tuple[str, ...], dict[tuple[bool, ...], Row]]:
    """The guards the rows of (state, event) name, and each valuation's first matching row.

    An ambiguous valuation goes to the row written first; `check` reports it.
    """
    rows = table.rows_for(state, event)
    names = tuple(sorted({lit.guard for r in rows for lit in r.guards}, key=_guard_order))
    lookup: dict[tuple[bool, ...], Row] = {}
    for values in product((False, True), repeat=len(names)):
        valuation = dict(zip(names, values))
        for row in rows:
            if all(valuation[lit.guard] == lit.positive for lit in row.guards):
                lookup[values] = row
                break
    return names, lookup
