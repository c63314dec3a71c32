"""The syntax and vocabulary findings: the text is not a table (`parse_error`), a name nobody defines
(`unknown_name`), a cap the vocabulary cannot use (`bad_cap`)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any

from gapstate.findings.record import Cause, Finding, record


class ParseProblem(Enum):
    """Why the text is not a table; each value is its message template."""

    NO_TABLE = "no transition table: expected a fenced code block whose first line is `{detail}`"
    MISPLACED_HEADER = (
        "no transition table: the fenced block at line {other} holds the header at line "
        "{line}, but the header must be the block's first non-blank line"
    )
    BAD_HEADER = "the header must read `# state | event | guards | next | actions`: {detail}"
    SECOND_TABLE = "a second transition table (the first starts at line {other}); keep exactly one"
    NO_ROWS = "the table has no rows"
    SYNTAX = "{detail}"
    INVALID_NOT_ALONE = "`invalid` stands alone, with `=` as the next state: the event cannot occur here"
    NO_INITIAL_STATE = (
        "no row starts from or leads to {detail}, the no-gap state: every session starts there, "
        "whatever order the rows are in; write {detail}'s rows"
    )


@record
class ParseError(Finding):
    """The spec's text is not a table: no block, two blocks, or a bad line.

    `detail` is the expected header (NO_TABLE), the parser's own
    diagnostic (SYNTAX) or the initial state (NO_INITIAL_STATE); `other`
    the other line a reason names.
    """

    kind = "parse_error"
    reason: ParseProblem
    detail: str = ""
    other: int = 0

    def describe(self, cause: Cause | None = None) -> str:
        return self.reason.value.format(line=self.line, detail=self.detail, other=self.other)


@record
class UnknownName(Finding):
    """A row names an event, guard, action or next state nobody defines."""

    kind = "unknown_name"
    template = "unknown {role} '{name}'{hint}{advice}"
    exported = ("name", "role", "suggestion")
    role: str
    name: str
    known: tuple[str, ...]
    unentered: bool = False  # a state no row leads to: the likely typo
    suggestion: str | None = None  # the closest known name, if one is close

    def parts(self) -> dict[str, Any]:
        hint = "; no row leads to it" if self.unentered else ""
        return {"role": self.role, "name": self.name, "hint": hint, "advice": _advice(self.suggestion, self.known)}


def _advice(suggestion: str | None, known: Iterable[str]) -> str:
    """What an unknown name should have been: the close one, or else all of them."""
    return f"; did you mean '{suggestion}'?" if suggestion else f"; expected one of: {', '.join(known)}"


class CapProblem(Enum):
    """Why a cap is bad; each value is its message template."""

    UNKNOWN_COUNTER = "unknown counter '{counter}'{advice}"
    ALREADY_CAPPED = "'{counter}' is already capped at line {value}"
    NOT_POSITIVE = "the cap of '{counter}' must be a positive whole number, not {value}"
    TOO_LARGE = "the cap of '{counter}' has more than {value} digits; no exploration budget could hold it"
    UNCAPPED = "counter '{counter}' has no cap; add `@cap {counter} N` to the table"


@record
class BadCap(Finding):
    """A `@cap` line the vocabulary cannot use, or a counter left without a cap.

    `value` is the cap given, or for ALREADY_CAPPED the line of the first cap;
    `suggestion` the closest counter to an unknown one, if one is close,
    else `known` (the vocabulary's counters) are listed.
    """

    kind = "bad_cap"
    reason: CapProblem
    counter: str
    value: int = 0
    suggestion: str | None = None
    known: tuple[str, ...] = ()

    def describe(self, cause: Cause | None = None) -> str:
        advice = _advice(self.suggestion, self.known)
        return self.reason.value.format(counter=self.counter, value=self.value, advice=advice)
