"""One error record: GapstateError carries an Unusable, whose problems are Problem records."""

from __future__ import annotations

import pytest

from gapstate.errors import GapstateError, Problem, Unusable
from gapstate.run.trace import from_dicts


def test_an_error_says_where_and_why_and_its_record_is_frozen():
    error = GapstateError("expected a row", "spec.md", 3, 7)
    assert str(error) == "spec.md:3:7: expected a row"
    assert error.record == Unusable("expected a row", "spec.md", 3, 7)
    with pytest.raises(AttributeError):
        error.message = "changed"  # type: ignore[misc]


def test_a_note_makes_a_new_error_and_leaves_the_first_alone():
    error = GapstateError("cannot read", "spec.md")
    noted = error.noted(" (the spec setting in pyproject.toml)")
    assert noted.message == "cannot read (the spec setting in pyproject.toml)"
    assert error.message == "cannot read"
    assert noted.file == "spec.md"


def test_problems_of_a_trace_and_of_a_report_are_one_record_with_their_own_json():
    with pytest.raises(GapstateError) as caught:
        list(from_dicts([{"event": "busy_start"}, {"event": "nope"}]))
    (problem,) = caught.value.problems
    assert isinstance(problem, Problem)
    assert list(problem.to_dict()) == ["line", "column", "message", "text"]
    located = Problem("expected a string", 4, 9, path="$.arms[0].name")
    assert located.to_dict() == {"line": 4, "column": 9, "path": "$.arms[0].name", "message": "expected a string"}
    assert "problems" in Unusable("2 problems", "r.json", problems=(located, located)).to_dict()
