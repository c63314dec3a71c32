"""What exploring found: every reachable configuration, the steps between them, and the ways along them.

`explore.py` searches; an `Exploration` answers what the proof and the
commands ask of the result: the steps out of a configuration, shortest
walks and paths, the breadth-first trees they are read off, and the
networkx graph (with `paths`, the only networkx imports).
`proof.traces.concretize` turns a path through the graph into a trace a person can replay.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Container, Iterator
from typing import Any, NamedTuple

import networkx as nx

from gapstate.proof.packing import Packing
from gapstate.proof.traces import Trace
from gapstate.table.vocabulary import Config


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
      expanded); `clean_steps(config)` those that break no rule;
    - `fired`: the lines of the rows that fired; `broken`: for each (rule,
      row line) every step (a `Firing`) that breaks it;
    - `graph`: a networkx DiGraph of the configurations, each edge once,
      with `clean` true when some step along it breaks no rule, and
      `clean_graph()`, for reachability and shortest paths;
      `distances(clean)`, `path_to(config, clean)` (the edges of a shortest
      path), `steps_to(config, clean)` (its (event, choice) pairs) and
      `trace_to(config, last, clean)` (a replayable trace) are built on them.

    Inside, a configuration is a small integer (see `Packing`), and the
    steps are stored once per class of configurations that behave alike, so
    an exploration holds little more than a set of integers; the networkx
    graph is built on first use (a check without rule findings never needs
    it). Counterexamples are walked along clean edges, so that replaying one
    stops at the rule it names and not at another broken on the way.
    """

    def __init__(self, packing: Packing, initial: int, seen: dict[int, None], classes: dict[int, tuple],
                 fired: frozenset[int], breaches: dict[tuple[str, int], list[tuple[int, str, bool]]],
                 breaks: dict[int, tuple[tuple[str, int, str, bool], ...]], members: dict[int, int]):
        self._packing = packing
        self._root = initial  # the initial node, where the breadth-first trees start
        self._seen = seen  # node -> None, in breadth-first order
        self._classes = classes  # class representative -> its steps as (delta, event, choice, line, clean)
        self.initial = packing.decode(initial)
        self.fired = fired
        self._breaches = breaches  # (rule, row line) -> every breaking step, as (node, event, choice)
        self._breaks = breaks  # class representative -> the (rule, row line, event, choice) its steps break
        self._members = members  # class representative -> how many expanded configurations of it were reached
        self._broken: dict[tuple[str, int], list[Firing]] | None = None
        self._graph: nx.DiGraph | None = None
        self._trees: dict[bool, dict[int, tuple[int, int, tuple | None]]] = {}
        self.implied = len(seen)  # what the caps imply, at most (`explore` sets it)

    def __len__(self) -> int:
        return len(self._seen)

    @property
    def broken(self) -> dict[tuple[str, int], list[Firing]]:
        if self._broken is None:
            decode = self._packing.decode
            self._broken = {key: [Firing(decode(node), event, choice, False) for node, event, choice in steps]
                            for key, steps in self._breaches.items()}
        return self._broken

    def breaches(self) -> Iterator[tuple[str, int, Trace, bool]]:
        """Each (rule, row line) broken, with the shortest trace whose last step breaks it, and whether
        that trace is a detour.

        The trace walks steps that break nothing, so replaying it stops at
        this rule; when every way there breaks another rule first, it is the
        shortest way regardless (a detour).
        """
        clean = self._tree(True)
        for (rule, line), steps in self._breaches.items():
            reachable = [step for step in steps if step[0] in clean]
            if reachable:
                node, event, choice = min(reachable, key=lambda step: clean[step[0]][0])
                yield rule, line, Trace(clean, node, (event, choice)), False
            else:
                node, event, choice = steps[0]
                yield rule, line, Trace(self._tree(False), node, (event, choice)), True

    def __contains__(self, config: object) -> bool:
        try:
            return self._packing.encode(config) in self._seen  # type: ignore[arg-type]
        except (KeyError, ValueError, TypeError):
            return False

    def configs(self) -> Iterator[Config]:
        return map(self._packing.decode, self._seen)

    def classes(self) -> Iterator[tuple[Config, int]]:
        """Each class of reachable configurations that behave alike (see `Packing`) and are expanded:
        its representative, and how many reachable configurations it holds.

        What is asked of every reachable step (which rows fire how often)
        is then asked once a class, not once a configuration.
        """
        decode = self._packing.decode
        return ((decode(node), count) for node, count in self._members.items())

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
        representative = packing.fold(node)
        for delta, event, choice, line, clean, resets in self._classes[representative]:
            yield event, choice, packing.target(node, representative, delta, resets), line, clean

    def packed(self) -> Iterator[tuple[int, list[tuple[str, bool, int, int, bool]] | None]]:
        """Every configuration as its node (a small int), breadth-first, with its steps as
        (event, choice, target node, row line, clean), None for one past a cap (not explored
        further): for a pass over the whole graph that would otherwise decode a `Config` for
        every target (`proof.progress`)."""
        packing, classes = self._packing, self._classes
        fold, expanded, target_of = packing.fold, packing.expanded, packing.target
        for node in self._seen:
            if not expanded(node):
                yield node, None
                continue
            representative = fold(node)
            yield node, [(event, choice, node + delta if not resets else target_of(node, representative, delta, resets),
                          line, clean) for delta, event, choice, line, clean, resets in classes[representative]]

    def decode(self, node: int) -> Config:
        return self._packing.decode(node)

    def walk_to(self, node: int) -> tuple[list[tuple[str, bool]], int]:
        """The (event, choice) steps of a shortest way from the initial configuration to a node, any
        steps allowed, and how many they are; a node never reached raises networkx.NetworkXNoPath."""
        tree = self._tree(False)
        if node not in tree:
            raise nx.NetworkXNoPath(f"no way to node {node}")
        depth = tree[node][0]
        steps: list[tuple[str, bool]] = []
        while True:
            _, node, step = tree[node]
            if step is None:
                return steps[::-1], depth
            steps.append((step[0], step[1]))

    def depths(self) -> dict[int, int]:
        """Each node's distance from the initial one, any steps allowed."""
        return {node: depth for node, (depth, _, _) in self._tree(False).items()}

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

    def reach_without(self, rows: Container[int], blocked: Callable[[Config, str, bool, int, bool], bool]
                      ) -> tuple[set[int], set[tuple[str, int]], int]:
        """Breadth-first from the initial configuration, leaving out the steps that fire one of `rows`
        and that `blocked(config, event, choice, row, breaks a rule)` accepts.

        Returns the rows that fire, the (rule, row) pairs broken, and how
        many configurations were reached.
        """
        packing = self._packing
        decode, fold, expanded, target_of = packing.decode, packing.fold, packing.expanded, packing.target
        classes, breaks = self._classes, self._breaks
        fired: set[int] = set()
        broken: set[tuple[str, int]] = set()
        counted: set[int] = set()  # classes whose every step was taken: their rows and breaches are in
        careful: dict[int, bool] = {}  # class -> some step of it fires one of `rows`
        seen = {self._root}
        queue = deque([self._root])
        while queue:
            node = queue.popleft()
            if not expanded(node):
                continue
            representative = fold(node)
            steps = classes[representative]
            suspect = careful.get(representative)
            if suspect is None:
                suspect = careful[representative] = any(step[3] in rows for step in steps)
            config = None
            if not suspect and representative not in counted:
                counted.add(representative)
                fired.update(step[3] for step in steps)
                broken.update((rule, line) for rule, line, _, _ in breaks.get(representative, ()))
            for delta, event, choice, line, clean, resets in steps:
                if suspect:
                    if line in rows:
                        config = decode(node) if config is None else config
                        if blocked(config, event, choice, line, not clean):
                            continue
                    fired.add(line)
                    if not clean:
                        broken.update((rule, line) for rule, at, e, c in breaks[representative] if (e, c) == (event, choice))
                target = node + delta if not resets else target_of(node, representative, delta, resets)
                if target not in seen:
                    seen.add(target)
                    queue.append(target)
        return fired, broken, len(seen)

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
        tree, node = self._reached(config, clean)
        decode = self._packing.decode
        edges: list[Edge] = []
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
            tree = {self._root: (0, -1, None)}
            queue = deque([self._root])
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
        tree, node = self._reached(config, clean)
        return list(Trace(tree, node, last))

    def _reached(self, config: Config, clean: bool) -> tuple[dict[int, tuple[int, int, tuple | None]], int]:
        """The breadth-first tree and `config`'s node in it; networkx.NetworkXNoPath when it is not there."""
        tree = self._tree(clean)
        try:
            node = self._packing.encode(config)
        except (KeyError, ValueError, TypeError):
            node = -1
        if node not in tree:
            raise nx.NetworkXNoPath(f"no {'clean ' if clean else ''}way to {config}")
        return tree, node
