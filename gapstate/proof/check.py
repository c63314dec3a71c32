"""The result of `gapstate check`: every finding of the proof, gathered in one pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gapstate.results import Result
from gapstate.findings import (
    Ambiguous,
    Cause,
    Contradiction,
    Finding,
)
from gapstate.proof.causes import attribute
from gapstate.proof.explore import MAX_CONFIGURATIONS, TooManyConfigurations, explore
from gapstate.proof.reach import reachability
from gapstate.proof.rules import rule_findings, tested
from gapstate.proof.totality import totality_findings
from gapstate.run.machine import Machine
from gapstate.seeing.diagram import diagram_findings
from gapstate.table.load import Spec
from gapstate.files.source import text_lines
from gapstate.table.vocabulary import (
    EVENTS,
)


@dataclass(frozen=True)
class CheckResult(Result):
    """The outcome of `check`, shaped like its JSON output.

    `causes` maps each finding that follows from another to its root (a
    root is not a key): the findings themselves are frozen records, and
    how a consequence is told depends on its root (`message`, `to_dict`).
    """

    spec: str
    stats: dict[str, int]
    findings: tuple[Finding, ...]
    proved: bool = True  # False when syntax or name findings stopped the proof
    read: tuple[int, int, int] = (0, 0, 0)  # the rows, caps and allowances that parsed
    lines: tuple[str, ...] = ()  # the spec's lines, for showing each finding where it stands
    causes: Mapping[Finding, Finding] = field(default_factory=dict)
    # rule id -> the reachable steps it was checked on, in catalogue order (empty when the proof did not run)
    tested: Mapping[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.findings

    def untested(self) -> list[str]:
        """The rules checked on no reachable step: this table cannot break them, so their passing means nothing."""
        return [rule for rule, steps in self.tested.items() if not steps]

    def root_of(self, finding: Finding) -> Finding | None:
        """The root finding `finding` follows from; None for a root."""
        return self.causes.get(finding)

    def cause(self, finding: Finding) -> Cause | None:
        """How `finding` names its root; None for a root."""
        root = self.causes.get(finding)
        return root.as_cause() if root is not None else None

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
            "findings": (self.finding_dict(f) for f in self.findings),
        }

    def grouped(self) -> list[tuple[Finding, list[Finding]]]:
        """Each root finding, in line order, with the findings that follow from it, in line order."""
        under: dict[Finding, list[Finding]] = {f: [] for f in self.roots()}
        for finding in self.findings:
            root = self.causes.get(finding)
            if root is not None:
                under[root].append(finding)
        return list(under.items())




def check(spec: Spec, progress: Callable[[int, int], None] | None = None,
          budget: int | None = MAX_CONFIGURATIONS) -> CheckResult:
    """Every finding about the spec, in line order; `progress` and `budget` are handed to `explore`.

    Past the budget, a GapstateError names the spec and its largest cap.
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
    causes: dict[Finding, Finding] = {}
    checked: dict[str, int] = {}
    if spec.steppable:
        assert table is not None
        findings.extend(totality_findings(table))
        machine = Machine(table)
        try:
            exploration = explore(machine, progress, budget)
        except TooManyConfigurations as error:
            largest = max(table.caps, key=lambda cap: cap.limit).line if table.caps else None
            raise error.replaced(file=spec.path, line=largest) from None
        stats["configurations"] = len(exploration)
        # Rows already reported as contradictory or ambiguous do not fire for
        # the reason those findings give; calling them unreachable too is noise.
        explained = {f.line for f in findings if isinstance(f, (Contradiction, Ambiguous))}
        reach, allowed = reachability(table, machine, exploration, explained)
        findings.extend(reach)
        stats["unreachable_allowed"] = allowed
        findings.extend(rule_findings(exploration))
        checked = tested(machine, exploration)
        findings, causes = attribute(findings, table, machine, exploration)
        findings.extend(diagram_findings(spec.text, table, spec.path))
    findings.sort(key=lambda f: f.sort_key)
    read = (len(table.rows), len(table.caps), len(table.allowances)) if table else (0, 0, 0)
    return CheckResult(spec.path, stats, tuple(findings), spec.steppable, read, tuple(text_lines(spec.text)), causes,
                       checked)
