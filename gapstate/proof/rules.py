"""The prose's rules, checked on every reachable step, each with its shortest breaking trace.
"""

from __future__ import annotations

from gapstate.findings import (
    Finding,
    RuleBroken,
)
from gapstate.spec.rules import RULES

_RULES = {rule.id: rule for rule in RULES}

from gapstate.proof.explore import Exploration


def rule_findings(exploration: Exploration) -> list[Finding]:
    """One `rule` finding per (rule, row) broken, with its shortest trace.

    The trace reaches the breaking step along steps that break nothing, so
    it replays to this rule; only when every way there breaks another rule
    first does it take the shortest way regardless, and the message says so.
    """
    findings: list[Finding] = []
    if not exploration.broken:
        return findings
    distance = exploration.distances(clean=True)
    for (rule_id, line), candidates in exploration.broken.items():
        reachable = [breach for breach in candidates if breach.config in distance]
        clean = bool(reachable)
        first = min(reachable, key=lambda breach: distance[breach.config]) if clean else candidates[0]
        trace = exploration.trace_to(first.config, (first.event, first.choice), clean=clean)
        findings.append(
            RuleBroken(
                line,
                1,
                rule=rule_id,
                description=_RULES[rule_id].description,
                trace=tuple(trace),
                detour=not clean,
            )
        )
    return findings
