"""Conformance vectors: a few traces that fire every reachable row and every boundary between rows.

Firing each row once finds few bugs: they sit between rows (see `goals`).
The suite's goals are every pair of rows that can fire one right after the
other (transition-pair coverage, as XState's path generation and
GraphWalker's edge-pair coverage define it), every boundary goal of the
`goals` catalogue, every `invalid` row refused, and events after
`session_end`. The traces are planned on the proof's configuration graph,
extended with the `Story` the goals read: a tour starts from the initial
configuration and walks, along steps that break no rule, to the nearest
goal not yet met, takes its gadget, and again, until no goal that leaves
the session open can be met in this session; it then ends at the nearest
goal that ends a trace (a pair whose second row is a `session_end` row, a
refusal), and after `session_end` with one event after it when one is
still wanted. Each goal a trace meets along the way counts, so tours
combine goals. Each planned trace is made concrete (`goals.realize`) and
replayed, and a trace claims only the goals its replay shows. Everything
is in a fixed order: two runs plan the same traces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any

from gapstate.fuzzing.boundaries import catalogue
from gapstate.fuzzing.goals import REFUSED, Goal, Story, Way, realize, retell
from gapstate.proof.explore import explore
from gapstate.proof.graph import Exploration, walk
from gapstate.proof.reach import firings
from gapstate.run.machine import Machine, Status
from gapstate.run.replayer import ReplayResult, machine_for, replay
from gapstate.run.trace import from_dicts
from gapstate.table.load import BUNDLED_NAME, Spec
from gapstate.table.model import Table
from gapstate.table.vocabulary import Config


@dataclass(frozen=True)
class Vector:
    """One trace of the suite and what the table does with it."""

    name: str
    trace: tuple[dict[str, Any], ...]
    result: ReplayResult  # its replay; expected.json is this document
    refused_row: int | None  # the `invalid` row its last event is refused by, if any
    goals: tuple[str, ...] = ()  # the boundary and refusal goals it meets, in the order it meets them

    @property
    def rows(self) -> tuple[int, ...]:
        """Lines of the rows the trace fires, each once, in line order."""
        return tuple(sorted({step.row for step in self.result.steps or ()}))

    @property
    def pairs(self) -> tuple[tuple[int, int], ...]:
        """The pairs of rows the trace fires one right after the other, each once, in order."""
        rows = [step.row for step in self.result.steps or ()]
        return tuple(sorted(set(pairwise(rows))))

    @property
    def refusal(self) -> dict[str, Any] | None:
        """How the trace ends in a refusal: its index, kind, and the `invalid` row (or null)."""
        error = self.result.error
        if error is None:
            return None
        return {"index": error.index, "kind": error.kind, "row": self.refused_row}

    def manifest_entry(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trace": f"{self.name}.jsonl",
            "expected": f"{self.name}.expected.json",
            "events": len(self.trace),
            "rows": list(self.rows),
            "pairs": [list(pair) for pair in self.pairs],
            "goals": list(self.goals),
            "refusal": self.refusal,
        }


@dataclass(frozen=True)
class Suite:
    """The vectors for one spec, and what they were planned to cover."""

    spec: str
    vectors: tuple[Vector, ...]
    reachable: tuple[int, ...]  # lines of the rows the proof finds reachable
    refusable: tuple[int, ...]  # lines of the `invalid` rows some reachable configuration refuses
    goals: tuple[tuple[str, str], ...] = ()  # every boundary and refusal goal: (name, what it covers)
    possible_pairs: tuple[tuple[int, int], ...] = ()  # the pairs of rows that can fire one after the other

    @property
    def unfired(self) -> tuple[int, ...]:
        """Reachable rows no vector fires: on a table that breaks a rule, those only a broken step reaches."""
        fired = {line for vector in self.vectors for line in vector.rows}
        return tuple(line for line in self.reachable if line not in fired)

    @property
    def unmet(self) -> tuple[str, ...]:
        """Goals no vector meets: their gadget fits nowhere on this table (or only past a broken step)."""
        met = {name for vector in self.vectors for name in vector.goals}
        return tuple(name for name, _ in self.goals if name not in met)

    @property
    def pairs(self) -> tuple[tuple[int, int], ...]:
        return tuple(sorted({pair for vector in self.vectors for pair in vector.pairs}))

    def manifest(self, sha256: str, version: str, folder: str | None = None) -> dict[str, Any]:
        """manifest.json: every trace with what it covers, every goal with its traces, the spec, gapstate's version.

        Written into `folder`, the spec's path is relative to it, so the
        folder and the spec can move together (or be checked out elsewhere);
        the bundled spec keeps its name, the same in every install.
        """
        import os

        named = self.spec in ("<stdin>", BUNDLED_NAME)  # names, not paths
        path = self.spec if folder is None or named else os.path.relpath(os.path.abspath(self.spec), os.path.abspath(folder))
        where: dict[str, list[str]] = {}
        for vector in self.vectors:
            for name in vector.goals:
                where.setdefault(name, []).append(vector.name)
        return {
            "gapstate": version,
            "spec": {"path": path, "sha256": sha256},
            "traces": [vector.manifest_entry() for vector in self.vectors],
            "reachable_rows": list(self.reachable),
            "refused_rows": list(self.refusable),
            "goals": [{"name": name, "covers": covers, "traces": where.get(name, [])} for name, covers in self.goals],
            "pairs": {"possible": len(self.possible_pairs), "covered": len(self.pairs)},
        }


def build(spec: Spec) -> Suite:
    """The suite for a steppable spec (machine_for raises GapstateError otherwise)."""
    machine = machine_for(spec)
    plans, goals, refusable, possible, reachable = _plans(machine.table)
    vectors = []
    for number, (plan, taken) in enumerate(plans, start=1):
        trace = tuple(realize(machine, plan))
        result = replay(spec, from_dicts(trace))
        met = tuple(goal.name for goal, start in taken if _shows(goal, result, start))
        refused = next((int(name.split(":")[1]) for name in met if name.startswith("refuse:")), None)
        vectors.append(Vector(f"tour-{number:02d}", trace, result, refused, met))
    return Suite(spec.path, tuple(vectors), reachable, refusable, goals, possible)


@lru_cache(maxsize=4)
def _plans(table: Table) -> tuple[Any, ...]:
    """The planned tours for a table, and what they were planned against: once per table (a Table is hashable)."""
    from gapstate.run.machine import compiled

    machine = compiled(table)
    exploration = explore(machine)
    planner = _Planner(machine, exploration)
    plans = planner.tours()
    goals = tuple((goal.name, goal.covers) for goal in planner.goals)
    possible = tuple(sorted(planner.possible_pairs()))
    return plans, goals, planner.refusable, possible, tuple(sorted(exploration.fired))


def _shows(goal: Goal, result: ReplayResult, start: int) -> bool:
    """Whether the replay led through the gadget's expected states (or refusal) from index `start` on."""
    steps = result.steps or ()
    for offset, wanted in enumerate(goal.expect):
        index = start + offset
        if wanted == REFUSED:
            return result.error is not None and result.error.index == index and result.error.kind != "rule"
        if index >= len(steps) or (wanted is not None and steps[index].target != wanted):
            return False
    return start + len(goal.steps) <= len(steps) or goal.ends


Place = tuple[Config, Story]  # where a plan stands: the configuration, and the kinds of id seen


class _Planner:
    """Greedy tours over the configuration graph extended with the Story, nearest goal first."""

    def __init__(self, machine: Machine, exploration: Exploration):
        self.machine = machine
        self.exploration = exploration
        self.goals: list[Goal] = list(catalogue(machine))
        refusals: dict[Config, list[Goal]] = {}
        invalid = {row.line for row in machine.table.rows if row.invalid}
        for line, ways in firings(exploration).items():
            if line in invalid:
                for way in ways:
                    goal = self._refusal(line, way.sent.event, way.sent.choice, machine.table)
                    refusals.setdefault(way.config, []).append(goal)
        self.refusable = tuple(sorted(invalid & {int(g.name[7:]) for found in refusals.values() for g in found}))
        self.goals += sorted({g.name: g for found in refusals.values() for g in found}.values(), key=lambda g: int(g.name[7:]))
        self.refusals = refusals
        self.met: set[str] = set()
        self._moves: dict[Config, list[tuple[Way, int, Config, tuple[str, ...]]]] = {}
        self._pairs: dict[Config, list[tuple[str, tuple[Way, Way], bool]]] = {}
        self._fits: dict[Place, list[tuple[Goal, Place]]] = {}
        # the steps out of a node of the extended graph, found once for the hundreds of walks that pass it;
        # by whether a walk may go through the end of the session
        self._steps: dict[bool, dict[Place, list[tuple[Way, Place]]]] = {False: {}, True: {}}
        self._boundary = [g for g in self.goals if not g.name.startswith("refuse:")]

    @staticmethod
    def _refusal(line: int, event: str, choice: bool, table: Table) -> Goal:
        row = next(r for r in table.rows if r.line == line)
        return Goal(f"refuse:{line}", f"{event} in {row.state}: refused by the invalid row at line {line}",
                    (Way.of(event, choice),), lambda c, s: True, (REFUSED,), ends=True)

    # the graph ----------------------------------------------------------------

    def moves(self, config: Config) -> list[tuple[Way, int, Config, tuple[str, ...]]]:
        found = self._moves.get(config)
        if found is None:
            rows = {row.line: row for row in self.machine.table.rows}
            explored = self.exploration
            found = self._moves[config] = [
                (Way(move.sent), move.row, explored.config(move.target), rows[move.row].actions)
                for move in explored.moves(explored.node(config), by_target=True) if not move.breaks
            ]
        return found

    def possible_pairs(self) -> set[tuple[int, int]]:
        from gapstate.fuzzing.goal_coverage import possible_pairs

        return possible_pairs(self.exploration)

    def pairs(self, config: Config) -> list[tuple[str, tuple[Way, Way], bool]]:
        """The pairs of rows still unmet that start here: (name, the two steps, whether the second ends the session)."""
        found = self._pairs.get(config)
        if found is None:
            found = [
                (f"pair:{first}>{second}", (way, then), after.ended)
                for way, first, target, _ in self.moves(config)
                for then, second, after, _ in self.moves(target)
            ]
        found = self._pairs[config] = [p for p in found if p[0] not in self.met]
        return found

    def fits(self, node: Place) -> list[tuple[Goal, Place]]:
        found = self._fits.get(node)
        if found is None:
            found = self._fits[node] = [
                (goal, end) for goal in self._boundary if (end := goal.fit(self.machine, *node)) is not None
            ]
        return found

    # goals ----------------------------------------------------------------------

    def open_goal(self, node: Place) -> tuple[tuple[Way, ...], Goal | None] | None:
        """An unmet goal that leaves the session open and can be met from here: its steps and the goal (None: a pair)."""
        for goal, _ in self.fits(node):
            if not goal.ends and goal.name not in self.met:
                return goal.steps, goal
        pair = next((p for p in self.pairs(node[0]) if not p[2]), None)
        return (pair[1], None) if pair else None

    def ending_goal(self, node: Place) -> tuple[tuple[Way, ...], Goal | None] | None:
        config = node[0]
        for goal in self.refusals.get(config, ()):
            if goal.name not in self.met:
                return goal.steps, goal
        for goal, _ in self.fits(node):
            if goal.ends and goal.name not in self.met:
                return goal.steps, goal
        pair = next((p for p in self.pairs(config) if p[2]), None)
        return (pair[1], None) if pair else None

    def walk(self, start: Place, goal: Callable[[Place], Any], through_end: bool) -> tuple[list[Way], Any] | None:
        """The shortest clean walk from `start` to a node where `goal` answers; the steps and the answer."""
        steps = self._steps[through_end]

        def moves(node: Place) -> list[tuple[Way, Place]]:
            found = steps.get(node)
            if found is None:
                found = steps[node] = [(way, (target, retell(node[1], way, actions)))
                                       for way, _, target, actions in self.moves(node[0]) if through_end or not target.ended]
            return found

        found = walk((start,), moves, until=goal)
        return None if found.found is None else (found.moves_to(found.found), found.answer)

    # tours ----------------------------------------------------------------------

    def tours(self) -> list[tuple[list[Way], list[tuple[Goal, int]]]]:
        """The plans: each a list of steps and the goals it takes, with the index of their first step."""
        plans: list[tuple[list[Way], list[tuple[Goal, int]]]] = []
        while True:
            tour = _Tour(self)
            while (found := self.walk(tour.node, self.open_goal, False)) is not None:
                path, (steps, goal) = found
                tour.take(path, steps, goal)
            found = self.walk(tour.node, self.ending_goal, True)
            if found is not None:
                path, (steps, goal) = found
                tour.take(path, steps, goal)
                if tour.node[0].ended and not tour.refused:
                    last = next(((s, g) for g, _ in self.fits(tour.node) if g.ends and g.name not in self.met
                                 for s in [g.steps]), None)
                    if last is not None:
                        tour.take([], *last)
            if not tour.plan:
                return plans
            plans.append((tour.plan, tour.taken))


class _Tour:
    """A plan being built: its steps, where it stands, and the goals it took."""

    def __init__(self, planner: _Planner):
        self.planner = planner
        self.node: Place = (planner.machine.initial, Story())
        self.plan: list[Way] = []
        self.taken: list[tuple[Goal, int]] = []
        self.last: int | None = None  # the row the last step fired
        self.refused = False

    def take(self, path: list[Way], steps: tuple[Way, ...], goal: Goal | None) -> None:
        """Walk `path`, then the goal's steps, marking the goal and every pair of rows fired on the way."""
        planner = self.planner
        self._steps(path)
        if goal is not None:
            planner.met.add(goal.name)
            self.taken.append((goal, len(self.plan)))
        self._steps(steps)

    def _steps(self, ways: Iterable[Way]) -> None:
        planner, (config, story) = self.planner, self.node
        for way in ways:
            outcome = planner.machine.step(config, *way.sent)
            self.plan.append(way)
            if outcome.status is not Status.OK:
                self.refused = True
                if outcome.row is not None:
                    planner.met.add(f"refuse:{outcome.row.line}")
                break
            assert outcome.row is not None, "a step taken names its row"
            row = outcome.row.line
            if self.last is not None:
                planner.met.add(f"pair:{self.last}>{row}")
            self.last = row
            story = retell(story, way, outcome.actions)
            config = outcome.config
        self.node = (config, story)


def builtin(spec: Spec) -> list[tuple[str, list[dict[str, Any]]]]:
    """The suite's traces by name, as `load` gives a folder's: what conform runs without --vectors.

    The same traces `build` writes, realized once per table and without the
    replay `build` makes to say what each covers: conform needs only the
    traces, and a program (or test) that calls it many times pays for them once.
    """
    return [(name, list(trace)) for name, trace in _tours(machine_for(spec).table)]


@lru_cache(maxsize=4)
def _tours(table: Table) -> tuple[tuple[str, tuple[dict[str, Any], ...]], ...]:
    from gapstate.run.machine import compiled

    machine = compiled(table)
    plans = _plans(table)[0]
    return tuple((f"tour-{number:02d}", tuple(realize(machine, plan))) for number, (plan, _) in enumerate(plans, start=1))
