"""Walking the configuration graph with one root finding mended, without knowing how a person would mend it.

`proof.causes` asks three questions of each root finding, about the steps it
is about (its `Suspect` steps):

- *opened*: which rows fire when those steps may lead anywhere (to any
  state, with the actions of any row of the table)? A row that then fires,
  and not otherwise, is cut off by that root;
- *blocked*: which rows fire, and which rules are broken, when those steps
  are not taken? A rule broken only past them is downstream of that root;
- *mended*: which rows fire, and which rules are broken, when those steps
  are taken as a correct row would take them? Of the rows one edit away
  from the mistaken one, those that keep every rule where no mistake led
  (`Walker.mended`). Blocking cuts off what a mended row still carries on
  to, and opening lets it go where no correct row would; this is nearer
  to what restoring the row does, so it decides which of several roots a
  consequence needs.

A blocked walk is part of the explored graph, so it follows the
exploration's own moves. An opened or mended walk leaves it: it steps the machine; an opened one
stops as soon as every row it asks about has fired; a row that no
configuration within the caps fires is settled without a walk. Each is
`graph.walk`, each with its own moves.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterator
from itertools import product
from math import prod
from typing import NamedTuple

from gapstate.findings import Ambiguous, Contradiction, Finding, NotTotal, RuleBroken
from gapstate.proof.graph import Exploration, walk
from gapstate.run.machine import Machine, Outcome, Status
from gapstate.table.model import STAY, Literal, Row, Table, holds
from gapstate.table.vocabulary import ACTIONS, COUNTERS, EVENTS, FLAGS, SESSION_ENDED, Config

# Up to this many configurations within the caps, a row that cannot fire in
# any of them is known not to fire without a walk (see `Walker._may_fire`).
STATIC_BUDGET = 20_000



class Suspect(NamedTuple):
    """The steps a root finding is about: steps of `rows` (None: steps no row matches) that `test` accepts.

    `test` is called with the configuration, the event, the chosen guard's
    value, and whether the step breaks a rule.
    """

    rows: frozenset[int] | None
    test: Callable[[Config, str, bool, bool], bool]


def _row_at(table: Table, line: int) -> Row:
    """The row at `line`, found by bisection (the rows are in line order), not by a pass over them all."""
    from bisect import bisect_left

    return table.rows[bisect_left(table.rows, line, key=lambda row: row.line)]


def suspect(root: Finding, table: Table, machine: Machine) -> Suspect | None:
    """The steps a root finding is about; None for a finding that explains nothing."""
    if isinstance(root, NotTotal):
        cube = tuple(Literal(g, v) for g, v in root.cube)
        state, event = root.state, root.event

        def in_hole(config: Config, on: str, choice: bool, broken: bool) -> bool:
            return on == event and state in ("*", config.state) and holds(cube, machine.guard_values(config, on, choice)[1])

        return Suspect(None, in_hole)
    if isinstance(root, Contradiction):
        row = _row_at(table, root.line)

        def uncovered(config: Config, on: str, choice: bool, broken: bool) -> bool:
            return on == row.event and row.applies_to(config.state)

        return Suspect(None, uncovered)
    if isinstance(root, Ambiguous):
        pair = [_row_at(table, line) for line in sorted(root.rows)]

        def shared(config: Config, on: str, choice: bool, broken: bool) -> bool:
            values = machine.guard_values(config, on, choice)[1]
            return all(holds(r.guards, values) for r in pair)

        return Suspect(frozenset(root.rows), shared)
    if isinstance(root, RuleBroken):

        def breaking(config: Config, on: str, choice: bool, broken: bool) -> bool:
            return broken

        return Suspect(frozenset((root.line,)), breaking)
    return None


def every_step(line: int) -> Suspect:
    """Every step of the row at `line`: what mending a mistaken row may change."""

    def any_step(config: Config, on: str, choice: bool, broken: bool) -> bool:
        return True

    return Suspect(frozenset((line,)), any_step)


class Walker:
    """Breadth-first walks over the table's steps, with a root's steps opened or blocked."""

    def __init__(self, machine: Machine, table: Table, exploration: Exploration):
        self.machine = machine
        self.exploration = exploration
        self.visited = 0  # configurations visited by every walk so far
        # What a missing or mistaken row could do: lead to any state with the actions of any row.
        actions = dict.fromkeys(r.actions for r in table.rows if not r.invalid)
        actions.update(dict.fromkeys((name,) for name, act in ACTIONS.items() if act.add or act.sets))
        self.effects = tuple(dict.fromkeys(machine.effects(acts) for acts in ((), *actions)))
        # What a mended row could be, on an event (see `_landings_of`): first what the table's rows of the
        # event do, then anything a row of the table does, or any one action; a refusal only where the
        # table refuses the event somewhere (a refusal breaks only the rule that the event could happen).
        self.kin: dict[str, tuple[tuple[str, ...], ...]] = {}
        for row in table.rows:
            self.kin.setdefault(row.event, ())
            if row.actions not in self.kin[row.event]:
                self.kin[row.event] += (row.actions,)
        self.any_row = tuple(dict.fromkeys((*(r.actions for r in table.rows if not r.invalid),
                                             *((name,) for name, act in ACTIONS.items() if not act.refuses))))
        self._fitted: tuple[Container[int] | None, dict[tuple[frozenset[int], str], tuple[tuple[tuple[str, ...], str], ...]]] = (None, {})
        self._landings: dict[tuple[Config, str, bool, frozenset[int]], tuple[tuple[Config, ...], frozenset[str]]] = {}
        self.states = table.states
        self.rows = {row.line: row for row in table.rows}
        self._dead: set[int] = set()  # rows no configuration within the caps fires (see `_may_fire`)
        self._always: dict[int, frozenset[str]] = {}  # row -> the rules it breaks wherever it steps (`_everywhere`)

    def blocked(self, suspects: list[Suspect]) -> tuple[set[int], set[tuple[str, int]]]:
        """The rows that fire and the (rule, row) pairs broken when the suspect steps are not taken.

        Only steps that fire a row lead anywhere, so the walk follows the
        explored graph, minus the suspect steps among them.
        """
        fired, broken, _, _ = self._without(suspects)
        return fired, broken

    def reached(self, suspects: list[Suspect]) -> Container[int]:
        """The nodes reached when the suspect steps are not taken."""
        return self._without(suspects)[2]

    def past(self, suspects: list[Suspect], breaches: list[tuple[str, int]]) -> set[tuple[str, int]]:
        """The (rule, row) pairs of `breaches` some breaking step of which is not taken when the suspect
        steps are not: broken, at least there, only past them."""
        exploration = self.exploration
        _, _, reached, blocked = self._without(suspects)
        return {
            (rule, line)
            for rule, line in breaches
            if any(node not in reached or blocked(exploration.config(node), event, choice, line, True)
                   for node, event, choice in exploration.breaking_steps(rule, line))
        }

    def fires_past(self, suspects: list[Suspect], lines: set[int]) -> set[int]:
        """The rows of `lines` some step of which is not taken when the suspect steps are not: they fire,
        at least there, only past them."""
        exploration = self.exploration
        _, _, reached, blocked = self._without(suspects)
        past: set[int] = set()
        for node in exploration.nodes():
            self.visited += 1
            for move in exploration.moves(node):
                if move.row in lines and move.row not in past and (
                        node not in reached
                        or blocked(exploration.config(node), move.sent.event, move.sent.choice, move.row, move.breaks)):
                    past.add(move.row)
        return past

    def _without(self, suspects: list[Suspect]) -> tuple[set[int], set[tuple[str, int]], Container[int],
                                                         Callable[[Config, str, bool, int, bool], bool]]:
        """The walk that leaves the suspect steps out: the rows fired, the breaches, the nodes reached,
        and the test of a step left out."""
        by_row = tests_by_row(suspects)

        def blocked(config: Config, event: str, choice: bool, line: int, broken: bool) -> bool:
            return any(test(config, event, choice, broken) for test in by_row.get(line, ()))

        fired, broken, reached = self.exploration.reach_without(by_row, blocked)
        self.visited += len(reached)
        return fired, broken, reached, blocked

    def opened(self, suspects: list[Suspect], wanted: set[int]) -> set[int]:
        """The rows of `wanted` that fire when a suspect step may lead anywhere (see `Walker.__init__`).

        The walk stops as soon as every wanted row has fired.
        """
        machine = self.machine
        missing = {line for line in wanted if self._may_fire(line)}
        if not missing:
            return set()
        by_row = tests_by_row(suspects)
        unmatched = [s.test for s in suspects if s.rows is None]
        # An opened step lands anywhere from the configuration its event leaves; where it
        # lands depends on that alone, minus the state, so each is opened once.
        opened: set[tuple] = set()

        def moves(config: Config) -> Iterator[tuple[None, Config]]:
            for event, choice in self._stimuli(config):
                outcome = machine.step_once(config, event, choice)
                row = outcome.row
                if outcome.status is Status.OK:
                    assert row is not None
                    missing.discard(row.line)
                    yield None, outcome.config
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
                        yield None, landed._replace(state=state)

        walk((machine.initial,), moves, until=lambda config: not missing)  # stops once every wanted row fired
        return wanted - missing - self._dead

    def mended(self, suspects: list[Suspect], clean: Container[int]) -> tuple[set[int], set[tuple[str, int]]]:
        """The rows that fire and the (rule, row) pairs broken when every suspect step is mended.

        A mended step is one a correct row could take there (`_fit`, else
        `_landings_of`). Unlike a blocked walk, the sessions a mended row
        carries on go on past it, so what they reach further on still counts
        (a mistaken label there changes nothing of where a session goes);
        unlike an opened one, they go only where a row keeping the rules
        would send them. The walk steps the machine, so it may leave the
        explored graph.
        """
        machine = self.machine
        by_row = tests_by_row(suspects)
        unmatched = [s.test for s in suspects if s.rows is None]
        partners: dict[int, frozenset[int]] = {}  # a suspect row -> the rows of its suspects (both of an overlap)
        for suspect in suspects:
            for line in suspect.rows or ():
                partners[line] = partners.get(line, frozenset()).union(suspect.rows or ())
        fired: set[int] = set()
        broken: set[tuple[str, int]] = set()

        def suspected(config: Config, event: str, choice: bool) -> tuple[Outcome, frozenset[int] | None]:
            """The step, and when a suspect is about it, the rows it is of (those of an overlap; none: a hole)."""
            outcome = machine.step_once(config, event, choice)
            row = outcome.row
            tests = unmatched if row is None else by_row.get(row.line)
            if tests and any(test(config, event, choice, bool(outcome.broken)) for test in tests):
                return outcome, partners.get(row.line, frozenset()) if row is not None else frozenset()
            return outcome, None

        fitted = self._fit(suspected, clean)

        def moves(config: Config) -> Iterator[tuple[None, Config]]:
            for event, choice in self._stimuli(config):
                outcome, rows = suspected(config, event, choice)
                row = outcome.row
                if rows is not None:
                    rows_fitted = fitted.get((rows, event))
                    if rows_fitted:
                        landings, unavoidable = self._as_fitted(config, event, choice, rows_fitted)
                    else:
                        landings, unavoidable = self._landings_of(config, event, choice, rows)
                    if row is not None:  # what the mended row breaks here anyway stays
                        broken.update((rule, row.line) for rule in unavoidable)
                    for landed in landings:
                        yield None, landed
                    continue
                if row is not None:
                    broken.update((rule, row.line) for rule in outcome.broken)
                if outcome.status is Status.OK:
                    assert row is not None
                    fired.add(row.line)
                    yield None, outcome.config

        walk((machine.initial,), moves)
        return fired, broken

    def _stimuli(self, config: Config) -> Iterator[tuple[str, bool]]:
        """The (event, choice) steps a walk off the explored graph takes from `config`, in a fixed order: none
        once the session ended or past the caps (as the explorer). Each configuration asked is a visit."""
        self.visited += 1
        if config.ended or not self.machine.within_caps(config):
            return
        choices = self.machine.choices
        for event in EVENTS:
            for choice in choices(config, event):
                yield event, choice

    def _fit(self, suspected: Callable[[Config, str, bool], tuple[Outcome, frozenset[int] | None]],
             clean: Container[int]) -> dict[tuple[frozenset[int], str], tuple[tuple[tuple[str, ...], str], ...]]:
        """The rows each suspect's rows could be, mended: the edits (`_edits`) that break no rule on any of
        the suspect steps taken where no root led (a configuration reached with every root's steps left
        out). There the configuration is right, so a correct row keeps every rule; where a mistake led,
        the row as it should be may break a rule that says what a state means, and that breach stays once
        the row is mended. A suspect with no such step, or no edit that fits, gets none.

        Kept for the next walk with the same `clean` (the groups of roots one table's mending tries)."""
        if self._fitted[0] is not clean:
            self._fitted = (clean, {})
        known = self._fitted[1]
        exploration = self.exploration
        steps: dict[tuple[frozenset[int], str], list[tuple[Config, str, bool]]] = {}
        for node in exploration.nodes():
            if node not in clean:
                continue
            config = exploration.config(node)
            for event, choice in self._stimuli(config):
                rows = suspected(config, event, choice)[1]
                if rows is not None:
                    steps.setdefault((rows, event), []).append((config, event, choice))
        fitted = {}
        for site, taken in steps.items():
            if site not in known:
                known[site] = next((self._plainest(fits, taken) for edits in self._edits(*site) if (fits := [
                    edit for edit in edits if not any(self._trial(step, edit)[1] for step in taken)])), ())
            fitted[site] = known[site]
        return fitted

    def _plainest(self, fits: list[tuple[tuple[str, ...], str]], taken: list[tuple[Config, str, bool]]
                  ) -> tuple[tuple[tuple[str, ...], str], ...]:
        """The fitting edits, less those that lead where a `=` edit of the same actions leads on every step
        taken where no root led: a row seen only to stay is read as one that stays (`* | busy_start`
        fitted on CLEAR's steps alone stays in each state, not goes to CLEAR from all)."""
        stays = {edit[0]: [self._trial(step, edit)[0] for step in taken] for edit in fits if edit[1] == STAY}
        return tuple(edit for edit in fits if edit[1] == STAY or edit[0] not in stays
                     or [self._trial(step, edit)[0] for step in taken] != stays[edit[0]])

    def _edits(self, rows: frozenset[int], event: str) -> Iterator[list[tuple[tuple[str, ...], str]]]:
        """The (actions, next) a mistaken row could be, nearest first: one edit away (another next state, or
        one of its actions replaced by another: the mistakes `gapstate mutate` makes, each undone by one of
        the same kind), then the actions of the table's rows of its event, then those of any row, at its
        next state; for either row of an overlap. For a hole, the actions of the event's rows, then of any
        row, to any state."""
        edited = [self.rows[line] for line in sorted(rows)]
        if not edited:
            for actions in (self.kin.get(event, ()), self.any_row):
                yield sorted({(acts, to) for acts in actions for to in (*self.states, STAY)})
            return
        near = {(row.actions, to) for row in edited for to in (*self.states, STAY)}
        near.update((row.actions[:i] + (other,) + row.actions[i + 1:], row.next)
                    for row in edited for i in range(len(row.actions)) for other in ACTIONS)
        yield sorted(near)
        for actions in (self.kin.get(event, ()), self.any_row):
            yield sorted({(acts, row.next) for row in edited for acts in actions})

    def _trial(self, step: tuple[Config, str, bool], edit: tuple[tuple[str, ...], str]) -> tuple[Config, tuple[str, ...]]:
        config, event, choice = step
        actions, to = edit
        return self.machine.trial(config, event, choice, actions, config.state if to == STAY else to)

    def _as_fitted(self, config: Config, event: str, choice: bool, edits: tuple[tuple[tuple[str, ...], str], ...]
                   ) -> tuple[tuple[Config, ...], frozenset[str]]:
        """Where the fitted edits lead on this step, and the rules any of them breaks there (which of them the
        row was is not known, so a breach one of them keeps is not taken as mended)."""
        tried = [self._trial((config, event, choice), edit) for edit in edits]
        return tuple(dict.fromkeys(after for after, _ in tried)), frozenset(r for _, b in tried for r in b)

    def _landings_of(self, config: Config, event: str, choice: bool, rows: frozenset[int]
                     ) -> tuple[tuple[Config, ...], frozenset[str]]:
        """Where a correct row could lead on this step when no edit fits its rows (`_fit`), and the rules
        it breaks there anyway.

        The edits are tried nearest first (`_edits`, then any row's actions
        to any state) until one keeps every rule here; of all those tried,
        the steps that break the fewest rules are kept, and a rule one of
        them breaks is taken as broken by the mended row too.
        """
        key = (config, event, choice, rows)
        known = self._landings.get(key)
        if known is None:
            wide = [(acts, to) for acts in self.any_row for to in self.states]
            tried: list[tuple[Config, tuple[str, ...]]] = []
            for edits in (*self._edits(rows, event), wide):
                tried += [self._trial((config, event, choice), edit) for edit in edits]
                if tried and not all(broken for _, broken in tried):
                    break
            fewest = min(len(broken) for _, broken in tried)
            landings = tuple(dict.fromkeys(after for after, broken in tried if len(broken) == fewest))
            known = self._landings[key] = (landings, frozenset(r for _, b in tried if len(b) == fewest for r in b))
        return known

    def _may_fire(self, line: int) -> bool:
        """False when no configuration within the caps matches the row: then no walk fires it.

        Decided by trying every such configuration of the row's states, when
        they are few (`STATIC_BUDGET`); a row whose event clears a guard it
        needs, or whose valuations earlier rows all take, is then settled
        without a walk.
        """
        if line in self._dead:
            return False
        steps = self._steps(line)
        if steps is None or next(steps, None) is not None:
            return True
        self._dead.add(line)
        return False

    def breaks_everywhere(self, line: int, rule: str) -> bool:
        """True when the row at `line` breaks `rule` on every step it takes from a configuration within the
        caps, reachable or not: what leads there does not matter, the row itself is wrong.

        False when the configurations are too many to try (`STATIC_BUDGET`).
        """
        return rule in self._everywhere(line)

    def _everywhere(self, line: int) -> frozenset[str]:
        """The rules the row at `line` breaks on every step it takes (see `breaks_everywhere`), found in one
        pass over its steps that stops once no rule is left."""
        known = self._always.get(line)
        if known is None:
            steps = self._steps(line)
            first = next(steps, None) if steps is not None else None
            left = set(self.machine.step_once(*first).broken) if first is not None else set()
            step_once = self.machine.step_once
            for step in steps if left and steps is not None else ():
                left.intersection_update(step_once(*step).broken)
                if not left:
                    break
            known = self._always[line] = frozenset(left)
        return known

    def _steps(self, line: int) -> Iterator[tuple[Config, str, bool]] | None:
        """Every step within the caps that the row at `line` takes, reachable or not; None when the
        configurations of its states are more than `STATIC_BUDGET` (or a counter has no cap)."""
        row = self.rows[line]
        machine = self.machine
        caps = machine.caps
        counters = tuple(COUNTERS)
        states = [s for s in self.states if row.applies_to(s)]
        if any(c not in caps for c in counters):
            return None
        # an ended session steps no more: only the other flags vary
        ranges = [states, *(range(caps[c] + 1) for c in counters), *(((False,) if f == SESSION_ENDED else (False, True)) for f in FLAGS)]
        if prod(len(values) for values in ranges) > STATIC_BUDGET:
            return None
        return (
            (config, row.event, choice)
            for config in map(Config._make, product(*ranges))
            for choice in machine.choices(config, row.event)
            if machine.row_at(config, row.event, choice) is row
        )


def tests_by_row(suspects: list[Suspect]) -> dict[int, list[Callable[[Config, str, bool, bool], bool]]]:
    """The tests of the suspects, by the row whose steps each is about."""
    by_row: dict[int, list[Callable[[Config, str, bool, bool], bool]]] = {}
    for suspect in suspects:
        for line in suspect.rows or ():
            by_row.setdefault(line, []).append(suspect.test)
    return by_row
