"""The findings of the proof: rows that contradict themselves, holes, overlaps, rows that never fire,
stale allowances, and broken rules with the trace that breaks them."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any

from gapstate.findings.record import Cause, Finding, Valuation, valuation_text


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
        return {**super().parts(), "when": valuation_text(self.cube), "suggestion": self.suggestion}

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
        return {**super().parts(), "first": first, "second": second, "when": valuation_text(self.valuation)}

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
    """A reachable step breaks one of the rules of the spec's prose; `trace` replays it.

    The proof gives a `proof.traces.Trace`, whose events are made afresh each time it is read.
    """

    kind = "rule"
    template = "{rule}: {description} (shortest trace: {count} event{plural}{first})"
    exported = ("rule", "trace")
    __slots__ = ("rule", "description", "trace", "detour")

    def __init__(
        self, line: int, column: int, rule: str, description: str, trace: Sequence[dict[str, Any]], detour: bool
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
        return {"rule": self.rule, "trace": list(map(dict, self.trace))}

    def as_cause(self) -> Cause:
        return Cause(self.kind, self.line, rule=self.rule)
