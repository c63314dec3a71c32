"""The findings of the proof: rows that contradict themselves, holes, overlaps, rows that never fire,
stale allowances, and broken rules with the trace that breaks them; and the reason records the proof
gives for a row that never fires, put into words here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from enum import Enum
from typing import Any, NamedTuple

from gapstate.findings.record import Cause, Finding, Valuation, own_events, record, valuation_text
from gapstate.words import inflect, plural


@record
class Contradiction(Finding):
    """A row whose guards require a guard to be both true and false."""

    kind = "contradiction"
    template = "the guards require both '{guard}' and '!{guard}', so this row can never match"

    guard: str


@record
class NotTotal(Finding):
    """Some guard valuations of a (state, event) pair are matched by no row.

    `cube` is one row's worth of them: the guard literals of a row that
    would cover exactly those valuations and no covered one; `valuation` is
    one of them, in full (the contract's example valuation).
    """

    kind = "not_total"
    template = "no row covers {state} | {event}{when}; add the row `{suggestion}`"
    exported = ("state", "event", "valuation")

    state: str
    event: str
    valuation: Valuation
    cube: Valuation

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


@record
class Ambiguous(Finding):
    """Two rows match the same (state, event, guard valuation).

    `line` is the row of the two most likely mistaken (`proof.causes`
    decides it before the finding is made).
    """

    kind = "ambiguous"
    template = "rows at lines {first} and {second} both match {state} | {event}{when}"
    exported = ("rows", "state", "event", "valuation")

    rows: tuple[int, int]
    state: str
    event: str
    valuation: Valuation
    copy: bool = False  # the second row repeats the first's state, event and guards

    def describe(self, cause: Cause | None = None) -> str:
        if self.copy:
            first, second = self.rows
            keep = "; keep one" if cause is None else f"; it follows from {cause}"
            return f"row at line {second} repeats the state, event and guards of the row at line {first}{keep}"
        return super().describe(cause)

    def parts(self) -> dict[str, Any]:
        first, second = self.rows
        return {**super().parts(), "first": first, "second": second, "when": valuation_text(self.valuation)}

    def export(self) -> dict[str, Any]:
        return {"rows": list(self.rows), "state": self.state, "event": self.event, "valuation": dict(self.valuation)}


def _where(states: tuple[str, ...], wildcard: bool) -> str:
    return "any state" if wildcard else " or ".join(states)


class NeverEntered(NamedTuple):
    """No reachable configuration is in the row's state: `leads` are the rows that lead there (none: no row does)."""

    states: tuple[str, ...]  # the row's states, sorted
    wildcard: bool  # the row is a `*` row
    leads: tuple[int, ...]

    def words(self) -> str:
        where = _where(self.states, self.wildcard)
        if not self.leads:
            return f"no row leads to {where}"
        n = len(self.leads)
        lines = ", ".join(map(str, self.leads))
        return (
            f"no reachable configuration is in {where}: the {inflect(n, 'row')} leading there "
            f"({inflect(n, 'line')} {lines}) never {inflect(n, 'fires', 'fire')}"
        )


class GuardsNeverHold(NamedTuple):
    """The smallest set of the row's guards that never hold together where it could fire.

    `meaning` is the one guard's meaning, when the set is one guard;
    `occur` the valuations of the row's guards that do occur there, written as a row writes them.
    """

    event: str
    literals: tuple[str, ...]  # as a row writes them: `busy`, `!dup`
    meaning: str
    states: tuple[str, ...]
    wildcard: bool
    configurations: int  # reachable configurations in the row's states
    occur: tuple[str, ...]

    def words(self) -> str:
        count = plural(self.configurations, f"reachable {_where(self.states, self.wildcard)} configuration")
        seen = "; the valuations that occur there: " + ", ".join(f"`{v}`" for v in self.occur)
        if len(self.literals) == 1:
            (literal,) = self.literals
            guard = literal.lstrip("!")
            always = "true" if literal.startswith("!") else "false"
            return (
                f"`{literal}` never holds on {self.event}: {guard} ({self.meaning}) "
                f"is {always} in every one of the {count}{seen}"
            )
        shown = ", ".join(f"`{lit}`" for lit in self.literals)
        return f"{shown} never hold together on {self.event} in any of the {count}{seen}"


class TakenEarlier(NamedTuple):
    """Every reachable valuation the row matches is taken by the rows at `lines`, written before it."""

    lines: tuple[int, ...]

    def words(self) -> str:
        lines = ", ".join(map(str, self.lines))
        return f"every reachable valuation it matches is taken by the {inflect(len(self.lines), 'row')} at line {lines}, written first"


NeverFires = NeverEntered | GuardsNeverHold | TakenEarlier  # why a row never fires


@record
class Unreachable(Finding):
    """A row that no reachable configuration fires and no `@unreachable` allows.

    `reason` says why (its state is never entered, its guards never hold
    there, an earlier row takes its valuations). Under a cause, the row is
    cut off by that root and the message gives no advice of its own: mending
    the root is what brings it back.
    """

    kind = "unreachable"

    row: str  # the row as written
    reason: NeverFires | None = None

    def describe(self, cause: Cause | None = None) -> str:
        head = f"row `{self.row}` fires on no reachable configuration"
        why = f": {self.reason.words()}" if self.reason is not None else ""
        if cause is not None:
            return f"{head}{why}; it follows from {cause}: mend that, not this row"
        if isinstance(self.reason, NeverEntered) and not self.reason.leads:
            return f"{head}{why}; add the row that should lead there, or remove this state's rows"
        return f"{head}{why}; fix the rows that should lead to it, remove it, or allow it with @unreachable"


class AllowanceProblem(Enum):
    """Why an `@unreachable` line is stale; each value is its message template."""

    NAMES_NO_ROW = "`@unreachable {allowance}` names no row of the table"
    ALREADY_ALLOWED = "row at line {row} is already allowed at line {first}"
    ROW_INVALID = "row at line {row} is `invalid`, which never fires; it needs no allowance"
    ROW_FIRES = "row at line {row} does fire on a reachable configuration; remove this allowance"


@record
class StaleAllowance(Finding):
    """An `@unreachable` line that allows a row which fires, or no row at all.

    `row` is the line of the row it names (0 when none), `first` the line
    of the allowance that already allows it. Under a cause (the row fires
    only past a mistaken step, or was deleted or changed), the message
    advises nothing of its own: mending the root makes the allowance hold.
    """

    kind = "stale_allowance"

    reason: AllowanceProblem
    allowance: str  # the allowance as written, after `@unreachable `
    row: int = 0
    first: int = 0

    def describe(self, cause: Cause | None = None) -> str:
        if cause is not None and self.reason is AllowanceProblem.ROW_FIRES:
            return f"row at line {self.row} fires only because of {cause}: mend that, and this allowance holds again"
        text = self.reason.value.format(allowance=self.allowance, row=self.row, first=self.first)
        return text if cause is None else f"{text}; it follows from {cause}"


@record
class RuleBroken(Finding):
    """A reachable step breaks one of the rules of the spec's prose; `trace` replays it.

    The proof gives a `proof.traces.Trace`, whose events are made afresh each time it is read.
    """

    kind = "rule"
    template = "{rule}: {description} (shortest trace: {events}{first})"
    exported = ("rule", "trace")

    rule: str
    description: str
    detour: bool  # every way there breaks another rule first
    trace: Sequence[dict[str, Any]] = field()  # no default: the base's () is for the other kinds

    def describe(self, cause: Cause | None = None) -> str:
        """Under one root the indentation says where it comes from; past several, the words name them all."""
        text = super().describe(cause)
        return f"{text}; it follows from {cause}" if cause is not None and cause.also else text

    def parts(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "description": self.description,
            "events": plural(len(self.trace), "event"),
            "first": "; every way there breaks another rule first" if self.detour else "",
        }

    def export(self) -> dict[str, Any]:
        return {"rule": self.rule, "trace": own_events(self.trace)}

    def as_cause(self) -> Cause:
        return Cause(self.kind, self.line, rule=self.rule)
