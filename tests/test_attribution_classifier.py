"""gapstate/attribution/classifier.py: the five attribution conditions, the verdicts and validation (the command is in test_cli.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest

import gapstate
from gapstate.attribution.classifier import CONDITIONS, classify, conditions, format_path, locate, position, validate
from gapstate.errors import GapstateError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "spec" / "classify-example.json"

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
    assert list(document) == ["descriptive", "verdict", "arms", "note"]
    assert document["descriptive"] is True
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


# malformed reports ------------------------------------------------------------


def edit(change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    """A valid two-turn report with one change applied."""
    data = report(control("present", "present"), stall(turn(), turn("late"), counters={"bytes": 0}), turns=2)
    change(data)
    return data


def setter(*path: Any, value: Any = None, delete: bool = False) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        target = data
        for part in path[:-1]:
            target = target[part]
        if delete:
            del target[path[-1]]
        else:
            target[path[-1]] = value
    return change


S = ("arms", 1)  # the stall arm
T = ("arms", 1, "turns", "q1")  # its first turn
I = ("arms", 1, "intervals", 0)  # its interval

MALFORMED = [
    # (what is wrong, the change, the JSON path reported, a word of the message)
    ("unknown top-level field", setter("extra", value=1), "extra", "unknown field"),
    ("answer_key missing", setter("answer_key", delete=True), "answer_key", "missing"),
    ("arms missing", setter("arms", delete=True), "arms", "missing"),
    ("answer_key not a list", setter("answer_key", value="q1"), "answer_key", "non-empty list"),
    ("answer_key empty", setter("answer_key", value=[]), "answer_key", "non-empty list"),
    ("answer_key entry not a string", setter("answer_key", 1, value=2), "answer_key[1]", "non-empty string"),
    ("answer_key entry empty", setter("answer_key", 1, value=""), "answer_key[1]", "non-empty string"),
    ("answer_key duplicate", setter("answer_key", 1, value="q1"), "answer_key[1]", "duplicate"),
    ("arms not a list", setter("arms", value={}), "arms", "list of arms"),
    ("no control arm", setter("arms", 0, "kind", value="stall"), "arms", "exactly one arm of kind control"),
    ("two control arms", setter("arms", 1, "kind", value="control"), "arms", "exactly one arm of kind control"),
    ("no stall arm", setter("arms", 1, delete=True), "arms", "at least one arm of kind stall"),
    ("arm not an object", setter("arms", 1, value=[]), "arms[1]", "expected an object"),
    ("unknown arm field", setter(*S, "foo", value=1), "arms[1].foo", "unknown field"),
    ("arm name missing", setter(*S, "name", delete=True), "arms[1].name", "missing"),
    ("arm name empty", setter(*S, "name", value=""), "arms[1].name", "non-empty string"),
    ("arm name not a string", setter(*S, "name", value=7), "arms[1].name", "non-empty string"),
    ("arm names repeated", setter(*S, "name", value="control"), "arms[1].name", "duplicate"),
    ("arm kind unknown", setter(*S, "kind", value="stalled"), "arms[1].kind", "expected one of control, stall"),
    ("arm kind missing", setter(*S, "kind", delete=True), "arms[1].kind", "missing"),
    ("capture_complete not a bool", setter(*S, "capture_complete", value=1), "arms[1].capture_complete", "true or false"),
    ("transcript_received a string", setter(*S, "transcript_received", value="false"), "arms[1].transcript_received", "true or false"),
    ("counters not an object", setter(*S, "counters", value=[1]), "arms[1].counters", "object"),
    ("counter negative", setter(*S, "counters", "bytes", value=-1), "arms[1].counters.bytes", "non-negative integer"),
    ("counter a float", setter(*S, "counters", "bytes", value=1.5), "arms[1].counters.bytes", "non-negative integer"),
    ("counter a bool", setter(*S, "counters", "bytes", value=True), "arms[1].counters.bytes", "non-negative integer"),
    ("intervals not a list", setter(*S, "intervals", value={}), "arms[1].intervals", "list of intervals"),
    ("interval not an object", setter(*I, value=3), "arms[1].intervals[0]", "expected an object"),
    ("interval kind unknown", setter(*I, "kind", value="loss"), "arms[1].intervals[0].kind", "drop, quarantine"),
    ("interval kind missing", setter(*I, "kind", delete=True), "arms[1].intervals[0].kind", "missing"),
    ("interval start missing", setter(*I, "start", delete=True), "arms[1].intervals[0].start", "missing"),
    ("interval end missing", setter(*I, "end", delete=True), "arms[1].intervals[0].end", "missing"),
    ("interval start a bool", setter(*I, "start", value=True), "arms[1].intervals[0].start", "integer"),
    ("interval end a float", setter(*I, "end", value=1600.0), "arms[1].intervals[0].end", "integer"),
    ("interval start negative", setter(*I, "start", value=-5), "arms[1].intervals[0].start", "non-negative"),
    ("interval empty", setter(*I, "end", value=1500), "arms[1].intervals[0]", "start < end"),
    ("interval reversed", setter(*I, "end", value=1000), "arms[1].intervals[0]", "start < end"),
    ("interval voiced not a bool", setter(*I, "voiced", value="yes"), "arms[1].intervals[0].voiced", "true or false"),
    ("unknown interval field", setter(*I, "id", value="iv-1"), "arms[1].intervals[0].id", "unknown field"),
    ("turns missing", setter(*S, "turns", delete=True), "arms[1].turns", "missing"),
    ("turns not an object", setter(*S, "turns", value=[]), "arms[1].turns", "object"),
    ("answer-key turn absent from an arm", setter(*S, "turns", "q2", delete=True), "arms[1].turns.q2", "every answer_key turn"),
    ("turn not in the answer key", setter("arms", 0, "turns", "q9", value={"status": "present"}), "arms[0].turns.q9", "not in answer_key"),
    ("turn not an object", setter(*T, value="absent"), "arms[1].turns.q1", "expected an object"),
    ("status unknown", setter(*T, "status", value="lost"), "arms[1].turns.q1.status", "expected one of present, absent, repeated, late"),
    ("status missing", setter(*T, "status", delete=True), "arms[1].turns.q1.status", "missing"),
    ("unknown turn field", setter(*T, "speaker", value="x"), "arms[1].turns.q1.speaker", "unknown field"),
    ("transmitted an integer", setter(*T, "transmitted", value=1), "arms[1].turns.q1.transmitted", "true or false"),
    ("audio not a list", setter(*T, "audio", value="1000-2000"), "arms[1].turns.q1.audio", "[start, end]"),
    ("audio of three numbers", setter(*T, "audio", value=[1, 2, 3]), "arms[1].turns.q1.audio", "[start, end]"),
    ("audio start a float", setter(*T, "audio", value=[1000.5, 2000]), "arms[1].turns.q1.audio[0]", "integer"),
    ("audio end a bool", setter(*T, "audio", value=[0, True]), "arms[1].turns.q1.audio[1]", "integer"),
    ("audio reversed", setter(*T, "audio", value=[2000, 1000]), "arms[1].turns.q1.audio", "start < end"),
    ("audio empty", setter(*T, "audio", value=[1000, 1000]), "arms[1].turns.q1.audio", "start < end"),
]


@pytest.mark.parametrize("change, path, word", [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED])
def test_a_malformed_report_is_refused_naming_the_json_path(change, path, word):
    with pytest.raises(GapstateError) as caught:
        classify(edit(change))
    lines = str(caught.value).splitlines()
    hits = [line for line in lines if line.startswith(f"{path}: ")]
    assert hits, f"no problem at {path!r} in {lines}"
    assert any(word in line for line in hits), hits


@pytest.mark.parametrize("value, shown", [([], "an empty list"), (None, "null"), ("x", '"x"')])
def test_a_report_that_is_not_an_object_is_refused_at_the_root(value, shown):
    with pytest.raises(GapstateError, match=rf"^\$: expected an object, got {shown}$"):
        classify(value)


def test_every_problem_is_reported_at_once_in_document_order():
    def change(data: dict[str, Any]) -> None:
        data["answer_key"].append("q2")
        data["arms"][0]["turns"]["q1"]["status"] = "gone"
        data["arms"][1]["intervals"][0]["kind"] = "loss"
        data["arms"][1]["turns"]["q1"]["audio"] = [3, 2]

    with pytest.raises(GapstateError) as caught:
        classify(edit(change))
    assert [line.split(": ")[0] for line in str(caught.value).splitlines()] == [
        "answer_key[2]",
        "arms[0].turns.q1.status",
        "arms[1].intervals[0].kind",
        "arms[1].turns.q1.audio",
    ]
    assert [str(p) for p in caught.value.problems] == str(caught.value).splitlines()


def test_a_turn_name_that_is_not_a_plain_name_is_quoted_in_the_path():
    assert format_path(("arms", 1, "turns", "q 1.b", "status")) == 'arms[1].turns["q 1.b"].status'
    data = report(control(), stall())
    data["arms"][1]["turns"]["q 1"] = {"status": "present"}
    with pytest.raises(GapstateError, match=r'arms\[1\]\.turns\["q 1"\]: not in answer_key'):
        classify(data)


def test_problem_positions_survive_escapes_brackets_and_non_ascii_text():
    text = '{"a": "x\\"]}{\\u00e9",\n  "b\\"c": [ "é", {"d": [1, 2,\n\t true]} ],\n "e": {}}'
    offsets = locate(text)
    assert json.loads(text) == {"a": 'x"]}{é', 'b"c': ["é", {"d": [1, 2, True]}], "e": {}}
    assert position(text, offsets, ("b\"c", 1, "d", 2)) == (3, 3)
    assert position(text, offsets, ("e", "missing")) == (4, 7)  # a missing field points at its object
    assert position(text, offsets, ("b\"c", 0)) == (2, 13)


def test_validation_precedes_judgement_so_a_single_problem_yields_no_verdict():
    with pytest.raises(GapstateError):
        classify(edit(setter("arms", 1, "counters", "bytes", value=-1)))
