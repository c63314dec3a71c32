"""Properties of `classify` over generated valid reports (hypothesis).

Each property draws whole reports, about a second of CPU apiece, so the module
runs under `pytest -m slow` (as CI does); tests/test_attribution_conditions.py
gives every condition and verdict an example in the fast suite.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gapstate.attribution.conditions import CONDITIONS, classify
from gapstate.attribution.positions import locate, position
from gapstate.attribution.report import INTERVAL_KINDS, STATUSES
from gapstate.attribution.validation import format_path
from gapstate.errors import GapstateError

pytestmark = pytest.mark.slow

# Strategies ------------------------------------------------------------------
# Times lie in a few seconds so that intervals and turn audio often overlap,
# touch or miss; statuses lean towards losses so every verdict is common.

TIME = st.integers(min_value=0, max_value=3000)
TURN_NAMES = st.lists(st.sampled_from(["q1", "q2", "q3", "q4", "intro", "why leave"]), min_size=1, max_size=4, unique=True)
ARM_NAMES = st.sampled_from(["stall-1s", "stall-2s", "stall-5s", "b", "c d"])


@st.composite
def spans(draw: Any) -> list[int]:
    start = draw(TIME)
    return [start, start + draw(st.integers(min_value=1, max_value=1500))]


@st.composite
def intervals(draw: Any) -> dict[str, Any]:
    start, end = draw(spans())
    out: dict[str, Any] = {"kind": draw(st.sampled_from(INTERVAL_KINDS)), "start": start, "end": end}
    if draw(st.booleans()):
        out["voiced"] = draw(st.booleans())
    return out


@st.composite
def overflow_lines(draw: Any) -> dict[str, int]:
    """A logged "dropped N queued frames" line: at the first drop or a hundredth, at a time near the turns."""
    return {"t": draw(TIME), "dropped": draw(st.sampled_from([1, 100, 101, 200, 201, 1000]))}


def optional(draw: Any, out: dict[str, Any], key: str, strategy: Any) -> None:
    """Sets `key` or leaves it to its default, so defaults are exercised too."""
    if draw(st.booleans()):
        out[key] = draw(strategy)


@st.composite
def turns(draw: Any, key: list[str], statuses: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in draw(st.permutations(key)):  # any dict order
        turn: dict[str, Any] = {"status": draw(statuses)}
        optional(draw, turn, "transmitted", st.sampled_from([True, True, False]))
        if not draw(st.integers(0, 4)):  # a recording peer, now and then
            turn["peer_bytes"] = draw(st.sampled_from([0, 3200]))
        if draw(st.integers(0, 3)):  # audio is usually there
            turn["audio"] = draw(spans())
        out[name] = turn
    return out


STATUS = st.sampled_from(STATUSES + ("absent", "repeated"))


@st.composite
def arms(draw: Any, name: str, kind: str, key: list[str]) -> dict[str, Any]:
    arm: dict[str, Any] = {"name": name, "kind": kind}
    optional(draw, arm, "capture_complete", st.sampled_from([True, True, True, False]))
    optional(draw, arm, "transcript_received", st.booleans())
    optional(draw, arm, "counters", st.dictionaries(st.sampled_from(["ingress_dropped_bytes", "quarantined_bytes"]),
                                                    st.sampled_from([0, 0, 3200])))
    optional(draw, arm, "intervals", st.lists(intervals(), max_size=3))
    if not draw(st.integers(0, 3)):
        arm["sdk_overflow"] = draw(st.lists(overflow_lines(), max_size=3))
    statuses = st.sampled_from(["present", "present", "late", "absent"]) if kind == "control" else STATUS
    arm["turns"] = draw(turns(key, statuses))
    return arm


@st.composite
def reports(draw: Any) -> dict[str, Any]:
    """A valid report: one control at any position among one to three stall arms."""
    key = draw(TURN_NAMES)
    names = draw(st.lists(ARM_NAMES, min_size=1, max_size=3, unique=True))
    stalls = [draw(arms(name, "stall", key)) for name in names]
    stalls.insert(draw(st.integers(0, len(stalls))), draw(arms("control", "control", key)))
    return {"answer_key": key, "arms": stalls}


# A quarter of the profile's examples (50 in `ci`, 1,250 in `thorough`): each draws a whole report.
FAST = settings(max_examples=max(settings.default.max_examples // 4, 1), deadline=None)


def table(result: Any) -> dict[tuple[str, str], tuple[str, tuple[str, ...]]]:
    """(arm, turn) -> (verdict, unmet), independent of output order."""
    return {(arm["name"], t["turn"]): (t["verdict"], tuple(t["unmet"])) for arm in result["arms"] for t in arm["turns"]}


# Properties ------------------------------------------------------------------


@FAST
@given(reports(), st.randoms(use_true_random=False))
def test_verdicts_do_not_depend_on_the_order_of_arms_turns_or_intervals(report, random):
    shuffled = copy.deepcopy(report)
    random.shuffle(shuffled["arms"])
    for arm in shuffled["arms"]:
        items = list(arm["turns"].items())
        random.shuffle(items)
        arm["turns"] = dict(items)
        random.shuffle(arm.get("intervals", []))
    before, after = classify(report), classify(shuffled)
    assert after["verdict"] == before["verdict"]
    assert table(after) == table(before)
    assert {a["name"]: a["verdict"] for a in after["arms"]} == {a["name"]: a["verdict"] for a in before["arms"]}


@FAST
@given(reports(), intervals(), st.integers(min_value=0))
def test_adding_an_interval_never_makes_an_attributable_turn_inconclusive(report, interval, which):
    before = classify(report)
    grown = copy.deepcopy(report)
    stall_arms = [arm for arm in grown["arms"] if arm["kind"] == "stall"]
    stall_arms[which % len(stall_arms)].setdefault("intervals", []).append(interval)
    after = table(classify(grown))
    for place, (verdict, _) in table(before).items():
        if verdict == "attributable":
            assert after[place] == ("attributable", ())
    if before["verdict"] == "attributable":
        assert classify(grown)["verdict"] == "attributable"


@FAST
@given(reports())
def test_no_change_only_when_every_turn_of_every_arm_is_intact_and_no_arm_incomplete(report):
    result = classify(report)
    if result["verdict"] == "no_change":
        assert all(verdict == "intact" for verdict, _ in table(result).values())
        assert all(arm["verdict"] != "incomplete" for arm in result["arms"])


@FAST
@given(reports())
def test_every_turn_present_in_complete_captures_is_no_change(report):
    for arm in report["arms"]:
        arm["capture_complete"] = True
        for turn in arm["turns"].values():
            turn["status"] = "present"
    assert classify(report)["verdict"] == "no_change"


@FAST
@given(reports())
def test_only_inconclusive_turns_have_unmet_conditions_and_those_in_condition_order(report):
    for verdict, unmet in table(classify(report)).values():
        if verdict == "inconclusive":
            assert unmet, "an inconclusive turn names what does not hold"
            assert list(unmet) == [c for c in CONDITIONS if c in unmet]
            assert "arm_missing" not in unmet  # only losses are judged by the conditions
        else:
            assert unmet == ()


@FAST
@given(reports())
def test_incomplete_captures_and_silent_arms_never_yield_an_attributable_turn(report):
    result = classify(report)
    for arm in result["arms"]:
        if arm["verdict"] in ("incomplete", "unexplained_silence"):
            assert all(t["verdict"] != "attributable" for t in arm["turns"])
    if result["verdict"] == "attributable":
        assert any(v == "attributable" for v, _ in table(result).values())


@FAST
@given(reports())
def test_every_arm_lists_every_answer_key_turn_in_key_order(report):
    result = classify(report)
    assert [a["name"] for a in result["arms"]] == [a["name"] for a in report["arms"]]
    for arm in result["arms"]:
        assert [t["turn"] for t in arm["turns"]] == report["answer_key"]


def objects(value: Any, path: tuple = ()) -> list[tuple]:
    """Paths of the objects whose fields are fixed (not `counters` or `turns`, whose keys are names)."""
    found: list[tuple] = []
    if isinstance(value, dict):
        if path[-1:] not in (("counters",), ("turns",)):
            found.append(path)
        for key, item in value.items():
            found += objects(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += objects(item, path + (index,))
    return found


@FAST
@given(reports(), st.integers(min_value=0))
def test_an_unknown_field_anywhere_is_refused_at_its_path(report, which):
    places = objects(report)
    place = places[which % len(places)]
    target = report
    for part in place:
        target = target[part]
    target["zz_extra"] = 1
    try:
        classify(report)
    except GapstateError as error:
        [line] = str(error).splitlines()
        assert line.startswith(f"{format_path(place + ('zz_extra',))}: unknown field")
    else:
        raise AssertionError(f"unknown field at {place} accepted")


def values(value: Any, path: tuple = ()) -> list[tuple[tuple, Any]]:
    """Every (path, value) of a decoded document, the root included."""
    found = [(path, value)]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found += values(item, path + (key,))
    return found


@FAST
@given(reports(), st.sampled_from([None, 0, 2]), st.booleans())
def test_locate_finds_where_every_value_of_the_text_starts(report, indent, ascii_only):
    text = json.dumps(report, indent=indent, ensure_ascii=ascii_only)
    offsets = locate(text, [path for path, _ in values(report)])
    decode = json.JSONDecoder().raw_decode
    for path, value in values(report):
        assert decode(text, offsets[path])[0] == value
        line, column = position(text, offsets, path)
        assert text.splitlines()[line - 1][column - 1] == text[offsets[path]]


@FAST
@given(reports(), st.integers(min_value=0), st.sampled_from([{"run": 3}, "host-a", [1, 2], None]))
def test_meta_is_accepted_on_any_object_and_ignored(report, which, meta):
    before = classify(report).to_dict()
    places = objects(report)
    target = report
    for part in places[which % len(places)]:
        target = target[part]
    target["meta"] = meta
    assert classify(report).to_dict() == before


# the overflow log line ---------------------------------------------------------


@FAST
@given(reports())
def test_an_arm_with_an_overflow_line_is_never_unexplained_silence(report):
    result = classify(report)
    for arm, judged in zip(report["arms"], result["arms"], strict=True):
        if arm.get("sdk_overflow"):
            assert judged["verdict"] != "unexplained_silence"
            assert judged["sdk_overflow"]["lines"] == len(arm["sdk_overflow"])


@FAST
@given(reports(), st.lists(overflow_lines(), min_size=1, max_size=3), st.integers(min_value=0))
def test_overflow_lines_change_no_turn_verdict_so_never_make_a_turn_attributable(report, lines, which):
    before = classify(report)
    logged = copy.deepcopy(report)
    arm = logged["arms"][which % len(logged["arms"])]
    arm.setdefault("sdk_overflow", []).extend(lines)
    after = classify(logged)
    assert table(after) == table(before)
    for old, new in zip(before["arms"], after["arms"], strict=True):
        if new["name"] == arm["name"] and old["verdict"] == "unexplained_silence":
            assert new["verdict"] == "sdk_overflow"
        else:
            assert new["verdict"] == old["verdict"]
    assert after["verdict"] == before["verdict"] or (before["verdict"], after["verdict"]) == (
        "unexplained_silence", "inconclusive")
