"""The result of `gapstate check`: every finding of the proof, gathered in one pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gapstate.results import Result
from gapstate.findings import (
    Ambiguous,
    Contradiction,
    Finding,
)
from gapstate.proof.causes import attribute
from gapstate.proof.explore import MAX_CONFIGURATIONS, TooManyConfigurations, explore
from gapstate.proof.reach import reachability
from gapstate.proof.rules import rule_findings
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
    """The outcome of `check`, shaped like its JSON output."""

    spec: str
    stats: dict[str, int]
    findings: tuple[Finding, ...]
    proved: bool = True  # False when syntax or name findings stopped the proof
    read: tuple[int, int, int] = (0, 0, 0)  # the rows, caps and allowances that parsed
    lines: tuple[str, ...] = ()  # the spec's lines, for showing each finding where it stands

    @property
    def ok(self) -> bool:
        return not self.findings

    def to_dict(self) -> dict[str, Any]:
        return {**self.streamed(), "findings": [f.to_dict() for f in self.findings]}

    def streamed(self) -> dict[str, Any]:
        """`to_dict()` with its findings an iterator, each made as it is read: for writing a big
        result a finding at a time (`cli.render.json_chunks`), never holding every trace at once."""
        return {
            "ok": self.ok,
            "spec": self.spec,
            "stats": dict(self.stats),
            "findings": (f.to_dict() for f in self.findings),
        }

    def grouped(self) -> list[tuple[Finding, list[Finding]]]:
        """Each root finding, in line order, with the findings that follow from it."""
        roots = [f for f in self.findings if f.cause is None]
        keys = {(f.kind, f.line, getattr(f, "rule", None)): f for f in roots}
        under: dict[int, list[Finding]] = {id(f): [] for f in roots}
        for finding in self.findings:
            if finding.cause is not None:
                root = keys.get((finding.cause.kind, finding.cause.line, finding.cause.rule))
                if root is None:  # pragma: no cover - every cause names a root of the same result
                    roots.append(finding)
                    under[id(finding)] = []
                else:
                    under[id(root)].append(finding)
        return [(root, under[id(root)]) for root in roots]




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
        reach, allowed = reachability(table, exploration, explained)
        findings.extend(reach)
        stats["unreachable_allowed"] = allowed
        findings.extend(rule_findings(exploration))
        attribute(findings, table, machine, exploration)
        findings.extend(diagram_findings(spec.text, table, spec.path))
    findings.sort(key=lambda f: f.sort_key)
    read = (len(table.rows), len(table.caps), len(table.allowances)) if table else (0, 0, 0)
    return CheckResult(spec.path, stats, tuple(findings), spec.steppable, read, tuple(text_lines(spec.text)))
