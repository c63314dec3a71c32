"""The proof behind `gapstate check`: total, unambiguous, reachable, rule-abiding.

Totality and ambiguity are decided per (state, event) over the guards its
rows name, by enumerating every valuation. Reachability and the rules are
decided on the graph of every configuration reachable from the initial one,
where the environment may send any event the table does not mark `invalid`
and picks `dup` and `post_send` both ways wherever they can be true. This is
the only module that imports networkx. `concretize` turns a path through the
graph into a trace a person can replay.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product
from typing import Any, NamedTuple

import networkx as nx

from .diagram import diagram_findings
from .findings import (
    AllowanceProblem,
    Ambiguous,
    Contradiction,
    Finding,
    NotTotal,
    RuleBroken,
    StaleAllowance,
    Unreachable,
)
from .machine import Machine, Status, valuations
from .semantics import EVENTS, RULES, Config
from .spec import Spec
from .table import ANY_STATE, STAY, Literal, Table

_RULES = {rule.id: rule for rule in RULES}


@dataclass(frozen=True)
class CheckResult:
    """The outcome of `check`, shaped like its JSON output."""

    spec: str
    stats: dict[str, int]
    findings: tuple[Finding, ...]
    proved: bool = True  # False when syntax or name findings stopped the proof
    read: tuple[int, int, int] = (0, 0, 0)  # the rows, caps and allowances that parsed
    lines: tuple[str, ...] = ()  # the spec's lines, for showing each finding where it stands

    @property
    def ok(self) -> bool:
        return not self.findings

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "spec": self.spec,
            "stats": dict(self.stats),
            "findings": [f.to_dict() for f in self.findings],
        }

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]


class Move(NamedTuple):
    """One way along an edge of the exploration: the event, its chosen guard's value, the row fired."""

    event: str
    choice: bool
    row: int  # the line of the row that fired
    clean: bool  # the step breaks no rule


class Breach(NamedTuple):
    """Where a rule breaks: the configuration, and the event and choice that break it there."""

    source: Config
    event: str
    choice: bool


class Walked(NamedTuple):
    """One step of a walk through the configuration graph."""

    event: str
    choice: bool  # the value of the event's chosen guard (dup, post_send)
    row: int  # the line of the row that fires
    target: Config  # the configuration after the step


class Exploration(NamedTuple):
    """The reachable configurations and what fired between them.

    Each edge of `graph` carries `steps`, the Moves that lead along it, and
    `clean`: whether one of them breaks no rule. Counterexamples are walked along clean edges, so that replaying
    one stops at the rule it names and not at another broken on the way.
    """

    graph: nx.DiGraph
    initial: Config
    fired: set[int]  # lines of rows that fired
    # (rule id, row line) -> every place that breaks it
    broken: dict[tuple[str, int], list[Breach]]

    def clean_graph(self) -> nx.DiGraph:
        return nx.subgraph_view(self.graph, filter_edge=lambda u, v: self.graph.edges[u, v]["clean"])

    def clean_steps(self, config: Config) -> list[Walked]:
        """The steps that leave `config` breaking no rule, in exploration order."""
        graph = self.graph
        return [
            Walked(move.event, move.choice, move.row, target)
            for target in graph.successors(config)
            for move in graph.edges[config, target]["steps"]
            if move.clean
        ]

    def walk(self, source: Config, goal: Callable[[Config], Any]) -> tuple[list[Walked], Config, Any] | None:
        """The shortest clean walk from `source` to a configuration where `goal` is truthy.

        Returns the steps, the configuration reached and what `goal` said
        there, or None when no configuration reachable from `source`
        satisfies it. Breadth-first in exploration order, so the answer is
        the same on every run.
        """
        parent: dict[Config, tuple[Config, Walked] | None] = {source: None}
        queue = deque([source])
        while queue:
            config = queue.popleft()
            found = goal(config)
            if found:
                steps: list[Walked] = []
                at = config
                while parent[at] is not None:
                    at, step = parent[at]  # type: ignore[misc]
                    steps.append(step)
                return steps[::-1], config, found
            for step in self.clean_steps(config):
                if step.target not in parent:
                    parent[step.target] = (config, step)
                    queue.append(step.target)
        return None

    def firing(self, source: Config, rows: Container[int]) -> list[Walked] | None:
        """The shortest clean walk from `source` whose last step fires one of `rows`, or None.

        Unlike `shortest_firing_trace`, which starts from the initial
        configuration, it starts anywhere: a conformance tour walks on from
        wherever its last row left it.
        """

        def fires(config: Config) -> Walked | None:
            return next((step for step in self.clean_steps(config) if step.row in rows), None)

        found = self.walk(source, fires)
        return None if found is None else found[0] + [found[2]]

    def steps_to(self, config: Config, clean: bool = True) -> list[tuple[str, bool]]:
        """The (event, choice) steps of a shortest way from the initial configuration to `config`.

        Along clean steps if asked; raises networkx.NetworkXNoPath when there is no such way.
        """
        graph = self.clean_graph() if clean else self.graph
        path = nx.shortest_path(graph, self.initial, config)
        steps = []
        for u, v in zip(path, path[1:]):
            moves: list[Move] = self.graph.edges[u, v]["steps"]
            move = next((m for m in moves if m.clean), moves[0]) if clean else moves[0]
            steps.append((move.event, move.choice))
        return steps

    def trace_to(self, config: Config, last: tuple[str, bool], clean: bool = True) -> list[dict[str, Any]]:
        """The shortest replayable trace reaching `config` (along clean steps if asked), then `last`."""
        return concretize(self.steps_to(config, clean) + [last])


def check(spec: Spec) -> CheckResult:
    """Every finding about the spec, in line order."""
    table = spec.table
    stats = {
        "states": len(table.states) if table else 0,
        "events": len(EVENTS),
        "rows": len(table.rows) if table else 0,
        "configurations": 0,
        "unreachable_allowed": 0,
    }
    findings = list(spec.findings)
    if spec.steppable:
        assert table is not None
        findings.extend(coverage(table))
        exploration = explore(Machine(table))
        stats["configurations"] = exploration.graph.number_of_nodes()
        # Rows already reported as contradictory or ambiguous do not fire for
        # the reason those findings give; calling them unreachable too is noise.
        explained = {f.line for f in findings if isinstance(f, (Contradiction, Ambiguous))}
        reach, allowed = reachability(table, exploration, explained)
        findings.extend(reach)
        stats["unreachable_allowed"] = allowed
        findings.extend(rule_findings(exploration))
        findings.extend(diagram_findings(spec.text, table, spec.path))
    findings.sort(key=lambda f: f.sort_key)
    read = (len(table.rows), len(table.caps), len(table.allowances)) if table else (0, 0, 0)
    return CheckResult(spec.path, stats, tuple(findings), spec.steppable, read, tuple(spec.text.splitlines()))


def coverage(table: Table) -> list[Finding]:
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
                valuation = tuple(zip(names, values))
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
                findings.append(NotTotal(line, 1, state, event, tuple(zip(names, example)), literals))
    return findings


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
            value = list(pattern)
            for i, b in zip(free, bits):
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


def explore(machine: Machine) -> Exploration:
    """Breadth-first over every reachable configuration, as a networkx DiGraph.

    A configuration whose counters passed their caps (the `cap-exceeded`
    rule) is a node but is not expanded: that keeps the graph finite on a
    table that never stops counting.
    """
    initial = machine.initial
    edges: dict[tuple[Config, Config], list[Move]] = {}
    fired: set[int] = set()
    broken: dict[tuple[str, int], list[Breach]] = {}
    seen = {initial}
    queue = deque([initial])
    events = tuple(EVENTS)
    while queue:
        source = queue.popleft()
        for event in events:
            for choice in machine.choices(source, event):
                outcome = machine.step(source, event, choice)
                if outcome.status != Status.OK:
                    continue
                target, line = outcome.config, outcome.row.line
                fired.add(line)
                edges.setdefault((source, target), []).append(Move(event, choice, line, not outcome.broken))
                for rule in outcome.broken:
                    broken.setdefault((rule, line), []).append(Breach(source, event, choice))
                if target not in seen:
                    seen.add(target)
                    if machine.within_caps(target):
                        queue.append(target)
    graph = nx.DiGraph()
    graph.add_node(initial)
    graph.add_edges_from(
        (u, v, {"steps": moves, "clean": any(move.clean for move in moves)}) for (u, v), moves in edges.items()
    )
    return Exploration(graph, initial, fired, broken)


def reachability(table: Table, exploration: Exploration, skip: set[int]) -> tuple[list[Finding], int]:
    """unreachable and stale_allowance findings, and how many allowances hold."""
    findings: list[Finding] = []
    allowed: dict[int, int] = {}  # row line -> allowance line
    held = 0
    for allowance in table.allowances:
        rows = [r for r in table.rows if allowance.names(r)]
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
    entered = {row.next for row in table.rows if row.next != STAY} | {table.initial}
    for row in table.rows:
        if row.invalid or row.line in exploration.fired or row.line in allowed or row.line in skip:
            continue
        cause = f"no row leads to {row.state}" if row.state not in entered and row.state != ANY_STATE else ""
        findings.append(Unreachable(row.line, 1, str(row), cause))
    return findings, held


def rule_findings(exploration: Exploration) -> list[Finding]:
    """One `rule` finding per (rule, row) broken, with its shortest trace.

    The trace reaches the breaking step along steps that break nothing, so
    it replays to this rule; only when every way there breaks another rule
    first does it take the shortest way regardless, and the message says so.
    """
    findings: list[Finding] = []
    if not exploration.broken:
        return findings
    distance = nx.single_source_shortest_path_length(exploration.clean_graph(), exploration.initial)
    for (rule_id, line), candidates in exploration.broken.items():
        reachable = [breach for breach in candidates if breach.source in distance]
        clean = bool(reachable)
        first = min(reachable, key=lambda breach: distance[breach.source]) if clean else candidates[0]
        trace = exploration.trace_to(first.source, (first.event, first.choice), clean=clean)
        findings.append(
            RuleBroken(
                line,
                1,
                rule=rule_id,
                description=_RULES[rule_id].description,
                trace=tuple(trace),
                detour=not clean,
            )
        )
    return findings


def concretize(steps: Iterable[tuple[str, bool]]) -> list[dict[str, Any]]:
    """A replayable trace for abstract steps (event, value of its chosen guard).

    Times advance 100 ms a step. A fresh loss gets a new id and a dup repeats
    the newest; evidence with post_send speaks 50 ms before its own time, so
    after every earlier event, and otherwise at 0, after nothing.
    """
    trace: list[dict[str, Any]] = []
    issued = 0
    for index, (event, choice) in enumerate(steps, start=1):
        item: dict[str, Any] = {"event": event, "t": 100 * index}
        if event == "loss_voiced":
            if not choice:
                issued += 1
            item["id"] = f"iv-{max(issued, 1)}"
        elif event == "evidence_turn":
            item["speech_start"] = 100 * index - 50 if choice else 0
        trace.append(item)
    return trace


# Shortest ways to rows -------------------------------------------------------
#
# What `witness`, `explain`, test vectors and guided fuzzing ask of the graph:
# which reachable steps fire a row, the shortest clean trace ending on one,
# and how far every configuration is from firing it.


class Firing(NamedTuple):
    """One reachable step that matches a row: `event` (with its chosen guard `choice`) from `config`.

    `clean` is False when the step breaks a rule. A step matching an
    `invalid` row is a refusal: the replay stops on it, and it breaks nothing.
    """

    config: Config
    event: str
    choice: bool
    clean: bool


def firings(machine: Machine, exploration: Exploration) -> dict[int, list[Firing]]:
    """Every reachable step, grouped by the line of the row it matches (`invalid` rows included).

    Configurations past a cap and after `session_end` take no step. The lists
    follow the exploration's order, so choices among them are deterministic.
    """
    out: dict[int, list[Firing]] = {}
    events = tuple(EVENTS)
    for config in exploration.graph.nodes:
        if config.ended or not machine.within_caps(config):
            continue
        for event in events:
            for choice in machine.choices(config, event):
                outcome = machine.step(config, event, choice)
                if outcome.row is not None:
                    out.setdefault(outcome.row.line, []).append(Firing(config, event, choice, not outcome.broken))
    return out


class Witness(NamedTuple):
    """The shortest trace whose last event is `firing`; `detour` when no way there breaks no rule."""

    firing: Firing
    trace: list[dict[str, Any]]
    detour: bool


def distances_from_initial(exploration: Exploration, clean: bool = True) -> dict[Config, int]:
    """How many steps each configuration is from the initial one (along clean steps if asked)."""
    graph = exploration.clean_graph() if clean else exploration.graph
    return nx.single_source_shortest_path_length(graph, exploration.initial)


def shortest_firing_trace(exploration: Exploration, ways: list[Firing]) -> Witness | None:
    """The shortest trace from the initial configuration whose last event fires one of `ways`.

    It walks only steps that break no rule, so replaying it ends on exactly
    that row; among equally short ones a last step that breaks nothing wins.
    When every way there breaks a rule first, the shortest way regardless is
    given, marked `detour`. None when `ways` is empty.
    """
    if not ways:
        return None
    for clean in (True, False):
        distance = distances_from_initial(exploration, clean)
        reached = [w for w in ways if w.config in distance]
        if reached:
            best = min(reached, key=lambda w: (distance[w.config], not w.clean))
            trace = exploration.trace_to(best.config, (best.event, best.choice), clean=clean)
            return Witness(best, trace, not clean)
    return None  # pragma: no cover - every configuration of the graph is reachable


def distances_to_firing(exploration: Exploration, ways: list[Firing]) -> dict[Config, int]:
    """For every configuration that can still fire the row, the fewest events that fire it.

    Counts the firing event itself (1 from a configuration that fires the row
    directly) and walks only steps that break no rule; configurations
    missing from the result cannot fire the row that way. Guided fuzzing
    reads this as a distance to minimise.
    """
    sources = {w.config for w in ways if w.clean}
    if not sources:
        return {}
    backwards = exploration.clean_graph().reverse(copy=False)
    lengths = nx.multi_source_dijkstra_path_length(backwards, sources)
    return {config: steps + 1 for config, steps in lengths.items()}


# Walking towards rows ----------------------------------------------------------
#
# What guided generation (the strategies, `gapstate fuzz`) needs besides the
# firings above: where the environment can send an event no row matches, and
# how many events every configuration is from firing each row or falling
# into each hole, along any steps (a walk that breaks a rule on the way has
# found something too). Plain dicts keyed by Config, so a caller walks them
# without networkx.

Hole = tuple[str, str]  # (state, event): the environment may send it there and no row matches


def holes(machine: Machine, exploration: Exploration) -> dict[Hole, list[Firing]]:
    """Every reachable step that no row matches, by (state, event).

    The environment may send any event the table does not mark `invalid`;
    on a table that is not total some of those match no row at all. Such a
    step breaks no rule (it is refused), so each Firing is clean.
    """
    out: dict[Hole, list[Firing]] = {}
    for config in exploration.graph.nodes:
        if config.ended or not machine.within_caps(config):
            continue  # never expanded: nothing is sent from there
        for event in EVENTS:
            for choice in machine.choices(config, event):
                if machine.step(config, event, choice).status is Status.UNMATCHED:
                    out.setdefault((config.state, event), []).append(Firing(config, event, choice, True))
    return out


def distances_to(graph: nx.DiGraph, sources: Iterable[Config]) -> dict[Config, int]:
    """How many steps each configuration of `graph` is from the nearest of `sources` (0 at them).

    A configuration that cannot reach any of them is absent.
    """
    return dict(nx.multi_source_dijkstra_path_length(graph.reverse(copy=False), set(sources), weight=None))


@dataclass(frozen=True)
class Roadmap:
    """The configuration graph as a walker needs it, computed once per machine.

    A target is a row's line (int) or a `Hole`. `hits[target]` holds the
    steps that hit it; `distance[target][config]` is how many events a walk
    from `config` needs to hit it, the hitting event included (1: the next
    event can), absent when it cannot; `depth[config]` how many events it
    takes to reach `config` along steps that break no rule.
    """

    exploration: Exploration
    rows: tuple[int, ...]  # lines of the rows that fire on a reachable configuration
    holes: tuple[Hole, ...]
    hits: dict[Any, list[Firing]]
    distance: dict[Any, dict[Config, int]]
    depth: dict[Config, int]

    @property
    def initial(self) -> Config:
        return self.exploration.initial

    @property
    def targets(self) -> tuple[Any, ...]:
        return self.rows + self.holes


@lru_cache(maxsize=8)
def roadmap(machine: Machine) -> Roadmap:
    """The machine's Roadmap: the table explored once (about 50 ms for the bundled one)."""
    exploration = explore(machine)
    fired = exploration.fired  # `firings` also lists the refusals of `invalid` rows, which fire nothing
    hits: dict[Any, list[Firing]] = {line: ways for line, ways in sorted(firings(machine, exploration).items()) if line in fired}
    gaps = holes(machine, exploration)
    hits.update(sorted(gaps.items()))
    distance = {}
    for target, ways in hits.items():
        before = distances_to(exploration.graph, {way.config for way in ways})
        distance[target] = {config: n + 1 for config, n in before.items()}
    return Roadmap(exploration, tuple(sorted(fired)), tuple(sorted(gaps)), hits, distance, distances_from_initial(exploration))
