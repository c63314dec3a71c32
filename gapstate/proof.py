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
from operator import mul
from typing import Any, Iterator, NamedTuple

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
from .semantics import ACTIONS, COUNTERS, EVENTS, RULES, Config, action
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


class Move(NamedTuple):
    """One way along an edge of the exploration: the event, its chosen guard's value, the row fired."""

    event: str
    choice: bool
    row: int  # the line of the row that fired
    clean: bool  # the step breaks no rule


class Edge(NamedTuple):
    """One step out of a configuration: which event (and chosen-guard value) fired which row, to where."""

    event: str
    choice: bool  # the value of the event's chosen guard (dup, post_send); False when it has none
    target: Config
    row: int  # the line of the row that fired
    clean: bool  # the step breaks no rule


class Exploration:
    """Every configuration reachable from the initial one, and the steps between them.

    The API the proof and the commands built on it read, all in `Config`s:

    - `initial`, `len(exploration)`, `configs()` (breadth-first order),
      `config in exploration`;
    - `successors(config)`: the `Edge`s out of it, each (event, choice)
      once, in event order; a configuration past a cap has none (it is not
      expanded); `moves(source, target)`: the `Move`s along one edge;
      `edges()`: every step, as (source, Edge);
    - `fired`: the lines of the rows that fired; `broken`: for each (rule,
      row line) every (source configuration, event, choice) that breaks it;
    - `graph`: a networkx DiGraph of the configurations, each edge once,
      with `clean` true when some step along it breaks no rule, and
      `clean_graph()`, for reachability and shortest paths;
      `distances(clean)`, `path_to(config, clean)` (the edges of a shortest
      path), `steps_to(config, clean)` (its (event, choice) pairs) and
      `trace_to(config, last, clean)` (a replayable trace) are built on them.

    Inside, a configuration is a small integer (see `_Packing`), and the
    steps are stored once per class of configurations that behave alike, so
    an exploration holds little more than a set of integers; the networkx
    graph is built on first use (a check without rule findings never needs
    it). Counterexamples are walked along clean edges, so that replaying one
    stops at the rule it names and not at another broken on the way.
    """

    def __init__(self, packing: "_Packing", initial: int, seen: dict[int, None], classes: dict[int, tuple],
                 fired: set[int], broken: dict[tuple[str, int], list[Breach]]):
        self._packing = packing
        self._initial = initial
        self._seen = seen  # node -> None, in breadth-first order
        self._classes = classes  # class representative -> its steps as (delta, event, choice, line, clean)
        self.initial = packing.decode(initial)
        self.fired = fired
        self.broken = broken
        self._graph: nx.DiGraph | None = None

    def __len__(self) -> int:
        return len(self._seen)

    def __contains__(self, config: object) -> bool:
        try:
            return self._packing.encode(config) in self._seen  # type: ignore[arg-type]
        except (KeyError, ValueError, TypeError):
            return False

    def configs(self) -> Iterator[Config]:
        return map(self._packing.decode, self._seen)

    def moves(self, source: Config, target: Config) -> list[Move]:
        """What leads along the edge from `source` to `target`: each (event, choice, row, clean), in event order."""
        return [Move(e.event, e.choice, e.row, e.clean) for e in self.successors(source) if e.target == target]

    def edges(self) -> Iterator[tuple[Config, Edge]]:
        """Every step of the exploration, as (source, Edge), sources in breadth-first order."""
        decode = self._packing.decode
        for node in self._seen:
            source = decode(node)
            for event, choice, target, line, clean in self._steps(node):
                yield source, Edge(event, choice, decode(target), line, clean)

    def successors(self, config: Config, by_target: bool = False) -> tuple[Edge, ...]:
        """The steps out of `config` in event order; `by_target` groups them by target, in the order
        the targets are first reached (the order networkx lists neighbours in), each group in event order."""
        decode = self._packing.decode
        edges = tuple(Edge(event, choice, decode(target), line, clean)
                      for event, choice, target, line, clean in self._steps(self._packing.encode(config)))
        if not by_target:
            return edges
        groups: dict[Config, list[Edge]] = {}
        for edge in edges:
            groups.setdefault(edge.target, []).append(edge)
        return tuple(edge for group in groups.values() for edge in group)

    def _steps(self, node: int) -> Iterator[tuple[str, bool, int, int, bool]]:
        packing = self._packing
        if node not in self._seen or not packing.expanded(node):
            return
        for delta, event, choice, line, clean in self._classes[packing.fold(node)]:
            yield event, choice, node + delta, line, clean

    @property
    def graph(self) -> nx.DiGraph:
        if self._graph is None:
            configs = {node: self._packing.decode(node) for node in self._seen}
            clean: dict[tuple[Config, Config], bool] = {}
            for node, config in configs.items():
                for _, _, target, _, ok in self._steps(node):
                    pair = (config, configs[target])
                    clean[pair] = clean.get(pair, False) or ok
            graph = nx.DiGraph()
            graph.add_nodes_from(configs.values())
            graph.add_edges_from((u, v, {"clean": c}) for (u, v), c in clean.items())
            self._graph = graph
        return self._graph

    def clean_graph(self) -> nx.DiGraph:
        graph = self.graph
        return nx.subgraph_view(graph, filter_edge=lambda u, v: graph.edges[u, v]["clean"])

    def clean_steps(self, config: Config) -> list[Walked]:
        """The steps that leave `config` breaking no rule, in exploration order (by target, then event)."""
        return [Walked(e.event, e.choice, e.row, e.target) for e in self.successors(config, by_target=True) if e.clean]

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

    def distances(self, clean: bool = False) -> dict[Config, int]:
        """Steps from the initial configuration to every one reachable (along clean steps if asked)."""
        return nx.single_source_shortest_path_length(self.clean_graph() if clean else self.graph, self.initial)

    def path_to(self, config: Config, clean: bool = False) -> list[Edge]:
        """The edges of a shortest path from the initial configuration to `config` (clean ones if asked).

        Raises networkx.NetworkXNoPath when there is none.
        """
        path = nx.shortest_path(self.clean_graph() if clean else self.graph, self.initial, config)
        edges = []
        for u, v in zip(path, path[1:]):
            along = [e for e in self.successors(u) if e.target == v]
            edges.append(next((e for e in along if e.clean), along[0]) if clean else along[0])
        return edges

    def steps_to(self, config: Config, clean: bool = True) -> list[tuple[str, bool]]:
        """The (event, choice) steps of a shortest way from the initial configuration to `config`.

        Along clean steps if asked; raises networkx.NetworkXNoPath when there is no such way.
        """
        return [(e.event, e.choice) for e in self.path_to(config, clean)]

    def trace_to(self, config: Config, last: tuple[str, bool], clean: bool = True) -> list[dict[str, Any]]:
        """The shortest replayable trace reaching `config` (along clean steps if asked), then `last`."""
        return concretize(self.steps_to(config, clean) + [last])


def check(spec: Spec, progress: Callable[[int, int], None] | None = None) -> CheckResult:
    """Every finding about the spec, in line order; `progress` is handed to `explore`."""
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
        exploration = explore(Machine(table), progress)
        stats["configurations"] = len(exploration)
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


class _Packing:
    """Configurations as small integers, and the classes of configurations that behave alike.

    A `Config` packs into one int, field by field (mixed radix): the state
    by its index, a counter by its value (at most its cap plus what one
    step adds: a configuration past a cap is not expanded), a flag as a bit.

    The classes: a counter that no event or action sets (only adds to) is
    read by the guards and rules only against 0 and against its cap (see
    `semantics`: `budget_left`, `post_send`, `cap-exceeded`). So two
    configurations that differ only in such a counter, both well inside
    (0, cap), take the same steps, with the counter shifted alike. `fold`
    maps a node to its class representative (the counter set to the first
    value of that middle range); the explorer steps representatives only,
    and the steps of any node are its representative's, shifted.
    """

    def __init__(self, machine: Machine):
        caps = machine.caps
        self.states = tuple(machine.table.states)
        self._state_index = {state: i for i, state in enumerate(self.states)}
        added = {c: 0 for c in COUNTERS}
        for row in machine.table.rows:
            for counter in COUNTERS:
                added[counter] = max(added[counter], sum(action(a).add.get(counter, 0) for a in row.actions))
        set_somewhere = {name for action in ACTIONS.values() for name in action.sets} | {
            name for event in EVENTS.values() for name in (*event.sets, *event.then)
        }
        self.radix: list[tuple[str, int, int]] = []  # (field, stride, size)
        stride = 1
        for name in Config._fields:
            size = len(self.states) if name == "state" else caps[name] + added[name] + 1 if name in COUNTERS else 2
            self.radix.append((name, stride, size))
            stride *= size
        assert self.radix[0][:2] == ("state", 1)  # `pack` relies on it
        self._strides = tuple(stride for _, stride, _ in self.radix[1:])
        # (stride, size, cap) of each counter, for `expanded`; and of the shiftable ones, the middle range
        self._caps = [(st, size, caps[name]) for name, st, size in self.radix if name in COUNTERS]
        self._shifts = []
        for name, st, size in self.radix:
            if name in COUNTERS and name not in set_somewhere:
                low = added[name] + 2  # the middle: low..high, where v > 0, v < cap and v + a step's add < cap
                high = caps[name] - added[name] - 2
                if high > low:
                    self._shifts.append((st, size, low, high))

    def pack(self, config: Config) -> int:
        """`encode` without its range checks, for configurations the machine itself produced."""
        return self._state_index[config[0]] + sum(map(mul, config[1:], self._strides))

    def encode(self, config: Config) -> int:
        node = 0
        for (name, stride, size), value in zip(self.radix, config):
            code = self._state_index[value] if name == "state" else int(value)
            if not 0 <= code < size:
                raise ValueError(f"{name} = {value} is outside the explored range")
            node += code * stride
        return node

    def decode(self, node: int) -> Config:
        values: list[Any] = []
        for name, stride, size in self.radix:
            code = node // stride % size
            values.append(self.states[code] if name == "state" else code if name in COUNTERS else bool(code))
        return Config._make(values)

    def expanded(self, node: int) -> bool:
        """Within every cap: such a configuration is explored further."""
        return all(node // stride % size <= cap for stride, size, cap in self._caps)

    def fold(self, node: int) -> int:
        """The representative of the node's class (itself when no counter is in its middle range)."""
        for stride, size, low, high in self._shifts:
            value = node // stride % size
            if low < value <= high:
                node -= (value - low) * stride
        return node


def explore(machine: Machine, progress: Callable[[int, int], None] | None = None) -> Exploration:
    """Breadth-first over every reachable configuration.

    A configuration whose counters passed their caps (the `cap-exceeded`
    rule) is a node but is not expanded: that keeps the graph finite on a
    table that never stops counting. Only class representatives are
    stepped (see `_Packing`), so the cost grows with the number of
    configurations only through a set insertion per edge. `progress`, when
    given, is called now and then with (done, total): how far the largest
    counter values reached are towards their caps.
    """
    packing = _Packing(machine)
    decode, fold, expanded, pack = packing.decode, packing.fold, packing.expanded, packing.pack
    initial = packing.encode(machine.initial)
    events = tuple(EVENTS)
    classes: dict[int, tuple[tuple[int, str, bool, int, bool], ...]] = {}
    breaks: dict[int, tuple[tuple[str, int, str, bool], ...]] = {}  # representative -> (rule, line, event, choice)
    fired: set[int] = set()
    broken: dict[tuple[str, int], list[Breach]] = {}
    seen: dict[int, None] = {initial: None}
    queue = deque([initial])
    pop, push = queue.popleft, queue.append
    counters = [(stride, size, cap) for stride, size, cap in packing._caps]
    total = sum(cap for _, _, cap in counters)
    done = 0
    count = 0
    while queue:
        source = pop()
        representative = fold(source)
        steps = classes.get(representative)
        if steps is None:
            config = decode(representative)
            found = []
            breaking = []
            for event in events:
                for choice in machine.choices(config, event):
                    outcome = machine.step_once(config, event, choice)
                    if outcome.status is not Status.OK:
                        continue
                    line = outcome.row.line
                    fired.add(line)
                    found.append((pack(outcome.config) - representative, event, choice, line,
                                  not outcome.broken))
                    breaking.extend((rule, line, event, choice) for rule in outcome.broken)
            steps = classes[representative] = tuple(found)
            if breaking:
                breaks[representative] = tuple(breaking)
        if breaks and representative in breaks:
            before = decode(source)
            for rule, line, event, choice in breaks[representative]:
                broken.setdefault((rule, line), []).append(Breach(before, event, choice))
        for step in steps:
            target = source + step[0]
            if target not in seen:
                seen[target] = None
                if expanded(target):
                    push(target)
        count += 1
        if progress is not None and not count & 1023:
            done = max(done, sum(min(cap, source // stride % size) for stride, size, cap in counters))
            progress(done, total)
    if progress is not None:
        progress(total, total)
    return Exploration(packing, initial, seen, classes, fired, broken)


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
    distance = exploration.distances(clean=True)
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
    for config in exploration.configs():  # breadth-first, without building the networkx graph
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
        distance = exploration.distances(clean)
        reached = [w for w in ways if w.config in distance]
        if reached:
            best = min(reached, key=lambda w: (distance[w.config], not w.clean))
            trace = exploration.trace_to(best.config, (best.event, best.choice), clean=clean)
            return Witness(best, trace, not clean)
    return None  # pragma: no cover - every configuration of the graph is reachable


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
    return Roadmap(exploration, tuple(sorted(fired)), tuple(sorted(gaps)), hits, distance, exploration.distances(clean=True))
