"""gapstate/attribution/conditions.py: the five attribution conditions and the verdicts (the command is in test_cli.py)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import gapstate
from gapstate.attribution.conditions import CONDITIONS, classify, conditions
from gapstate.attribution.validation import validate

# A single turn q1, transmitted with audio [1000, 2000) ms; the stall arm's
# drop interval [1500, 1600) overlaps it, so every condition holds by default.
AUDIO = [1000, 2000]
DROP = {"kind": "drop", "start": 1500, "end": 1600, "voiced": True}


def turn(status: str = "absent", **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"status": status}
    if status in ("absent", "repeated"):
        out.update(transmitted=True, audio=list(AUDIO))
    out.update(fields)
    return {key: value for key, value in out.items() if value is not None}


def control(*statuses: str, name: str = "control", **fields: Any) -> dict[str, Any]:
    statuses = statuses or ("present",)
    return {"name": name, "kind": "control", **fields,
            "turns": {f"q{i}": {"status": s} for i, s in enumerate(statuses, start=1)}}


def stall(*turns: dict[str, Any], name: str = "stall", **fields: Any) -> dict[str, Any]:
    turns = turns or (turn(),)
    fields.setdefault("intervals", [dict(DROP)])
    return {"name": name, "kind": "stall", **fields,
            "turns": {f"q{i}": t for i, t in enumerate(turns, start=1)}}


def report(*arms: dict[str, Any], turns: int = 1) -> dict[str, Any]:
    arms = arms or (control(), stall())
    return {"answer_key": [f"q{i}" for i in range(1, turns + 1)], "arms": list(arms)}


def verdicts(result: Any) -> dict[str, list[tuple[str, str, list[str]]]]:
    """{arm name: [(turn, verdict, unmet), ...]} from the JSON shape."""
    return {arm["name"]: [(t["turn"], t["verdict"], t["unmet"]) for t in arm["turns"]] for arm in result["arms"]}


def stall_turn(result: Any, arm: str = "stall", index: int = 0) -> tuple[str, list[str]]:
    data = next(a for a in result["arms"] if a["name"] == arm)["turns"][index]
    return data["verdict"], data["unmet"]


def arm_verdict(result: Any, name: str) -> str:
    return next(a for a in result["arms"] if a["name"] == name)["verdict"]


# the five conditions --------------------------------------------------------


def test_a_turn_meeting_all_five_conditions_is_attributable():
    result = classify(report())
    assert stall_turn(result) == ("attributable", [])
    assert result["verdict"] == "attributable"


def test_a_repeated_turn_is_a_loss_like_an_absent_one():
    assert stall_turn(classify(report(control(), stall(turn("repeated"))))) == ("attributable", [])


def test_control_lacking_the_turn_fails_control_present_alone():
    result = classify(report(control("absent"), stall()))
    assert stall_turn(result) == ("inconclusive", ["control_present"])
    assert stall_turn(result, "control") == ("missing", [])


def test_control_repeating_the_turn_counts_as_lacking_it():
    result = classify(report(control("repeated"), stall()))
    assert stall_turn(result) == ("inconclusive", ["control_present"])
    assert stall_turn(result, "control") == ("missing", [])


def test_a_late_control_turn_still_has_the_turn():
    result = classify(report(control("late"), stall()))
    assert stall_turn(result) == ("attributable", [])
    assert stall_turn(result, "control") == ("delay", [])


def test_arm_missing_fails_alone_for_a_present_or_late_turn():
    for status in ("present", "late"):
        model = validate(report(control(), stall(turn(status, transmitted=True, audio=AUDIO))))
        held = conditions(model, model.arms[1], "q1")
        assert list(held) == list(CONDITIONS)
        assert [name for name, ok in held.items() if not ok] == ["arm_missing"]


def test_a_present_stall_turn_is_intact_whatever_else_holds():
    result = classify(report(control(), stall(turn("present", transmitted=True, audio=AUDIO))))
    assert stall_turn(result) == ("intact", [])


def test_a_late_stall_turn_is_a_delay_not_a_loss():
    result = classify(report(control(), stall(turn("late", transmitted=True, audio=AUDIO))))
    assert stall_turn(result) == ("delay", [])
    assert result["verdict"] == "inconclusive"


def test_an_untransmitted_turn_fails_transmitted_alone():
    assert stall_turn(classify(report(control(), stall(turn(transmitted=False))))) == ("inconclusive", ["transmitted"])


def test_a_missing_transmitted_field_means_not_transmitted():
    lost = turn()
    del lost["transmitted"]
    assert stall_turn(classify(report(control(), stall(lost)))) == ("inconclusive", ["transmitted"])


def test_no_interval_fails_interval_recorded_and_therefore_interval_overlaps():
    result = classify(report(control(), stall(intervals=[])))
    assert stall_turn(result) == ("inconclusive", ["interval_recorded", "interval_overlaps"])


def test_byte_counters_without_an_interval_satisfy_neither_condition_4_nor_5():
    arm = stall(intervals=[], counters={"ingress_dropped_bytes": 6400, "quarantined_bytes": 3200})
    result = classify(report(control(), arm))
    assert stall_turn(result) == ("inconclusive", ["interval_recorded", "interval_overlaps"])
    assert arm_verdict(result, "stall") == "assessed"


def test_an_interval_elsewhere_in_the_run_fails_interval_overlaps_alone():
    arm = stall(intervals=[{"kind": "drop", "start": 5000, "end": 6000}])
    assert stall_turn(classify(report(control(), arm))) == ("inconclusive", ["interval_overlaps"])


def test_without_audio_interval_overlaps_cannot_hold():
    assert stall_turn(classify(report(control(), stall(turn(audio=None))))) == ("inconclusive", ["interval_overlaps"])


@pytest.mark.parametrize("start, end", [(2000, 2500), (500, 1000)])
def test_an_interval_touching_the_audio_only_at_an_endpoint_does_not_overlap(start, end):
    arm = stall(intervals=[{"kind": "drop", "start": start, "end": end}])
    assert stall_turn(classify(report(control(), arm))) == ("inconclusive", ["interval_overlaps"])


@pytest.mark.parametrize("start, end", [(1999, 2500), (500, 1001), (0, 9000), (1200, 1300)])
def test_an_interval_sharing_one_millisecond_with_the_audio_overlaps(start, end):
    arm = stall(intervals=[{"kind": "drop", "start": start, "end": end}])
    assert stall_turn(classify(report(control(), arm))) == ("attributable", [])


def test_a_quarantine_interval_counts_like_a_drop_and_voiced_does_not_matter():
    arm = stall(intervals=[{"kind": "quarantine", "start": 1500, "end": 1600, "voiced": False}])
    assert stall_turn(classify(report(control(), arm))) == ("attributable", [])


def test_unmet_lists_every_failing_condition_in_condition_order():
    arm = stall(turn(transmitted=False, audio=None), intervals=[])
    result = classify(report(control("absent"), arm))
    assert stall_turn(result) == (
        "inconclusive", ["control_present", "transmitted", "interval_recorded", "interval_overlaps"])


# arm verdicts ---------------------------------------------------------------


def silent(**overrides: Any) -> dict[str, Any]:
    """A stall arm where nothing came back and nothing local explains it."""
    fields = {"transcript_received": False, "counters": {"ingress_dropped_bytes": 0}, "intervals": []}
    fields.update(overrides)
    return stall(turn("absent"), turn("repeated"), **fields)


def test_every_turn_lost_with_no_transcript_counter_or_interval_is_unexplained_silence():
    result = classify(report(control("present", "present"), silent(), turns=2))
    assert arm_verdict(result, "stall") == "unexplained_silence"
    assert result["verdict"] == "unexplained_silence"
    assert all(v == "inconclusive" for _, v, _ in verdicts(result)["stall"])  # never a loss


def test_no_counters_at_all_count_as_zero_for_unexplained_silence():
    assert arm_verdict(classify(report(control("present", "present"), silent(counters={}), turns=2)), "stall") == "unexplained_silence"
    arm = silent()
    del arm["counters"]
    assert arm_verdict(classify(report(control("present", "present"), arm, turns=2)), "stall") == "unexplained_silence"


@pytest.mark.parametrize("change", [
    {"transcript_received": True},
    {"counters": {"ingress_dropped_bytes": 1}},
    {"intervals": [{"kind": "drop", "start": 5000, "end": 6000}]},
])
def test_any_local_trace_of_the_loss_makes_the_arm_assessed_not_silent(change):
    result = classify(report(control("present", "present"), silent(**change), turns=2))
    assert arm_verdict(result, "stall") == "assessed"
    assert result["verdict"] == "inconclusive"


def test_a_transcript_received_default_rules_out_unexplained_silence():
    arm = silent()
    del arm["transcript_received"]
    assert arm_verdict(classify(report(control("present", "present"), arm, turns=2)), "stall") == "assessed"


def test_one_surviving_turn_rules_out_unexplained_silence():
    arm = stall(turn("absent"), turn("late"), transcript_received=False, intervals=[])
    assert arm_verdict(classify(report(control("present", "present"), arm, turns=2)), "stall") == "assessed"


def test_an_incomplete_stall_arm_makes_every_turn_incomplete():
    arm = stall(turn("absent"), turn("present"), turn("late"), capture_complete=False)
    result = classify(report(control("present", "present", "present"), arm, turns=3))
    assert arm_verdict(result, "stall") == "incomplete"
    assert verdicts(result)["stall"] == [("q1", "incomplete", []), ("q2", "incomplete", []), ("q3", "incomplete", [])]
    assert result["verdict"] == "inconclusive"  # a loss meeting all five is not attributable from a partial capture


def test_an_incomplete_capture_outranks_unexplained_silence():
    assert arm_verdict(classify(report(control("present", "present"), silent(capture_complete=False), turns=2)), "stall") == "incomplete"


def test_an_incomplete_control_holds_control_present_for_no_turn():
    result = classify(report(control("present", "late", "absent", capture_complete=False),
                             stall(turn(), turn(), turn()), turns=3))
    assert arm_verdict(result, "control") == "incomplete"
    assert verdicts(result)["control"] == [("q1", "intact", []), ("q2", "delay", []), ("q3", "missing", [])]
    assert [unmet for _, _, unmet in verdicts(result)["stall"]] == [["control_present"]] * 3
    assert result["verdict"] == "inconclusive"


def test_a_complete_control_arm_has_the_verdict_control():
    assert arm_verdict(classify(report()), "control") == "control"


def test_a_stall_arm_with_losses_and_evidence_is_assessed():
    assert arm_verdict(classify(report()), "stall") == "assessed"


# several arms and the overall verdict -------------------------------------


def test_several_stall_arms_are_judged_separately_in_input_order():
    result = classify(report(
        stall(name="stall-5s", intervals=[]), control(), stall(name="stall-2s"), stall(turn("present"), name="stall-1s")))
    assert [a["name"] for a in result["arms"]] == ["stall-5s", "control", "stall-2s", "stall-1s"]
    assert stall_turn(result, "stall-5s") == ("inconclusive", ["interval_recorded", "interval_overlaps"])
    assert stall_turn(result, "stall-2s") == ("attributable", [])
    assert stall_turn(result, "stall-1s") == ("intact", [])
    assert result["verdict"] == "attributable"


def test_turns_are_listed_in_answer_key_order_not_input_order():
    data = report(control("present", "present", "present"), stall(turn("present"), turn("late"), turn()), turns=3)
    data["answer_key"] = ["q3", "q1", "q2"]
    data["arms"][1]["turns"] = dict(reversed(list(data["arms"][1]["turns"].items())))
    result = classify(data)
    assert [t for t, _, _ in verdicts(result)["stall"]] == ["q3", "q1", "q2"]
    assert [t for t, _, _ in verdicts(result)["control"]] == ["q3", "q1", "q2"]


def test_every_turn_of_every_arm_intact_is_no_change():
    result = classify(report(control("present", "present"), stall(turn("present"), turn("present")),
                             stall(turn("present"), turn("present"), name="b"), turns=2))
    assert result["verdict"] == "no_change"


def test_a_delay_anywhere_rules_out_no_change():
    assert classify(report(control(), stall(turn("late"))))["verdict"] == "inconclusive"
    assert classify(report(control("late"), stall(turn("present"))))["verdict"] == "inconclusive"


def test_a_control_missing_a_turn_rules_out_no_change():
    assert classify(report(control("absent"), stall(turn("present"))))["verdict"] == "inconclusive"


def test_an_incomplete_arm_rules_out_no_change_even_if_every_turn_is_present():
    assert classify(report(control(), stall(turn("present"), capture_complete=False)))["verdict"] == "inconclusive"
    assert classify(report(control(capture_complete=False), stall(turn("present"))))["verdict"] == "inconclusive"


def test_an_attributable_turn_outranks_an_unexplained_silence_arm():
    data = report(control("present", "present"), stall(turn(), turn("present"), name="a"), silent(), turns=2)
    result = classify(data)
    assert (arm_verdict(result, "a"), arm_verdict(result, "stall")) == ("assessed", "unexplained_silence")
    assert result["verdict"] == "attributable"


def test_an_unexplained_silence_arm_outranks_an_inconclusive_one():
    data = report(control("present", "present"), stall(turn(), turn(), name="a", intervals=[]), silent(), turns=2)
    assert classify(data)["verdict"] == "unexplained_silence"


def test_without_attribution_or_silence_the_overall_verdict_is_inconclusive():
    assert classify(report(control(), stall(intervals=[])))["verdict"] == "inconclusive"


# the result -----------------------------------------------------------------


def test_the_result_has_exactly_the_contract_shape():
    document = classify(report()).to_dict()
    assert list(document) == ["ok", "descriptive", "verdict", "arms", "note"]
    assert document["ok"] is True and document["descriptive"] is True  # judged, whatever the verdict
    assert all(list(arm) == ["name", "verdict", "turns"] for arm in document["arms"])
    assert all(list(t) == ["turn", "verdict", "unmet"] for arm in document["arms"] for t in arm["turns"])
    assert json.loads(json.dumps(document)) == document


def test_the_note_says_the_result_is_descriptive_a_case_to_repeat_not_a_rate_nor_a_cause():
    note = classify(report())["note"].lower()
    assert "descriptive" in note and "repeat" in note and "rate" in note and "cause" in note


def test_the_result_is_frozen_and_readable_by_key():
    result = classify(report())
    assert result["verdict"] == result.verdict == "attributable"
    with pytest.raises(AttributeError):
        result.verdict = "no_change"  # type: ignore[misc]


def test_the_package_api_returns_the_same_result_and_leaves_the_input_unchanged():
    data = report()
    before = copy.deepcopy(data)
    assert gapstate.classify(data).to_dict() == classify(data).to_dict()
    assert data == before


# the overflow log line ----------------------------------------------------------


def lines(*dropped: int, t: int = 1500) -> list[dict[str, int]]:
    """Overflow lines logged at `t` (inside the default turn's audio [1000, 2000))."""
    return [{"t": t, "dropped": n} for n in dropped]


def test_a_silent_arm_with_an_overflow_line_is_sdk_overflow_not_unexplained_silence():
    result = classify(report(control("present", "present"), silent(sdk_overflow=lines(1)), turns=2))
    assert arm_verdict(result, "stall") == "sdk_overflow"
    assert result["verdict"] == "inconclusive"  # an SDK drop explains the silence but attributes nothing
    assert [v for _, v, _ in verdicts(result)["stall"]] == ["inconclusive", "inconclusive"]


def test_an_attributable_turn_elsewhere_still_makes_the_report_attributable():
    data = report(control("present", "present"), stall(turn(), turn("present"), name="a"),
                  silent(sdk_overflow=lines(1)), turns=2)
    assert classify(data)["verdict"] == "attributable"


def test_an_overflow_line_satisfies_neither_interval_condition():
    arm = stall(intervals=[], sdk_overflow=lines(1, 101))
    assert stall_turn(classify(report(control(), arm))) == ("inconclusive", ["interval_recorded", "interval_overlaps"])


def test_the_arm_gives_the_lines_and_the_dropped_range_from_the_largest_count_to_99_more():
    arm = stall(sdk_overflow=lines(1, 201, 101))
    document = classify(report(control(), arm)).to_dict()
    assert document["arms"][1]["sdk_overflow"] == {"lines": 3, "dropped_min": 201, "dropped_max": 300}
    assert "sdk_overflow" not in document["arms"][0]  # the control logged nothing


@pytest.mark.parametrize("t, marked", [(999, False), (1000, True), (1999, True), (2000, False)])
def test_a_turn_is_marked_when_its_transmitted_audio_holds_a_line(t, marked):
    result = classify(report(control(), stall(sdk_overflow=lines(1, t=t)))).to_dict()
    assert result["arms"][1]["turns"][0].get("sdk_overflow", False) is marked


def test_a_turn_without_audio_is_never_marked():
    result = classify(report(control(), stall(turn(audio=None), sdk_overflow=lines(1)))).to_dict()
    assert "sdk_overflow" not in result["arms"][1]["turns"][0]


def test_an_empty_overflow_list_logged_nothing_and_explains_nothing():
    data = report(control("present", "present"), silent(sdk_overflow=[]), turns=2)
    assert arm_verdict(classify(data), "stall") == "unexplained_silence"
    assert "sdk_overflow" not in classify(data).to_dict()["arms"][1]


# a recording peer's bytes -------------------------------------------------------


@pytest.mark.parametrize("claimed", [True, False, None])
def test_peer_bytes_decide_transmitted_whatever_the_report_claims(claimed):
    received = classify(report(control(), stall(turn(transmitted=claimed, peer_bytes=3200))))
    assert stall_turn(received) == ("attributable", [])
    nothing = classify(report(control(), stall(turn(transmitted=claimed, peer_bytes=0))))
    assert stall_turn(nothing) == ("inconclusive", ["transmitted"])


# metadata -----------------------------------------------------------------------


def test_meta_is_accepted_on_every_object_and_changes_nothing():
    data = report(control(), stall(sdk_overflow=lines(1)))
    before = classify(data).to_dict()
    data["meta"] = {"run": 7}
    data["arms"][0]["meta"] = "host a"
    data["arms"][1]["meta"] = [1, 2]
    data["arms"][1]["turns"]["q1"]["meta"] = None
    data["arms"][1]["intervals"][0]["meta"] = {"frame": 3}
    data["arms"][1]["sdk_overflow"][0]["meta"] = {"raw": "dropped 1 queued frames"}
    assert classify(data).to_dict() == before
