"""The interpreter: one pure step function, shared by the explorer and replay.

`Machine.step(config, event, choice)` looks the row up in a table compiled
once per (state, event), applies the vocabulary, and checks every rule on
the way. It has no clock, ids or I/O: `choice` is the value of the guard the
event's payload sets (`vocabulary.PAYLOADS`), which the explorer picks both
ways and replay derives from its history. Because the result depends only on its arguments and the finite
`Config`, it is memoised: after warm-up a replay step is a dictionary hit.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from functools import lru_cache
from itertools import product
from typing import Any, NamedTuple

from gapstate.table import vocabulary
from gapstate.table.model import Row, Table
from gapstate.table.rules import RULES, STATE_MEANINGS, Rule, Transition
from gapstate.table.vocabulary import CHOICE_OF, COMMITS, EVENTS, GUARDS, PAYLOADS, Config, Value


class Status(StrEnum):
    """What became of a step. Not the `invalid` action: REFUSED is what a row with it does."""

    OK = "ok"
    REFUSED = "refused"  # the matched row is `invalid`: the event cannot occur here
    UNMATCHED = "unmatched"  # no row matches: the table is not total here
    ENDED = "ended"  # the session already ended


class Outcome(NamedTuple):
    """What one step did."""

    status: Status
    config: Config  # after the step; unchanged unless status is OK
    row: Row | None
    guards: tuple[tuple[str, bool], ...]  # the guards the row names, with their values
    actions: tuple[str, ...]
    broken: tuple[str, ...]  # ids of the rules this step breaks
    commits: bool  # an action stamped the commit time


def _after_sets(before: Config, event: str) -> Config:
    """The configuration after the event's `sets`: what the guards read."""
    sets = _EVENT_SETS[event]
    if not sets:
        return before
    fields = list(before)
    for index, value in sets:
        fields[index] = value
    return Config._make(fields)


class _Guards(dict[str, bool]):
    """Every guard's value at a configuration, each computed when first read.

    A step reads the guards its row names and those its rules look at,
    usually two or three of the seven; computing all of them was a third of
    a step's cost.
    """

    __slots__ = ("mid", "caps", "chosen", "choice")

    def __init__(self, mid: Config, caps: dict[str, int], chosen: str | None, choice: bool):
        self.mid, self.caps, self.chosen, self.choice = mid, caps, chosen, choice

    def __missing__(self, name: str) -> bool:
        guard = GUARDS[name]
        value = (self.choice if name == self.chosen else False) if guard.derive is None else guard.derive(self.mid, self.caps)
        self[name] = value
        return value


class Memo(dict[str | tuple[str, bool], "tuple[Memo, Outcome]"]):
    """A configuration, and the steps replay already took from it: then a step is one lookup.

    Keys are an event's name, or for an event whose payload sets a guard,
    the name and the guard's value (`replayer._keys`); values are (the next
    Memo, the Outcome). Only steps that replay plainly are kept: status OK, no rule broken, no commit (whose time replay
    stamps itself). The machine holds one Memo per configuration met.
    """

    __slots__ = ("config",)
    config: Config


class Compiled(NamedTuple):
    """A row prepared for stepping: its actions' effects as ordered field updates."""

    row: Row
    named: tuple[str, ...]  # the guards it names, in the order the row writes them (so a step can be grepped)
    effects: tuple[tuple[int, bool, Value], ...]  # (field index, is an addition, delta or value)
    commits: bool
    rules: tuple[Rule, ...]  # the rules this row's event and actions could break


_FIELD = {name: i for i, name in enumerate(Config._fields)}
_new = tuple.__new__  # a NamedTuple from its fields, without the Python frame of its constructor
_STATE = _FIELD["state"]


def _pairs(values: Mapping[str, Value]) -> tuple[tuple[int, Value], ...]:
    return tuple((_FIELD[name], value) for name, value in values.items())


_EVENT_SETS = {name: _pairs(event.sets) for name, event in EVENTS.items()}
_EVENT_THEN = {name: _pairs(event.then) for name, event in EVENTS.items()}


class Machine:
    """A table compiled for stepping. The table must name only known things."""

    def __init__(self, table: Table):
        self.table = table
        self.caps = table.cap_limits()
        initial = table.initial
        assert initial is not None, "a table with no initial state is refused when it is loaded"
        self.initial_state = initial
        self.initial = Config(state=initial)
        self._lookup: dict[tuple[str, str], tuple[tuple[str, ...], dict[tuple[bool, ...], Compiled]]] = {}
        compiled = {row.line: _compile(row) for row in table.rows}
        for state in table.states:
            for event in EVENTS:
                names, rows = compile_pair(table, state, event)
                self._lookup[(state, event)] = (names, {k: compiled[r.line] for k, r in rows.items()})
        self._memo: dict[tuple[Config, str, bool], Outcome] = {}
        self._memos: dict[Config, Memo] = {}
        # this machine's memo grouped by (state, event), and how many steps it held then (`sharing`)
        self._shared: tuple[int, dict[tuple[str, str], dict[tuple[Config, str, bool], Outcome]]] | None = None
        # set by `sharing`: the states where this machine steps as the one it shares with does, for every
        # event; and what the explorer of that one left to reuse there (`proof.mutation` sets it)
        self.alike: frozenset[str] = frozenset()
        self.inherited: Any = None

    def sharing(self, table: Table) -> Machine:
        """A machine for `table` that starts with this one's memoised steps wherever the two step alike.

        Alike means the same caps and, for a (state, event), the same rows
        compiled: a step depends on nothing else. For checking many tables
        that each differ from one in a row (`proof.mutation`): exploring
        each then steps only what its changed row touches.
        """
        machine = Machine(table)
        if machine.caps != self.caps or machine.initial != self.initial:
            return machine
        if self._shared is None or self._shared[0] != len(self._memo):
            grouped: dict[tuple[str, str], dict[tuple[Config, str, bool], Outcome]] = {}
            for key, outcome in self._memo.items():
                grouped.setdefault((key[0].state, key[1]), {})[key] = outcome  # no event's `sets` moves the state
            self._shared = (len(self._memo), grouped)
        memo = machine._memo
        for pair, steps in self._shared[1].items():
            if machine._lookup.get(pair) == self._lookup.get(pair):
                memo.update(steps)
        machine.alike = frozenset(state for state in table.states
                                  if all(machine._lookup.get((state, e)) == self._lookup.get((state, e)) for e in EVENTS))
        return machine

    def choices(self, config: Config, event: str) -> tuple[bool, ...]:
        """The values the event's chosen guard can take here (just False if it has none)."""
        payload = PAYLOADS.get(event)
        if payload is not None and payload.possible(config):
            return (False, True)
        return (False,)

    def within_caps(self, config: Config) -> bool:
        return all(getattr(config, counter) <= limit for counter, limit in self.caps.items())

    def guard_values(self, before: Config, event: str, choice: bool = False) -> tuple[Config, dict[str, bool]]:
        """The configuration the guards read (after the event's `sets`) and every guard's value there."""
        mid = _after_sets(before, event)
        values = _Guards(mid, self.caps, CHOICE_OF.get(event), choice)
        return mid, {name: values[name] for name in GUARDS}

    def memo(self, config: Config) -> Memo:
        """The configuration's `Memo`, where replay memoises the steps taken from it."""
        memo = self._memos.get(config)
        if memo is None:
            memo = self._memos[config] = Memo()
            memo.config = config
        return memo

    def step(self, config: Config, event: str, choice: bool = False) -> Outcome:
        key = (config, event, choice)
        outcome = self._memo.get(key)
        if outcome is None:
            outcome = self._memo[key] = self._step(config, event, choice)
        return outcome

    def step_once(self, config: Config, event: str, choice: bool = False) -> Outcome:
        """`step` without the memo: for the explorer, which steps each configuration once."""
        memo = self._memo  # empty unless this machine also replayed: then no key need be hashed
        return (memo.get((config, event, choice)) if memo else None) or self._step(config, event, choice)

    def _step(self, before: Config, event: str, choice: bool) -> Outcome:
        # The explorer's inner loop (the 10,003-row table steps 388,068 times): its records are made by
        # tuple.__new__, not through their constructors' Python frames, and a refusal copies no fields.
        if before.ended:
            return _new(Outcome, (Status.ENDED, before, None, (), (), (), False))
        mid = _after_sets(before, event)
        caps = self.caps
        # only the guards the row and its rules read are computed (see _Guards)
        values = _Guards(mid, caps, CHOICE_OF.get(event), choice)
        state = mid.state
        names, rows = self._lookup[(state, event)]
        compiled = rows.get(tuple([values[n] for n in names]))
        if compiled is None:
            return _new(Outcome, (Status.UNMATCHED, before, None, (), (), (), False))
        row = compiled.row
        named = tuple([(n, values[n]) for n in compiled.named])
        if row.invalid:  # a refused step changes nothing; only the rules about refusals read it
            refusal = _new(Transition, (before, mid, before, event, values, row.actions, self.initial_state, caps))
            broken = tuple([rule.id for rule in compiled.rules if rule.broken(refusal)])
            return _new(Outcome, (Status.REFUSED, before, row, named, row.actions, broken, False))
        fields = list(mid)
        for index, value in _EVENT_THEN[event]:
            fields[index] = value
        for index, add, value in compiled.effects:
            fields[index] = fields[index] + value if add else value
        fields[_STATE] = row.target(state)
        after = _new(Config, fields)
        transition = _new(Transition, (before, mid, after, event, values, row.actions, self.initial_state, caps))
        broken = tuple([rule.id for rule in compiled.rules if rule.broken(transition)])
        return _new(Outcome, (Status.OK, after, row, named, row.actions, broken, compiled.commits))

    def trial(self, before: Config, event: str, choice: bool, actions: tuple[str, ...], state: str
              ) -> tuple[Config, tuple[str, ...]]:
        """Where a row with these actions and this next state would lead on this step, and the rules it would
        break there: what `proof.mending` asks of the rows a mended one could be."""
        mid = _after_sets(before, event)
        values = _Guards(mid, self.caps, CHOICE_OF.get(event), choice)
        after = before if vocabulary.INVALID in actions else self.landing(self.after_event(before, event), _effects(actions), state)
        transition = _new(Transition, (before, mid, after, event, values, actions, self.initial_state, self.caps))
        return after, tuple([rule.id for rule in _rules_for(event, actions) if rule.broken(transition)])

    def idle_breaks(self, before: Config, event: str, choice: bool, rule: str) -> bool:
        """Whether `rule` says what a state means and a row that does nothing (`= | noop`) would break it on
        this step: the configuration, not what a row does there, is what is wrong."""
        if rule not in STATE_MEANINGS:
            return False
        mid = _after_sets(before, event)
        values = _Guards(mid, self.caps, CHOICE_OF.get(event), choice)
        guards = {name: values[name] for name in GUARDS}
        after = self.after_event(before, event)
        transition = Transition(before, mid, after, event, guards, (), self.initial_state, self.caps)
        return any(r.id == rule and r.broken(transition) for r in RULES)

    def row_at(self, before: Config, event: str, choice: bool = False) -> Row | None:
        """The row the table matches for the event at `before` (None: none), without stepping."""
        mid = _after_sets(before, event)
        values = _Guards(mid, self.caps, CHOICE_OF.get(event), choice)
        names, rows = self._lookup[(mid.state, event)]
        compiled = rows.get(tuple([values[n] for n in names]))
        return None if compiled is None else compiled.row

    @staticmethod
    def after_event(before: Config, event: str) -> Config:
        """The configuration once the event's `sets` and `then` are applied, before any row's actions."""
        then = _EVENT_THEN[event]
        mid = _after_sets(before, event)
        if not then:
            return mid
        fields = list(mid)
        for index, value in then:
            fields[index] = value
        return Config._make(fields)

    @staticmethod
    def landing(after: Config, effects: tuple[tuple[int, bool, Value], ...], state: str) -> Config:
        """`after` (see `after_event`) with a row's `effects` (see `effects`) applied, in `state`."""
        fields = list(after)
        for index, add, value in effects:
            fields[index] = fields[index] + value if add else value
        fields[_STATE] = state
        return Config._make(fields)

    @staticmethod
    def effects(actions: tuple[str, ...]) -> tuple[tuple[int, bool, Value], ...]:
        """What a row with these actions does to the configuration's fields, in order."""
        return _effects(actions)


@lru_cache(maxsize=8)
def compiled(table: Table) -> Machine:
    """The machine for a table, built once per table (a Table is a hashable tuple).

    Replaying many traces against one spec then compiles it once and shares
    the step memo; equal tables share a machine, which is the same machine.
    """
    return Machine(table)


def _compile(row: Row) -> Compiled:
    """The row prepared for stepping."""
    named = tuple(dict.fromkeys(lit.guard for lit in row.guards))
    return Compiled(row, named, _effects(row.actions), bool(COMMITS.intersection(row.actions)),
                    _rules_for(row.event, row.actions))


@lru_cache(maxsize=1024)
def _rules_for(event: str, actions: tuple[str, ...]) -> tuple[Rule, ...]:
    """The rules a row with this event and these actions could break (`Rule.concerns`): the same for every
    table, so asked once however many tables are compiled (a test suite, `gapstate mutate`)."""
    return tuple(rule for rule in RULES if rule.concerns(event, actions))


@lru_cache(maxsize=1024)
def _effects(actions: tuple[str, ...]) -> tuple[tuple[int, bool, Value], ...]:
    """The actions as field updates, in the order the row lists them."""
    effects: list[tuple[int, bool, Value]] = []
    for name in actions:
        action = vocabulary.action(name)
        effects.extend((_FIELD[counter], True, delta) for counter, delta in action.add.items())
        effects.extend((index, False, value) for index, value in _pairs(action.sets))
    return tuple(effects)


_GUARD_INDEX = {name: i for i, name in enumerate(GUARDS)}


def guard_names(rows: tuple[Row, ...]) -> tuple[str, ...]:
    """The guards the rows name, in vocabulary order."""
    return tuple(sorted({lit.guard for row in rows for lit in row.guards}, key=_GUARD_INDEX.__getitem__))


def valuations(
    table: Table, state: str, event: str, names: tuple[str, ...] | None = None
) -> tuple[tuple[str, ...], list[tuple[tuple[bool, ...], list[Row]]]]:
    """The guards the rows of (state, event) name, and for every valuation of them the rows it matches.

    The one enumeration the machine (first matching row), the proof (none:
    not total; two: ambiguous) and the diff read. The diff passes `names`,
    the guards either of two tables names here, so that both tables are
    valued over the same guards.
    """
    rows = table.rows_for(state, event)
    if names is None:
        names = guard_names(rows)
    out = []
    for values in product((False, True), repeat=len(names)):
        valuation = dict(zip(names, values, strict=True))
        out.append((values, [r for r in rows if all(valuation[lit.guard] == lit.positive for lit in r.guards)]))
    return names, out


def compile_pair(
    table: Table, state: str, event: str
) -> tuple[tuple[str, ...], dict[tuple[bool, ...], Row]]:
    """The guards the rows of (state, event) name, and each valuation's first matching row.

    An ambiguous valuation goes to the row written first; `check` reports it.
    """
    names, matches = valuations(table, state, event)
    return names, {values: rows[0] for values, rows in matches if rows}
