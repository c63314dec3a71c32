"""Exploring every configuration reachable from the initial one, within a budget, kept for the next call.

The environment may send any event the table does not mark `invalid` and
picks the guards its payload sets (`vocabulary.PAYLOADS`) both ways
wherever they can be true. The search walks integers (see `packing`);
what it found, and what can be asked of it, is an `Exploration`
(`graph.py`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from gapstate.errors import GapstateError
from gapstate.proof.graph import Exploration, Refusal, walk
from gapstate.proof.packing import ClassStep, Packing
from gapstate.run.machine import Machine, Status
from gapstate.table.model import Table
from gapstate.table.vocabulary import EVENTS, Stimulus


class TooManyConfigurations(GapstateError):
    """The caps imply more configurations than the exploration may visit."""

    def __init__(self, implied: int, budget: int):
        super().__init__(
            f"the caps imply up to {implied:,} configurations, more than the exploration budget of "
            f"{budget:,}; lower a cap, or raise the budget (--max-configurations N, or "
            f"max-configurations = N under [tool.gapstate] in pyproject.toml)"
        )
        self.implied = implied
        self.budget = budget


# About 10 s of exploring on one core: a configuration costs a few microseconds
# when its class is already stepped (see `Packing`), and the classes grow with
# the table, not with the caps (bench/run.py measures both).
MAX_CONFIGURATIONS = 2_500_000


# Explorations kept by table, the one used last at the end: a program that checks, diffs and plans
# one spec explores it once, and one that checks many small tables (a test suite, bench/mutants.py)
# keeps each while it works on it. Bounded by the configurations they hold together (each costs a
# few hundred bytes, and a few KiB once the networkx graph is built), not by their number.
KEPT_CONFIGURATIONS = 100_000
_kept: dict[Table, Exploration] = {}


def explore(machine: Machine, progress: Callable[[int, int], None] | None = None,
            budget: int | None = MAX_CONFIGURATIONS) -> Exploration:
    """Every configuration reachable from the initial one (see `_explore`), kept for the next call on an equal table.

    With `progress` the table is explored afresh, so that the progress is
    reported as it happens. An Exploration is not changed by reading it, so
    callers share it.
    """
    table = machine.table
    kept = _kept.get(table) if progress is None else None
    if kept is not None:
        if budget is not None and kept.implied > budget:
            raise TooManyConfigurations(kept.implied, budget)
        _kept[table] = _kept.pop(table)  # used last: kept longest
        return kept
    exploration = _explore(machine, progress, budget)
    if len(exploration) <= KEPT_CONFIGURATIONS:
        _kept.pop(table, None)
        _kept[table] = exploration
        held = sum(map(len, _kept.values()))
        while held > KEPT_CONFIGURATIONS:
            held -= len(_kept.pop(next(iter(_kept))))
    return exploration


def _explore(machine: Machine, progress: Callable[[int, int], None] | None,
             budget: int | None) -> Exploration:
    """Breadth-first over every reachable configuration; TooManyConfigurations past `budget`.

    A configuration whose counters passed their caps (the `cap-exceeded`
    rule) is a node but is not expanded: that keeps the graph finite on a
    table that never stops counting. First the classes (see `Packing`, `step_classes`) are
    walked, each stepped once: their sizes add up to how many
    configurations the caps imply, at most, before any is visited, and
    past the budget the search stops there. Then every configuration is
    walked to, by a dict insertion per edge. `progress`, when given, is called
    now and then with (done, total): how far the largest counter values
    reached are towards their caps. `budget` None explores whatever it costs.
    """
    packing = Packing(machine)
    initial = packing.encode(machine.initial)
    classes, breaks, refused, implied = step_classes(machine, packing, initial, _inherited(machine, packing))
    if budget is not None and implied > budget:
        raise TooManyConfigurations(implied, budget)
    fold, expanded, target_of = packing.fold, packing.expanded, packing.target
    fired: set[int] = set()
    counted: set[int] = set()  # representatives whose rows are in `fired`
    members: Counter[int] = Counter()  # representative -> the expanded configurations of its class reached
    breaches: dict[tuple[str, int], list[tuple[int, str, bool]]] = {}
    counters = packing.caps
    total = sum(cap for _, _, cap in counters)
    done = 0
    count = 0

    def moves(source: int) -> list[tuple[ClassStep, int]]:
        nonlocal count, done
        if not expanded(source):
            return []
        representative = fold(source)
        members[representative] += 1
        steps = classes[representative]
        if representative not in counted:
            counted.add(representative)
            fired.update(step[2] for step in steps)
        if breaks and representative in breaks:
            for rule, line, event, choice in breaks[representative]:
                breaches.setdefault((rule, line), []).append((source, event, choice))
        count += 1
        if progress is not None and not count & 1023:
            done = max(done, sum(min(cap, source // stride % size) for stride, size, cap in counters))
            progress(done, total)
        return [(step, source + step[0] if not step[4] else target_of(source, representative, step[0], step[4]))
                for step in steps]

    seen = walk((initial,), moves).tree
    if progress is not None:
        progress(total, total)
    return Exploration(packing, initial, seen, classes, frozenset(fired), breaches, breaks, refused, members, implied)


Inherited = tuple[dict[int, tuple[ClassStep, ...]], dict, dict, frozenset[int]]  # classes, breaks, refusals, states


def _inherited(machine: Machine, packing: Packing) -> Inherited | None:
    """The class steps `machine` may take over from the exploration it inherits (`Machine.inherited`): those of
    the classes in the states where it steps alike (`Machine.alike`), as indices into `packing.states`.

    Only when that exploration packed configurations the same way, so that
    a representative, a step's offset and its resets mean the same there.
    """
    base = machine.inherited
    if not isinstance(base, Exploration) or not machine.alike:
        return None
    other, classes, breaks, refused = base.class_steps()
    if not packing.same_as(other):
        return None
    return classes, breaks, refused, frozenset(i for i, state in enumerate(packing.states) if state in machine.alike)


def step_classes(machine: Machine, packing: Packing, initial: int, inherited: Inherited | None = None
                 ) -> tuple[dict[int, tuple[ClassStep, ...]], dict, dict[int, tuple[Refusal, ...]], int]:
    """Every class reachable from the initial node, each stepped once, and how many configurations they hold.

    Returns the steps of each class (by representative), the rule-breaking
    steps of those that break any, the steps the table refuses (an
    `invalid` row, or no row at all) of those that refuse any, and the sum
    of the classes' sizes: an
    upper bound of the configurations `explore` will visit (a class counts
    whole when some member of it can be reached from a reachable class).
    The classes are walked breadth-first (`graph.walk`), each one's moves
    found by stepping the machine, or taken from `inherited` (see
    `_inherited`) for a class whose state steps there as here.
    """
    decode, pack, expanded = packing.decode, packing.pack, packing.expanded
    resets = packing.resets
    unfolded = not packing.folds
    events = tuple(EVENTS)
    stimuli = {(event, choice): Stimulus(event, choice) for event in events for choice in (False, True)}
    classes: dict[int, tuple[ClassStep, ...]] = {}
    breaks: dict[int, tuple[tuple[str, int, str, bool], ...]] = {}  # representative -> (rule, line, event, choice)
    refused: dict[int, tuple[Refusal, ...]] = {}
    given, given_breaks, given_refused, alike = inherited if inherited is not None else ({}, {}, {}, frozenset())
    count = len(packing.states)

    def moves(representative: int) -> list[tuple[ClassStep, int]]:
        if not expanded(representative):
            return []
        steps = given.get(representative) if representative % count in alike else None
        if steps is not None:
            classes[representative] = steps
            if representative in given_breaks:
                breaks[representative] = given_breaks[representative]
            if representative in given_refused:
                refused[representative] = given_refused[representative]
            return _targets(packing, unfolded, representative, steps)
        config = decode(representative)
        if config.ended:  # the machine answers every event after session_end with ENDED: no step to try
            classes[representative] = ()
            return []
        found: list[ClassStep] = []
        breaking: list[tuple[str, int, str, bool]] = []
        refusing: list[Refusal] = []
        for event in events:
            for choice in machine.choices(config, event):
                outcome = machine.step_once(config, event, choice)
                if outcome.status is not Status.OK:
                    refusing.append(Refusal(stimuli[event, choice], outcome.row.line if outcome.row is not None else None))
                    if outcome.broken:  # a refusal that breaks a rule: no move, but a breach at its row
                        assert outcome.row is not None
                        breaking.extend((rule, outcome.row.line, event, choice) for rule in outcome.broken)
                    continue
                assert outcome.row is not None  # a step that is OK fired a row
                line = outcome.row.line
                broken = outcome.broken
                found.append((pack(outcome.config) - representative, stimuli[event, choice], line, not broken,
                              resets[line]))
                if broken:
                    breaking.extend((rule, line, event, choice) for rule in broken)
        steps = classes[representative] = tuple(found)
        if breaking:
            breaks[representative] = tuple(breaking)
        if refusing:
            refused[representative] = tuple(refusing)
        return _targets(packing, unfolded, representative, steps)

    reached = walk((packing.fold(initial),), moves).tree
    return classes, breaks, refused, sum(map(packing.class_size, reached))


def _targets(packing: Packing, unfolded: bool, representative: int, steps: tuple[ClassStep, ...]
             ) -> list[tuple[ClassStep, int]]:
    """Each step of a class with each class it leads to (a list: a generator cost more than the walk's own step)."""
    if unfolded:  # with no counter folded, a class is one configuration and its steps' targets are classes
        return [(step, representative + step[0]) for step in steps]
    return [(step, target) for step in steps for target in packing.class_targets(representative, step)]
