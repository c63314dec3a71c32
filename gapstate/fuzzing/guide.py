"""Guided walks: which event, sent now, heads for which row of the table.

Random traces rarely reach the corners of the table: the rows behind the
session cap take a dozen purposeful events. Model-based testers such as
GraphWalker walk the model instead: pick a target not yet visited, follow a
shortest path to it, wander a little, pick the next. The proof's `Roadmap`
already knows, for every row (and every hole in a table that is not
total), how far each reachable configuration is from firing it; this module
turns that into decisions. It decides and draws nothing: the strategies draw
every choice through Hypothesis, so a failing walk still shrinks.

A target is a row's line (int), or a `Hole`, (state, event): an event the
environment may send there that no row matches. A boundary goal (`goals`)
is reached by a `plan`: the shortest way to where its gadget fits, then the
gadget.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from gapstate.fuzzing.goals import Goal, Story, Way, retell
from gapstate.proof.graph import walk
from gapstate.run.machine import Machine, Outcome, Status
from gapstate.table.vocabulary import EVENTS, SESSION_END, Config, Stimulus


class Send(NamedTuple):
    """What the environment may send from a configuration (an event and the value of its chosen guard), and what it does."""

    sent: Stimulus
    outcome: Outcome

    @property
    def hits(self) -> Any:
        """The target this hits: the row it fires, or the hole it falls into."""
        if self.outcome.row is not None and self.outcome.status is Status.OK:
            return self.outcome.row.line
        return (self.outcome.config.state, self.sent.event)


class Guide:
    """Shortest ways to every target, looked up from a machine's Roadmap and memoised."""

    def __init__(self, machine: Machine, roadmap: Any):
        self.machine = machine
        self.roadmap = roadmap
        self.targets: tuple[Any, ...] = roadmap.targets
        self._moves: dict[Config, tuple[Send, ...]] = {}
        self._toward: dict[tuple[Config, Any], Send | None] = {}
        self._ranked: dict[Config, tuple[Any, ...]] = {}
        self._reachable: dict[Config, frozenset[Any]] = {}
        self._keeping: dict[tuple[Config, Any], frozenset[Stimulus]] = {}
        self._plans: dict[tuple[Config, Story, str], tuple[Way, ...] | None] = {}
        self._open: dict[Config, tuple[tuple[Way, Config, tuple[str, ...]], ...]] = {}  # see _open_moves
        self._open_from: dict[tuple[Config, Story], list[tuple[Way, tuple[Config, Story]]]] = {}  # its answers
        self._backwards: set[str] = set()  # the goals planned from every place a walk from the start reaches
        self._graph: Any = None  # see _places
        self._live = [c for c in roadmap.exploration.configs() if not c.ended and machine.within_caps(c)]  # the configurations that take events
        self._events = {row.line: row.event for row in machine.table.rows}

    def moves(self, config: Config) -> tuple[Send, ...]:
        """What the environment may send here, in event order: every event and guard choice the table does not refuse.

        An event that no row matches is included (a hole in totality is the
        table's defect, not the environment's); an `invalid` row, and
        anything after `session_end`, are not.
        """
        found = self._moves.get(config)
        if found is None:
            machine = self.machine
            found = self._moves[config] = tuple(
                Send(Stimulus(event, choice), outcome)
                for event in EVENTS
                for choice in machine.choices(config, event)
                if (outcome := machine.step(config, event, choice)).status not in (Status.REFUSED, Status.ENDED)
            )
        return found

    def ends(self, target: Any) -> bool:
        """Whether hitting the target ends the session (a row of, or a hole at, `session_end`)."""
        event = target[1] if isinstance(target, tuple) else self._events[target]
        return event == SESSION_END

    def keeping(self, config: Config, target: Any) -> frozenset[Stimulus]:
        """The stimuli from `config` after which `target` can still be hit (all moves if none can).

        Wandering stays within these, so that a walk heading for a row deep
        in the table is not sent past it for good (a settle after the last
        request, say) by a random step.
        """
        key = (config, target)
        found = self._keeping.get(key)
        if found is None:
            moves = self.moves(config)
            kept = frozenset(
                m.sent
                for m in moves
                if target is None or m.hits == target
                or (m.outcome.status is Status.OK and self.distance(m.outcome.config, target) is not None)
            )
            found = self._keeping[key] = kept or frozenset(m.sent for m in moves)
        return found

    def everywhere(self, target: Any) -> bool:
        """Whether the target can be hit in one event from every configuration that takes events."""
        reach = self.roadmap.distance.get(target, {})
        return all(reach.get(config) == 1 for config in self._live)

    def reachable(self, config: Config) -> frozenset[Any]:
        """The targets that can be hit from `config`: those `distance` gives a number for (memoised)."""
        found = self._reachable.get(config)
        if found is None:
            found = self._reachable[config] = frozenset(
                target for target, reach in self.roadmap.distance.items() if reach.get(config) is not None)
        return found

    def distance(self, config: Config, target: Any) -> int | None:
        """How many events from `config` it takes to hit `target`, or None when it cannot be hit."""
        return self.roadmap.distance.get(target, {}).get(config)

    def toward(self, config: Config, target: Any) -> Send | None:
        """The first move of a shortest way to hit `target` from `config` (the first in event order on a tie)."""
        key = (config, target)
        if key in self._toward:
            return self._toward[key]
        best: Send | None = None
        best_length = None
        for move in self.moves(config):
            if move.hits == target:
                length: int | None = 1
            elif move.outcome.status is Status.OK:
                rest = self.distance(move.outcome.config, target)
                length = None if rest is None else rest + 1
            else:
                length = None
            if length is not None and (best_length is None or length < best_length):
                best, best_length = move, length
        self._toward[key] = best
        return best

    def nearest(self, config: Config, targets: Any) -> list[Any]:
        """The targets that can be hit from `config`, nearest first (table order on a tie)."""
        ranked = self._ranked.get(config)
        if ranked is None:
            reachable = [(d, i, t) for i, t in enumerate(self.targets) if (d := self.distance(config, t)) is not None]
            ranked = self._ranked[config] = tuple(t for _, _, t in sorted(reachable))
        wanted = set(targets)
        return [t for t in ranked if t in wanted]


    def plan(self, config: Config, story: Story, goal: Goal) -> tuple[Way, ...] | None:
        """The steps of a shortest way from (config, story) to where the goal's gadget fits, then the gadget; None if none.

        The way takes only steps that break no rule and leave the session
        open, through configurations the proof explored: the first shortest
        one in the order of the moves. Memoised: the first plan asked of a
        goal plans it from every place a walk from the start reaches
        (`_plan_backwards`); a place outside those is searched (`search`).
        """
        key = (config, story, goal.name)
        plans = self._plans
        if key in plans:
            return plans[key]
        if goal.name not in self._backwards:
            self._plan_backwards(goal)
            if key in plans:
                return plans[key]
        return self.search(config, story, goal)

    def search(self, config: Config, story: Story, goal: Goal) -> tuple[Way, ...] | None:
        """`plan` by a breadth-first search from (config, story), filling in the plans of the places it passes."""
        machine, plans, name = self.machine, self._plans, goal.name
        found = walk([(config, story)], self._open_moves,
                     until=lambda node: goal.fit(machine, node[0], node[1], strict=False) is not None)
        if found.found is None:  # nor from anywhere the search reached
            for node in found.tree:
                plans.setdefault((*node, name), None)
            return None
        # The way found is the first shortest one in the order of the moves, so from each place on it the rest
        # of it is the way a search from there finds: each is the plan from there, and none is searched again.
        moves = found.moves_to(found.found)
        node = found.found
        for index in range(len(moves), -1, -1):
            plans.setdefault((*node, name), tuple(moves[index:]) + goal.steps)
            node = found.tree[node][1]
        return plans[(config, story, name)]

    def _plan_backwards(self, goal: Goal) -> None:
        """The goal's plan from every place a walk from the start reaches, by one breadth-first walk back from where it fits.

        What `search` finds from each: a place k steps away takes the first
        of its moves, in their order, to a place k - 1 steps away, then
        that place's plan. (A search's way is the first shortest one in the
        order of the moves, so the rest of it from its second place is the
        way a search from there finds.) A place the walk back never reaches
        has no plan.
        """
        self._backwards.add(goal.name)
        machine, plans, name = self.machine, self._plans, goal.name
        places, before = self._places()
        fits = [node for node in places if goal.fit(machine, node[0], node[1], strict=False) is not None]
        away = walk(fits, lambda place: [(None, p) for p in before[place]]).tree  # place -> (steps away, ...)
        planned = {}
        for node, (depth, _, _) in sorted(away.items(), key=lambda item: item[1][0]):
            if depth == 0:
                planned[node] = goal.steps
                continue
            way, target = next(move for move in self._open_moves(node)
                               if move[1] in away and away[move[1]][0] == depth - 1)
            planned[node] = (way, *planned[target])
        for node in places:
            plans.setdefault((*node, name), planned.get(node))

    def _places(self) -> tuple[tuple[tuple[Config, Story], ...], dict[tuple[Config, Story], list[tuple[Config, Story]]]]:
        """The places (config, story) a walk from the start reaches by open steps, and the places a step away before each."""
        if self._graph is None:
            places = tuple(walk([(self.machine.initial, Story())], self._open_moves).tree)
            before: dict[tuple[Config, Story], list[tuple[Config, Story]]] = {place: [] for place in places}
            for place in places:
                for target in dict.fromkeys(target for _, target in self._open_moves(place)):
                    before[target].append(place)
            self._graph = places, before
        return self._graph

    def _open_moves(self, node: tuple[Config, Story]) -> Any:
        """The steps from (config, story) that break no rule and leave the session open, with where they lead."""
        ready = self._open_from.get(node)
        if ready is not None:
            return ready
        config, story = node
        found = self._open.get(config)
        if found is None:
            explored = self.roadmap.exploration
            found = self._open[config] = tuple(
                (Way(move.sent), outcome.config, outcome.actions)
                for move in self.moves(config)
                if (outcome := move.outcome).status is Status.OK and not outcome.broken and not outcome.config.ended
                and outcome.config in explored
            )
        ready = self._open_from[node] = [(way, (target, retell(story, way, actions))) for way, target, actions in found]
        return ready

    def meetable(self, goals: tuple[Goal, ...]) -> tuple[Goal, ...]:
        """The goals whose gadget fits somewhere a walk from the start can reach, in their order."""
        machine, left = self.machine, list(goals)

        def fits(node: tuple[Config, Story]) -> bool:
            left[:] = [goal for goal in left if goal.fit(machine, *node, strict=False) is None]
            return not left  # every goal found: stop

        walk([(machine.initial, Story())], self._open_moves, until=fits)
        return tuple(goal for goal in goals if goal not in left)


@lru_cache(maxsize=8)
def guide_for(machine: Machine) -> Guide:
    """The machine's Guide, built once per machine (it explores the table)."""
    from gapstate.proof.paths import roadmap  # networkx, only once a walk is actually drawn

    return Guide(machine, roadmap(machine))
