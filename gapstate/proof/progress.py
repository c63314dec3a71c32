"""Progress: every gap can end, no loop inside one gap sends, and the most a gap can cost.

The rules are safety: nothing bad happens on any step. The prose also
promises progress: a failed send retries "never in a loop", and a gap is
settled or written off. This module decides both in one pass over the
explored graph, with networkx on the graph of the configurations inside a
gap (any state but the initial one, the session not ended) and the steps
between them other than `session_end`. One extra node, the sink, stands for
every step that ends the gap, and for every step past a cap (the explorer
does not go on from there, and the cap-exceeded rule already reports it).

- stuck: a configuration inside a gap that is no ancestor of the sink can
  never end its gap without the session ending;
- loops: a send step inside one strongly connected component can be taken
  again and again within one gap;
- bounds: the condensation is acyclic, so the most sends (or commits) one
  gap can take is a longest path over it, computed in reverse topological
  order; it has no bound exactly when a counted step lies inside a component.

Returns records of steps, each a `Stimulus`; `check` makes them findings
with replayable traces.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

import networkx as nx

from gapstate.findings import Finding, RetryLoop, StuckGap
from gapstate.proof.graph import Exploration
from gapstate.proof.traces import events
from gapstate.table.bounds import BOUNDS
from gapstate.table.model import Table
from gapstate.table.rules import SEND
from gapstate.table.vocabulary import INITIAL, SESSION_END, Stimulus

if TYPE_CHECKING:
    from gapstate.proof.graph import Move  # progress has no moves of its own: its steps are `Fired`

Steps = tuple[Stimulus, ...]


class Fired(NamedTuple):
    """A step between configurations inside a gap: the stimulus sent, and the line of the row that fires on it."""

    sent: Stimulus
    line: int


_SINK = -1  # every step that ends the gap, or leaves the explored range past a cap
_INSIDE, _OUT, _ENDS = "inside", "out", "ends"  # where a step leads: on in the gap, out of it (the sink), session_end
_ENDED = -2  # a step that ends the session, in a bound's witness
_GAP_BOUNDS = tuple(bound for bound in BOUNDS if bound.counts)
_COUNTER_BOUNDS = tuple(bound for bound in BOUNDS if bound.counter)


class Stuck(NamedTuple):
    """The row whose step enters a configuration from which the gap can no longer end."""

    line: int
    state: str  # the state of the configuration it enters
    steps: Steps  # a shortest way there, the row's step last


class Loop(NamedTuple):
    """A row that sends on a cycle inside one gap: `steps` reach the cycle, `cycle` goes round it once."""

    line: int
    steps: Steps
    cycle: Steps
    rows: tuple[int, ...]  # the lines of the rows whose steps make the cycle, in line order


class Reached(NamedTuple):
    """A bound's value (None: there is none) and the steps of a run that reaches it."""

    name: str
    value: int | None
    steps: Steps

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "trace": events(self.steps)}


class Progress(NamedTuple):
    """What the progress checks found (stuck gaps, retry loops) and the bounds, each with the steps that show it."""

    stuck: tuple[Stuck, ...]
    loops: tuple[Loop, ...]
    bounds: tuple[Reached, ...]

    def findings(self) -> list[Finding]:
        """`stuck_gap` and `retry_loop` findings, each with its replayable trace (and cycle)."""
        found: list[Finding] = [StuckGap(s.line, 1, s.state, events(s.steps)) for s in self.stuck]
        for loop in self.loops:
            made = events((*loop.steps, *loop.cycle))  # the cycle goes on where the way there stops
            found.append(RetryLoop(loop.line, 1, made[:len(loop.steps)], made[len(loop.steps):], loop.rows))
        return found

    def bound(self, name: str) -> Reached:
        return next(reached for reached in self.bounds if reached.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {reached.name: reached.to_dict() for reached in self.bounds}


def progress(table: Table, exploration: Exploration, bounds: bool = True) -> Progress:
    """The gaps that cannot end, the loops that send, and (unless `bounds` is False) the bounds reached.

    Made once per exploration of the table and kept with it (`Exploration.derived`):
    every check, diff and witness of one table reads the same records.
    """
    return exploration.derived(("progress", table, bounds), lambda: _progress(table, exploration, bounds))


def _progress(table: Table, exploration: Exploration, bounds: bool) -> Progress:
    graph = _GapGraph(table, exploration)
    return Progress(graph.stuck(), graph.loops(), graph.bounds() if bounds else ())


class _GapGraph:
    """The configurations inside a gap (as the exploration's nodes), and the steps between them.

    Everything is read in the exploration's breadth-first order, so the
    first step found to a place is on a shortest way there, and every choice
    below is the same on every run. A step that stays where it is and counts
    nothing is left out: it cannot help a gap end, close a loop that sends,
    or add to a bound.
    """

    def __init__(self, table: Table, exploration: Exploration):
        self._exploration = exploration
        gains = {row.line: tuple(sum(a in bound.counts for a in row.actions) for bound in _GAP_BOUNDS)
                 for row in table.rows}
        self._gains = gains = {line: gain for line, gain in gains.items() if any(gain)}
        self._peaks = [exploration.peak(bound.counter or "") for bound in _COUNTER_BOUNDS]
        decode, expanded = exploration.config, exploration.expanded
        within: dict[int, bool] = {}  # representative -> its class is inside a gap

        places: dict[int, str] = {}  # node -> where a step to it leads (asked again for every step to it)

        def place(node: int) -> str:
            kind = places.get(node)
            if kind is None:
                config = decode(node)
                kind = places[node] = (_ENDS if config.ended else _INSIDE if config.state != INITIAL and expanded(node)
                                       else _OUT)
            return kind

        def judge(representative: int, move: Move) -> tuple[str, Fired, tuple[int, ...] | None] | None:
            gain = gains.get(move.row)
            if move.target == representative and gain is None:
                return None
            kind = _ENDS if move.sent.event == SESSION_END else place(move.target)
            return kind, Fired(move.sent, move.row), gain

        inside: list[int] = []
        moves: dict[tuple[int, int], Fired] = {}  # the first step from one node to another
        best: dict[tuple[int, int], list[tuple[int, Fired]]] = {}  # per gap bound, the step that counts most
        entries: list[tuple[int, Fired, int]] = []  # steps that open a gap: (from, step, to)
        endings: list[tuple[int, Fired]] = []  # steps out of a gap that end the session and count something
        for node, representative, steps in exploration.sweep(judge):
            gap = within.get(representative)
            if gap is None:
                config = decode(representative)
                gap = within[representative] = not config.ended and config.state != INITIAL
            if not gap:
                entries.extend((node, fired, target) for (kind, fired, _), target in steps if kind is _INSIDE)
                continue
            inside.append(node)
            for (kind, fired, gain), target in steps:
                if kind is _ENDS:
                    if gain is not None:
                        endings.append((node, fired))
                    continue
                pair = (node, target if kind is _INSIDE else _SINK)
                if pair not in moves:
                    moves[pair] = fired
                if gain is not None:
                    counted = best.setdefault(pair, [(0, moves[pair])] * len(gain))
                    for i, amount in enumerate(gain):
                        if amount > counted[i][0]:
                            counted[i] = (amount, fired)
        graph = nx.DiGraph()
        graph.add_nodes_from(inside)
        graph.add_edges_from(moves)
        self._graph, self._moves, self._best = graph, moves, best
        self._entries, self._endings = entries, endings
        self._components = list(nx.strongly_connected_components(graph))
        self._component = {node: i for i, members in enumerate(self._components) for node in members}
        self._ranks: dict[int, int] | None = None

    def _order(self, node: int) -> int:
        """The node's place in the exploration's breadth-first order (asked only to sort what was found)."""
        if self._ranks is None:
            self._ranks = {node: i for i, node in enumerate(self._exploration.nodes())}
        return self._ranks[node]

    def _way(self, node: int) -> list[Stimulus]:
        """The stimuli of a shortest way from the initial configuration to a node, along any moves."""
        return [move.sent for move in self._exploration.moves_to(node, clean=False)]

    def _within(self, start: int, end: int) -> list[Stimulus]:
        """A shortest way from one node to another of its component, along the component's own steps."""
        return [step.sent for step in self._cycle(start, end)]

    def _cycle(self, start: int, end: int) -> list[Fired]:
        """The steps (rows included) of `_within`'s way."""
        if start == end:
            return []
        members = self._components[self._component[start]]
        path = nx.shortest_path(self._graph.subgraph(members), start, end)
        return [self._moves[pair] for pair in zip(path, path[1:], strict=False)]

    @staticmethod
    def _first_per_region(found: list[tuple[int, int, Fired, int]]) -> list[tuple[int, int, Fired, int]]:
        """Of (region, from, step, to) in breadth-first order, the first of each region, leaving out a
        region any of whose rows an earlier one named: one mistake repeated at every value of a counter
        (a loop at each number of committed requests) is one finding, at the row reached first."""
        regions: dict[int, list[tuple[int, int, Fired, int]]] = {}
        for item in found:
            regions.setdefault(item[0], []).append(item)
        named: set[int] = set()
        first = []
        for items in regions.values():
            rows = {move.line for _, _, move, _ in items}
            if named.isdisjoint(rows):
                first.append(items[0])
            named |= rows
        return first

    def stuck(self) -> tuple[Stuck, ...]:
        """One per region of configurations that cannot end their gap: the first step into it."""
        graph = self._graph
        able = nx.ancestors(graph, _SINK) if _SINK in graph else set()
        trapped = graph.subgraph(node for node in graph if node != _SINK and node not in able)
        if not trapped:
            return ()
        region = {node: i for i, nodes in enumerate(nx.weakly_connected_components(trapped)) for node in nodes}
        steps = [(source, move, target) for (source, target), move in self._moves.items()]
        found = sorted(((region[target], source, move, target) for source, move, target in [*self._entries, *steps]
                        if target in region and source not in region), key=lambda f: self._order(f[1]))
        decode = self._exploration.config
        return tuple(sorted((Stuck(move.line, decode(target).state, (*self._way(source), move.sent))
                             for _, source, move, target in self._first_per_region(found)), key=lambda s: s.line))

    def loops(self) -> tuple[Loop, ...]:
        """One per strongly connected component that sends: the send step on it reached first."""
        sends = next(i for i, bound in enumerate(_GAP_BOUNDS) if bound.counts == SEND)
        component = self._component
        found = sorted(((component[source], source, counted[sends][1], target)
                        for (source, target), counted in self._best.items()
                        if counted[sends][0] and target != _SINK and component[source] == component[target]),
                       key=lambda f: self._order(f[1]))
        loops = []
        for _, source, move, target in self._first_per_region(found):
            cycle = [move, *self._cycle(target, source)]
            rows = tuple(sorted({step.line for step in cycle}))
            loops.append(Loop(move.line, tuple(self._way(source)), tuple(step.sent for step in cycle), rows))
        return tuple(sorted(loops, key=lambda loop: loop.line))

    def bounds(self) -> tuple[Reached, ...]:
        reached = dict(zip((bound.name for bound in _GAP_BOUNDS), self._longest(), strict=True))
        for bound, (value, node) in zip(_COUNTER_BOUNDS, self._peaks, strict=True):
            reached[bound.name] = Reached(bound.name, value, tuple(self._way(node)))
        return tuple(reached[bound.name] for bound in BOUNDS)

    def _longest(self) -> list[Reached]:
        """For each gap bound, the most steps it counts along one gap, and a run that takes them.

        Over the condensation in reverse topological order: a component's
        value is the most it takes leaving it (a step that ends the gap or the
        session, or one to a later component and that one's value); a counted
        step between two members of one component can be taken forever.
        """
        graph, component, best, gains = self._graph, self._component, self._best, self._gains
        width = len(_GAP_BOUNDS)
        members: dict[int, list[int]] = {}
        for node in graph:
            members.setdefault(component[node], []).append(node)
        tail: dict[int, list[tuple[int, Fired | None]]] = {}  # node -> per bound, the session_end step counting most
        for node, move in self._endings:
            counted = tail.setdefault(node, [(0, None)] * width)
            for i, amount in enumerate(gains[move.line]):
                if amount > counted[i][0]:
                    counted[i] = (amount, move)
        value: dict[int, list[float]] = {}
        exit_of: dict[int, list[tuple[int, int]]] = {}  # component -> per bound, the step out of it taking most
        condensed = nx.condensation(graph, scc=self._components)
        for group in reversed(list(nx.topological_sort(condensed))):
            top = [0.0] * width  # a run may stop anywhere: what a gap took so far is a cost it can take
            chosen = [(-1, -1)] * width
            for node in members.get(group, ()):
                for i, (amount, _) in enumerate(tail.get(node, ())):
                    if amount > top[i]:
                        top[i], chosen[i] = float(amount), (node, _ENDED)
                for target in graph.succ[node]:
                    along = best.get((node, target))
                    later = value[component[target]] if target != _SINK and component[target] != group else None
                    for i in range(width):
                        gain = along[i][0] if along else 0
                        if later is None and target != _SINK:  # within the component
                            if not gain:
                                continue
                            total = math.inf
                        else:
                            total = gain + (later[i] if later else 0)
                        if total > top[i]:
                            top[i], chosen[i] = total, (node, target)
            value[group], exit_of[group] = top, chosen
        found = []
        for i, bound in enumerate(_GAP_BOUNDS):
            start = None
            for source, move, target in self._entries:  # breadth-first: the first best is the shortest
                total = gains.get(move.line, (0,) * width)[i] + value[component[target]][i]
                if start is None or total > start[0]:
                    start = (total, source, move, target)
            if start is None:
                found.append(Reached(bound.name, 0, ()))
                continue
            total, source, move, node = start
            steps = [*self._way(source), move.sent]
            while True:
                group = component[node]
                leaving, after = exit_of[group][i]
                if leaving < 0:  # the most is taken once the run reaches this component
                    break
                steps.extend(self._within(node, leaving))
                if after == _ENDED:
                    steps.append(tail[leaving][i][1].sent)  # type: ignore[union-attr]
                    break
                pair = (leaving, after)
                steps.append((best[pair][i][1] if pair in best else self._moves[pair]).sent)
                if after == _SINK:
                    break
                if component[after] == group:  # a counted step on a cycle: once round shows the loop
                    steps.extend(self._within(after, leaving))
                    break
                node = after
            found.append(Reached(bound.name, None if math.isinf(total) else int(total), tuple(steps)))
        return found
