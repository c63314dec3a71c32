"""gapstate/attribution/repeats.py: several reports of one experiment, their verdicts counted across the repeats."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gapstate.attribution.conditions import classify
from gapstate.errors import GapstateError

from .support import classify_repeats
from .test_attribution_conditions import control, report, stall, turn
from .test_attribution_conditions_properties import FAST, reports


def named(*documents: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(f"r{i}.json", document) for i, document in enumerate(documents, start=1)]


def single_counts(document: dict[str, Any], times: int) -> dict[str, Any]:
    """What counting `times` copies of one report must give: each of its verdicts `times` times."""
    return {
        "verdicts": {document["verdict"]: times},
        "arms": [
            {"name": arm["name"], "verdicts": {arm["verdict"]: times},
             "turns": [{"turn": t["turn"], "verdicts": {t["verdict"]: times},
                        "unmet": {condition: times for condition in t["unmet"]}} for t in arm["turns"]]}
            for arm in document["arms"]
        ],
    }


@pytest.mark.slow  # a case of the count property below, which the fast suite runs
@FAST
@given(reports())
def test_one_report_given_twice_counts_2_for_each_verdict_of_the_single_report(data):
    single = classify(data).to_dict()
    twice = classify_repeats(named(data, copy.deepcopy(data))).to_dict()
    assert twice["repeats"] == 2
    assert {key: twice[key] for key in ("verdicts", "arms")} == single_counts(single, 2)


@pytest.mark.slow  # whole generated reports, a second of CPU: the examples below stay fast
@FAST
@given(reports(), st.integers(min_value=1, max_value=4))
def test_each_repeat_carries_exactly_its_single_report_document(data, times):
    single = classify(data).to_dict()
    result = classify_repeats(named(*[copy.deepcopy(data) for _ in range(times)])).to_dict()
    assert [entry["report"] for entry in result["reports"]] == [f"r{i}.json" for i in range(1, times + 1)]
    assert all({k: v for k, v in entry.items() if k != "report"} == single for entry in result["reports"])


@pytest.mark.slow
@FAST
@given(reports(), st.data())
def test_counts_add_up_to_the_number_of_repeats_and_follow_each_report(data, draw):
    same = [data]
    for _ in range(draw.draw(st.integers(1, 3))):  # the same experiment, other outcomes
        other = copy.deepcopy(data)
        for arm in other["arms"]:
            arm["capture_complete"] = draw.draw(st.sampled_from([True, True, False]))
            for observed in arm["turns"].values():
                observed["status"] = draw.draw(st.sampled_from(["present", "absent", "repeated", "late"]))
        same.append(other)
    result = classify_repeats(named(*same))
    singles = [classify(document) for document in same]
    overall = [s.verdict for s in singles]
    assert dict(result.verdicts) == {v: overall.count(v) for v in set(overall)}
    for index, arm in enumerate(result.arms):
        assert sum(n for _, n in arm.verdicts) == len(same)
        for position, counted in enumerate(arm.turns):
            given_verdicts = [s.arms[index].turns[position].verdict for s in singles]
            assert dict(counted.verdicts) == {v: given_verdicts.count(v) for v in set(given_verdicts)}
            unmet = [c for s in singles for c in s.arms[index].turns[position].unmet]
            assert dict(counted.unmet) == {c: unmet.count(c) for c in set(unmet)}


def test_the_repeats_document_has_exactly_the_documented_shape():
    first = report()
    second = report(control(), stall(intervals=[]))
    document = classify_repeats(named(first, second)).to_dict()
    assert list(document) == ["ok", "descriptive", "repeats", "reports", "verdicts", "arms", "note"]
    assert document["verdicts"] == {"attributable": 1, "inconclusive": 1}
    [_, arm] = document["arms"]
    assert arm == {"name": "stall", "verdicts": {"assessed": 2}, "turns": [
        {"turn": "q1", "verdicts": {"attributable": 1, "inconclusive": 1},
         "unmet": {"interval_recorded": 1, "interval_overlaps": 1}}]}


def test_the_note_says_what_the_counts_mean_and_never_gives_a_share():
    document = classify_repeats(named(report(), report(control(), stall(intervals=[])))).to_dict()
    note = document["note"].lower()
    for word in ("number of repeats", "not a rate", "percentage", "probability", "cause"):
        assert word in note
    assert "%" not in json.dumps(document) and "0.5" not in json.dumps(document)


def test_arms_may_come_in_any_order_and_are_counted_in_the_first_reports_order():
    a = report(control(), stall(name="s1"), stall(name="s2"))
    b = report(stall(name="s2"), control(), stall(name="s1"))
    assert [arm.name for arm in classify_repeats(named(a, b)).arms] == ["control", "s1", "s2"]


def refused(*documents: dict[str, Any]) -> GapstateError:
    with pytest.raises(GapstateError) as caught:
        classify_repeats(named(*documents))
    return caught.value


def test_another_answer_key_is_not_a_repeat_naming_the_file_and_the_turns():
    other = report(control("present", "present"), stall(turn(), turn()), turns=2)
    error = refused(report(), other)
    assert error.file == "r2.json"
    assert str(error).startswith('r2.json: answer_key: not the answer_key in r1.json: "q2" only here')


def test_the_same_turns_in_another_order_is_not_a_repeat():
    first = report(control("present", "present"), stall(turn(), turn()), turns=2)
    second = copy.deepcopy(first)
    second["answer_key"].reverse()
    assert "the same turns in another order" in str(refused(first, second))


@pytest.mark.parametrize("second, path, words", [
    (report(control(), stall(name="other")), "arms[1].name", 'arm "other" is not in r1.json'),
    (report(control(), stall(name="other")), "arms", 'arm "stall" in r1.json is missing'),
    (report(control(), stall(), stall(name="extra")), "arms[2].name", 'arm "extra" is not in r1.json'),
    (report(stall(name="control"), control(name="stall")), "arms[0].kind",
     'arm "control" is of kind stall here, control in r1.json'),
])
def test_an_arm_missing_added_or_of_another_kind_is_not_a_repeat(second, path, words):
    error = refused(report(), second)
    assert error.file == "r2.json"
    assert f"{path}: {words}" in [str(problem) for problem in error.problems]


def test_a_report_that_cannot_be_judged_is_refused_by_name_before_any_comparison():
    error = refused(report(), {"answer_key": [], "arms": []})
    assert error.file == "r2.json" and "answer_key: expected a non-empty list" in str(error)

