"""Shortest ways through the explored graph: witness traces and distances to rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from gapstate.proof.explore import explore
from gapstate.proof.graph import Exploration, Firing
from gapstate.proof.reach import firings
from gapstate.proof.totality import Hole, holes
from gapstate.run.machine import Machine
from gapstate.table.vocabulary import Config


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
            trace = exploration.trace_to(best.config, best.sent, clean=clean)
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
    hits: dict[Any, list[Firing]] = {line: ways for line, ways in sorted(firings(exploration).items()) if line in fired}
    gaps = holes(exploration)
    hits.update(sorted(gaps.items()))
    configs = {node: exploration.config(node) for node in exploration.nodes()}
    node = exploration.node
    distance = {}
    for target, ways in hits.items():
        before = exploration.distances_to(node(way.config) for way in ways)
        distance[target] = {configs[at]: n + 1 for at, n in before.items()}
    return Roadmap(exploration, tuple(sorted(fired)), tuple(sorted(gaps)), hits, distance, exploration.distances(clean=True))
