"""The catalogue of what `gapstate check` can find wrong with a table.

One small frozen record per kind, each carrying its spec line (and column)
and building its own message, so the proof only appends records and only the
CLI decides how to show them. `kind` is the stable name used in JSON output
and in tests; it is never reused for something else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class Finding:
    """A defect of the spec at one line; subclasses say which kind."""

    kind: ClassVar[str] = "finding"
    line: int
    column: int

    @property
    def message(self) -> str:
        raise NotImplementedError

    def extra(self) -> dict[str, Any]:
        """Kind-specific fields of the JSON form, beyond kind/line/column/message."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "line": self.line,
            "column": self.column,
            "message": self.message,
        }
        out.update(self.extra())
        return out

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    @property
    def sort_key(self) -> tuple:
        return (self.line, self.column, KINDS.index(self.kind), self.message)


@dataclass(frozen=True)
class ParseError(Finding):
    """The spec's text is not a table: no block, two blocks, or a bad line."""

    kind: ClassVar[str] = "parse_error"
    text: str = ""

    @property
    def message(self) -> str:
        return self.text


@dataclass(frozen=True)
class UnknownName(Finding):
    """A row or next state names an event, guard, action or state nobody defines."""

    kind: ClassVar[str] = "unknown_name"
    role: str = ""
    name: str = ""
    known: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        return f"unknown {self.role} '{self.name}'; expected one of: {', '.join(self.known)}"

    def extra(self) -> dict[str, Any]:
        return {"name": self.name, "role": self.role}


@dataclass(frozen=True)
class BadCap(Finding):
    """A `@cap` line the vocabulary cannot use, or a counter left without a cap."""

    kind: ClassVar[str] = "bad_cap"
    text: str = ""

    @property
    def message(self) -> str:
        return self.text


@dataclass(frozen=True)
class Contradiction(Finding):
    """A row whose guards require a guard to be both true and false."""

    kind: ClassVar[str] = "contradiction"
    guard: str = ""

    @property
    def message(self) -> str:
        return (
            f"the guards require both '{self.guard}' and '!{self.guard}', "
            "so this row can never match"
        )


@dataclass(frozen=True)
class NotTotal(Finding):
    """Some guard valuation of a (state, event) pair is matched by no row."""

    kind: ClassVar[str] = "not_total"
    state: str = ""
    event: str = ""
    valuation: tuple[tuple[str, bool], ...] = ()
    suggestion: str = ""

    @property
    def message(self) -> str:
        shown = ", ".join(f"{g}={'true' if v else 'false'}" for g, v in self.valuation)
        where = f" when {shown}" if shown else ""
        return (
            f"no row covers {self.state} | {self.event}{where}; "
            f"add a row such as `{self.suggestion}`"
        )

    def extra(self) -> dict[str, Any]:
        return {"state": self.state, "event": self.event, "valuation": dict(self.valuation)}


@dataclass(frozen=True)
class Ambiguous(Finding):
    """Two rows match the same (state, event, guard valuation)."""

    kind: ClassVar[str] = "ambiguous"
    rows: tuple[int, int] = (0, 0)
    state: str = ""
    event: str = ""
    valuation: tuple[tuple[str, bool], ...] = ()

    @property
    def message(self) -> str:
        shown = ", ".join(f"{g}={'true' if v else 'false'}" for g, v in self.valuation)
        where = f" when {shown}" if shown else ""
        return (
            f"rows at lines {self.rows[0]} and {self.rows[1]} both match "
            f"{self.state} | {self.event}{where}"
        )

    def extra(self) -> dict[str, Any]:
        return {
            "rows": list(self.rows),
            "state": self.state,
            "event": self.event,
            "valuation": dict(self.valuation),
        }


@dataclass(frozen=True)
class Unreachable(Finding):
    """A row that no reachable configuration fires and no `@unreachable` allows."""

    kind: ClassVar[str] = "unreachable"
    row: str = ""

    @property
    def message(self) -> str:
        return (
            f"row `{self.row}` fires on no reachable configuration; remove it, "
            "fix the rows that should lead to it, or allow it with @unreachable"
        )


@dataclass(frozen=True)
class StaleAllowance(Finding):
    """An `@unreachable` line that allows a row which fires, or no row at all."""

    kind: ClassVar[str] = "stale_allowance"
    text: str = ""

    @property
    def message(self) -> str:
        return self.text


@dataclass(frozen=True)
class RuleBroken(Finding):
    """A reachable transition breaks one of the seed's rules; `trace` replays it."""

    kind: ClassVar[str] = "rule"
    rule: str = ""
    description: str = ""
    trace: tuple[dict[str, Any], ...] = field(default=())

    @property
    def message(self) -> str:
        return (
            f"{self.rule}: {self.description} "
            f"(shortest trace: {len(self.trace)} event{'s' if len(self.trace) != 1 else ''})"
        )

    def extra(self) -> dict[str, Any]:
        return {"rule": self.rule, "trace": [dict(e) for e in self.trace]}


CATALOGUE: tuple[type[Finding], ...] = (
    ParseError,
    UnknownName,
    BadCap,
    Contradiction,
    NotTotal,
    Ambiguous,
    Unreachable,
    StaleAllowance,
    RuleBroken,
)
KINDS: tuple[str, ...] = tuple(cls.kind for cls in CATALOGUE)
