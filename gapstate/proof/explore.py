"""Exploring every configuration reachable from the initial one (the only networkx import).

The environment may send any event the table does not mark `invalid` and
picks the guards its payload sets (`vocabulary.PAYLOADS`) both ways
wherever they can be true.
`concretize` turns a path through the graph into a trace a person can replay.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Container, Iterable
from operator import mul
from typing import Any, Iterator, NamedTuple

import networkx as nx

from gapstate.run.machine import Machine, Status
from gapstate.spec.vocabulary import (
    COUNTERS,
    EVENTS,
    PAYLOADS,
    SEEN,
    SETTABLE,
    Config,
    action,
)


class Firing(NamedTuple):
    """One reachable step from `config`: `event`, with `choice` the value of the guard its payload sets.

    `clean` is False when the step breaks a rule. The proof keeps the steps
    that break each rule this way (`Exploration.broken`), and `reach.firings`
    the steps that match each row; a step matching an `invalid` row is a
    refusal: the replay stops on it, and it breaks nothing.
    """

    config: Config
    event: str
    choice: bool
    clean: bool


class Edge(NamedTuple):
    """One step out of a configuration: which event (and chosen-guard value) fired which row, to where."""

    event: str
    choice: bool  # the value of the guard the event's payload sets; False when it sets none
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
      expanded); `clean_steps(config)` those that break no rule, and `walk`
      and `firing`, shortest walks along them;
    - `fired`: the lines of the rows that fired; `broken`: for each (rule,
      row line) every step (a `Firing`) that breaks it;
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
                 fired: set[int], broken: dict[tuple[str, int], list[Firing]]):
        self._packing = packing
        self._seen = seen  # node -> None, in breadth-first order
        self._classes = classes  # class representative -> its steps as (delta, event, choice, line, clean)
        self.initial = packing.decode(initial)
        self.fired = fired
        self.broken = broken
        self._graph: nx.DiGraph | None = None
        self._trees: dict[bool, dict[int, tuple[int, int, tuple | None]]] = {}

    def __len__(self) -> int:
        return len(self._seen)

    def __contains__(self, config: object) -> bool:
        try:
            return self._packing.encode(config) in self._seen  # type: ignore[arg-type]
        except (KeyError, ValueError, TypeError):
            return False

    def configs(self) -> Iterator[Config]:
        return map(self._packing.decode, self._seen)

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

    def clean_steps(self, config: Config) -> list[Edge]:
        """The steps that leave `config` breaking no rule, in exploration order (by target, then event)."""
        return [e for e in self.successors(config, by_target=True) if e.clean]

    def walk(self, source: Config, goal: Callable[[Config], Any]) -> tuple[list[Edge], Config, Any] | None:
        """The shortest clean walk from `source` to a configuration where `goal` is truthy.

        Returns the steps, the configuration reached and what `goal` said
        there, or None when no configuration reachable from `source`
        satisfies it. Breadth-first in exploration order, so the answer is
        the same on every run.
        """
        parent: dict[Config, tuple[Config, Edge] | None] = {source: None}
        queue = deque([source])
        while queue:
            config = queue.popleft()
            found = goal(config)
            if found:
                steps: list[Edge] = []
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

    def firing(self, source: Config, rows: Container[int]) -> list[Edge] | None:
        """The shortest clean walk from `source` whose last step fires one of `rows`, or None.

        Unlike `shortest_firing_trace`, which starts from the initial
        configuration, it starts anywhere: a conformance tour walks on from
        wherever its last row left it.
        """

        def fires(config: Config) -> Edge | None:
            return next((step for step in self.clean_steps(config) if step.row in rows), None)

        found = self.walk(source, fires)
        return None if found is None else found[0] + [found[2]]

    def distances(self, clean: bool = False) -> dict[Config, int]:
        """Steps from the initial configuration to every one reachable (along clean steps if asked)."""
        decode = self._packing.decode
        return {decode(node): depth for node, (depth, _, _) in self._tree(clean).items()}

    def path_to(self, config: Config, clean: bool = False) -> list[Edge]:
        """The edges of a shortest path from the initial configuration to `config` (clean ones if asked).

        Read off one breadth-first tree, searched once per exploration (see
        `_tree`), so a hundred counterexamples cost one search, not a hundred.
        Raises networkx.NetworkXNoPath when there is none.
        """
        tree = self._tree(clean)
        try:
            node = self._packing.encode(config)
        except (KeyError, ValueError, TypeError):
            node = -1
        if node not in tree:
            raise nx.NetworkXNoPath(f"no {'clean ' if clean else ''}way to {config}")
        decode = self._packing.decode
        edges = []
        while True:
            _, parent, step = tree[node]
            if step is None:
                return edges[::-1]
            event, choice, target, line, ok = step
            edges.append(Edge(event, choice, decode(target), line, ok))
            node = parent

    def _tree(self, clean: bool) -> dict[int, tuple[int, int, tuple | None]]:
        """Breadth-first from the initial node: node -> (depth, parent node, the step from it).

        Neighbours in step order, so each node's parent is the first node
        dequeued that reaches it, by its first (clean, if asked) step there:
        the same shortest paths on every run. Built once per `clean`.
        """
        tree = self._trees.get(clean)
        if tree is None:
            tree = {self._initial: (0, -1, None)}
            queue = deque([self._initial])
            steps = self._steps
            while queue:
                node = queue.popleft()
                depth = tree[node][0] + 1
                for step in steps(node):
                    target = step[2]
                    if target not in tree and (step[4] or not clean):
                        tree[target] = (depth, node, step)
                        queue.append(target)
            self._trees[clean] = tree
        return tree

    def steps_to(self, config: Config, clean: bool = True) -> list[tuple[str, bool]]:
        """The (event, choice) steps of a shortest way from the initial configuration to `config`.

        Along clean steps if asked; raises networkx.NetworkXNoPath when there is no such way.
        """
        return [(e.event, e.choice) for e in self.path_to(config, clean)]

    def trace_to(self, config: Config, last: tuple[str, bool], clean: bool = True) -> list[dict[str, Any]]:
        """The shortest replayable trace reaching `config` (along clean steps if asked), then `last`."""
        return concretize(self.steps_to(config, clean) + [last])




class _Packing:
    """Configurations as small integers, and the classes of configurations that behave alike.

    A `Config` packs into one int, field by field (mixed radix): the state
    by its index, a counter by its value (at most its cap plus what one
    step adds: a configuration past a cap is not expanded), a flag as a bit.

    The classes: a counter that no event or action sets (only adds to) is
    read by the guards and rules only against 0 and against its cap (see
    `vocabulary`: the guards and `cap-exceeded`). So two
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
            if name in COUNTERS and name not in SETTABLE:
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
    broken: dict[tuple[str, int], list[Firing]] = {}
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
                broken.setdefault((rule, line), []).append(Firing(before, event, choice, False))
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




def concretize(steps: Iterable[tuple[str, bool]]) -> list[dict[str, Any]]:
    """A replayable trace for abstract steps (event, value of the guard its payload sets).

    Times advance 100 ms a step. A fresh SEEN value (an interval id) is a new
    one and a repeated one the newest; an AFTER value (speech_start) whose
    guard holds is 50 ms before its own time, so after every earlier event,
    and otherwise 0, after nothing.
    """
    trace: list[dict[str, Any]] = []
    issued = 0
    for index, (event, choice) in enumerate(steps, start=1):
        item: dict[str, Any] = {"event": event, "t": 100 * index}
        payload = PAYLOADS.get(event)
        if payload is not None and payload.reads == SEEN:
            if not choice:
                issued += 1
            item[payload.field] = f"iv-{max(issued, 1)}"
        elif payload is not None:
            item[payload.field] = 100 * index - 50 if choice else 0
        trace.append(item)
    return trace


# Shortest ways to rows -------------------------------------------------------
#
# What `witness`, `explain`, test vectors and guided fuzzing ask of the graph:
# which reachable steps fire a row, the shortest clean trace ending on one,
# and how far every configuration is from firing it.
