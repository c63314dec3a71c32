"""gapstate/attribution/positions.py: each problem pointed at its line and column in the report's text."""

from __future__ import annotations

import json

from gapstate.attribution.positions import locate, position, problem_lines
from gapstate.attribution.validation import Problem


def test_problem_positions_survive_escapes_brackets_and_non_ascii_text():
    text = '{"a": "x\\"]}{\\u00e9",\n  "b\\"c": [ "é", {"d": [1, 2,\n\t true]} ],\n "e": {}}'
    offsets = locate(text)
    assert json.loads(text) == {"a": 'x"]}{é', 'b"c': ["é", {"d": [1, 2, True]}], "e": {}}
    assert position(text, offsets, ("b\"c", 1, "d", 2)) == (3, 3)
    assert position(text, offsets, ("e", "missing")) == (4, 7)  # a missing field points at its object
    assert position(text, offsets, ("b\"c", 0)) == (2, 13)


def test_problem_lines_come_in_text_order_and_stop_at_the_limit():
    text = '{"a": 1,\n "b": [true,\n  false],\n "c": null}'
    # "z" is missing: it points at its object, the root
    problems = [Problem(("c",), "third"), Problem(("b", 1), "second"), Problem(("a",), "first"), Problem(("z",), "root")]
    shown = problem_lines(text, problems)
    assert [(p.line, p.column, p.path, p.message) for p in shown] == [
        (1, 1, "z", "root"), (1, 7, "a", "first"), (3, 3, "b[1]", "second"), (4, 7, "c", "third")]
    assert problem_lines(text, problems, 2) == shown[:2]
