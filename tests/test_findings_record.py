"""gapstate/findings: each kind is a record with named fields and its own message, in one catalogue."""

from __future__ import annotations

import dataclasses

import pytest

from gapstate import findings
from gapstate.findings import Contradiction, NotTotal, RuleBroken


def test_a_misspelt_field_fails_where_the_finding_is_built():
    with pytest.raises(TypeError):
        Contradiction(3, 1, gaurd="busy")  # type: ignore[call-arg]


def test_every_kind_has_one_class_and_a_distinct_name():
    assert [cls.kind for cls in findings.CATALOGUE] == list(findings.KINDS)
    assert len(set(findings.KINDS)) == len(findings.KINDS)


def test_the_repr_names_the_class_place_and_message():
    finding = Contradiction(3, 7, "busy")
    assert repr(finding) == f"Contradiction(line=3, column=7, message={finding.message!r})"


def test_findings_sort_by_place_then_by_their_kind_s_place_in_the_catalogue():
    hole = NotTotal(4, 1, "OPEN", "busy_end", (("busy", True),), (("busy", True),))
    broken = RuleBroken(4, 1, "cap-exceeded", "a counter goes past its @cap", False, ())
    earlier = Contradiction(3, 9, "busy")
    assert sorted([broken, hole, earlier], key=lambda f: f.sort_key) == [earlier, hole, broken]


def test_a_finding_that_follows_from_a_root_names_it_in_json():
    hole = NotTotal(4, 1, "OPEN", "busy_end", (("busy", True),), (("busy", True), ("dup", False)))
    follower = Contradiction(9, 1, "busy")
    assert follower.to_dict(hole.as_cause())["cause"] == {"kind": "not_total", "line": 4, "state": "OPEN",
                                                          "event": "busy_end", "guards": "busy,!dup"}
    assert str(hole.as_cause()) == "the hole at OPEN | busy_end | busy,!dup (line 4)"
    assert follower.to_dict()["cause"] is None


def test_a_finding_is_frozen_when_made():
    finding = Contradiction(3, 7, "busy")
    with pytest.raises(dataclasses.FrozenInstanceError):
        finding.line = 4  # type: ignore[misc]


def test_a_record_takes_its_fields_in_order_with_the_base_s_first_and_its_defaults():
    from dataclasses import field

    from gapstate.findings.record import Finding, record

    @record
    class Example(Finding):
        name: str
        count: int = 2
        seen: list[int] = field(default_factory=list)
        later: tuple[int, ...] = field(default=(1,))

    one, two = Example(3, 1, "a"), Example(line=4, column=2, name="b", count=5)
    assert (one.line, one.column, one.name, one.count, one.seen, one.later) == (3, 1, "a", 2, [], (1,))
    assert (two.line, two.name, two.count) == (4, "b", 5)
    assert one.seen is not Example(3, 1, "c").seen  # a factory's default is made afresh
    assert "count" not in vars(Example)  # the default is the record's, not a class attribute
    assert one.parts() == {"line": 3, "column": 1, "name": "a", "count": 2, "seen": [], "later": (1,)}
    with pytest.raises(TypeError, match="missing argument 'name'"):
        Example(3, 1)
    with pytest.raises(TypeError, match="unexpected or repeated argument 'line'"):
        Example(3, 1, "a", line=4)
    with pytest.raises(TypeError, match="unexpected or repeated argument 'other'"):
        Example(3, 1, "a", other=1)
    with pytest.raises(TypeError):
        Example(3, 1, "a", 2, [], (1,), "too many")


def test_a_field_without_a_default_may_not_follow_one_with_a_default():
    from gapstate.findings.record import Finding, record

    with pytest.raises(TypeError, match="without a default follows one with a default"):
        @record
        class Wrong(Finding):
            first: int = 1
            second: int


def test_replaced_is_a_new_finding_and_leaves_the_old_one_as_it_was():
    finding = Contradiction(3, 7, "busy")
    moved = finding.replaced(line=9)
    assert (moved.line, moved.column, moved.guard, type(moved)) == (9, 7, "busy", Contradiction)
    assert finding.line == 3 and moved is not finding
    with pytest.raises(dataclasses.FrozenInstanceError):
        del moved.line
