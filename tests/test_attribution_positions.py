"""gapstate/attribution/positions.py: each problem pointed at its line and column in the report's text."""

from __future__ import annotations

import json

import pytest

from gapstate.attribution.positions import locate, position, problem_lines
from gapstate.attribution.validation import ReportProblem


def test_problem_positions_survive_escapes_brackets_and_non_ascii_text():
    text = '{"a": "x\\"]}{\\u00e9",\n  "b\\"c": [ "é", {"d": [1, 2,\n\t true]} ],\n "e": {}}'
    offsets = locate(text, [("b\"c", 1, "d", 2), ("e", "missing"), ("b\"c", 0)])
    assert json.loads(text) == {"a": 'x"]}{é', 'b"c': ["é", {"d": [1, 2, True]}], "e": {}}
    assert position(text, offsets, ("b\"c", 1, "d", 2)) == (3, 3)
    assert position(text, offsets, ("e", "missing")) == (4, 7)  # a missing field points at its object
    assert position(text, offsets, ("b\"c", 0)) == (2, 13)


def test_problem_lines_come_in_text_order_and_stop_at_the_limit():
    text = '{"a": 1,\n "b": [true,\n  false],\n "c": null}'
    # "z" is missing: it points at its object, the root
    problems = [ReportProblem(("c",), "third"), ReportProblem(("b", 1), "second"), ReportProblem(("a",), "first"), ReportProblem(("z",), "root")]
    shown = problem_lines(text, problems)
    assert [(p.line, p.column, p.path, p.message) for p in shown] == [
        (1, 1, "z", "root"), (1, 7, "a", "first"), (3, 3, "b[1]", "second"), (4, 7, "c", "third")]
    assert problem_lines(text, problems, 2) == shown[:2]


def test_only_the_values_on_the_way_to_the_problems_are_kept():
    text = '{"a": [[1, "]"], {"x": "}"}], "b": {"c": [true, {"d": 2}]}, "e": 3}'
    at = text.index
    assert locate(text, [("b", "c", 1, "d")]) == {
        (): 0, ("b",): at('{"c'), ("b", "c"): at("[true"), ("b", "c", 1): at('{"d'), ("b", "c", 1, "d"): at("2}")}
    assert locate(text, [("e",)]) == {(): 0, ("e",): at("3}")}
    assert locate(text, []) == {(): 0}


@pytest.mark.slow  # a memory test over a 200 KB report, traced: about 0.4 s of CPU
def test_pointing_at_one_problem_of_a_deep_report_holds_memory_in_proportion_to_the_text():
    """A report whose `meta` is 400 nested lists over and over, and one bad status: found, and the path's memory only.

    Keeping the path of every value cost about a thousand times the text (3 MB took 3 GB).
    """
    import tracemalloc

    deep = "[" * 400 + "]" * 400
    text = '{"meta": [' + ",\n".join([deep] * 250) + '],\n "arms": [{"turns": {"q": {"status": "bogus"}}}]}'
    problem = ReportProblem(("arms", 0, "turns", "q", "status"), "expected one of present, ...")
    tracemalloc.start()
    try:
        [shown] = problem_lines(text, [problem])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (shown.line, shown.column, shown.path) == (251, 38, "arms[0].turns.q.status")
    assert peak < len(text)  # the old walk held some 400 bytes per character here
