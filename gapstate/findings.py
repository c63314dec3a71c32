"""The catalogue of what `gapstate check` can find wrong with a table.

One small class per kind, as in pyflakes' messages: each record carries its
spec line and column and builds its own message, so the proof only appends
records and only the CLI decides how to show them. `kind` is the stable
name used in JSON output and in tests; it is never reused for something
else. Plain classes rather than dataclasses: they cost nothing to define,
and this module is on the path of every `gapstate check`.
"""

from __future__ import annotations

from typing import Any


def _valuation_text(valuation: tuple[tuple[str, bool], ...]) -> str:
    shown = ", ".join(f"{g}={'true' if v else 'false'}" for g, v in valuation)
    return f" when {shown}" if shown else ""


class Finding:
    """A defect of the spec at one line; subclasses say which kind.

    Kind-specific data are keyword arguments, readable as attributes
    (`finding.state`); those named in `exported` also go into the JSON form.
    """

    kind = "finding"
    exported: tuple[str, ...] = ()
    __slots__ = ("line", "column", "data")

    def __init__(self, line: int, column: int = 1, **data: Any):
        self.line = line
        self.column = column
        self.data = data

    def __getattr__(self, name: str) -> Any:
        try:
            return self.data[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def message(self) -> str:
        return self.data["text"]

    def export(self, name: str) -> Any:
        value = self.data[name]
        if name == "valuation":
            return dict(value)
        if isinstance(value, tuple):
            return [dict(v) if isinstance(v, dict) else v for v in value]
        return value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "line": self.line,
            "column": self.column,
            "message": self.message,
        }
        out.update((name, self.export(name)) for name in self.exported)
        return out

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Finding) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self.kind, self.line, self.column, self.message))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(line={self.line}, column={self.column}, message={self.message!r})"

    @property
    def sort_key(self) -> tuple:
        return (self.line, self.column, KINDS.index(self.kind), self.message)


class ParseError(Finding):
    """The spec's text is not a table: no block, two blocks, or a bad line."""

    kind = "parse_error"
    __slots__ = ()


class UnknownName(Finding):
    """A row names an event, guard, action or next state nobody defines."""

    kind = "unknown_name"
    exported = ("name", "role")
    __slots__ = ()

    @property
    def message(self) -> str:
        hint = f"; {self.data['hint']}" if self.data.get("hint") else ""
        return f"unknown {self.role} '{self.name}'{hint}; expected one of: {', '.join(self.known)}"


class BadCap(Finding):
    """A `@cap` line the vocabulary cannot use, or a counter left without a cap."""

    kind = "bad_cap"
    __slots__ = ()


class Contradiction(Finding):
    """A row whose guards require a guard to be both true and false."""

    kind = "contradiction"
    __slots__ = ()

    @property
    def message(self) -> str:
        return (
            f"the guards require both '{self.guard}' and '!{self.guard}', "
            "so this row can never match"
        )


class NotTotal(Finding):
    """Some guard valuation of a (state, event) pair is matched by no row."""

    kind = "not_total"
    exported = ("state", "event", "valuation")
    __slots__ = ()

    @property
    def message(self) -> str:
        return (
            f"no row covers {self.state} | {self.event}{_valuation_text(self.valuation)}; "
            f"add a row such as `{self.suggestion}`"
        )


class Ambiguous(Finding):
    """Two rows match the same (state, event, guard valuation)."""

    kind = "ambiguous"
    exported = ("rows", "state", "event", "valuation")
    __slots__ = ()

    @property
    def message(self) -> str:
        first, second = self.rows
        return (
            f"rows at lines {first} and {second} both match "
            f"{self.state} | {self.event}{_valuation_text(self.valuation)}"
        )


class Unreachable(Finding):
    """A row that no reachable configuration fires and no `@unreachable` allows."""

    kind = "unreachable"
    __slots__ = ()

    @property
    def message(self) -> str:
        return (
            f"row `{self.row}` fires on no reachable configuration; remove it, "
            "fix the rows that should lead to it, or allow it with @unreachable"
        )


class StaleAllowance(Finding):
    """An `@unreachable` line that allows a row which fires, or no row at all."""

    kind = "stale_allowance"
    __slots__ = ()


class RuleBroken(Finding):
    """A reachable step breaks one of the seed's rules; `trace` replays it."""

    kind = "rule"
    exported = ("rule", "trace")
    __slots__ = ()

    @property
    def message(self) -> str:
        count = len(self.trace)
        first = "; every way there breaks another rule first" if self.data.get("detour") else ""
        return (
            f"{self.rule}: {self.description} "
            f"(shortest trace: {count} event{'s' if count != 1 else ''}{first})"
        )


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
