"""The prose's rules, checked on every reachable step: each with its shortest breaking trace, and on how many steps it was checked.
"""

from __future__ import annotations

from collections import Counter

from gapstate.findings import (
    Finding,
    RuleBroken,
)
from gapstate.proof.graph import Exploration
from gapstate.run.machine import Machine
from gapstate.table.model import Table
from gapstate.table.rules import RULES

_RULES = {rule.id: rule for rule in RULES}


def rule_findings(exploration: Exploration) -> list[Finding]:
    """One `rule` finding per (rule, row) broken, with its shortest trace.

    The trace reaches the breaking step along steps that break nothing, so
    it replays to this rule; only when every way there breaks another rule
    first does it take the shortest way regardless, and the message says so.
    """
    return [RuleBroken(line, 1, rule=rule_id, description=_RULES[rule_id].description, trace=trace, detour=detour)
            for rule_id, line, trace, detour in exploration.breaches()]


def tested(machine: Machine, exploration: Exploration) -> dict[str, int]:
    """For each rule, in catalogue order, how many reachable steps it was checked on.

    A step is checked against the rules its row concerns (`Rule.concerns`:
    its event and actions; a refused step against the rules about
    refusals). A rule checked on none cannot fail on this table, so its
    passing says nothing about it. Counted once per exploration of the
    table and kept with it (`Exploration.derived`); each caller gets its own dict.
    """
    table = machine.table
    return dict(exploration.derived(("tested", table), lambda: _tested(table, exploration)))


def _tested(table: Table, exploration: Exploration) -> dict[str, int]:
    per_row: Counter[int] = Counter()
    for node, members in exploration.classes():  # a class's members take its representative's rows
        for move in exploration.moves(node):
            per_row[move.row] += members
        for refusal in exploration.refusals(node):
            if refusal.row is not None:
                per_row[refusal.row] += members
    # Rows alike in event and actions concern the same rules: each rule is asked once a kind of row (a few
    # dozen), not once a row (at 10,003 rows, 450,000 questions and 0.2 s of CPU).
    rows = {row.line: row for row in table.rows}
    per_kind: Counter[tuple[str, tuple[str, ...]]] = Counter()
    for line, count in per_row.items():
        per_kind[rows[line].event, rows[line].actions] += count
    return {rule.id: sum(count for (event, actions), count in per_kind.items() if rule.concerns(event, actions))
            for rule in RULES}
