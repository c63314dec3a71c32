"""The result of `gapstate check`: every finding of the proof, gathered in one pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gapstate.collector import paused
from gapstate.files.source import text_lines
from gapstate.findings import (
    Ambiguous,
    Cause,
    Contradiction,
    DiagramProblem,
    Finding,
    StaleDiagram,
)
from gapstate.proof.explore import MAX_CONFIGURATIONS, TooManyConfigurations, explore
from gapstate.proof.progress import Progress
from gapstate.proof.progress import progress as gap_progress
from gapstate.proof.reach import reachability
from gapstate.proof.rules import rule_findings, tested
from gapstate.proof.totality import totality_findings
from gapstate.results import Result
from gapstate.run.machine import Machine
from gapstate.table.diagram import diagram_findings
from gapstate.table.load import Spec
from gapstate.table.vocabulary import (
    EVENTS,
)


@dataclass(frozen=True)
class CheckResult(Result):
    """The outcome of `check`, shaped like its JSON output.

    `causes` maps each finding that follows from another to its roots (one;
    or several when only mending them all mends it; a root is not a key):
    the findings themselves are frozen records, and how a consequence is
    told depends on its roots (`message`, `to_dict`). It is shown under the
    first.
    """

    spec: str
    stats: dict[str, int]
    findings: tuple[Finding, ...]
    proved: bool = True  # False when syntax or name findings stopped the proof
    read: tuple[int, int, int] = (0, 0, 0)  # the rows, caps and allowances that parsed
    lines: tuple[str, ...] = ()  # the spec's lines, for showing each finding where it stands
    causes: Mapping[Finding, tuple[Finding, ...]] = field(default_factory=dict)
    # rule id -> the reachable steps it was checked on, in catalogue order (empty when the proof did not run)
    tested: Mapping[str, int] = field(default_factory=dict)
    progress: Progress | None = None  # the progress checks and the bounds; None when the proof did not run

    @property
    def ok(self) -> bool:
        return not self.findings

    def untested(self) -> list[str]:
        """The rules checked on no reachable step: this table cannot break them, so their passing means nothing."""
        return [rule for rule, steps in self.tested.items() if not steps]

    @staticmethod
    def untested_note(rule: str) -> str:
        """What a rule tested on no reachable step means, in the words every output format gives it."""
        return f"rule {rule} was tested on no reachable step: this table cannot break it, so its passing means nothing"

    def root_of(self, finding: Finding) -> Finding | None:
        """The root finding `finding` follows from (the first, when it takes several to mend); None for a root."""
        roots = self.causes.get(finding)
        return roots[0] if roots else None

    def cause(self, finding: Finding) -> Cause | None:
        """How `finding` names its roots; None for a root."""
        roots = self.causes.get(finding)
        if not roots:
            return None
        first, *others = roots
        return first.as_cause()._replace(also=tuple(other.as_cause() for other in others))

    def roots(self) -> list[Finding]:
        """The findings to fix, in line order: those that follow from no other."""
        return [f for f in self.findings if f not in self.causes]

    def message(self, finding: Finding) -> str:
        """The finding's message, as a root or under its root."""
        return finding.describe(self.cause(finding))

    def finding_dict(self, finding: Finding) -> dict[str, Any]:
        """One finding's JSON form, with its `cause`."""
        return finding.to_dict(self.cause(finding))

    def to_dict(self) -> dict[str, Any]:
        return {**self.streamed(), "findings": [self.finding_dict(f) for f in self.findings]}

    def streamed(self) -> dict[str, Any]:
        """`to_dict()` with its findings an iterator, each made as it is read: for writing a big
        result a finding at a time (`cli.render.json_chunks`), never holding every trace at once."""
        return {
            "ok": self.ok,
            "spec": self.spec,
            "stats": dict(self.stats),
            "rules": [{"rule": rule, "tested": steps} for rule, steps in self.tested.items()],
            "bounds": self.progress.to_dict() if self.progress is not None else {},
            "findings": (self.finding_dict(f) for f in self.findings),
        }

    def grouped(self) -> list[tuple[Finding, list[Finding]]]:
        """Each root finding, in line order, with the findings that follow from it, in line order."""
        under: dict[Finding, list[Finding]] = {f: [] for f in self.roots()}
        for finding in self.findings:
            root = self.root_of(finding)
            if root is not None:
                under[root].append(finding)
        return list(under.items())




def _redrawn(
    findings: list[Finding], causes: Mapping[Finding, tuple[Finding, ...]], diagrams: Sequence[Finding]
) -> dict[Finding, tuple[Finding, ...]]:
    """A diagram that differs from the table follows from the table's own roots, when it has any.

    The edit that made the table wrong made its drawing stale too; restoring
    the table makes the drawing true again, while redrawing first would draw
    the mistake. So the stale diagram is shown under the first root and names
    the others; it is a root only when nothing else is wrong. A block that is
    not a diagram (never closed, no mermaid block) is a mistake of its own.
    """
    roots = tuple(sorted((f for f in findings if f not in causes), key=lambda f: f.sort_key))
    if not roots:
        return {}
    return {f: roots for f in diagrams if isinstance(f, StaleDiagram) and f.reason is DiagramProblem.DIFFERS}


@paused()
def check(spec: Spec, progress: Callable[[int, int], None] | None = None,
          budget: int | None = MAX_CONFIGURATIONS, machine: Machine | None = None,
          findings_only: bool = False) -> CheckResult:
    """Every finding about the spec, in line order; `progress` and `budget` are handed to `explore`.

    Past the budget, a GapstateError names the spec and its largest cap.
    `machine`, when given, steps the spec's table (one made by
    `Machine.sharing`, say). `findings_only` leaves out what only
    explains the findings or goes beyond them (which follows from which, the
    steps each rule was tested on, the bounds): the same findings, for a
    caller that asks only which there are (`proof.mutation`).
    """
    table = spec.table
    stats = {
        "states": len(table.states) if table else 0,
        "events": len(EVENTS),
        "rows": len(table.rows) if table else 0,
        "configurations": 0,
        "unreachable_allowed": 0,
    }
    findings = list(spec.findings)
    causes: dict[Finding, tuple[Finding, ...]] = {}
    checked: dict[str, int] = {}
    found = None
    if spec.steppable:
        assert table is not None
        findings.extend(totality_findings(table))
        if machine is None or machine.table != table:
            machine = Machine(table)
        try:
            exploration = explore(machine, progress, budget)
        except TooManyConfigurations as error:
            largest = max(table.caps, key=lambda cap: cap.limit or 0).line if table.caps else None
            raise error.replaced(file=spec.path, line=largest) from None
        stats["configurations"] = len(exploration)
        # Rows already reported as contradictory or ambiguous do not fire for
        # the reason those findings give; calling them unreachable too is noise.
        explained = {f.line for f in findings if isinstance(f, (Contradiction, Ambiguous))}
        reach, allowed = reachability(table, machine, exploration, explained)
        findings.extend(reach)
        stats["unreachable_allowed"] = allowed
        findings.extend(rule_findings(exploration))
        found = gap_progress(table, exploration, bounds=not findings_only)
        findings.extend(found.findings())
        if not findings_only:
            checked = tested(machine, exploration)
        if not findings_only and findings:
            from gapstate.proof.causes import attribute  # imported when there is something to attribute

            findings, causes = attribute(findings, table, machine, exploration)
        diagrams = diagram_findings(spec.text, table, spec.path)
        causes.update(_redrawn(findings, causes, diagrams))
        findings.extend(diagrams)
    findings.sort(key=lambda f: f.sort_key)
    read = (len(table.rows), len(table.caps), len(table.allowances)) if table else (0, 0, 0)
    return CheckResult(spec.path, stats, tuple(findings), spec.steppable, read, tuple(text_lines(spec.text)), causes,
                       checked, found)
