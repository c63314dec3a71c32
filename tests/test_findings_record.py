"""gapstate/findings: each kind is a record with named fields and its own message, in one catalogue."""

from __future__ import annotations

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
    import dataclasses

    finding = Contradiction(3, 7, "busy")
    with pytest.raises(dataclasses.FrozenInstanceError):
        finding.line = 4  # type: ignore[misc]
