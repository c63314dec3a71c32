"""gapstate/cli/render/classify.py: one report's verdict table, how verdicts fall across repeats, always as counts."""

from __future__ import annotations

import copy
import json

import gapstate
from gapstate.cli.render.classify import (
    OVERFLOW_MARK,
    classify_lines,
    classify_summary,
    not_a_repeat,
    repeats_lines,
    repeats_summary,
    unjudgeable,
)
from gapstate.words import WIDTH

from .support import REPORT_EXAMPLE, classify_repeats, unwrapped

EXAMPLE = json.loads(REPORT_EXAMPLE.read_text(encoding="utf-8"))


def _second_run() -> dict:
    """The example again, with an overflow line during stall-2s's q2 and a drop recorded over stall-5s's q2."""
    again = copy.deepcopy(EXAMPLE)
    again["arms"][1]["sdk_overflow"] = [{"t": 12500, "dropped": 100}]
    again["arms"][2]["intervals"] = [{"kind": "drop", "start": 12000, "end": 13000, "voiced": True}]
    return again


def test_one_report_is_a_row_per_arm_and_turn_then_each_arm_the_overall_verdict_and_the_note():
    lines = list(classify_lines(gapstate.classify(EXAMPLE)))
    assert lines[0].split() == ["arm", "turn", "verdict", "unmet"]
    assert lines[8] == "stall-5s  q2-last-role  inconclusive  interval_recorded, interval_overlaps"
    assert lines[10:13] == ["", "arm control:   control", "arm stall-2s:  assessed"]
    assert lines[14] == "overall: attributable"
    assert lines[15].startswith("note: Descriptive only")


def test_an_overflow_logged_during_a_turn_is_marked_and_its_arm_gives_the_frames_dropped():
    lines = list(classify_lines(gapstate.classify(_second_run())))
    assert f"stall-2s  q2-last-role  attributable  -; {OVERFLOW_MARK}" in lines
    assert "arm stall-2s:  assessed (1 overflow line: the SDK dropped 100 to 199 frames)" in lines


def test_columns_are_as_wide_as_their_widest_escaped_cell():
    report = copy.deepcopy(EXAMPLE)
    report["arms"][1]["name"] = "stall\x1b2s"
    lines = list(classify_lines(gapstate.classify(report)))
    assert lines[4].startswith("stall\\x1b2s  q1-name ")
    assert {line.index("q1-name") for line in lines[1:10] if "q1-name" in line} == {len("stall\\x1b2s") + 2}


def test_repeats_are_counted_per_turn_per_arm_per_repeat_and_overall_never_as_a_share():
    result = classify_repeats([("a.json", EXAMPLE), ("b\n.json", _second_run())])
    lines = unwrapped("\n".join(repeats_lines(result)))
    assert lines[0].split() == ["arm", "turn", "verdicts", "(of", "2", "repeats)", "unmet", "(repeats)"]
    assert ("stall-5s  q2-last-role  attributable in 1, inconclusive in 1  "
            "interval_recorded in 1, interval_overlaps in 1") in lines
    assert any(line.endswith("-; SDK overflow logged in 1") for line in lines)
    assert "arm stall-2s:  assessed in 2 of 2 repeats; overflow lines logged in 1 of 2 repeats, at most 199 frames dropped" in lines
    assert "repeat 2: b\\n.json: attributable" in lines
    assert "overall: attributable in 2 of 2 repeats" in lines
    assert not any("%" in line for line in lines)
    assert repeats_summary(result) == "gapstate classify: 2 repeats of 3 arms, 9 turns: attributable in 2 (descriptive)"


def test_a_long_last_cell_goes_on_under_its_own_column_and_every_line_fits():
    lines = list(repeats_lines(classify_repeats([("a.json", EXAMPLE), ("b.json", _second_run()), ("c.json", EXAMPLE)])))
    assert all(len(line) <= WIDTH for line in lines)
    table, column = lines[: lines.index("")], lines[0].index("unmet")
    going_on = [line for line in table if line.startswith(" ")]
    assert going_on and all(line.startswith(" " * column) and line[column] != " " for line in going_on)


def test_the_summary_of_one_report_counts_arms_and_turns_and_says_it_is_descriptive():
    assert classify_summary(gapstate.classify(EXAMPLE), "ex.json") == (
        "gapstate classify: ex.json: 3 arms, 9 turns: attributable (descriptive)"
    )


def test_the_headlines_of_a_refusal_count_the_problems_and_say_when_only_some_are_shown():
    assert unjudgeable(3, 1000) == "the report cannot be judged (3 problems):"
    assert unjudgeable(1200, 1000) == "the report cannot be judged (1200 problems; the first 1000 are shown):"
    assert not_a_repeat(1, "a.json") == "not a repeat of a.json (1 difference):"
