"""Loading a spec and checking that its table speaks the vocabulary.

`load_spec` reads the file (or takes the text), parses it, and checks every
name and cap against the vocabulary. What it finds are findings, not errors:
only a file that cannot be read at all raises.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import NamedTuple

from gapstate.errors import GapstateError
from gapstate.files.source import label, read_text
from gapstate.findings import (
    BadCap,
    CapProblem,
    Contradiction,
    Finding,
    ParseError,
    ParseProblem,
    UnknownName,
)
from gapstate.table.model import MAX_CAP_DIGITS, STAY, Allowance, Row, Table, initial_first
from gapstate.table.vocabulary import ACTIONS, COUNTERS, EVENTS, GUARDS, INITIAL, INVALID, STATES, closest, near_action

BUNDLED = "gap-state.md"

# Findings after which the table cannot be stepped: the proof stops there.
BLOCKING: tuple[type[Finding], ...] = (ParseError, UnknownName, BadCap)


class Spec(NamedTuple):
    """A parsed spec: where it came from, its table if it has one, and what is wrong."""

    path: str
    table: Table | None
    findings: tuple[Finding, ...]
    text: str = ""  # the markdown it came from: `check` compares its marked diagram block with the table

    @property
    def steppable(self) -> bool:
        """True when the interpreter can run the table (contradictions do not stop it)."""
        return self.table is not None and not any(isinstance(f, BLOCKING) for f in self.findings)

    def require_steppable(self, purpose: str = "replayed") -> Table:
        """The table, or GapstateError at the first finding that stops it from being stepped (and `purpose`d)."""
        if self.table is not None and self.steppable:
            return self.table
        first = next(f for f in self.findings if isinstance(f, BLOCKING))
        raise GapstateError(
            f"the table cannot be {purpose}: {first.kind}: {first.message} (run `gapstate check`)",
            file=self.path,
            line=first.line,
            column=first.column,
        )


# How output names the bundled spec: the same in every install, where its file
# lies deep in site-packages (as git names a file at a revision, REV:PATH).
BUNDLED_NAME = "gapstate:spec/gap-state.md"


def bundled_path() -> str:
    """Where the bundled spec lives: a real file in any normal install."""
    return str(resources.files("gapstate.table").joinpath(BUNDLED))


def load_spec(path_or_text: str | Path | None = None) -> Spec:
    """Parse a spec: a path, markdown text (a string with a line end, LF or CR), or None for the bundled one.

    The bundled spec is named BUNDLED_NAME, as the commands name it, not by
    its path deep in site-packages (so `conform_report` and every result say it alike).
    """
    if path_or_text is None:
        return parse_spec(read_text(bundled_path()), BUNDLED_NAME)
    if not isinstance(path_or_text, (str, Path)):
        raise GapstateError(f"load_spec takes a path, markdown text or None, not {type(path_or_text).__name__}")
    if isinstance(path_or_text, str) and ("\n" in path_or_text or "\r" in path_or_text):
        return parse_spec(path_or_text, "<text>")
    return parse_spec(read_text(path_or_text), label(path_or_text))


def resolve(spec: Spec | str | Path | None) -> Spec:
    """A spec argument of the public API: a loaded spec as it is, else `load_spec` of it."""
    return spec if isinstance(spec, Spec) else load_spec(spec)


def parse_spec(text: str, path: str) -> Spec:
    from gapstate.table.parser import parse_text

    parsed = parse_text(text)
    table = parsed.table
    if table is None or parsed.findings:  # the lines that did parse, not checked further
        return Spec(path, table, parsed.findings, text)
    # A state of the vocabulary that rows lead to but none starts from is a
    # state with no rows (not_total for each event), not an unknown name.
    missing = tuple(dict.fromkeys(r.next for r in table.rows if r.next in STATES and r.next not in table.states))
    if missing:
        table = table._replace(states=initial_first(table.states + missing))
    return Spec(path, table, tuple(validate(table)), text)


def validate(table: Table) -> list[Finding]:
    """Unknown names, misplaced `invalid` and self-contradicting guards row by row, then the caps.

    Not in line order: the cap findings come last, whatever their lines;
    `proof.check` sorts every finding.
    """
    findings: list[Finding] = []
    states = table.states
    # A state no row leads to, other than the initial one and the seed's
    # own, is a typo in the STATE column: without this it would pass as a new
    # state and surface only as a dozen not_total findings that never name it.
    entered = {row.next for row in table.rows if row.next != STAY} | {table.initial} | set(STATES)
    known = {
        "event": tuple(EVENTS),
        "guard": tuple(GUARDS),
        "action": tuple(ACTIONS),
        "next state": states,
        "state": tuple(state for state in states if state in entered),
    }
    declared = _label_findings(table, findings)
    items: list[Row | Allowance] = [*table.rows, *table.allowances]
    for item in sorted(items, key=lambda item: item.line):
        for name in item.names if isinstance(item, Row) else item.spelled:
            choices = known[name.role]
            if name.text in choices:
                continue
            if name.role == "action":
                # Not in the vocabulary: a label the implementation realizes,
                # unless declared with @label or close to a known action (a typo).
                suggestion = None if name.text in declared else near_action(name.text, choices)
                if suggestion is None:
                    continue
            else:
                suggestion = closest(name.text, choices)
            unentered = name.role == "state" and isinstance(item, Row)
            findings.append(UnknownName(item.line, name.column, name.role, name.text, choices, unentered, suggestion))
    for row in table.rows:
        if INVALID in row.actions and (len(row.actions) > 1 or row.next != STAY):
            column = next(n.column for n in row.names if n.text == INVALID)
            findings.append(ParseError(row.line, column, ParseProblem.INVALID_NOT_ALONE))
        positive = {lit.guard for lit in row.guards if lit.positive}
        negative = {lit.guard for lit in row.guards if not lit.positive}
        for guard in sorted(positive & negative):
            findings.append(Contradiction(row.line, row.guards_column, guard))
    if table.initial is None:
        findings.append(ParseError(table.header_line, 1, ParseProblem.NO_INITIAL_STATE, detail=INITIAL))
    findings.extend(_cap_findings(table))
    return findings


def _label_findings(table: Table, findings: list[Finding]) -> set[str]:
    """The names `@label` declares; a repeated one, or one in the vocabulary, is a finding."""
    declared: dict[str, int] = {}
    for declaration in table.labels:
        if declaration.name in ACTIONS:
            detail = f"`{declaration.name}` is an action of the vocabulary, not a label; remove this @label"
        elif declaration.name in declared:
            detail = f"`{declaration.name}` is already declared a label at line {declared[declaration.name]}"
        else:
            declared[declaration.name] = declaration.line
            continue
        findings.append(ParseError(declaration.line, declaration.column, ParseProblem.SYNTAX, detail=detail))
    return set(declared)


def _cap_findings(table: Table) -> list[Finding]:
    findings: list[Finding] = []
    first: dict[str, int] = {}
    for cap in table.caps:
        if cap.counter not in COUNTERS:
            suggestion = closest(cap.counter, COUNTERS)
            findings.append(BadCap(cap.line, cap.column, CapProblem.UNKNOWN_COUNTER, cap.counter, suggestion=suggestion,
                                   known=tuple(COUNTERS)))
        elif cap.counter in first:
            findings.append(BadCap(cap.line, cap.column, CapProblem.ALREADY_CAPPED, cap.counter, first[cap.counter]))
        else:
            first[cap.counter] = cap.line
            # Any positive cap: the contract says "N a positive integer". The
            # explorer's cost grows with the caps (see proof.explore).
            if cap.limit is None:
                findings.append(BadCap(cap.line, cap.column, CapProblem.TOO_LARGE, cap.counter, MAX_CAP_DIGITS))
            elif cap.limit < 1:
                findings.append(BadCap(cap.line, cap.column, CapProblem.NOT_POSITIVE, cap.counter, cap.limit))
    for counter in COUNTERS:
        if counter not in first:
            findings.append(BadCap(table.header_line, 1, CapProblem.UNCAPPED, counter))
    return findings
