"""gapstate/cli/render/heatmap.py: the verdicts as a grid of arms by turns, each cell the verdicts some repeat gave, with counts.

Drawing it with matplotlib costs a second of CPU: those tests are in
tests/test_cli_classify.py, under `pytest -m slow`.
"""

from __future__ import annotations

import copy
import json
import sys

import pytest

import gapstate
from gapstate.attribution.conditions import ARM_VERDICTS, TURN_VERDICTS
from gapstate.cli.render.heatmap import ARM_COLOURS, CELLS, COLOURS, LABEL, _short, grid, heatmap_svg

from .support import REPORT_EXAMPLE, classify_repeats

EXAMPLE = json.loads(REPORT_EXAMPLE.read_text(encoding="utf-8"))


def test_one_report_is_a_grid_of_single_verdicts_counted_once():
    arms, turns, cells, total, _, _ = grid(gapstate.classify(EXAMPLE))
    assert arms == ["control", "stall-2s", "stall-5s"] and turns == ["q1-name", "q2-last-role", "q3-why-leave"]
    assert cells[1] == [(("intact", 1),), (("attributable", 1),), (("delay", 1),)]
    assert total == 1


def test_repeats_give_each_cell_every_verdict_some_repeat_gave_with_its_count():
    again = copy.deepcopy(EXAMPLE)
    again["arms"][2]["intervals"] = [{"kind": "drop", "start": 12000, "end": 13000, "voiced": True}]
    arms, turns, cells, total, _, _ = grid(classify_repeats([("a.json", EXAMPLE), ("b.json", again), ("c.json", EXAMPLE)]))
    assert total == 3 and len(arms) == 3 and len(turns) == 3
    assert sorted(cells[2][1]) == [("attributable", 1), ("inconclusive", 2)]
    assert cells[0][0] == (("intact", 3),)


def test_every_verdict_a_turn_can_get_has_its_colour():
    assert set(COLOURS) == set(TURN_VERDICTS)
    assert set(ARM_COLOURS) == set(ARM_VERDICTS)


SILENT = {"name": "silent", "kind": "stall", "transcript_received": False,
          "turns": {"q1": {"status": "absent"}, "q2": {"status": "absent"}}}
QUIET = {"answer_key": ["q1", "q2"], "arms": [
    {"name": "control", "kind": "control", "turns": {"q1": {"status": "present"}, "q2": {"status": "present"}}},
    SILENT,
]}


def test_an_arm_reported_as_unexplained_silence_is_shown_as_such_beside_its_turns_and_the_overall_verdict():
    shown = grid(gapstate.classify(QUIET))
    assert shown.cells[1] == [(("inconclusive", 1),), (("inconclusive", 1),)]  # its turns alone would read as inconclusive
    assert shown.arm_verdicts == [(("control", 1),), (("unexplained_silence", 1),)]
    assert shown.overall == (("unexplained_silence", 1),)


def test_repeats_count_each_arms_verdicts_and_the_overall_ones():
    loud = copy.deepcopy(QUIET)
    loud["arms"][1]["transcript_received"] = True
    shown = grid(classify_repeats([("a.json", QUIET), ("b.json", loud), ("c.json", QUIET)]))
    assert shown.arm_verdicts[1] == (("assessed", 1), ("unexplained_silence", 2))
    assert dict(shown.overall) == {"unexplained_silence": 2, "inconclusive": 1}


def test_a_long_name_is_cut_to_the_label_width_with_an_ellipsis():
    assert _short("q" * LABEL) == "q" * LABEL
    assert _short("q" * (LABEL + 5)) == "q" * (LABEL - 1) + "…"


def test_too_many_cells_are_refused_before_matplotlib_is_loaded(monkeypatch):
    turns = [f"q{n}" for n in range(CELLS // 2 + 1)]
    report = {"answer_key": turns, "arms": [
        {"name": "control", "kind": "control", "turns": {t: {"status": "present"} for t in turns}},
        {"name": "stall", "kind": "stall", "turns": {t: {"status": "present"} for t in turns}},
    ]}
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # an import of it would fail
    with pytest.raises(gapstate.GapstateError, match=rf"too many cells to draw \(2 arms x {len(turns)} turns; at most {CELLS}\)"):
        heatmap_svg(gapstate.classify(report))


def test_a_name_is_drawn_with_its_control_characters_and_surrogates_as_escapes():
    assert _short("a\x1b[0m\ud800b") == "a\\x1b[0m\\ud800b"
