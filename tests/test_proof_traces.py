"""gapstate/proof/traces.py: abstract steps as a trace a person can replay, and the shortest walk to a goal."""

from __future__ import annotations

from gapstate.proof.traces import concretize, shortest_walk


def test_concretized_traces_use_fresh_and_repeated_ids_and_post_send_speech():
    trace = concretize([("loss_voiced", False), ("loss_voiced", True), ("loss_voiced", False), ("evidence_turn", True), ("evidence_turn", False)])
    assert [e.get("id") for e in trace[:3]] == ["iv-1", "iv-1", "iv-2"]
    assert trace[3]["speech_start"] > trace[2]["t"]
    assert trace[4]["speech_start"] == 0
    assert [e["t"] for e in trace] == sorted(e["t"] for e in trace)


def test_the_shortest_walk_is_the_first_found_breadth_first_and_none_when_no_node_answers():
    moves = {0: [("a", 1), ("b", 2)], 1: [("c", 3)], 2: [("d", 3), ("e", 4)], 3: [], 4: []}
    assert shortest_walk(0, lambda node: node == 3 and "here", lambda node: moves[node]) == (["a", "c"], 3, "here")
    assert shortest_walk(0, lambda node: node == 5, lambda node: moves[node]) is None
