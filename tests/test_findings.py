"""gapstate/findings.py: each kind is a record with named fields and its own message."""

from __future__ import annotations

import pytest

from gapstate import findings
from gapstate.findings import AllowanceProblem, BadCap, CapProblem, Contradiction, StaleAllowance


def test_a_misspelt_field_fails_where_the_finding_is_built():
    with pytest.raises(TypeError):
        Contradiction(3, 1, gaurd="busy")  # type: ignore[call-arg]


def test_every_kind_has_one_class_and_a_distinct_name():
    assert [cls.kind for cls in findings.CATALOGUE] == list(findings.KINDS)
    assert len(set(findings.KINDS)) == len(findings.KINDS)


@pytest.mark.parametrize("reason", list(CapProblem))
def test_every_cap_reason_names_the_counter(reason):
    assert "session_requests" in BadCap(5, 6, reason, "session_requests", 7).message


@pytest.mark.parametrize("reason", list(AllowanceProblem))
def test_every_allowance_reason_names_the_allowance_or_its_row(reason):
    message = StaleAllowance(9, 1, reason, "OPEN | send_ok | -", row=12, first=8).message
    assert "OPEN | send_ok | -" in message or "line 12" in message


def test_the_repr_names_the_class_place_and_message():
    finding = Contradiction(3, 7, "busy")
    assert repr(finding) == f"Contradiction(line=3, column=7, message={finding.message!r})"
