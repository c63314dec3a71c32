"""The catalogue of what `gapstate check` can find wrong with a table.

One small class per kind, as in pyflakes' messages: each record has its
spec line and column, its own named fields and a message template that only
it fills in, so the proof and the spec only append records, a misspelt field
fails where the record is built, and only the CLI decides how to show them.
`kind` is the stable name used in JSON output and in tests; it is never
reused for something else. Where one kind has several causes (a bad cap, a
stale allowance, a parse error), the cause is a member of a small Enum whose
value is the template. Plain slotted classes rather than dataclasses: they
cost nothing to define, and this module is on the path of every
`gapstate check`.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar, NamedTuple

from gapstate.spec.vocabulary import COUNTERS

Valuation = tuple[tuple[str, bool], ...]


def _shell_word(text: str) -> str:
    """A path as a shell reads it back: quoted only when it needs to be."""
    import shlex

    return shlex.quote(text)


def _valuation_text(valuation: Valuation) -> str:
    shown = ", ".join(f"{g}={'true' if v else 'false'}" for g, v in valuation)
    return f" when {shown}" if shown else ""


class Cause(NamedTuple):
    """The root finding another finding follows from: its kind and line, and what else names it.

    A hole is named by its `state`, `event` and `guards` (a row's address:
    `-` or `a,!b`); a broken rule by its `rule`. Fields that do not apply
    are None and stay out of the JSON.
    """

    kind: str
    line: int
    state: str | None = None
    event: str | None = None
    guards: str | None = None
    rule: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {name: value for name, value in self._asdict().items() if value is not None}

    def __str__(self) -> str:
        if self.kind == "not_total":
            return f"the hole at {self.state} | {self.event} | {self.guards} (line {self.line})"
        if self.kind == "rule":
            return f"the {self.rule} breach at line {self.line}"
        return f"the {self.kind} finding at line {self.line}"


class Finding:
    """A defect of the spec at one line; subclasses say which kind and hold its fields.

    `template` is formatted with `parts()`: the record's own fields, plus
    whatever a subclass derives from them. The fields named in `exported`
    go into the JSON form, as `export()` gives them. `cause` is None for a
    root, and for a finding that only follows from another (a row cut off
    by a hole, a rule broken only past another breach) that root's `Cause`:
    fixing the root is what fixes it.
    """

    kind: ClassVar[str] = "finding"
    template: ClassVar[str] = ""
    exported: ClassVar[tuple[str, ...]] = ()
    trace: tuple[dict[str, Any], ...] = ()  # a trace that replays the finding: only a rule breach has one
    __slots__ = ("line", "column", "cause")

    def __init__(self, line: int, column: int = 1):
        self.line = line
        self.column = column
        self.cause: Cause | None = None

    def as_cause(self) -> Cause:
        """How a finding that follows from this one names it."""
        return Cause(self.kind, self.line)

    def parts(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in type(self).__slots__}

    @property
    def message(self) -> str:
        return self.template.format(**self.parts())

    def export(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.exported}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "line": self.line,
            "column": self.column,
            "message": self.message,
        }
        out.update(self.export())
        out["cause"] = self.cause.to_dict() if self.cause is not None else None
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(line={self.line}, column={self.column}, message={self.message!r})"

    @property
    def sort_key(self) -> tuple[int, int, int, str]:
        return (self.line, self.column, KINDS.index(self.kind), self.message)


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
    NO_INITIAL_STATE = "no row names a state (every row starts from `*`): the first state named is the initial one"


class ParseError(Finding):
    """The spec's text is not a table: no block, two blocks, or a bad line.

    `detail` is the expected header (NO_TABLE) or the parser's own
    diagnostic (SYNTAX); `other` the other line a reason names.
    """

    kind = "parse_error"
    __slots__ = ("reason", "detail", "other")

    def __init__(self, line: int, column: int, reason: ParseProblem, detail: str = "", other: int = 0):
        super().__init__(line, column)
        self.reason = reason
        self.detail = detail
        self.other = other

    @property
    def message(self) -> str:
        return self.reason.value.format(line=self.line, detail=self.detail, other=self.other)


class UnknownName(Finding):
    """A row names an event, guard, action or next state nobody defines."""

    kind = "unknown_name"
    template = "unknown {role} '{name}'{hint}{advice}"
    exported = ("name", "role", "suggestion")
    __slots__ = ("role", "name", "known", "unentered", "suggestion")

    def __init__(
        self,
        line: int,
        column: int,
        role: str,
        name: str,
        known: tuple[str, ...],
        unentered: bool = False,
        suggestion: str | None = None,
    ):
        super().__init__(line, column)
        self.role = role
        self.name = name
        self.known = known
        self.unentered = unentered  # a state no row leads to: the likely typo
        self.suggestion = suggestion  # the closest known name, if one is close

    def parts(self) -> dict[str, Any]:
        hint = "; no row leads to it" if self.unentered else ""
        return {"role": self.role, "name": self.name, "hint": hint, "advice": _advice(self.suggestion, self.known)}


def _advice(suggestion: str | None, known: tuple[str, ...]) -> str:
    """What an unknown name should have been: the close one, or else all of them."""
    return f"; did you mean '{suggestion}'?" if suggestion else f"; expected one of: {', '.join(known)}"


class CapProblem(Enum):
    """Why a cap is bad; each value is its message template."""

    UNKNOWN_COUNTER = "unknown counter '{counter}'{advice}"
    ALREADY_CAPPED = "'{counter}' is already capped at line {value}"
    NOT_POSITIVE = "the cap of '{counter}' must be a positive whole number, not {value}"
    TOO_LARGE = "the cap of '{counter}' has more than {value} digits; no exploration budget could hold it"
    UNCAPPED = "counter '{counter}' has no cap; add `@cap {counter} N` to the table"


class BadCap(Finding):
    """A `@cap` line the vocabulary cannot use, or a counter left without a cap.

    `value` is the cap given, or for ALREADY_CAPPED the line of the first cap;
    `suggestion` the closest counter to an unknown one, if one is close.
    """

    kind = "bad_cap"
    __slots__ = ("reason", "counter", "value", "suggestion")

    def __init__(
        self, line: int, column: int, reason: CapProblem, counter: str, value: int = 0, suggestion: str | None = None
    ):
        super().__init__(line, column)
        self.reason = reason
        self.counter = counter
        self.value = value
        self.suggestion = suggestion

    @property
    def message(self) -> str:
        advice = _advice(self.suggestion, COUNTERS)
        return self.reason.value.format(counter=self.counter, value=self.value, advice=advice)


class Contradiction(Finding):
    """A row whose guards require a guard to be both true and false."""

    kind = "contradiction"
    template = "the guards require both '{guard}' and '!{guard}', so this row can never match"
    __slots__ = ("guard",)

    def __init__(self, line: int, column: int, guard: str):
        super().__init__(line, column)
        self.guard = guard


class NotTotal(Finding):
    """Some guard valuations of a (state, event) pair are matched by no row.

    `cube` is one row's worth of them: the guard literals of a row that
    would cover exactly those valuations and no covered one; `valuation` is
    one of them, in full (the contract's example valuation).
    """

    kind = "not_total"
    template = "no row covers {state} | {event}{when}; add the row `{suggestion}`"
    exported = ("state", "event", "valuation")
    __slots__ = ("state", "event", "valuation", "cube")

    def __init__(self, line: int, column: int, state: str, event: str, valuation: Valuation, cube: Valuation):
        super().__init__(line, column)
        self.state = state
        self.event = event
        self.valuation = valuation
        self.cube = cube

    @property
    def suggestion(self) -> str:
        guards = ",".join(g if v else f"!{g}" for g, v in self.cube) or "-"
        return f"{self.state} | {self.event} | {guards} | ? | ?"

    def parts(self) -> dict[str, Any]:
        return {**super().parts(), "when": _valuation_text(self.cube), "suggestion": self.suggestion}

    def export(self) -> dict[str, Any]:
        return {"state": self.state, "event": self.event, "valuation": dict(self.valuation)}

    def as_cause(self) -> Cause:
        guards = ",".join(g if v else f"!{g}" for g, v in self.cube) or "-"
        return Cause(self.kind, self.line, state=self.state, event=self.event, guards=guards)


class Ambiguous(Finding):
    """Two rows match the same (state, event, guard valuation)."""

    kind = "ambiguous"
    template = "rows at lines {first} and {second} both match {state} | {event}{when}"
    exported = ("rows", "state", "event", "valuation")
    __slots__ = ("rows", "state", "event", "valuation", "copy")

    def __init__(
        self, line: int, column: int, rows: tuple[int, int], state: str, event: str, valuation: Valuation, copy: bool = False
    ):
        super().__init__(line, column)
        self.rows = rows
        self.state = state
        self.event = event
        self.valuation = valuation
        self.copy = copy  # the second row repeats the first's state, event and guards

    @property
    def message(self) -> str:
        if self.copy:
            first, second = self.rows
            return f"row at line {second} repeats the state, event and guards of the row at line {first}; keep one"
        return super().message

    def parts(self) -> dict[str, Any]:
        first, second = self.rows
        return {**super().parts(), "first": first, "second": second, "when": _valuation_text(self.valuation)}

    def export(self) -> dict[str, Any]:
        return {"rows": list(self.rows), "state": self.state, "event": self.event, "valuation": dict(self.valuation)}


class Unreachable(Finding):
    """A row that no reachable configuration fires and no `@unreachable` allows.

    `reason` says why (its state is never entered, its guards never hold
    there, an earlier row takes its valuations). With a `cause`, the row is
    cut off by that root and the message gives no advice of its own: mending
    the root is what brings it back.
    """

    kind = "unreachable"
    __slots__ = ("row", "reason")

    def __init__(self, line: int, column: int, row: str, reason: str = ""):
        super().__init__(line, column)
        self.row = row  # the row as written
        self.reason = reason

    @property
    def message(self) -> str:
        head = f"row `{self.row}` fires on no reachable configuration"
        why = f": {self.reason}" if self.reason else ""
        if self.cause is not None:
            return f"{head}{why}; it follows from {self.cause}: mend that, not this row"
        if self.reason.startswith("no row leads to"):
            return f"{head}{why}; add the row that should lead there, or remove this state's rows"
        return f"{head}{why}; fix the rows that should lead to it, remove it, or allow it with @unreachable"


class AllowanceProblem(Enum):
    """Why an `@unreachable` line is stale; each value is its message template."""

    NAMES_NO_ROW = "`@unreachable {allowance}` names no row of the table"
    ALREADY_ALLOWED = "row at line {row} is already allowed at line {first}"
    ROW_INVALID = "row at line {row} is `invalid`, which never fires; it needs no allowance"
    ROW_FIRES = "row at line {row} does fire on a reachable configuration; remove this allowance"


class StaleAllowance(Finding):
    """An `@unreachable` line that allows a row which fires, or no row at all.

    `row` is the line of the row it names (0 when none), `first` the line
    of the allowance that already allows it.
    """

    kind = "stale_allowance"
    __slots__ = ("reason", "allowance", "row", "first")

    def __init__(self, line: int, column: int, reason: AllowanceProblem, allowance: str, row: int = 0, first: int = 0):
        super().__init__(line, column)
        self.reason = reason
        self.allowance = allowance  # the allowance as written, after `@unreachable `
        self.row = row
        self.first = first

    @property
    def message(self) -> str:
        return self.reason.value.format(allowance=self.allowance, row=self.row, first=self.first)


class RuleBroken(Finding):
    """A reachable step breaks one of the rules of the spec's prose; `trace` replays it."""

    kind = "rule"
    template = "{rule}: {description} (shortest trace: {count} event{plural}{first})"
    exported = ("rule", "trace")
    __slots__ = ("rule", "description", "trace", "detour")

    def __init__(
        self, line: int, column: int, rule: str, description: str, trace: tuple[dict[str, Any], ...], detour: bool
    ):
        super().__init__(line, column)
        self.rule = rule
        self.description = description
        self.trace = trace
        self.detour = detour  # every way there breaks another rule first

    def parts(self) -> dict[str, Any]:
        count = len(self.trace)
        return {
            "rule": self.rule,
            "description": self.description,
            "count": count,
            "plural": "s" if count != 1 else "",
            "first": "; every way there breaks another rule first" if self.detour else "",
        }

    def export(self) -> dict[str, Any]:
        return {"rule": self.rule, "trace": [dict(event) for event in self.trace]}

    def as_cause(self) -> Cause:
        return Cause(self.kind, self.line, rule=self.rule)


class DiagramProblem(Enum):
    """Why a marked diagram block is stale; each value is its message template."""

    DIFFERS = "the diagram differs from what `gapstate graph --format mermaid` draws for this table; run `{command}`"
    NO_BLOCK = "the line `<!-- gapstate:graph -->` is not followed by a ```mermaid block; run `{command}`"
    UNCLOSED = "the diagram block is never closed; close it with ``` and run `{command}`"


class StaleDiagram(Finding):
    """A diagram block marked `<!-- gapstate:graph -->` that is not what `gapstate graph` draws."""

    kind = "stale_diagram"
    __slots__ = ("reason", "path")

    def __init__(self, line: int, column: int, reason: DiagramProblem, path: str):
        super().__init__(line, column)
        self.reason = reason
        self.path = path  # the spec's, so the fix names the file to redraw, not the project's default

    @property
    def message(self) -> str:
        path = _shell_word(self.path)
        return self.reason.value.format(command=f"gapstate check --fix {path}") + (
            f" (or `gapstate graph --update --spec {path}`)"
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
    StaleDiagram,
)
KINDS: tuple[str, ...] = tuple(cls.kind for cls in CATALOGUE)
