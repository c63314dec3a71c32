"""The progress findings: their messages, their JSON, and the lasso's two halves."""

from __future__ import annotations

from gapstate.findings import KINDS, RetryLoop, StuckGap

TRACE = [{"event": "loss_voiced", "t": 100, "id": "iv-1"}, {"event": "candidate_start", "t": 200}]
CYCLE = [{"event": "floor_released", "t": 300}, {"event": "send_failed", "t": 400}, {"event": "candidate_start", "t": 500}]


def test_a_stuck_gap_names_the_state_it_is_trapped_in_and_its_trace():
    finding = StuckGap(214, 1, "OPEN", TRACE)
    assert finding.message == "enters OPEN where no events but session_end can end the gap (shortest trace: 2 events)"
    assert finding.to_dict() == {"kind": "stuck_gap", "line": 214, "column": 1, "message": finding.message,
                                 "state": "OPEN", "trace": TRACE, "cause": None}


def test_a_retry_loop_gives_the_way_to_the_cycle_and_the_cycle():
    finding = RetryLoop(196, 1, TRACE, CYCLE, (196, 201))
    assert finding.message == ("sends on a cycle inside one gap, which can send forever "
                               "(2 events, then 3 that repeat, through lines 196, 201)")
    document = finding.to_dict()
    assert document["trace"] == TRACE and document["cycle"] == CYCLE and document["kind"] == "retry_loop"
    assert document["rows"] == [196, 201]


def test_both_kinds_are_in_the_catalogue_after_the_rules():
    assert KINDS.index("rule") < KINDS.index("stuck_gap") < KINDS.index("retry_loop") < KINDS.index("stale_diagram")
