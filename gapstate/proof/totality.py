"""Totality and ambiguity, decided per (state, event) by enumerating every guard valuation.
"""

from __future__ import annotations

from itertools import combinations, product

from gapstate.findings import (
    Ambiguous,
    Finding,
    NotTotal,
)
from gapstate.proof.graph import Exploration, Firing
from gapstate.run.machine import valuations
from gapstate.table.model import Literal, Table
from gapstate.table.vocabulary import (
    EVENTS,
)


def totality_findings(table: Table) -> list[Finding]:
    """not_total and ambiguous findings.

    Every uncovered valuation of a (state, event) is reported, as the fewest
    rows that would cover exactly the uncovered ones, one finding each, so
    one run shows every row to add. Overlapping rows are reported once a
    pair; a row that repeats an earlier row's state, event and guards is
    reported once, against the first (300 copies give 299 findings, not
    44,850 pairs).
    """
    findings: list[Finding] = []
    reported: set[tuple[int, int]] = set()
    first: dict[tuple[str, str, frozenset[Literal]], int] = {}
    original = {row.line: first.setdefault((row.state, row.event, row.guard_set), row.line) for row in table.rows}
    for state in table.states:
        for event in EVENTS:
            rows = table.rows_for(state, event)
            names, matches = valuations(table, state, event)
            uncovered: list[tuple[bool, ...]] = []
            for values, matching in matches:
                if not matching:
                    uncovered.append(values)
                    continue
                valuation = tuple(zip(names, values, strict=True))
                for copy in (r for r in matching if original[r.line] != r.line):
                    pair = (original[copy.line], copy.line)
                    if pair not in reported:
                        reported.add(pair)
                        findings.append(Ambiguous(copy.line, 1, pair, state, event, valuation, copy=True))
                distinct = [r for r in matching if original[r.line] == r.line]
                for a, b in combinations(distinct, 2):
                    pair = (a.line, b.line)
                    if pair not in reported:
                        reported.add(pair)
                        findings.append(Ambiguous(b.line, 1, pair, state, event, valuation))
            line = rows[0].line if rows else table.header_line
            for cube in minimal_cover(uncovered):
                example = next(v for v in uncovered if all(v[i] == b for i, b in cube))
                literals = tuple((names[i], b) for i, b in cube)
                findings.append(NotTotal(line, 1, state, event, tuple(zip(names, example, strict=True)), literals))
    return _every_state(findings, len(table.states))


def _every_state(findings: list[Finding], states: int) -> list[Finding]:
    """One hole for every state at once (a `*` row deleted) is one finding, with the `*` row to add."""
    holes: dict[tuple[str, frozenset], list[NotTotal]] = {}
    for finding in findings:
        if isinstance(finding, NotTotal):
            holes.setdefault((finding.event, frozenset(finding.cube)), []).append(finding)
    merged: dict[Finding, NotTotal | None] = {}
    for group in holes.values():
        if states > 1 and len(group) == states:
            first = min(group, key=lambda f: f.line)
            merged[group[0]] = NotTotal(first.line, 1, "*", first.event, first.valuation, first.cube)
            merged.update(dict.fromkeys(group[1:]))
    return [shown for f in findings if (shown := merged.get(f, f)) is not None]


Cube = tuple[tuple[int, bool], ...]  # (guard position, value) for each guard the cube fixes

# Enough to finish the few guards one (state, event) names; past it the
# best cover found so far is kept (exact and disjoint, perhaps not the fewest).
_COVER_BUDGET = 20_000


def minimal_cover(valuations: list[tuple[bool, ...]]) -> list[Cube]:
    """The fewest disjoint cubes whose valuations are exactly `valuations`: the rows to add.

    Each cube is a row's guards: it must cover only uncovered valuations
    (or the table becomes ambiguous with an existing row) and no two may
    overlap (or the added rows are ambiguous with each other). A branch and
    bound over the cubes holding the first valuation left; bigger cubes
    first, and among equal ones the cube that fixes the earlier guards (in
    the vocabulary's order) wins, so the split follows the seed's own (budget
    before attempts). Cubes come in the order of their first valuation.
    """
    if not valuations:
        return []
    width = len(valuations[0])
    order = {v: i for i, v in enumerate(valuations)}
    # Every cube inside the set, with its members, listed under each member.
    holding: dict[tuple[bool, ...], list[tuple[Cube, frozenset]]] = {v: [] for v in order}
    for pattern in product((False, True, None), repeat=width):
        free = [i for i, b in enumerate(pattern) if b is None]
        members = []
        for bits in product((False, True), repeat=len(free)):
            value = [b is True for b in pattern]  # each free place is set below
            for i, b in zip(free, bits, strict=True):
                value[i] = b
            if tuple(value) not in order:
                break
            members.append(tuple(value))
        else:
            cube = tuple((i, b) for i, b in enumerate(pattern) if b is not None)
            for member in members:
                holding[member].append((cube, frozenset(members)))
    for cubes in holding.values():
        cubes.sort(key=lambda item: (-len(item[1]), [i for i, _ in item[0]]))
    biggest = max(len(cubes[0][1]) for cubes in holding.values())  # no cube covers more: a lower bound
    best: list[list[Cube]] = []
    nodes = 0

    def search(left: frozenset, chosen: list[Cube]) -> None:
        nonlocal nodes
        nodes += 1
        if not left:
            if not best or len(chosen) < len(best[0]):
                best[:] = [list(chosen)]
            return
        target = min(left, key=order.__getitem__)
        options = [(cube, members) for cube, members in holding[target] if members <= left]
        if best and (nodes > _COVER_BUDGET or len(chosen) + -(-len(left) // biggest) >= len(best[0])):
            return
        for cube, members in options:
            search(left - members, chosen + [cube])

    search(frozenset(order), [])
    return best[0]




Hole = tuple[str, str]  # (state, event): the environment may send it there and no row matches


def holes(exploration: Exploration) -> dict[Hole, list[Firing]]:
    """Every reachable step that no row matches, by (state, event).

    The environment may send any event the table does not mark `invalid`;
    on a table that is not total some of those match no row at all. Such a
    step breaks no rule (it is refused), so each Firing is clean.
    """
    out: dict[Hole, list[Firing]] = {}
    for node in exploration.nodes():  # breadth-first; past a cap and after session_end no step is taken
        holes = [refusal.sent for refusal in exploration.refusals(node) if refusal.row is None]
        if holes:
            config = exploration.config(node)
            for sent in holes:
                out.setdefault((config.state, sent.event), []).append(Firing(config, sent, True))
    return out
