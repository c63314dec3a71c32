"""gapstate/attribution/report.py: the typed model of a report validation accepted, defaults filled in, `meta` dropped."""

from __future__ import annotations

import json

from gapstate.attribution.report import Interval, OverflowLine, Turn, build

from .support import REPORT_EXAMPLE


def _report(**stall):
    return {
        "answer_key": ["q2", "q1"],
        "meta": {"run": 7},
        "arms": [
            {"name": "stall", "kind": "stall", "meta": {"host": "a"}, **stall,
             "turns": {"q1": {"status": "absent", "transmitted": True, "audio": [10, 20], "meta": 1},
                       "q2": {"status": "present"}}},
            {"name": "control", "kind": "control", "turns": {"q1": {"status": "present"}, "q2": {"status": "late"}}},
        ],
    }


def test_every_default_is_filled_in_and_meta_is_dropped():
    report = build(_report())
    stall = report.arms[0]
    assert (stall.capture_complete, stall.transcript_received) == (True, True)
    assert (stall.counters, stall.intervals, stall.sdk_overflow) == ((), (), ())
    assert stall.turns["q2"] == Turn(status="present", transmitted=False, audio=None, peer_bytes=None)
    assert stall.turns["q1"] == Turn(status="absent", transmitted=True, audio=(10, 20))
    assert "meta" not in repr(report)


def test_turns_follow_the_answer_key_and_arms_the_input_order():
    report = build(_report())
    assert report.answer_key == ("q2", "q1")
    assert [arm.name for arm in report.arms] == ["stall", "control"]
    assert list(report.arms[0].turns) == ["q2", "q1"]
    assert report.control.name == "control"  # wherever it stands


def test_intervals_counters_and_overflow_lines_become_records():
    report = build(_report(
        counters={"frames_dropped": 3},
        intervals=[{"kind": "drop", "start": 1, "end": 2, "voiced": True}, {"kind": "quarantine", "start": 3, "end": 4}],
        sdk_overflow=[{"t": 15, "dropped": 100}],
    ))
    stall = report.arms[0]
    assert stall.counters == (("frames_dropped", 3),)
    assert stall.intervals == (Interval("drop", 1, 2, True), Interval("quarantine", 3, 4, None))
    assert stall.sdk_overflow == (OverflowLine(t=15, dropped=100),)


def test_a_recording_peer_s_bytes_outrank_the_report_s_claim_of_transmission():
    claimed = Turn(status="absent", transmitted=True, audio=(0, 1))
    assert claimed.verified_transmitted
    assert not claimed._replace(peer_bytes=0).verified_transmitted
    assert Turn(status="absent", transmitted=False, audio=(0, 1), peer_bytes=512).verified_transmitted


def test_the_example_report_builds_with_every_turn_of_its_key_in_every_arm():
    document = json.loads(REPORT_EXAMPLE.read_text(encoding="utf-8"))
    report = build(document)
    assert all(list(arm.turns) == list(report.answer_key) for arm in report.arms)
    assert report.control.kind == "control"
