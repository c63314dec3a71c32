"""gapstate/proof/paths.py: shortest ways to rows; the searches behind them (the tree from the initial configuration, the distances backwards) must agree."""

from __future__ import annotations

import networkx as nx

import gapstate
from gapstate.proof.paths import shortest_firing_trace
from gapstate.seeing.witness import Ways

SPEC = gapstate.load_spec()
WAYS = Ways(SPEC)  # every row's firings, from the proof's exploration
ALLOWED = {row.line for row in SPEC.table.rows if any(a.names(row) for a in SPEC.table.allowances)}
FIRING = [row for row in SPEC.table.rows if not row.invalid and row.line not in ALLOWED]


def test_the_shortest_firing_trace_is_as_long_as_the_distance_measured_backwards():
    ways = WAYS
    explored = ways.exploration
    assert FIRING
    graph = explored.digraph()
    clean = nx.subgraph_view(graph, filter_edge=lambda u, v: not all(m.breaks for m in graph.edges[u, v]["moves"]))
    # Two independent searches (forwards from the initial configuration by
    # the proof's walk, backwards from the firing ones by networkx) must agree on every row.
    for row in FIRING:
        trace = shortest_firing_trace(explored, ways.of(row)).trace
        firing = {explored.node(way.config) for way in ways.of(row) if way.clean}
        backwards = nx.multi_source_dijkstra_path_length(clean.reverse(copy=False), firing)
        # the firing event itself is one more than the steps to where it fires
        assert backwards[explored.root] + 1 == len(trace), row


def test_the_shortest_firing_trace_replays_to_its_row_on_its_last_event_breaking_nothing():
    for row in FIRING:
        trace = shortest_firing_trace(WAYS.exploration, WAYS.of(row)).trace
        replayed = gapstate.replay(SPEC, trace)
        assert replayed.ok, (row, replayed.error)
        assert [step.outcome.row.line for step in replayed.steps].index(row.line) == len(trace) - 1, row
