"""gapstate/proof/traces.py: a shortest trace kept as a place in a walk's tree."""

from __future__ import annotations

from gapstate.proof.traces import Trace
from gapstate.run.concrete import concretize


def test_a_trace_kept_in_a_tree_walks_from_the_root_and_gives_fresh_events_each_read():
    # node -> (depth, parent, move), a move's first item its stimulus: 0 is the root; 2 is reached by loss_voiced then busy_start
    tree = {0: (0, None, None), 1: (1, 0, (("loss_voiced", False), 7)), 2: (2, 1, (("busy_start", False), 8)),
            3: (1, 0, (("candidate_start", False), 9))}
    trace = Trace(tree, 2, ("floor_released", False))
    whole = concretize([("loss_voiced", False), ("busy_start", False), ("floor_released", False)])
    assert len(trace) == 3 and trace == whole and trace == tuple(whole) and list(trace) == whole
    assert trace[-1] == whole[-1] and trace[:2] == tuple(whole[:2])
    first = list(trace)
    first[0]["event"] = "changed"
    assert list(trace) == whole  # a reader's change stays with that reader
    assert Trace(tree, 0, ("busy_start", False)) == concretize([("busy_start", False)])
    assert trace != Trace(tree, 3, ("floor_released", False)) and trace != "a string"
