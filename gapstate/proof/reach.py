"""Reachability: which rows fire on some reachable configuration, and how; why a row never fires.
"""

from __future__ import annotations

from itertools import combinations

from gapstate.findings import (
    AllowanceProblem,
    Finding,
    GuardsNeverHold,
    NeverEntered,
    NeverFires,
    StaleAllowance,
    TakenEarlier,
    Unreachable,
)
from gapstate.proof.graph import Exploration, Firing
from gapstate.run.machine import Machine
from gapstate.table.model import STAY, Literal, Row, Table, format_guards, holds
from gapstate.table.vocabulary import GUARDS, Config


def reachability(table: Table, machine: Machine, exploration: Exploration, skip: set[int]) -> tuple[list[Finding], int]:
    """unreachable findings, each with why its row never fires, stale_allowance findings, and how many allowances hold."""
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
    configs: list[Config] | None = None
    for row in table.rows:
        if row.invalid or row.line in exploration.fired or row.line in allowed or row.line in skip:
            continue
        if configs is None:
            configs = [c for c in exploration.configs() if not c.ended and machine.within_caps(c)]
        findings.append(Unreachable(row.line, 1, str(row), why_unreachable(machine, configs, table, row)))
    return findings, held




def firings(exploration: Exploration) -> dict[int, list[Firing]]:
    """Every reachable step, grouped by the line of the row it matches (`invalid` rows included).

    Configurations past a cap and after `session_end` take no step. The lists
    follow the exploration's order, so choices among them are deterministic.
    """
    out: dict[int, list[Firing]] = {}
    for node in exploration.nodes():  # breadth-first; past a cap and after session_end no step is taken
        moves, refusals = exploration.moves(node), exploration.refusals(node)
        if not moves and not refusals:
            continue
        config = exploration.config(node)
        for move in moves:
            out.setdefault(move.row, []).append(Firing(config, move.sent, not move.breaks))
        for refusal in refusals:
            if refusal.row is not None:
                out.setdefault(refusal.row, []).append(Firing(config, refusal.sent, True))
    return out


def why_unreachable(machine: Machine, configs: list[Config], table: Table, row: Row) -> NeverFires:
    """Why no reachable configuration fires `row`, as a reason record the catalogue puts into words.

    `configs` are the reachable configurations that can still take a step.
    Either no reachable configuration is in its state (and which rows lead
    there); or the smallest set of its guards that never hold together there
    (one guard, for the bundled table's three allowed rows: every reachable
    DUE configuration still has an attempt left), with the valuations that
    do occur; or an earlier row takes every valuation it matches.
    """
    states = tuple(sorted(s for s in table.states if row.applies_to(s)))
    wildcard = row.state == "*"
    here = [c for c in configs if c.state in states]
    if not here:
        leads = sorted({r.line for r in table.rows if r.next != STAY and r.next in states and r.next != r.state})
        return NeverEntered(states, wildcard, tuple(leads))
    valuations = [machine.guard_values(c, row.event, choice)[1] for c in here for choice in machine.choices(c, row.event)]
    names = [lit.guard for lit in row.guards]
    occur = tuple(sorted({format_guards(tuple(Literal(n, v[n]) for n in names)) for v in valuations}))
    for size in range(1, len(row.guards) + 1):
        for subset in combinations(row.guards, size):
            if any(holds(subset, values) for values in valuations):
                continue
            meaning = GUARDS[subset[0].guard].meaning if size == 1 else ""
            return GuardsNeverHold(row.event, tuple(map(str, subset)), meaning, states, wildcard, len(here), occur)
    taken = sorted({
        outcome.row.line
        for c in here
        for choice in machine.choices(c, row.event)
        if holds(row.guards, machine.guard_values(c, row.event, choice)[1])
        and (outcome := machine.step(c, row.event, choice)).row is not None
    })
    return TakenEarlier(tuple(taken))
