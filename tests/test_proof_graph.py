"""gapstate/proof/graph.py: the explored graph's moves, the one walk, networkx on it, and the ways read off it."""

from __future__ import annotations

import networkx as nx
import pytest

import gapstate
from gapstate.proof.explore import explore
from gapstate.proof.graph import Move, NoWay, walk
from gapstate.run.machine import Machine
from gapstate.run.replayer import machine_for
from gapstate.table.load import parse_spec
from gapstate.table.vocabulary import Stimulus

from .support import variant

SENDS_WHILE_BUSY = ("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")


def _exploration():
    """The bundled table's: explored once a run, whichever test asks first."""
    return explore(machine_for(gapstate.load_spec()))


def _busy():
    machine = Machine(parse_spec(variant(*SENDS_WHILE_BUSY), "spec.md").table)
    return machine, explore(machine)


MOVES = {0: [("a", 1), ("b", 2)], 1: [("c", 3)], 2: [("d", 3), ("e", 4)], 3: [], 4: [("f", 0)]}


def test_the_walk_reaches_each_node_first_by_the_first_move_dequeued_and_stops_at_the_nearest_answer():
    everything = walk([0], lambda node: MOVES[node])
    assert everything.tree == {0: (0, None, None), 1: (1, 0, "a"), 2: (1, 0, "b"), 3: (2, 1, "c"), 4: (2, 2, "e")}
    assert list(everything.tree) == [0, 1, 2, 3, 4] and everything.found is None
    found = walk([0], lambda node: MOVES[node], until=lambda node: node >= 3 and f"at {node}")
    assert (found.found, found.answer, found.moves_to(found.found)) == (3, "at 3", ["a", "c"])
    assert walk([0], lambda node: MOVES[node], until=lambda node: node == 5).found is None


def test_the_walk_takes_only_the_moves_follow_accepts_and_starts_from_every_source():
    asked = []

    def follow(node, move):
        asked.append(move)
        return move != "c"

    walked = walk([0], lambda node: MOVES[node], follow)
    assert walked.tree[3] == (2, 2, "d") and sorted(asked) == ["a", "b", "c", "d", "e", "f"]
    assert walk([2, 1, 2], lambda node: MOVES[node]).tree == {2: (0, None, None), 1: (0, None, None), 3: (1, 2, "d"),
                                                               4: (1, 2, "e"), 0: (2, 4, "f")}


def test_a_trace_to_any_node_replays_to_that_configuration():
    spec = parse_spec(variant("@cap session_requests 3", "@cap session_requests 40"), "spec.md")
    exploration = explore(Machine(spec.table))
    distances = exploration.distances()
    assert len(distances) == len(exploration)
    farthest = max(distances, key=distances.get)
    moves = exploration.path_to(farthest)
    assert len(moves) == distances[farthest] and exploration.config(moves[-1].target) == farthest
    last = moves[-1]
    before = exploration.config(moves[-2].target) if len(moves) > 1 else exploration.initial
    assert exploration.steps_to(farthest, clean=False) == [move.sent for move in moves]
    trace = exploration.trace_to(before, last.sent)
    result = gapstate.replay(spec, trace)
    assert result.ok
    assert result.final == farthest
    assert result.to_dict()["steps"][-1]["row"] == last.row
    with pytest.raises(NoWay):
        exploration.path_to(farthest._replace(session_requests=41))


def test_moves_list_every_stimulus_once_and_mark_those_that_break_a_rule():
    machine, exploration = _busy()
    moves = [(node, move) for node in exploration.nodes() for move in exploration.moves(node)]
    assert all(isinstance(move, Move) and isinstance(move.sent, Stimulus) for _, move in moves)
    assert len(moves) == len({(node, move.sent) for node, move in moves})
    source, move = next((node, m) for node, m in moves if m.breaks)
    outcome = machine.step(exploration.config(source), *move.sent)
    assert outcome.broken and exploration.node(outcome.config) == move.target and outcome.row.line == move.row
    assert {move.row for _, move in moves} == exploration.fired


def test_moves_by_target_group_the_same_moves_as_networkx_lists_neighbours():
    exploration = _exploration()
    graph = exploration.digraph()
    for node in exploration.nodes():
        plain, grouped = exploration.moves(node), exploration.moves(node, by_target=True)
        assert sorted(plain) == sorted(grouped)
        assert list(dict.fromkeys(m.target for m in grouped)) == list(graph.successors(node))
        for target in graph.successors(node):
            assert graph.edges[node, target]["moves"] == tuple(m for m in plain if m.target == target)
            assert node in set(exploration.predecessors(target))


def test_networkx_on_the_digraph_agrees_with_the_walk_and_condenses_to_an_acyclic_graph():
    _, exploration = _busy()
    graph = exploration.digraph()
    assert nx.descendants(graph, exploration.root) | {exploration.root} == set(exploration.walk([exploration.root]).tree)
    assert nx.single_source_shortest_path_length(graph, exploration.root) == {
        node: depth for node, (depth, _, _) in exploration.walk([exploration.root]).tree.items()}
    condensed = nx.condensation(graph)
    assert nx.is_directed_acyclic_graph(condensed)
    assert sum(len(members) for _, members in condensed.nodes(data="members")) == len(exploration)
    ended = [node for node in exploration.nodes() if exploration.config(node).ended]
    backwards = exploration.distances_to(ended)
    assert backwards == nx.multi_source_dijkstra_path_length(graph.reverse(copy=False), set(ended))


def test_a_walk_along_clean_moves_reaches_no_further_than_the_walk_along_every_move():
    _, exploration = _busy()
    clean = exploration.walk([exploration.root], lambda node, move: not move.breaks).tree
    assert set(clean) < set(exploration.walk([exploration.root]).tree)
    assert exploration.distances(clean=True) == {exploration.config(node): depth for node, (depth, _, _) in clean.items()}


def test_reaching_without_nothing_blocked_fires_and_breaks_what_the_exploration_does():
    _, exploration = _busy()
    fired, broken, reached = exploration.reach_without({next(iter(exploration.fired))}, lambda *step: False)
    assert (fired, broken, set(reached)) == (set(exploration.fired), set(exploration.broken), set(exploration.nodes()))
    line = next(line for _, line in exploration.broken)
    fired, broken, _ = exploration.reach_without({line}, lambda config, event, choice, row, breaks: breaks)
    assert all(at != line for _, at in broken)


HOLED = ("SENDING | busy_end | - | = | noop", "")  # the row deleted: busy_end while a send is in flight matches none


@pytest.mark.parametrize("lines", [None, HOLED], ids=["bundled", "holed"])
def test_every_step_the_machine_takes_is_a_move_or_a_refusal_of_the_graph(lines):
    """The graph keeps what the table refuses too (an invalid row, or a hole), so nothing steps the machine again."""
    from gapstate.run.machine import Status
    from gapstate.table.vocabulary import EVENTS

    machine = machine_for(gapstate.load_spec()) if lines is None else Machine(parse_spec(variant(*lines), "t").table)
    exploration = explore(machine)
    holes = refused = 0
    for node in exploration.nodes():
        config = exploration.config(node)
        taken = {move.sent: move.row for move in exploration.moves(node)}
        kept = {refusal.sent: refusal.row for refusal in exploration.refusals(node)}
        if config.ended or not exploration.expanded(node):
            assert not taken and not kept
            continue
        for event in EVENTS:
            for choice in machine.choices(config, event):
                outcome = machine.step(config, event, choice)
                sent = Stimulus(event, choice)
                if outcome.status is Status.OK:
                    assert taken[sent] == outcome.row.line and sent not in kept
                else:
                    assert kept[sent] == (outcome.row.line if outcome.row is not None else None) and sent not in taken
                    holes += outcome.row is None
                    refused += outcome.row is not None
        assert len(taken) + len(kept) == sum(len(machine.choices(config, e)) for e in EVENTS)
    assert refused > 0 and (holes > 0) == (lines is HOLED)


def test_firings_and_holes_are_read_off_the_graph_without_stepping_the_machine(monkeypatch):
    from gapstate.proof.reach import firings
    from gapstate.proof.totality import holes

    machine = Machine(parse_spec(variant(*HOLED), "t").table)
    exploration = explore(machine)

    def no_step(*_):
        raise AssertionError("stepped the machine again")

    monkeypatch.setattr(Machine, "_step", no_step)
    fired, open_ = firings(exploration), holes(exploration)
    invalid = {row.line for row in machine.table.rows if row.invalid}
    assert exploration.fired <= set(fired) and set(fired) - exploration.fired <= invalid and set(fired) & invalid
    assert {state for state, event in open_} == {"SENDING"} and {event for _, event in open_} == {"busy_end"}
    assert all(f.config.state == "SENDING" and f.sent.event == "busy_end" for ways in open_.values() for f in ways)
