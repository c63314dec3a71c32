"""gapstate/run/concrete.py: abstract steps made into events, with or without a session to replay them."""

from __future__ import annotations

import gapstate
from gapstate.run.concrete import AFTER, EPISODE, SETTLED, STEP_MS, Concretizer, concretize
from gapstate.run.replayer import Session, machine_for

MACHINE = machine_for(gapstate.load_spec())


def test_concretized_traces_use_fresh_and_repeated_ids_and_post_send_speech():
    trace = concretize([("loss_voiced", False), ("loss_voiced", True), ("loss_voiced", False), ("evidence_turn", True), ("evidence_turn", False)])
    assert [e.get("id") for e in trace[:3]] == ["iv-1", "iv-1", "iv-2"]
    assert trace[3]["speech_start"] > trace[2]["t"]
    assert trace[4]["speech_start"] == 0
    assert [e["t"] for e in trace] == sorted(e["t"] for e in trace)


def test_with_a_session_speech_is_placed_against_the_horizon_and_the_trace_stops_where_the_table_refuses():
    trace = concretize([("loss_voiced", False), ("floor_released", False), ("send_ok", False), ("evidence_turn", True)],
                       Session(MACHINE))
    assert trace[-1]["speech_start"] == 3 * STEP_MS + 1  # 1 ms after the commit
    assert gapstate.replay(gapstate.load_spec(), trace).final.state == "CLEAR"
    assert concretize([("send_ok", False), ("loss_voiced", False)], Session(MACHINE)) == [{"event": "send_ok", "t": STEP_MS}]


def test_values_handed_in_are_kept_and_fed_events_are_filed_by_kind():
    made = Concretizer(Session(MACHINE))
    for item in (made.item("loss_voiced"), made.item("floor_released"), made.item("send_ok")):
        made.feed(item)
    assert made.kinds == {"iv-1": EPISODE}
    late = made.item("evidence_turn", True, AFTER, t=1000, after=777)
    assert (late["t"], late["speech_start"]) == (1000, 777)
    assert not made.repeats(late) and made.repeats({"event": "loss_voiced", "id": "iv-1"})
    made.feed(late)
    assert made.kinds == {"iv-1": SETTLED} and made.t == 1000
    assert made.item("loss_voiced", True, SETTLED)["id"] == "iv-1" and made.item("loss_voiced")["id"] == "iv-2"
    made.feed({"event": "loss_voiced", "id": "iv-1"})  # no t: at the time of the one before
    assert made.dup_at == 1000
