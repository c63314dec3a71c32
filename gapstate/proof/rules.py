"""The prose's rules, checked on every reachable step, each with its shortest breaking trace.
"""

from __future__ import annotations

from gapstate.findings import (
    Finding,
    RuleBroken,
)
from gapstate.table.rules import RULES

_RULES = {rule.id: rule for rule in RULES}

from gapstate.proof.exploration import Exploration


def rule_findings(exploration: Exploration) -> list[Finding]:
    """One `rule` finding per (rule, row) broken, with its shortest trace.

    The trace reaches the breaking step along steps that break nothing, so
    it replays to this rule; only when every way there breaks another rule
    first does it take the shortest way regardless, and the message says so.
    """
    return [RuleBroken(line, 1, rule=rule_id, description=_RULES[rule_id].description, trace=trace, detour=detour)
            for rule_id, line, trace, detour in exploration.breaches()]
