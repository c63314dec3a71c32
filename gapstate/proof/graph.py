"""The explored graph: configurations as nodes, the moves between them, and the one breadth-first walk.

`explore.py` builds an `Exploration`; this module is what can be asked of
it. A node is a configuration packed into a small integer (`Packing`;
`config(node)` and `node(config)` convert), `moves(node)` gives a `Move`
for every step out of it, and `walk` is the one breadth-first search: the
explorer, the shortest ways to rule breaches, the walks of `causes` with a
root finding's steps blocked or opened, the tours of `vectors` and the plans
of `guide` all call it, each with its own `moves`, `follow` or `until`.
`proof.traces.Trace` reads a replayable trace off what it returns.

networkx, imported here only, does the whole-graph algorithms on
`digraph()` (the nodes, each edge once with its moves): strongly connected
components and condensation, reachability and the distances to rows
(`nx.bfs_layers` over the reversed graph, `paths.roadmap`). The walks of the
proof do not go through it because the DiGraph costs more to build than
they cost whole, measured on `@cap session_requests 1000` (81,041
configurations, 259,119 edges): building it 1.67 s of CPU, a walk over every
clean step with depth, parent and move 0.36 s, where networkx's own
`bfs_edges` on the built graph takes 0.09 s; and a check that finds no rule
broken needs no tree at all. A check that is clean never builds it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from gapstate.proof.packing import Packing
from gapstate.proof.traces import Trace
from gapstate.table.vocabulary import Config, Stimulus

if TYPE_CHECKING:
    import networkx as nx


class Move(NamedTuple):
    """One step out of a node: what was sent, the line of the row it fired, whether it breaks a rule, where it leads."""

    sent: Stimulus
    row: int
    breaks: bool
    target: int


class Refusal(NamedTuple):
    """A step out of a node that the table refuses: what was sent, and the line of the `invalid` row that
    refuses it (None: no row matches it, a hole of a table that is not total). It leads nowhere: the replay
    stops there."""

    sent: Stimulus
    row: int | None


class Firing(NamedTuple):
    """One reachable step from `config`: what was `sent` (the event, and the value of the guard its payload sets).

    `clean` is False when the step breaks a rule. The proof keeps the steps
    that break each rule this way (`Exploration.broken`), and `reach.firings`
    the steps that match each row; a step matching an `invalid` row is a
    refusal: the replay stops on it, and it breaks nothing.
    """

    config: Config
    sent: Stimulus
    clean: bool


_Label = TypeVar("_Label")
_Kept = TypeVar("_Kept")
Tree = dict[Any, tuple[int, Any, Any]]  # node -> (depth, parent node, the move from it); a source: (0, None, None)


class Walk(NamedTuple):
    """What `walk` reached: `tree` in breadth-first order, and where it stopped (`found`, `until`'s answer)."""

    tree: Tree
    found: Any = None
    answer: Any = None

    def moves_to(self, node: Any) -> list[Any]:
        """The moves from a source to `node` along the tree, in order."""
        tree, moves = self.tree, list[Any]()
        while True:
            _, node, move = tree[node]
            if move is None:
                return moves[::-1]
            moves.append(move)


def walk(sources: Iterable[Hashable], moves: Callable[[Any], Iterable[tuple[Any, Any]]],
         follow: Callable[[Any, Any], bool] | None = None, until: Callable[[Any], Any] | None = None) -> Walk:
    """Breadth-first from `sources`: every node reached, with its depth, parent and the move from it.

    `moves(node)` gives (move, target) pairs in a fixed order, so a node's
    parent is the first node dequeued that reaches it, by its first move
    there: the same tree on every run. `follow(node, move)`, when given, is
    asked of every move out of a reached node, before its target is looked
    at, and the walk takes only those it accepts (so it may also count what
    it sees). `until(node)` is asked of each node as it is dequeued; the
    walk stops at the first that answers truthily, which is then the nearest.
    """
    tree: Tree = {}
    for source in sources:
        tree.setdefault(source, (0, None, None))
    queue = list(tree)
    for node in queue:  # the queue grows behind the loop
        if until is not None:
            answer = until(node)
            if answer:
                return Walk(tree, node, answer)
        depth = tree[node][0] + 1
        if follow is None:
            for move, target in moves(node):
                if target not in tree:
                    tree[target] = (depth, node, move)
                    queue.append(target)
        else:
            for move, target in moves(node):
                if follow(node, move) and target not in tree:
                    tree[target] = (depth, node, move)
                    queue.append(target)
    return Walk(tree)


def _clean(node: int, move: Move) -> bool:
    return not move.breaks


class Exploration:
    """Every configuration reachable from the initial one, and the moves between them.

    - `initial` (a Config), `root` (its node), `len(exploration)`,
      `configs()` and `nodes()` (breadth-first order), `config in
      exploration`, `config(node)`, `node(config)`;
    - `moves(node)`: the `Move`s out of it, each stimulus once, in event
      order; a configuration past a cap has none (it is not expanded);
      `refusals(node)`: the steps the table refuses there (`Refusal`: an
      `invalid` row, or a hole), which lead nowhere;
      `predecessors(node)`; `walk(sources, follow, until)` over them;
    - `fired`: the lines of the rows that fired; `broken`: for each (rule,
      row line) every step (a `Firing`) that breaks it;
    - `distances(clean)`, `path_to(config, clean)` (the moves of a shortest
      way), `steps_to` (their stimuli) and `trace_to` (a replayable trace),
      read off one breadth-first tree per `clean`;
    - `digraph()`: the networkx DiGraph, for the whole-graph algorithms;
    - `derived(key, make)`: what is computed from it, kept with it.

    The moves are stored once per class of configurations that behave
    alike (see `Packing`), so an exploration holds little more than the
    nodes. Counterexamples are walked along clean moves, so that replaying
    one stops at the rule it names and not at another broken on the way.
    """

    def __init__(self, packing: Packing, initial: int, seen: dict[int, Any], classes: dict[int, tuple],
                 fired: frozenset[int], breaches: dict[tuple[str, int], list[tuple[int, str, bool]]],
                 breaks: dict[int, tuple[tuple[str, int, str, bool], ...]], refused: dict[int, tuple[Refusal, ...]],
                 members: dict[int, int], implied: int):
        self._packing = packing
        self.root = initial
        self._seen = seen  # the explorer's breadth-first tree: node -> (depth, parent, the class step from it)
        self._classes = classes  # class representative -> its steps (see `packing.ClassStep`)
        self.initial = packing.decode(initial)
        self.fired = fired
        self._breaches = breaches  # (rule, row line) -> every breaking step, as (node, event, choice)
        self._breaks = breaks  # class representative -> the (rule, row line, event, choice) its steps break
        self._refused = refused  # class representative -> the steps the table refuses there, when any
        self._members = members  # class representative -> how many expanded configurations of it were reached
        self._broken: dict[tuple[str, int], list[Firing]] | None = None
        self._digraph: nx.DiGraph | None = None
        self._trees: dict[bool, Tree] = {}
        self._derived: dict[Hashable, Any] = {}
        self._rows_of: tuple[dict[int, tuple[int, ...]], dict[int, tuple[tuple[str, int], ...]]] | None = None
        self.implied = implied  # what the caps imply, at most

    def __len__(self) -> int:
        return len(self._seen)

    def __contains__(self, config: object) -> bool:
        return self.node(config) in self._seen  # type: ignore[arg-type]

    def node(self, config: Config) -> int:
        """The node of a configuration; -1 for one outside the explored range."""
        try:
            return self._packing.encode(config)
        except (KeyError, ValueError, TypeError):
            return -1

    def config(self, node: int) -> Config:
        return self._packing.decode(node)

    def expanded(self, node: int) -> bool:
        """Whether the explorer went on from `node`: false past a cap (the `cap-exceeded` rule reports that)."""
        return self._packing.expanded(node)

    def nodes(self) -> Iterator[int]:
        return iter(self._seen)

    def configs(self) -> Iterator[Config]:
        return map(self._packing.decode, self._seen)

    def classes(self) -> Iterator[tuple[int, int]]:
        """Each class of reachable configurations that behave alike (see `Packing`) and are expanded:
        its representative's node, and how many reachable configurations it holds.

        What is asked of every reachable step (which rows fire how often)
        is then asked once a class, not once a configuration: a member's
        `moves` and `refusals` are its representative's, at its own targets.
        """
        return iter(self._members.items())

    def class_steps(self) -> tuple[Packing, dict[int, tuple], dict[int, tuple[tuple[str, int, str, bool], ...]],
                                   dict[int, tuple[Refusal, ...]]]:
        """How the nodes are packed, each class's steps, the rule-breaking ones and the refusals (for `explore` to reuse)."""
        return self._packing, self._classes, self._breaks, self._refused

    def refusals(self, node: int) -> tuple[Refusal, ...]:
        """The steps out of `node` that the table refuses, in event order (none past a cap or after session_end)."""
        packing = self._packing
        if node not in self._seen or not packing.expanded(node):
            return ()
        return self._refused.get(packing.fold(node), ())

    def moves(self, node: int, by_target: bool = False) -> tuple[Move, ...]:
        """The moves out of `node` in event order; `by_target` groups them by target, in the order the
        targets are first reached, each group in event order."""
        moves = tuple(move for move, _ in self._edges(node))
        if not by_target:
            return moves
        groups: dict[int, list[Move]] = {}
        for move in moves:
            groups.setdefault(move.target, []).append(move)
        return tuple(move for group in groups.values() for move in group)

    def _edges(self, node: int) -> Iterator[tuple[Move, int]]:
        packing = self._packing
        if node not in self._seen or not packing.expanded(node):
            return
        representative = packing.fold(node)
        for delta, sent, line, clean, resets in self._classes[representative]:
            target = node + delta if not resets else packing.target(node, representative, delta, resets)
            yield Move(sent, line, not clean, target), target

    def sweep(self, judge: Callable[[int, Move], _Label | None]) -> Iterator[tuple[int, int, list[tuple[_Label, int]]]]:
        """Every expanded node in breadth-first order, with its class's representative and its judged moves.

        `judge(representative, move)` is asked once a class, of the
        representative's own moves: members of a class take the same rows to
        the same kind of place (see `Packing`), so what it answers holds for
        every member. A move it answers None for is left out; each other is
        given as (the answer, its target from this node). A pass that reads
        every move of a large graph so decides once a class and only adds
        up targets once a node: at `@cap session_requests 1000`, 81,041
        nodes and 535,000 moves but 35 classes.
        """
        packing = self._packing
        fold, expanded, target_of = packing.fold, packing.expanded, packing.target
        judged: dict[int, list[tuple[_Label, int, tuple[tuple[int, int], ...]]]] = {}
        for node in self._seen:
            if not expanded(node):
                continue
            representative = fold(node)
            kept = judged.get(representative)
            if kept is None:
                kept = judged[representative] = []
                for delta, sent, line, clean, resets in self._classes[representative]:
                    label = judge(representative, Move(sent, line, not clean, representative + delta))
                    if label is not None:
                        kept.append((label, delta, resets))
            yield node, representative, [(label, node + delta if not resets else target_of(node, representative, delta, resets))
                                         for label, delta, resets in kept]

    def peak(self, counter: str) -> tuple[int, int]:
        """The largest value `counter` takes in a reachable configuration, and the first node (breadth-first) with it."""
        stride, size = next((stride, size) for name, stride, size in self._packing.radix if name == counter)
        first = max(self._seen, key=lambda node: node // stride % size)  # max keeps the first of equals
        return first // stride % size, first

    def predecessors(self, node: int) -> Iterator[int]:
        """The nodes with a move to `node` (networkx's, so the first call builds `digraph`)."""
        return iter(self.digraph().pred[node])

    def walk(self, sources: Iterable[int], follow: Callable[[int, Move], bool] | None = None,
             until: Callable[[int], Any] | None = None) -> Walk:
        """`walk` over this graph's moves (see the module function)."""
        return walk(sources, self._edges, follow, until)

    def derived(self, key: Hashable, make: Callable[[], _Kept]) -> _Kept:
        """What `make()` computes from this exploration, made on the first call with `key` and kept with it.

        `key` names what is made and everything else it is made from (the
        table, say). An exploration is kept for the next call on an equal
        table (`explore`), and what is derived from it goes with it: the
        progress analysis and the steps each rule was tested on are made
        once for all the checks of one table, not once a check. What is
        kept is shared, so it must be immutable (or copied by the caller).
        """
        if key not in self._derived:
            self._derived[key] = make()
        return self._derived[key]

    def digraph(self) -> nx.DiGraph:
        """The nodes and, for each pair of them with a move between, one edge whose `moves` are those moves.

        Built on first use; the lists of neighbours follow the order the
        moves are listed in.
        """
        if self._digraph is None:
            import networkx as nx

            edges: dict[tuple[int, int], list[Move]] = {}
            for node in self._seen:
                for move, target in self._edges(node):
                    edges.setdefault((node, target), []).append(move)
            graph = nx.DiGraph()
            graph.add_nodes_from(self._seen)
            graph.add_edges_from((u, v, {"moves": tuple(m)}) for (u, v), m in edges.items())
            self._digraph = graph
        return self._digraph

    def distances_to(self, sources: Iterable[int]) -> dict[int, int]:
        """How many moves each node is from the nearest of `sources` (0 at them); absent when it reaches none.

        networkx's breadth-first layers over the reversed `digraph`.
        """
        import networkx as nx

        reverse = self.digraph().reverse(copy=False)
        return {node: depth for depth, layer in enumerate(nx.bfs_layers(reverse, list(dict.fromkeys(sources))))
                for node in layer}

    @property
    def broken(self) -> dict[tuple[str, int], list[Firing]]:
        if self._broken is None:
            decode = self._packing.decode
            self._broken = {key: [Firing(decode(node), Stimulus(event, choice), False) for node, event, choice in steps]
                            for key, steps in self._breaches.items()}
        return self._broken

    def breaches(self) -> Iterator[tuple[str, int, Trace, bool]]:
        """Each (rule, row line) broken, with the shortest trace whose last step breaks it, and whether
        that trace is a detour.

        The trace walks steps that break nothing, so replaying it stops at
        this rule; when every way there breaks another rule first, it is the
        shortest way regardless (a detour).
        """
        if not self._breaches:
            return
        clean = self._tree(True)
        for (rule, line), steps in self._breaches.items():
            reachable = [step for step in steps if step[0] in clean]
            if reachable:
                node, event, choice = min(reachable, key=lambda step: clean[step[0]][0])
                yield rule, line, Trace(clean, node, Stimulus(event, choice)), False
            else:
                node, event, choice = steps[0]
                yield rule, line, Trace(self._tree(False), node, Stimulus(event, choice)), True

    def reach_without(self, rows: Iterable[int], blocked: Callable[[Config, str, bool, int, bool], bool]
                      ) -> tuple[set[int], set[tuple[str, int]], Tree]:
        """A walk from the initial configuration that leaves out the moves that fire one of `rows` and
        that `blocked(config, event, choice, row, breaks a rule)` accepts.

        Returns the rows that fire, the (rule, row) pairs broken, and the
        nodes reached (the walk's tree). A class none of whose steps fire
        one of `rows` counts its rows and breaches once, not at every member.
        """
        packing = self._packing
        fold, decode, expanded, target_of = packing.fold, packing.decode, packing.expanded, packing.target
        classes, breaks, refused = self._classes, self._breaks, self._refused
        lines_of, breaches_of = self._class_rows()
        wanted = frozenset(rows)
        fired: set[int] = set()
        broken: set[tuple[str, int]] = set()
        careful: dict[int, bool] = {}  # class -> some step of it fires one of `rows`

        def edges(node: int) -> list[tuple[Any, int]]:  # the class's steps as the moves: no Move made per edge
            if not expanded(node):
                return []
            representative = fold(node)
            steps: Any = classes[representative]
            suspect = careful.get(representative)
            if suspect is None:
                lines = lines_of[representative]
                suspect = careful[representative] = not wanted.isdisjoint(lines)
                if not suspect:  # every member takes every step: count them once
                    fired.update(lines)
                    broken.update(breaches_of.get(representative, ()))
            if suspect:
                config = decode(node)
                steps = [(delta, sent, line, clean, resets) for delta, sent, line, clean, resets in steps
                         if line not in rows or not blocked(config, sent.event, sent.choice, line, not clean)]
                for _, sent, line, clean, _ in steps:
                    fired.add(line)
                    if not clean:
                        broken.update((rule, at) for rule, at, e, c in breaks[representative] if (e, c) == sent)
                # a refused step leads nowhere, but the breach it is (a possible event refused) stays unless left out
                for sent, line in refused.get(representative, ()):
                    if line is not None and not (line in wanted and blocked(config, sent.event, sent.choice, line, True)):
                        broken.update((rule, at) for rule, at, e, c in breaks.get(representative, ())
                                      if at == line and (e, c) == sent)
            return [(step, node + step[0] if not step[4] else target_of(node, representative, step[0], step[4]))
                    for step in steps]

        return fired, broken, walk((self.root,), edges).tree

    def _class_rows(self) -> tuple[dict[int, tuple[int, ...]], dict[int, tuple[tuple[str, int], ...]]]:
        """Each class's rows (its steps' lines, each once) and the (rule, row) pairs its steps break, each
        once: what `reach_without` counts of a class it walks whole, made once for all its walks (the
        10,003-row table's attribution walks four times over 29,824 classes: 0.3 s of CPU less)."""
        if self._rows_of is None:
            self._rows_of = ({representative: tuple(dict.fromkeys(step[2] for step in steps))
                              for representative, steps in self._classes.items()},
                             {representative: tuple(dict.fromkeys((rule, line) for rule, line, _, _ in steps))
                              for representative, steps in self._breaks.items()})
        return self._rows_of

    def breaking_steps(self, rule: str, line: int) -> list[tuple[int, str, bool]]:
        """Every reachable step that breaks `rule` at the row at `line`, as (node, event, choice)."""
        return self._breaches.get((rule, line), [])

    def distances(self, clean: bool = False) -> dict[Config, int]:
        """Moves from the initial configuration to every one reachable (along clean moves if asked)."""
        decode = self._packing.decode
        return {decode(node): depth for node, (depth, _, _) in self._tree(clean).items()}

    def path_to(self, config: Config, clean: bool = False) -> list[Move]:
        """The moves of a shortest way from the initial configuration to `config` (clean ones if asked).

        Read off one breadth-first tree per exploration (see `_tree`), so a
        hundred counterexamples cost one walk, not a hundred. Raises
        `NoWay` when there is none.
        """
        return self.moves_to(self.node(config), clean)

    def moves_to(self, node: int, clean: bool = False) -> list[Move]:
        """`path_to` for a node."""
        return Walk(self._holding(node, clean)).moves_to(node)

    def steps_to(self, config: Config, clean: bool = True) -> list[Stimulus]:
        """The stimuli of a shortest way from the initial configuration to `config` (along clean moves if asked)."""
        return [move.sent for move in self.path_to(config, clean)]

    def trace_to(self, config: Config, last: Stimulus, clean: bool = True) -> list[dict[str, Any]]:
        """The shortest replayable trace reaching `config` (along clean moves if asked), then `last`."""
        node = self.node(config)
        return list(Trace(self._holding(node, clean), node, last))

    def _tree(self, clean: bool) -> Tree:
        """The walk from the initial node over every move (or the clean ones), walked once per `clean`.

        The walk over every move is the explorer's own, which `seen` holds
        with each class step for a move; with no step breaking a rule, the
        clean walk is that one too. Read off it, the tree costs a record a
        node, not a second walk over every move (at `@cap session_requests
        1000`, 81,041 records in place of a walk over 535,000 moves).
        """
        clean = clean and bool(self._breaches)
        tree = self._trees.get(clean)
        if tree is None:
            if clean:
                tree = self.walk((self.root,), _clean).tree
            else:
                tree = {node: (depth, parent, None if step is None else Move(step[1], step[2], not step[3], node))
                        for node, (depth, parent, step) in self._seen.items()}
            self._trees[clean] = tree
        return tree

    def _holding(self, node: int, clean: bool) -> Tree:
        """The tree of `_tree(clean)`, when `node` is in it; NoWay otherwise."""
        tree = self._tree(clean)
        if node not in tree:
            raise NoWay(f"no {'clean ' if clean else ''}way to {self.config(node) if node >= 0 else 'there'}")
        return tree


class NoWay(LookupError):
    """No way leads from the initial configuration to the one asked for."""
