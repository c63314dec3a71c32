"""Reachability: which rows fire on some reachable configuration, and how.
"""

from __future__ import annotations

from gapstate.findings import (
    AllowanceProblem,
    Finding,
    StaleAllowance,
    Unreachable,
)
from gapstate.proof.explore import Exploration, Firing
from gapstate.run.machine import Machine
from gapstate.spec.table import Table
from gapstate.spec.vocabulary import EVENTS


def reachability(table: Table, exploration: Exploration, skip: set[int]) -> tuple[list[Finding], int]:
    """unreachable and stale_allowance findings, and how many allowances hold."""
    findings: list[Finding] = []
    allowed: dict[int, int] = {}  # row line -> allowance line
    held = 0
    for allowance in table.allowances:
        rows = [r for r in table.rows_written(allowance.state, allowance.event) if allowance.names(r)]
        if not rows:
            findings.append(StaleAllowance(allowance.line, 1, AllowanceProblem.NAMES_NO_ROW, str(allowance)))
            continue
        row = rows[0]
        if row.line in allowed:
            reason = AllowanceProblem.ALREADY_ALLOWED
        elif row.invalid:
            reason = AllowanceProblem.ROW_INVALID
        elif row.line in exploration.fired:
            reason = AllowanceProblem.ROW_FIRES
        else:
            allowed[row.line] = allowance.line
            held += 1
            continue
        first = allowed.setdefault(row.line, allowance.line)
        findings.append(StaleAllowance(allowance.line, 1, reason, str(allowance), row.line, first))
    for row in table.rows:
        if row.invalid or row.line in exploration.fired or row.line in allowed or row.line in skip:
            continue
        findings.append(Unreachable(row.line, 1, str(row)))
    return findings, held




def firings(machine: Machine, exploration: Exploration) -> dict[int, list[Firing]]:
    """Every reachable step, grouped by the line of the row it matches (`invalid` rows included).

    Configurations past a cap and after `session_end` take no step. The lists
    follow the exploration's order, so choices among them are deterministic.
    """
    out: dict[int, list[Firing]] = {}
    events = tuple(EVENTS)
    for config in exploration.configs():  # breadth-first, without building the networkx graph
        if config.ended or not machine.within_caps(config):
            continue
        for event in events:
            for choice in machine.choices(config, event):
                outcome = machine.step(config, event, choice)
                if outcome.row is not None:
                    out.setdefault(outcome.row.line, []).append(Firing(config, event, choice, not outcome.broken))
    return out
