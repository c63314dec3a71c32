"""Causes and consequences: which findings follow from which.

One mistake in a table shows as many findings: delete a row and the hole it
leaves cuts off every row past it, each of them `unreachable`. Fixing the
hole fixes them all, and deleting them (what an unreachable row on its own
calls for) makes the table worse. So each finding that only follows from
another is mapped to that root (`Attribution.causes`, which the check result
holds: findings are frozen records, never changed), and is shown under it.

What "follows from" means is decided on the configuration graph, by asking
what the table would do if one root finding were mended, without knowing how
a person would mend it (the walks are `proof.mending`'s):

- *opened*: the steps a root is about (the valuations a hole leaves
  uncovered, the steps of a row that breaks a rule, the valuations two rows
  share) may lead anywhere: to any state, with the actions of any row of the
  table. A row that fires then, and not otherwise, is cut off by that root.
- *blocked*: those steps are not taken. A rule broken, or an allowed row
  that fires, only past them, is downstream of that root.
- *mended*: those steps are taken as a correct row would take them (one
  edit away from the row, fitted where no mistake led). Where there are a
  few roots, this decides which of them each consequence needs: what
  mending one root alone mends is under it alone, what only several mend
  is under those (`_mended_by`).

Roots are tried structural findings first (holes, contradictions, overlaps),
then broken rules nearest the initial configuration first, so a breach
downstream of another never claims it, and a breach its row commits on
every step it can take is never claimed from another row (see
`Walker.breaks_everywhere`). A finding some root explains is a
consequence; a consequence is never a cause. On a table with one mistake
this leaves one root, at the mistaken row or the hole it left. Why a row
never fires is `proof.reach.why_unreachable`'s.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from itertools import product
from typing import NamedTuple

from gapstate.findings import (
    AllowanceProblem,
    Ambiguous,
    Contradiction,
    Finding,
    NotTotal,
    RetryLoop,
    RuleBroken,
    StaleAllowance,
    Unreachable,
)
from gapstate.proof.graph import Exploration
from gapstate.proof.mending import Suspect, Walker, every_step, suspect
from gapstate.run.machine import Machine
from gapstate.table.model import ANY_STATE, Allowance, Literal, Row, Table, holds
from gapstate.table.rules import STATE_MEANINGS

# Each candidate root costs a walk or two over every configuration, so a table
# with thousands of findings would take time quadratic in its size. Past this
# many configuration visits, the findings not yet tried are left as roots
# (shown each on its own, none hidden); a table with a few mistakes never
# reaches it (the bundled table's 284 configurations fit about 350 times).
CAUSE_BUDGET = 100_000


class Attribution(NamedTuple):
    """The findings, each overlap placed at its likelier row, and which roots each consequence follows from."""

    findings: list[Finding]
    # a consequence -> the roots it follows from: one, or several when only mending them all mends it
    # (it is reached past any one of them); a root is not a key
    causes: dict[Finding, tuple[Finding, ...]]


def attribute(found: list[Finding], table: Table, machine: Machine, exploration: Exploration) -> Attribution:
    """Place every overlap at the row most likely mistaken, and find the roots each consequence follows from."""
    if not found:
        return Attribution(found, {})
    findings = _point_ambiguities(found, table)
    causes: dict[Finding, Finding] = {}  # a consequence -> the one root that explains it
    joint: dict[Finding, tuple[Finding, ...]] = {}  # a consequence -> the roots that only together explain it
    _structural(findings, table, causes)
    walk = Walker(machine, table, exploration)
    # What each root already explains, and the findings still unexplained that a root may claim, kept
    # as causes grows: each root then costs its own findings, not a pass over all (30,000 copies of
    # one row are 30,000 overlaps, each a root to try).
    order = {finding: index for index, finding in enumerate(findings)}
    followers: dict[Finding, list[Finding]] = {}
    for consequence, cause in causes.items():
        followers.setdefault(cause, []).append(consequence)
    cut_off: dict[Finding, None] = {f: None for f in findings if isinstance(f, Unreachable) and f not in causes}
    pending: dict[Finding, None] = {f: None for f in findings if f not in causes and (
        isinstance(f, RuleBroken) or (isinstance(f, StaleAllowance) and f.reason is AllowanceProblem.ROW_FIRES))}

    def follows(finding: Finding, root: Finding) -> None:
        causes[finding] = root
        followers.setdefault(root, []).append(finding)
        cut_off.pop(finding, None)
        pending.pop(finding, None)

    def about(root: Finding) -> list[Suspect]:
        """The steps a root is about: its own and those of what already follows from it (a hole its guard left).

        Not those of a breach that follows from it: a rule-breaking row's steps that break another rule
        may be reached past other roots, and mending this one blocks none of them.
        """
        own = sorted([root, *(f for f in followers.get(root, ()) if not isinstance(f, RuleBroken))], key=order.__getitem__)
        return [s for f in own if (s := suspect(f, table, machine)) is not None]

    def own_mistake(breach: RuleBroken, root: Finding | None) -> bool:
        """True when a breach at a row other than `root`'s is broken by its row wherever it fires: then
        nothing that leads there is at fault, and the row is a mistake of its own."""
        return (root is None or breach.line not in _rows_of(root)) and walk.breaks_everywhere(breach.line, breach.rule)

    roots: list[Finding] = []  # the roots established so far, in the order tried
    for root in _candidates(findings):
        if walk.visited > CAUSE_BUDGET:
            break  # the findings not yet tried stay roots: each is shown on its own
        if root in causes:
            continue
        suspects = about(root)
        if not suspects:
            continue
        if isinstance(root, RuleBroken) and not own_mistake(root, None) and (
                together := _together(walk, root, [r for r in roots if r not in causes], about)):
            joint[root] = together  # reached past each of several roots: not a mistake of its own
            pending.pop(root, None)
            continue
        roots.append(root)
        if cut_off:
            fired = walk.opened(suspects, {f.line for f in cut_off})
            for unreachable in [f for f in cut_off if f.line in fired]:
                follows(unreachable, root)
        downstream = [f for f in pending if f is not root]
        if downstream:
            fired, broken = walk.blocked(suspects)
            if isinstance(root, RuleBroken) and any(isinstance(f, StaleAllowance) for f in downstream):
                # An allowed row that fires only past the mistaken row's steps, breaking or not, follows from it.
                fired = walk.blocked([*suspects, every_step(root.line)])[0]
            for finding in downstream:
                if isinstance(finding, RuleBroken):
                    gone = (finding.rule, finding.line) not in broken
                    same_row = isinstance(root, RuleBroken) and root.line == finding.line
                    if (gone or same_row) and not own_mistake(finding, root):
                        follows(finding, root)
                elif isinstance(finding, StaleAllowance) and finding.row not in fired:
                    follows(finding, root)
    # A loop that sends forever steps through every row of its cycle, so a root at one of them (a row that
    # also breaks a rule, an overlap) is the likelier mistake: restoring it removes the cycle.
    for loop in [f for f in findings if isinstance(f, RetryLoop) and f not in causes]:
        on_cycle = [r for r in roots if r not in causes and not _rows_of(r).isdisjoint(loop.rows)]
        if on_cycle:
            follows(loop, on_cycle[0])
    standing = [r for r in roots if r not in causes]
    _shared(walk, causes, joint, standing, about)
    # What no one root explains, that several together do: rows cut off, allowed rows that fire.
    for left in [*cut_off, *(f for f in pending if isinstance(f, StaleAllowance))]:
        if walk.visited > CAUSE_BUDGET:
            break
        if left not in joint and (together := _together(walk, left, standing, about)):
            joint[left] = together
    _mended_by(walk, causes, joint, [r for r in standing if r not in causes], about)
    return Attribution(findings, _resolved(causes, joint))


# Past this many roots, which of them mend a consequence is not asked again (`_mended_by`): each group of
# roots asked costs a walk, and a table with that many mistakes is read root by root anyway.
MENDED_ROOTS = 6


def _mended_by(
    walk: Walker, causes: dict[Finding, Finding], joint: dict[Finding, tuple[Finding, ...]], roots: list[Finding],
    about: Callable[[Finding], list[Suspect]],
) -> None:
    """Each consequence placed under the fewest roots whose mending, together, mends it (`Walker.mended`).

    The walks that placed it leave a root's steps out or let them lead
    anywhere; neither is where a corrected row leads. A mended walk is
    nearer, so it has the last word where there are several roots: a
    consequence that one root, mended, mends is under that root alone (the
    one it was placed under, when that one does), and one that only several
    mend is under those, each of which it needs. Where no group the walk
    tries mends it, it stays where it was placed.
    """
    if not 2 <= len(roots) <= MENDED_ROOTS:
        return
    outcomes: dict[frozenset[Finding], tuple[set[int], set[tuple[str, int]]]] = {}
    clean = walk.reached([s for root in roots for s in about(root)])

    def mends(finding: Finding, group: tuple[Finding, ...]) -> bool:
        key = frozenset(group)
        if key not in outcomes:
            if walk.visited > CAUSE_BUDGET:
                return False
            outcomes[key] = walk.mended([s for root in group for s in about(root)], clean)
        fired, broken = outcomes[key]
        if isinstance(finding, RuleBroken):
            return (finding.rule, finding.line) not in broken
        if isinstance(finding, Unreachable):
            return finding.line in fired
        assert isinstance(finding, StaleAllowance)
        return finding.row not in fired

    # A breach its row, mended, still makes (a rule of what a state means, broken where another mistake
    # led) is no root: another breach of the row that mending it mends is, and this one follows.
    for index, root in enumerate(list(roots)):
        if not isinstance(root, RuleBroken) or mends(root, (root,)):
            continue
        instead = sorted((f for f in causes if isinstance(f, RuleBroken) and f.line == root.line
                          and _root(causes, f) is root and mends(f, (root,))), key=lambda f: (f.detour, len(f.trace)))
        if instead:
            del causes[instead[0]]
            joint.pop(instead[0], None)
            causes[root] = roots[index] = instead[0]
            outcomes[frozenset((instead[0],))] = outcomes[frozenset((root,))]  # the same row's steps
    for finding in [*causes, *(f for f in joint if f not in causes)]:
        if not isinstance(finding, (RuleBroken, Unreachable, StaleAllowance)) or finding in roots or (
                isinstance(finding, StaleAllowance) and finding.reason is not AllowanceProblem.ROW_FIRES):
            continue
        placed = joint.get(finding) or (_root(causes, finding),)
        named = tuple(dict.fromkeys(_root(causes, r) for r in placed))
        if any(r not in roots for r in named):
            continue
        first = [named[0], *(r for r in roots if r is not named[0])]
        alone = next((r for r in first if mends(finding, (r,))), None)
        if alone is not None:
            group: tuple[Finding, ...] = (alone,)
        elif mends(finding, tuple(roots)):
            kept = list(first)
            for root in first:
                if len(kept) > 1 and mends(finding, tuple(k for k in kept if k is not root)):
                    kept.remove(root)
            group = tuple(kept)
        else:
            continue
        joint.pop(finding, None)
        causes[finding] = group[0]
        if len(group) > 1:
            joint[finding] = group


def _shared(
    walk: Walker, causes: dict[Finding, Finding], joint: dict[Finding, tuple[Finding, ...]], roots: list[Finding],
    about: Callable[[Finding], list[Suspect]],
) -> None:
    """A breach or a row cut off that one root explains, and another root's mistake also reaches, follows from both.

    Restoring a root's row changes where its own steps lead, not what the
    other mistakes do. So a breach at another row, some of whose steps are
    taken only past a second root (not taken once that root's steps are
    not), stays when the first is restored. A breach at its root's own row
    follows from it by the row alone, unless the row also breaks it where
    the configuration is wrong (see `_past_other_roots`). A row cut off
    follows from every root whose steps, opened, fire it; an allowed row
    that fires, from every root past which some of its steps are taken.
    """
    if len(roots) < 2:
        return
    same_row: dict[Finding, list[RuleBroken]] = {}
    elsewhere: dict[tuple[str, int], RuleBroken] = {}
    for finding in causes:
        if isinstance(finding, RuleBroken) and finding not in joint:
            root = _root(causes, finding)
            if isinstance(root, RuleBroken) and root.line == finding.line:
                same_row.setdefault(root, []).append(finding)
            else:
                elsewhere[finding.rule, finding.line] = finding
    also: dict[Finding, list[Finding]] = {}
    for other in roots if elsewhere else ():
        if walk.visited > CAUSE_BUDGET:
            return  # what is not yet tried stays under the one root that explains it
        keys = [key for key, finding in elsewhere.items() if _root(causes, finding) is not other]
        for key in walk.past(about(other), keys) if keys else ():
            also.setdefault(elsewhere[key], []).append(other)
    # a root its row breaks both alone and where another root led: another breach of its row, broken
    # by the row alone, is the root, and this one follows from it together with the other root
    for root, other_breach in (_past_other_roots(walk, same_row, roots, about, also) if same_row else {}).items():
        del causes[other_breach]
        causes[root] = other_breach
        roots[roots.index(root)] = other_breach
    # A row cut off that opening another root's steps fires as well: which of them cut it off the table
    # does not tell, and restoring one may leave the other in the way.
    cut_off = {f.line: f for f in causes if isinstance(f, Unreachable) and f not in joint}
    _also_past(walk, causes, roots, about, cut_off, walk.opened, also)
    # An allowed row that fires, some of its steps only past another root: restoring one leaves the other's way there.
    allowed = {f.row: f for f in causes if isinstance(f, StaleAllowance) and f not in joint
               and f.reason is AllowanceProblem.ROW_FIRES}
    _also_past(walk, causes, roots, about, allowed, walk.fires_past, also)
    for finding, others in also.items():
        joint[finding] = (_root(causes, finding), *others)


def _also_past(
    walk: Walker, causes: dict[Finding, Finding], roots: list[Finding], about: Callable[[Finding], list[Suspect]],
    by_row: Mapping[int, Finding], fire: Callable[[list[Suspect], set[int]], set[int]], also: dict[Finding, list[Finding]],
) -> None:
    """Each finding of `by_row` (a row's, by its line) whose row `fire`, given another root's steps, says fires
    past that root as well: it follows from that root too."""
    for other in roots if by_row else ():
        if walk.visited > CAUSE_BUDGET:
            break
        lines = {line for line, finding in by_row.items() if _root(causes, finding) is not other}
        for line in fire(about(other), lines) if lines else ():
            also.setdefault(by_row[line], []).append(other)


def _past_other_roots(
    walk: Walker, same_row: dict[Finding, list[RuleBroken]], roots: list[Finding],
    about: Callable[[Finding], list[Suspect]], also: dict[Finding, list[Finding]],
) -> dict[Finding, RuleBroken]:
    """For each breach at a root's own row (the root's included), the other roots past which the row
    breaks it where the configuration is what is wrong: a rule of what a state means that a row that did
    nothing would break there too, or a rule of what the row does that it keeps wherever it steps from a
    configuration the roots do not lead to. Restoring the row leaves those. Configurations reached without
    any root's steps do not count (the restored row is right there).

    Returns, for a root so placed, the breach of its row to be the root instead: the first that is not.
    """
    exploration, machine = walk.exploration, walk.machine
    clean = walk.reached([s for root in roots for s in about(root)])
    instead: dict[Finding, RuleBroken] = {}
    for root, found in same_row.items():
        if walk.visited > CAUSE_BUDGET:
            break
        exposed = {}
        for finding in [root, *found]:
            if not isinstance(finding, RuleBroken):
                continue
            steps = exploration.breaking_steps(finding.rule, finding.line)
            if finding.rule in STATE_MEANINGS:
                nodes = {node for node, event, choice in steps if node not in clean
                         and machine.idle_breaks(exploration.config(node), event, choice, finding.rule)}
            elif all(node not in clean for node, _, _ in steps):
                # a rule of what the row does, kept wherever the row steps from a configuration reached
                # without the roots: broken only where mistakes led, the root's own row among them or not
                nodes = {node for node, _, _ in steps}
            else:
                continue
            if nodes:
                exposed[finding] = nodes
        for other in roots if exposed else ():
            if other is root or walk.visited > CAUSE_BUDGET:
                continue
            still = walk.reached([*about(root), *about(other)])
            for finding, nodes in exposed.items():
                if not all(node in still for node in nodes):
                    also.setdefault(finding, []).append(other)
        if root in also:
            alone = sorted((f for f in found if f not in also), key=lambda f: (f.detour, len(f.trace)))
            if alone:
                instead[root] = alone[0]
            else:
                del also[root]  # every breach of the row is broken past another root too: the first stays the root
    return instead


def _root(causes: dict[Finding, Finding], finding: Finding) -> Finding:
    """The root a finding follows from, along `causes` (itself for a root)."""
    seen = {finding}
    while finding in causes and causes[finding] not in seen:
        finding = causes[finding]
        seen.add(finding)
    return finding


def _together(
    walk: Walker, finding: Finding, roots: list[Finding], about: Callable[[Finding], list[Suspect]]
) -> tuple[Finding, ...]:
    """The fewest of `roots` that together explain `finding`, when no one of them does; () when they do not.

    A rule broken past either of two mistaken rows (swap the next states of
    the two `send_ok` rows, and every step of REQUESTED is reached past
    one or the other) follows from both, not from the row where it shows.
    """
    if len(roots) < 2:
        return ()

    def gone(group: list[Finding]) -> bool:
        suspects = [s for root in group for s in about(root)]
        if isinstance(finding, RuleBroken):
            return (finding.rule, finding.line) not in walk.blocked(suspects)[1]
        if isinstance(finding, Unreachable):
            return finding.line in walk.opened(suspects, {finding.line})
        assert isinstance(finding, StaleAllowance)
        steps = [every_step(root.line) for root in group if isinstance(root, RuleBroken)]
        return finding.row not in walk.blocked([*suspects, *steps])[0]

    if not gone(roots):
        return ()
    group = list(roots)
    for root in roots:
        if len(group) > 1 and gone([g for g in group if g is not root]):
            group.remove(root)
    return tuple(group)


def _rows_of(finding: Finding) -> set[int]:
    """The rows a finding is at: its line, and both rows of an overlap."""
    return {finding.line, *finding.rows} if isinstance(finding, Ambiguous) else {finding.line}


def _candidates(findings: list[Finding]) -> list[Finding]:
    """The findings that may be roots, in the order they are tried: structure first, then breaches by distance."""
    structural: list[Finding] = [f for f in findings if isinstance(f, (NotTotal, Contradiction, Ambiguous))]
    rules: list[RuleBroken] = [f for f in findings if isinstance(f, RuleBroken)]
    rules.sort(key=lambda f: (f.detour, len(f.trace), f.line))
    return structural + rules


def _resolved(causes: dict[Finding, Finding], joint: dict[Finding, tuple[Finding, ...]]) -> dict[Finding, tuple[Finding, ...]]:
    """Every consequence pointed at its roots, never at another consequence."""

    out: dict[Finding, tuple[Finding, ...]] = {}
    for finding in (*causes, *joint):
        named = joint.get(finding) or (causes[finding],)
        roots = tuple(dict.fromkeys(_root(causes, r) for r in named if _root(causes, r) is not finding))
        if roots:
            out[finding] = roots
    return out


# Findings that explain others by the table's text alone -----------------------


def _point_ambiguities(findings: list[Finding], table: Table) -> list[Finding]:
    """The findings, each overlap made anew at the row most likely mistaken.

    The likely row, of the two: the one that fills a hole of its own state
    and event once a guard of it is negated (a negated guard both overlaps
    and leaves a hole); else the one that breaks a pattern the table keeps
    elsewhere (see `_Patterns`); else the one an `@unreachable` line that
    names no row names but for one guard (the row as it was); else the one
    row every overlap of its state and event involves (a dropped guard widens
    a row over several neighbours);
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
    if not groups:
        return findings
    placed: dict[Finding, int] = {}  # an overlap -> the line it is reported at
    patterns = _Patterns(table)
    dangling = [
        a
        for f in findings
        if isinstance(f, StaleAllowance) and f.reason is AllowanceProblem.NAMES_NO_ROW
        for a in table.allowances
        if a.line == f.line
    ]
    for all_of_them in groups.values():
        # A copy (same guards) is at the copy, unless it is a guard negated: then at the row that fills the hole.
        for finding in all_of_them:
            if finding.copy and holes:
                first, second = (rows[line] for line in finding.rows)
                placed[finding] = max(
                    (first, second),
                    key=lambda r: (
                        _negation_fills(r, holes),
                        *patterns.unlike(r, second if r is first else first),
                        r.line in breaking,
                        r is second,
                    ),
                ).line
        group = [f for f in all_of_them if not f.copy]
        widening = _widened(group)
        for finding in group:
            first, second = (rows[line] for line in finding.rows)
            placed[finding] = max(
                ((first, second), (second, first)),
                key=lambda pair: (
                    _negation_fills(pair[0], holes),
                    *patterns.unlike(*pair),
                    _was_allowed(pair[0], dangling) and not _was_allowed(pair[1], dangling),
                    pair[0].line == widening,
                    _narrowing_mends(table, pair[0], finding.state),
                    pair[0].guard_set < pair[1].guard_set,
                    pair[0].line in breaking,
                    len(pair[0].guards) < len(pair[1].guards),
                    pair[0] is first,
                ),
            )[0].line
    return [f.replaced(line=placed[f]) if f in placed and placed[f] != f.line else f for f in findings]


def _widened(group: list[Ambiguous]) -> int | None:
    """The one row every overlap of a (state, event) involves, when there are several: a dropped guard widened it."""
    lines = {line for f in group for line in f.rows}
    involved = [line for line in lines if all(line in f.rows for f in group)]
    return involved[0] if len(group) > 1 and len(involved) == 1 else None


class _Patterns:
    """What the table's rows do elsewhere, indexed once: which row breaks a pattern the others keep.

    A row is unlike `other` when it names a guard the other way from every
    other row with its actions that names it (`!dup` with `note_dup`, which
    notes a duplicate everywhere else) and `other` does not; or when the rows
    of its event and actions in other states all have other guards, while
    `other` has the guards of such a row of its own (the table repeats its
    patterns state by state). A row whose actions appear nowhere else departs
    from no pattern, so it never makes the other row the likelier mistake: the
    `!post_send` noop after a request adds a guard to the unguarded noop of
    `evidence_turn` in other states, and a changed `settle` row beside it is
    still the one to blame.
    """

    def __init__(self, table: Table):
        self.named: Counter[tuple] = Counter()  # (actions, literal) -> rows with those actions naming it
        self.kin: dict[tuple, Counter[str]] = {}  # (actions, event) -> rows by state
        self.alike: dict[tuple, Counter[str]] = {}  # (actions, event, guards) -> rows by state
        for row in table.rows:
            self.named.update((row.actions, lit) for lit in row.guard_set)
            self.kin.setdefault((row.actions, row.event), Counter())[row.state] += 1
            self.alike.setdefault((row.actions, row.event, row.guard_set), Counter())[row.state] += 1

    def unlike(self, row: Row, other: Row) -> tuple[bool, bool]:
        return (
            self._contradicts(row) and not self._contradicts(other),
            self._kin(row) is False and self._kin(other) is True,
        )

    def _contradicts(self, row: Row) -> bool:
        return any(
            self.named[row.actions, lit] == 1 and self.named[row.actions, Literal(lit.guard, not lit.positive)] > 0
            for lit in row.guard_set
        )

    def _kin(self, row: Row) -> bool | None:
        """Whether a row of its event and actions in another state has its guards; None when there is no such row."""
        def elsewhere(states: Counter[str]) -> bool:
            return any(n for state, n in states.items() if state not in (row.state, ANY_STATE))

        if not elsewhere(self.kin[row.actions, row.event]):
            return None
        return elsewhere(self.alike[row.actions, row.event, row.guard_set])


def _was_allowed(row: Row, dangling: list[Allowance]) -> bool:
    """True when an `@unreachable` line that names no row names this one but for one guard: the row as it was."""
    return any(a.state == row.state and a.event == row.event and _near(row.guard_set, a.guards) for a in dangling)


def _near(guards: frozenset[Literal], allowed: tuple[Literal, ...]) -> bool:
    """True when two guard sets differ in one guard at most (one dropped, added or negated)."""
    return len({lit.guard for lit in guards.symmetric_difference(allowed)}) <= 1


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
                valuation = dict(zip(names, values, strict=True))
                if not holds(row.guards, valuation):
                    continue
                matching = sum(holds(r.guards, valuation) for r in others)
                if (matching > 0) if holds(narrowed, valuation) else (matching != 1):
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


def _structural(findings: list[Finding], table: Table, causes: dict[Finding, Finding]) -> None:
    """What follows from what the text shows: the overlaps of one widened row follow the first of them,
    a hole a mistaken guard left follows from that row, and an allowance of a deleted row from the hole."""
    rows = {row.line: row for row in table.rows}
    groups: dict[tuple[str, str], list[Ambiguous]] = {}
    for finding in findings:
        if isinstance(finding, Ambiguous) and not finding.copy:
            groups.setdefault((finding.state, finding.event), []).append(finding)
    for group in groups.values():
        if _widened(group) is not None:
            group.sort(key=lambda f: f.rows)
            causes.update((finding, group[0]) for finding in group[1:])
    holes = [f for f in findings if isinstance(f, NotTotal)]
    for hole in holes:
        for finding in findings:
            if isinstance(finding, Ambiguous) and finding not in causes:
                if _negation_fills_hole(rows[finding.line], hole):
                    causes[hole] = finding
                    break
            elif isinstance(finding, Contradiction):
                row = rows[finding.line]
                if row.event == hole.event and (hole.state == "*" or row.applies_to(hole.state)):
                    causes[hole] = finding
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
                    near = _near(row.guard_set, allowance.guards)
                if same and near:
                    causes[finding] = other
                    break
