"""Causes and consequences: which findings follow from which, and why a row never fires.

One mistake in a table shows as many findings: delete a row and the hole it
leaves cuts off every row past it, each of them `unreachable`. Fixing the
hole fixes them all, and deleting them (what an unreachable row on its own
calls for) makes the table worse. So each finding that only follows from
another is given that root as its `cause`, and is shown under it.

What "follows from" means is decided on the configuration graph, by asking
what the table would do if one root finding were mended, without knowing how
a person would mend it:

- *opened*: the steps a root is about (the valuations a hole leaves
  uncovered, the steps of a row that breaks a rule, the valuations two rows
  share) may lead anywhere: to any state, with the actions of any row of the
  table. A row that fires then, and not otherwise, is cut off by that root.
- *blocked*: those steps are not taken. A rule broken, or an allowed row
  that fires, only past them, is downstream of that root.

Roots are tried structural findings first (holes, contradictions, overlaps),
then broken rules nearest the initial configuration first, so a breach
downstream of another never claims it. A finding some root explains is a
consequence; a consequence is never a cause. On a table with one mistake
this leaves one root, at the mistaken row or the hole it left.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from itertools import combinations, product
from math import prod
from typing import NamedTuple

from gapstate.findings import (
    Ambiguous,
    AllowanceProblem,
    Contradiction,
    Finding,
    NotTotal,
    RuleBroken,
    StaleAllowance,
    Unreachable,
)
from gapstate.proof.explore import Exploration
from gapstate.run.machine import Machine, Status
from gapstate.spec.table import STAY, Literal, Row, Table, format_guards
from gapstate.spec.vocabulary import ACTIONS, COUNTERS, EVENTS, FLAGS, GUARDS, Config

# Each candidate root costs a walk or two over every configuration, so a table
# with thousands of findings would take time quadratic in its size. Past this
# many configuration visits, the findings not yet tried are left as roots
# (shown each on its own, none hidden); a table with a few mistakes never
# reaches it (the bundled table's 284 configurations fit about 350 times).
CAUSE_BUDGET = 100_000

# Up to this many configurations within the caps, a row that cannot fire in
# any of them is known not to fire without a walk (see `_Walker._may_fire`).
STATIC_BUDGET = 20_000


def attribute(findings: list[Finding], table: Table, machine: Machine, exploration: Exploration) -> None:
    """Give every finding that follows from another its root `cause` (in place), and each unreachable row its reason."""
    if not findings:
        return
    rows = {row.line: row for row in table.rows}
    if any(isinstance(f, Unreachable) for f in findings):
        configs = [c for c in exploration.configs() if not c.ended and machine.within_caps(c)]
        for finding in findings:
            if isinstance(finding, Unreachable):
                finding.reason = why_unreachable(machine, configs, table, rows[finding.line])
    _point_ambiguities(findings, table, exploration)
    _structural(findings, table)
    walk = _Walker(machine, table, exploration)
    for root in _candidates(findings, exploration):
        if walk.visited > CAUSE_BUDGET:
            break  # the findings not yet tried stay roots: each is shown on its own
        if root.cause is not None:
            continue
        cause = root.as_cause()
        # A root is about its own steps and those of what already follows from it (a hole its guard left).
        suspects = [s for f in findings if f is root or f.cause == cause if (s := _suspect(f, table, machine)) is not None]
        if not suspects:
            continue
        cut_off = [f for f in findings if isinstance(f, Unreachable) and f.cause is None]
        if cut_off:
            fired = walk.opened(suspects, {f.line for f in cut_off})
            for finding in cut_off:
                if finding.line in fired:
                    finding.cause = cause
        downstream = [
            f
            for f in findings
            if f is not root
            and f.cause is None
            and (isinstance(f, RuleBroken) or (isinstance(f, StaleAllowance) and f.reason is AllowanceProblem.ROW_FIRES))
        ]
        if downstream:
            fired, broken = walk.blocked(suspects)
            for finding in downstream:
                if isinstance(finding, RuleBroken):
                    gone = (finding.rule, finding.line) not in broken
                    same_row = isinstance(root, RuleBroken) and root.line == finding.line
                    if gone or same_row:
                        finding.cause = cause
                elif finding.row not in fired:
                    finding.cause = cause
    _resolve(findings)


def _candidates(findings: list[Finding], exploration: Exploration) -> list[Finding]:
    """The findings that may be roots, in the order they are tried: structure first, then breaches by distance."""
    structural = [f for f in findings if isinstance(f, (NotTotal, Contradiction, Ambiguous))]
    rules = [f for f in findings if isinstance(f, RuleBroken)]
    rules.sort(key=lambda f: (f.detour, len(f.trace), f.line))
    return structural + rules


def _resolve(findings: list[Finding]) -> None:
    """Point every consequence at its root, never at another consequence."""
    by_key = {(f.kind, f.line, getattr(f, "rule", None)): f for f in findings}
    for finding in findings:
        seen = 0
        while finding.cause is not None and seen < len(findings):
            cause = finding.cause
            upstream = by_key.get((cause.kind, cause.line, cause.rule))
            if upstream is None or upstream.cause is None or upstream is finding:
                break
            finding.cause = upstream.cause
            seen += 1


# Findings that explain others by the table's text alone -----------------------


def _holds(literals: Iterable[Literal], values: dict[str, bool]) -> bool:
    return all(values[lit.guard] == lit.positive for lit in literals)


def _point_ambiguities(findings: list[Finding], table: Table, exploration: Exploration) -> None:
    """Put each overlap at the row most likely mistaken, and make an overlap that repeats one row's others follow it.

    The likely row, of the two: the one that fills a hole of its own state
    and event once a guard of it is negated (a negated guard both overlaps
    and leaves a hole); else the one row every overlap of its state and
    event involves (a dropped guard widens a row over several neighbours);
    else one that one more guard would part from every row without leaving
    a hole (a dropped guard, over one neighbour); else the row whose
    valuations hold the other's; else the one that breaks a rule; else the
    one with fewer guards; else the earlier row, which is the one that acts
    on the shared valuations. A repeated row is reported at the copy, unless
    negating one of its guards fills a hole.
    """
    rows = {row.line: row for row in table.rows}
    holes = [f for f in findings if isinstance(f, NotTotal)]
    breaking = {f.line for f in findings if isinstance(f, RuleBroken)}
    groups: dict[tuple[str, str], list[Ambiguous]] = {}
    for finding in findings:
        if isinstance(finding, Ambiguous):
            groups.setdefault((finding.state, finding.event), []).append(finding)
    for all_of_them in groups.values():
        # A copy (same guards) is at the copy, unless it is a guard negated: then at the row that fills the hole.
        for finding in all_of_them:
            if finding.copy and holes:
                first, second = (rows[line] for line in finding.rows)
                finding.line = max(
                    (first, second), key=lambda r: (_negation_fills(r, holes), r.line in breaking, r is second)
                ).line
        group = [f for f in all_of_them if not f.copy]
        lines = {line for f in group for line in f.rows}
        involved = [line for line in lines if all(line in f.rows for f in group)]
        widening = involved[0] if len(group) > 1 and len(involved) == 1 else None
        for finding in group:
            first, second = (rows[line] for line in finding.rows)

            def likely(row: Row) -> tuple[bool, ...]:
                other = second if row is first else first
                return (
                    _negation_fills(row, holes),
                    row.line == widening,
                    _narrowing_mends(table, row, finding.state),
                    row.guard_set < other.guard_set,
                    row.line in breaking,
                    len(row.guards) < len(other.guards),
                    row is first,
                )

            finding.line = max((first, second), key=likely).line
        if widening is not None:
            group.sort(key=lambda f: f.rows)
            for finding in group[1:]:
                finding.cause = group[0].as_cause()


def _narrowing_mends(table: Table, row: Row, state: str) -> bool:
    """True when one more guard literal would make `row` overlap no other row of its state and event, leaving no hole."""
    from gapstate.run.machine import guard_names

    others = [r for r in table.rows_for(state, row.event) if r is not row]
    names = guard_names((row, *others))
    for guard in names:
        if any(lit.guard == guard for lit in row.guards):
            continue
        for positive in (True, False):
            narrowed = row.guards + (Literal(guard, positive),)
            ok = True
            for values in product((False, True), repeat=len(names)):
                valuation = dict(zip(names, values))
                if not _holds(row.guards, valuation):
                    continue
                matching = sum(_holds(r.guards, valuation) for r in others)
                if (matching > 0) if _holds(narrowed, valuation) else (matching != 1):
                    ok = False
                    break
            if ok:
                return True
    return False


def _negation_fills(row: Row, holes: list[NotTotal]) -> bool:
    return any(_negation_fills_hole(row, hole) for hole in holes)


def _negation_fills_hole(row: Row, hole: NotTotal) -> bool:
    """True when the row with one guard negated would cover exactly the hole's valuations."""
    if row.event != hole.event or not (hole.state == "*" or row.applies_to(hole.state)):
        return False
    cube = {Literal(g, v) for g, v in hole.cube}
    for lit in row.guards:
        flipped = (row.guard_set - {lit}) | {Literal(lit.guard, not lit.positive)}
        if flipped == cube:
            return True
    return False


def _structural(findings: list[Finding], table: Table) -> None:
    """Holes a mistaken guard left, and allowances of a deleted row, follow from what the text shows."""
    rows = {row.line: row for row in table.rows}
    holes = [f for f in findings if isinstance(f, NotTotal)]
    for hole in holes:
        for finding in findings:
            if isinstance(finding, Ambiguous) and finding.cause is None:
                if _negation_fills_hole(rows[finding.line], hole):
                    hole.cause = finding.as_cause()
                    break
            elif isinstance(finding, Contradiction):
                row = rows[finding.line]
                if row.event == hole.event and (hole.state == "*" or row.applies_to(hole.state)):
                    hole.cause = finding.as_cause()
                    break
    overlaps = [f for f in findings if isinstance(f, Ambiguous)]
    for finding in findings:
        if isinstance(finding, StaleAllowance) and finding.reason is AllowanceProblem.NAMES_NO_ROW:
            # The row it allowed was deleted (a hole where it was) or had a guard changed (an overlap there).
            allowance = next(a for a in table.allowances if a.line == finding.line)
            allowed = frozenset(allowance.guards)
            for other in (*holes, *overlaps):
                if isinstance(other, NotTotal):
                    same = other.event == allowance.event and other.state in (allowance.state, "*")
                    near = {Literal(g, v) for g, v in other.cube} <= allowed
                else:
                    row = rows[other.line]
                    same = row.event == allowance.event and row.state == allowance.state
                    near = len({lit.guard for lit in row.guard_set ^ allowed}) <= 1
                if same and near:
                    finding.cause = other.as_cause()
                    break


# Walking the graph with one root mended ---------------------------------------


class Suspect(NamedTuple):
    """The steps a root finding is about: steps of `rows` (None: steps no row matches) that `test` accepts.

    `test` is called with the configuration, the event, the chosen guard's
    value, and whether the step breaks a rule.
    """

    rows: frozenset[int] | None
    test: Callable[[Config, str, bool, bool], bool]


def _suspect(root: Finding, table: Table, machine: Machine) -> Suspect | None:
    """The steps a root finding is about; None for a finding that explains nothing."""
    if isinstance(root, NotTotal):
        cube = tuple(Literal(g, v) for g, v in root.cube)
        state, event = root.state, root.event

        def in_hole(config: Config, on: str, choice: bool, broken: bool) -> bool:
            return on == event and state in ("*", config.state) and _holds(cube, machine.guard_values(config, on, choice)[1])

        return Suspect(None, in_hole)
    if isinstance(root, Contradiction):
        row = next(r for r in table.rows if r.line == root.line)

        def uncovered(config: Config, on: str, choice: bool, broken: bool) -> bool:
            return on == row.event and row.applies_to(config.state)

        return Suspect(None, uncovered)
    if isinstance(root, Ambiguous):
        pair = [r for r in table.rows if r.line in root.rows]

        def shared(config: Config, on: str, choice: bool, broken: bool) -> bool:
            values = machine.guard_values(config, on, choice)[1]
            return all(_holds(r.guards, values) for r in pair)

        return Suspect(frozenset(root.rows), shared)
    if isinstance(root, RuleBroken):

        def breaking(config: Config, on: str, choice: bool, broken: bool) -> bool:
            return broken

        return Suspect(frozenset((root.line,)), breaking)
    return None


class _Walker:
    """Breadth-first walks over the table's steps, with a root's steps opened or blocked."""

    def __init__(self, machine: Machine, table: Table, exploration: Exploration):
        self.machine = machine
        self.exploration = exploration
        self.visited = 0  # configurations visited by every walk so far
        # What a missing or mistaken row could do: lead to any state with the actions of any row.
        actions = dict.fromkeys(r.actions for r in table.rows if not r.invalid)
        actions.update(dict.fromkeys((name,) for name, act in ACTIONS.items() if act.add or act.sets))
        self.effects = tuple(dict.fromkeys(machine.effects(acts) for acts in ((), *actions)))
        self.states = table.states
        self.rows = {row.line: row for row in table.rows}
        self._dead: set[int] = set()  # rows no configuration within the caps fires (see `_may_fire`)

    def blocked(self, suspects: list[Suspect]) -> tuple[set[int], set[tuple[str, int]]]:
        """The rows that fire and the (rule, row) pairs broken when the suspect steps are not taken.

        Only steps that fire a row lead anywhere, so the walk follows the
        explored graph, minus the suspect steps among them.
        """
        by_row = _by_row(suspects)

        def blocked(config: Config, event: str, choice: bool, line: int, broken: bool) -> bool:
            return any(test(config, event, choice, broken) for test in by_row[line])

        fired, broken, reached = self.exploration.reach_without(by_row, blocked)
        self.visited += reached
        return fired, broken

    def opened(self, suspects: list[Suspect], wanted: set[int]) -> set[int]:
        """The rows of `wanted` that fire when a suspect step may lead anywhere (see `Walker.__init__`).

        The walk stops as soon as every wanted row has fired.
        """
        machine = self.machine
        missing = {line for line in wanted if self._may_fire(line)}
        if not missing:
            return set()
        by_row = _by_row(suspects)
        unmatched = [s.test for s in suspects if s.rows is None]
        seen = {machine.initial}
        queue = deque([machine.initial])
        # An opened step lands anywhere from the configuration its event leaves; where it
        # lands depends on that alone, minus the state, so each is opened once.
        opened: set[tuple] = set()
        while queue:
            config = queue.popleft()
            self.visited += 1
            if config.ended or not machine.within_caps(config):
                continue
            for event in EVENTS:
                for choice in machine.choices(config, event):
                    outcome = machine.step_once(config, event, choice)
                    row = outcome.row
                    if outcome.status is Status.OK:
                        assert row is not None
                        if row.line in missing:
                            missing.discard(row.line)
                            if not missing:
                                return wanted - self._dead
                        target = outcome.config
                        if target not in seen:
                            seen.add(target)
                            queue.append(target)
                    tests = unmatched if row is None else by_row.get(row.line)
                    if not tests or not any(test(config, event, choice, bool(outcome.broken)) for test in tests):
                        continue
                    after = machine.after_event(config, event)
                    if after[1:] in opened:
                        continue
                    opened.add(after[1:])
                    for effects in self.effects:
                        landed = machine.landing(after, effects, after.state)
                        for state in self.states:
                            target = landed._replace(state=state)
                            if target not in seen:
                                seen.add(target)
                                queue.append(target)
        return wanted - missing - self._dead

    def _may_fire(self, line: int) -> bool:
        """False when no configuration within the caps matches the row: then no walk fires it.

        Decided by trying every such configuration of the row's states, when
        they are few (`STATIC_BUDGET`); a row whose event clears a guard it
        needs, or whose valuations earlier rows all take, is then settled
        without a walk.
        """
        if line in self._dead:
            return False
        row = self.rows[line]
        machine = self.machine
        caps = machine.caps
        counters = tuple(COUNTERS)
        states = [s for s in self.states if row.applies_to(s)]
        if any(c not in caps for c in counters):
            return True
        # an ended session steps no more: only the other flags vary
        ranges = [states, *(range(caps[c] + 1) for c in counters), *(((False,) if f == "ended" else (False, True)) for f in FLAGS)]
        if prod(len(values) for values in ranges) > STATIC_BUDGET:
            return True
        for fields in product(*ranges):
            config = Config._make(fields)
            for choice in machine.choices(config, row.event):
                if machine.row_at(config, row.event, choice) is row:
                    return True
        self._dead.add(line)
        return False


def _by_row(suspects: list[Suspect]) -> dict[int, list[Callable[[Config, str, bool, bool], bool]]]:
    """The tests of the suspects, by the row whose steps each is about."""
    by_row: dict[int, list[Callable[[Config, str, bool, bool], bool]]] = {}
    for suspect in suspects:
        for line in suspect.rows or ():
            by_row.setdefault(line, []).append(suspect.test)
    return by_row


# Why a row never fires ---------------------------------------------------------


def why_unreachable(machine: Machine, configs: list[Config], table: Table, row: Row) -> str:
    """Why no reachable configuration fires `row`, in the guards' own words.

    `configs` are the reachable configurations that can still take a step.
    Either no reachable configuration is in its state (and which rows lead
    there); or the smallest set of its guards that never hold together there
    (one guard, for the bundled table's three allowed rows: every reachable
    DUE configuration still has an attempt left), with the valuations that
    do occur; or an earlier row takes every valuation it matches.
    """
    states = {s for s in table.states if row.applies_to(s)}
    where = " or ".join(sorted(states)) if row.state != "*" else "any state"
    here = [c for c in configs if c.state in states]
    if not here:
        leads = sorted({r.line for r in table.rows if r.next != STAY and r.next in states and r.next != r.state})
        if not leads:
            return f"no row leads to {where}"
        lines = ", ".join(str(line) for line in leads)
        return f"no reachable configuration is in {where}: the row{'s' if len(leads) != 1 else ''} leading there (line{'s' if len(leads) != 1 else ''} {lines}) never fire{'s' if len(leads) == 1 else ''}"
    valuations = [machine.guard_values(c, row.event, choice)[1] for c in here for choice in machine.choices(c, row.event)]
    count = f"{len(here)} reachable {where} configuration{'s' if len(here) != 1 else ''}"
    names = [lit.guard for lit in row.guards]
    occur = sorted({format_guards(tuple(Literal(n, v[n]) for n in names)) for v in valuations})
    seen = "; the valuations that occur there: " + ", ".join(f"`{v}`" for v in occur)
    for size in range(1, len(row.guards) + 1):
        for subset in combinations(row.guards, size):
            if any(_holds(subset, values) for values in valuations):
                continue
            if size == 1:
                (lit,) = subset
                always = "true" if not lit.positive else "false"
                return (
                    f"`{lit}` never holds on {row.event}: {lit.guard} ({GUARDS[lit.guard].meaning}) "
                    f"is {always} in every one of the {count}{seen}"
                )
            shown = ", ".join(f"`{lit}`" for lit in subset)
            return f"{shown} never hold together on {row.event} in any of the {count}{seen}"
    taken = sorted({
        outcome.row.line
        for c in here
        for choice in machine.choices(c, row.event)
        if _holds(row.guards, machine.guard_values(c, row.event, choice)[1])
        and (outcome := machine.step(c, row.event, choice)).row is not None
    })
    lines = ", ".join(str(line) for line in taken)
    return f"every reachable valuation it matches is taken by the row{'s' if len(taken) != 1 else ''} at line {lines}, written first"
