"""gapstate/attribution/positions.py: each problem pointed at its line and column in the report's text."""

from __future__ import annotations

import json

from gapstate.attribution.positions import locate, position


def test_problem_positions_survive_escapes_brackets_and_non_ascii_text():
    text = '{"a": "x\\"]}{\\u00e9",\n  "b\\"c": [ "é", {"d": [1, 2,\n\t true]} ],\n "e": {}}'
    offsets = locate(text)
    assert json.loads(text) == {"a": 'x"]}{é', 'b"c': ["é", {"d": [1, 2, True]}], "e": {}}
    assert position(text, offsets, ("b\"c", 1, "d", 2)) == (3, 3)
    assert position(text, offsets, ("e", "missing")) == (4, 7)  # a missing field points at its object
    assert position(text, offsets, ("b\"c", 0)) == (2, 13)
