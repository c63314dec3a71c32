"""The syntax and vocabulary findings: each reason names what it is about."""

from __future__ import annotations

import pytest

from gapstate.findings import BadCap, CapProblem, ParseError, ParseProblem, UnknownName


@pytest.mark.parametrize("reason", list(CapProblem))
def test_every_cap_reason_names_the_counter(reason):
    assert "session_requests" in BadCap(5, 6, reason, "session_requests", 7).message


def test_an_unknown_name_suggests_the_close_one_or_lists_them_all():
    assert UnknownName(3, 1, "event", "busy_strat", ("busy_start", "busy_end"), suggestion="busy_start").message == (
        "unknown event 'busy_strat'; did you mean 'busy_start'?"
    )
    assert UnknownName(3, 1, "state", "NOPE", ("CLEAR", "OPEN"), unentered=True).message == (
        "unknown state 'NOPE'; no row leads to it; expected one of: CLEAR, OPEN"
    )


def test_a_parse_error_fills_its_reason_s_template():
    assert ParseError(7, 1, ParseProblem.SECOND_TABLE, other=3).message == (
        "a second transition table (the first starts at line 3); keep exactly one"
    )
