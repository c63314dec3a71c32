"""The transition table as plain immutable data, each piece with its spec line.

The parser builds it, and the proof, the interpreter and the renderers only
read it; none of them needs to know that it came from markdown. NamedTuples
rather than frozen dataclasses: they are as immutable and ten times cheaper
to define, which shows in the start-up of every command.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cached_property
from heapq import merge
from typing import NamedTuple

from gapstate.table.vocabulary import INITIAL, INVALID

ANY_STATE = "*"
STAY = "="

# The most digits a cap may have. Any positive cap is a cap: what bounds the
# proof's work is the exploration budget, which counts the configurations the
# caps imply before visiting one. Digits are bounded only so that reading the
# number stays cheap (Python refuses to convert 4,300 digits or more).
MAX_CAP_DIGITS = 1000


class Name(NamedTuple):
    """A name as written in the table, with what it names and where."""

    role: str  # "state", "event", "guard", "next state" or "action"
    text: str
    column: int


class Literal(NamedTuple):
    """One guard literal: `busy` (positive) or `!busy`."""

    guard: str
    positive: bool

    def __str__(self) -> str:
        return self.guard if self.positive else f"!{self.guard}"


def holds(literals: Iterable[Literal], values: Mapping[str, bool]) -> bool:
    """True when every literal holds in the valuation `values` (guard name -> value)."""
    return all(values[lit.guard] == lit.positive for lit in literals)


def format_guards(literals: tuple[Literal, ...]) -> str:
    """The GUARDS column as a person would write it, in the given order: `-` or `a,!b`."""
    return ",".join(str(lit) for lit in literals) if literals else "-"


class Row(NamedTuple):
    """`STATE | EVENT | GUARDS | NEXT | ACTIONS` at one line of the spec."""

    line: int
    state: str
    event: str
    guards: tuple[Literal, ...]
    next: str
    actions: tuple[str, ...]
    names: tuple[Name, ...]
    guards_column: int = 1

    @property
    def invalid(self) -> bool:
        return INVALID in self.actions

    @property
    def guard_set(self) -> frozenset[Literal]:
        return frozenset(self.guards)

    def applies_to(self, state: str) -> bool:
        return self.state == ANY_STATE or self.state == state

    def target(self, state: str) -> str:
        return state if self.next == STAY else self.next

    def __str__(self) -> str:
        return (
            f"{self.state} | {self.event} | {format_guards(self.guards)} | "
            f"{self.next} | {','.join(self.actions)}"
        )


class Cap(NamedTuple):
    """`@cap NAME N`: the limit of one counter."""

    line: int
    counter: str
    limit: int | None  # None: too many digits to read
    column: int = 1


class Label(NamedTuple):
    """`@label NAME`: an action outside the vocabulary, declared on purpose."""

    line: int
    name: str
    column: int = 1


class Allowance(NamedTuple):
    """`@unreachable STATE | EVENT | GUARDS`: one row that may stay unreachable."""

    line: int
    state: str
    event: str
    guards: tuple[Literal, ...]
    spelled: tuple[Name, ...] = ()  # the state, event and guards as written, for checking them

    def names(self, row: Row) -> bool:
        return (
            row.state == self.state
            and row.event == self.event
            and row.guard_set == frozenset(self.guards)
        )

    def __str__(self) -> str:
        return f"{self.state} | {self.event} | {format_guards(self.guards)}"


def initial_first(states: Iterable[str]) -> tuple[str, ...]:
    """The states once each, in order, the initial one first: moving rows moves no session's start."""
    named = tuple(dict.fromkeys(states))
    return (INITIAL, *(s for s in named if s != INITIAL)) if INITIAL in named else named


class _TableFields(NamedTuple):
    header_line: int
    rows: tuple[Row, ...]
    caps: tuple[Cap, ...]
    allowances: tuple[Allowance, ...]
    states: tuple[str, ...]  # the initial state first, then in the order the STATE column first names them
    labels: tuple[Label, ...] = ()


class Table(_TableFields):
    """Everything the fenced block says, in source order.

    A subclass of the fields' NamedTuple so that it has an instance dict: the
    rows by (STATE column, event) are built on first use and kept on the
    table itself. `_replace` makes a new table, which builds its own.
    """

    @classmethod
    def build(cls, header_line: int, rows: tuple[Row, ...], caps: tuple[Cap, ...], allowances: tuple[Allowance, ...], labels: tuple[Label, ...] = ()) -> Table:
        states = initial_first(row.state for row in rows if row.state != ANY_STATE)
        return cls(header_line, rows, caps, allowances, states, labels)

    @property
    def initial(self) -> str | None:
        """The no-gap state, where every session starts (None: the table has none, a finding)."""
        return INITIAL if INITIAL in self.states else None

    def cap_limits(self) -> dict[str, int]:
        return {cap.counter: cap.limit for cap in self.caps if cap.limit is not None}  # None: a bad_cap finding

    def rows_for(self, state: str, event: str) -> tuple[Row, ...]:
        """The rows that apply to `event` in `state` (its own and the `*` ones), in line order."""
        index = self._by_cell
        own, every = index.get((state, event), ()), index.get((ANY_STATE, event), ())
        if not own or not every or state == ANY_STATE:
            return own or every
        return tuple(merge(own, every, key=lambda row: row.line))

    def rows_written(self, state: str, event: str) -> tuple[Row, ...]:
        """The rows whose STATE column is exactly `state` (`*` for the wildcard ones), for `event`."""
        return self._by_cell.get((state, event), ())

    @cached_property
    def _by_cell(self) -> dict[tuple[str, str], tuple[Row, ...]]:
        """The rows by (STATE column, event), in line order."""
        grouped: dict[tuple[str, str], list[Row]] = {}
        for row in self.rows:
            grouped.setdefault((row.state, row.event), []).append(row)
        return {key: tuple(rows) for key, rows in grouped.items()}
