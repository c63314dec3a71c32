"""gapstate/attribution/validation.py: a report is refused, every problem named at its JSON path, before any judgement."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gapstate.attribution.conditions import classify
from gapstate.attribution.validation import SUGGESTIONS, format_path
from gapstate.errors import GapstateError

from .test_attribution_conditions import control, report, stall, turn


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
IV = ("arms", 1, "intervals", 0)  # its interval

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
    ("interval not an object", setter(*IV, value=3), "arms[1].intervals[0]", "expected an object"),
    ("interval kind unknown", setter(*IV, "kind", value="loss"), "arms[1].intervals[0].kind", "drop, quarantine"),
    ("interval kind missing", setter(*IV, "kind", delete=True), "arms[1].intervals[0].kind", "missing"),
    ("interval start missing", setter(*IV, "start", delete=True), "arms[1].intervals[0].start", "missing"),
    ("interval end missing", setter(*IV, "end", delete=True), "arms[1].intervals[0].end", "missing"),
    ("interval start a bool", setter(*IV, "start", value=True), "arms[1].intervals[0].start", "integer"),
    ("interval end a float", setter(*IV, "end", value=1600.0), "arms[1].intervals[0].end", "integer"),
    ("interval start negative", setter(*IV, "start", value=-5), "arms[1].intervals[0].start", "non-negative"),
    ("interval empty", setter(*IV, "end", value=1500), "arms[1].intervals[0]", "start < end"),
    ("interval reversed", setter(*IV, "end", value=1000), "arms[1].intervals[0]", "start < end"),
    ("interval voiced not a bool", setter(*IV, "voiced", value="yes"), "arms[1].intervals[0].voiced", "true or false"),
    ("unknown interval field", setter(*IV, "id", value="iv-1"), "arms[1].intervals[0].id", "unknown field"),
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
    ("peer_bytes negative", setter(*T, "peer_bytes", value=-1), "arms[1].turns.q1.peer_bytes", "non-negative integer"),
    ("peer_bytes a bool", setter(*T, "peer_bytes", value=True), "arms[1].turns.q1.peer_bytes", "non-negative integer"),
    ("sdk_overflow not a list", setter(*S, "sdk_overflow", value={"t": 1}), "arms[1].sdk_overflow", "list of logged overflow lines"),
    ("overflow line not an object", setter(*S, "sdk_overflow", value=[7]), "arms[1].sdk_overflow[0]", "expected an object"),
    ("overflow line without t", setter(*S, "sdk_overflow", value=[{"dropped": 1}]), "arms[1].sdk_overflow[0].t", "missing"),
    ("overflow t negative", setter(*S, "sdk_overflow", value=[{"t": -1, "dropped": 1}]), "arms[1].sdk_overflow[0].t", "non-negative"),
    ("overflow dropped zero", setter(*S, "sdk_overflow", value=[{"t": 1, "dropped": 0}]), "arms[1].sdk_overflow[0].dropped", "positive integer"),
    ("overflow dropped huge", setter(*S, "sdk_overflow", value=[{"t": 1, "dropped": 10**4299}]), "arms[1].sdk_overflow[0].dropped", "past 2^63 - 1"),
    ("overflow t huge", setter(*S, "sdk_overflow", value=[{"t": 10**5000, "dropped": 1}]), "arms[1].sdk_overflow[0].t", "past 2^63 - 1"),
    ("counter huge", setter(*S, "counters", value={"bytes": 2**63}), "arms[1].counters.bytes", "past 2^63 - 1"),
    ("overflow line unknown field", setter(*S, "sdk_overflow", value=[{"t": 1, "dropped": 1, "n": 2}]), "arms[1].sdk_overflow[0].n", "unknown field"),
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


def test_the_api_error_carries_the_one_problem_record_and_its_document():
    """`gapstate.classify` has no text to point into: its problems are the error records every command shows, by path."""
    import gapstate
    from gapstate import errors

    with pytest.raises(GapstateError) as caught:
        gapstate.classify(edit(lambda data: data["arms"][1]["intervals"][0].update(kind="loss")))
    assert all(isinstance(p, errors.Problem) for p in caught.value.problems)
    document = caught.value.record.to_dict()
    assert [(p["path"], p["line"]) for p in document["problems"]] == [("arms[1].intervals[0].kind", None)]
    assert document["problems"][0]["message"] in str(caught.value)


def test_a_turn_name_that_is_not_a_plain_name_is_quoted_in_the_path():
    assert format_path(("arms", 1, "turns", "q 1.b", "status")) == 'arms[1].turns["q 1.b"].status'
    data = report(control(), stall())
    data["arms"][1]["turns"]["q 1"] = {"status": "present"}
    with pytest.raises(GapstateError, match=r'arms\[1\]\.turns\["q 1"\]: not in answer_key'):
        classify(data)


def test_validation_precedes_judgement_so_a_single_problem_yields_no_verdict():
    with pytest.raises(GapstateError):
        classify(edit(setter("arms", 1, "counters", "bytes", value=-1)))


def problem_at(data: dict[str, Any], path: str) -> str:
    with pytest.raises(GapstateError) as caught:
        classify(data)
    [line] = [line for line in str(caught.value).splitlines() if line.startswith(f"{path}: ")]
    return line


def test_a_misspelt_turn_name_suggests_the_nearest_answer_key_turn_the_arm_lacks():
    data = report(control("present", "present"), stall(turn(), turn()), turns=2)
    data["answer_key"] = ["q1-name", "q2-last-role"]
    for arm in data["arms"]:
        arm["turns"] = {"q1-name": arm["turns"]["q1"], "q2-lastrole": arm["turns"]["q2"]}
    assert 'not in answer_key: did you mean "q2-last-role"?' in problem_at(data, "arms[1].turns.q2-lastrole")


def test_a_turn_name_like_nothing_in_the_key_suggests_nothing():
    data = report(control(), stall())
    data["arms"][1]["turns"]["zzzzzz"] = {"status": "present"}
    assert "did you mean" not in problem_at(data, "arms[1].turns.zzzzzz")


def test_an_unknown_field_suggests_the_nearest_field_and_points_at_meta():
    line = problem_at(edit(setter(*T, "trasmitted", value=True)), "arms[1].turns.q1.trasmitted")
    assert "did you mean transmitted?" in line and "belongs under meta" in line


def test_suggestions_stop_after_a_bounded_number_so_a_report_of_many_misspellings_stays_linear():
    data = report(control(), stall())
    data["arms"][1]["turns"].update({f"q1{i}": {"status": "present"} for i in range(60)})  # each near "q1"
    with pytest.raises(GapstateError) as caught:
        classify(data)
    suggested = [line for line in str(caught.value).splitlines() if 'did you mean "q1"' in line]
    assert len(suggested) == SUGGESTIONS < 60


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_4300_digit_drop_count_is_a_problem_at_its_line_in_every_format(tmp_path, fmt):
    """4,300 nines and the 99 frames the SDK logs late made a number Python would not write out: a traceback."""
    import json

    from .support import REPORT_EXAMPLE, run

    document = json.loads(REPORT_EXAMPLE.read_text(encoding="utf-8"))
    document["arms"][1]["sdk_overflow"] = [{"t": 1, "dropped": 0}]
    path = tmp_path / "report.json"
    path.write_text(json.dumps(document, indent=1).replace('"dropped": 0', '"dropped": ' + "9" * 4300), encoding="utf-8")
    result = run("classify", str(path), "--format", fmt)
    assert result.exit_code == 2 and result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "arms[1].sdk_overflow[0].dropped: expected a positive integer (frames), got a number past 2^63 - 1" in result.stderr
