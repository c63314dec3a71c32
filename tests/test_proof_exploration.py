"""gapstate/proof/exploration.py: what an exploration answers: the steps out of a configuration, walks and paths."""

from __future__ import annotations

import gapstate
from gapstate.proof.explore import explore
from gapstate.run.machine import Machine
from gapstate.run.replayer import machine_for
from gapstate.table.load import parse_spec

from .support import variant

SENDS_WHILE_BUSY = ("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")


def _exploration():
    """The bundled table's: explored once a run, whichever test asks first."""
    return explore(machine_for(gapstate.load_spec()))


def test_a_trace_to_any_node_replays_to_that_configuration():
    spec = parse_spec(variant("@cap session_requests 3", "@cap session_requests 40"), "spec.md")
    exploration = explore(Machine(spec.table))
    distances = exploration.distances()
    assert len(distances) == len(exploration)
    farthest = max(distances, key=distances.get)
    edges = exploration.path_to(farthest)
    assert len(edges) == distances[farthest] and edges[-1].target == farthest
    last = edges[-1]
    before = edges[-2].target if len(edges) > 1 else exploration.initial
    trace = exploration.trace_to(before, (last.event, last.choice))
    result = gapstate.replay(spec, trace)
    assert result.ok
    assert result.final == farthest
    assert result.to_dict()["steps"][-1]["row"] == last.row


def test_successors_list_every_step_once_and_clean_steps_the_ones_that_break_nothing():
    machine = Machine(parse_spec(variant(*SENDS_WHILE_BUSY), "spec.md").table)
    exploration = explore(machine)
    steps = [(c, e) for c in exploration.configs() for e in exploration.successors(c)]
    assert len(steps) == len({(c, e.event, e.choice) for c, e in steps})
    source, edge = next((s, e) for s, e in steps if not e.clean)
    assert machine.step(source, edge.event, edge.choice).broken
    assert edge not in exploration.clean_steps(source)
    assert {e.row for _, e in steps} == exploration.fired


def test_successors_by_target_group_the_same_steps_as_networkx_lists_neighbours():
    exploration = _exploration()
    for config in exploration.configs():
        plain, grouped = exploration.successors(config), exploration.successors(config, by_target=True)
        assert sorted(plain) == sorted(grouped)
        assert list(dict.fromkeys(e.target for e in grouped)) == list(exploration.graph.successors(config))
