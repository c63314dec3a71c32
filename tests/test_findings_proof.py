"""The proof's findings: each reason names what it is about, and a hole says the row to add."""

from __future__ import annotations

import pytest

from gapstate.findings import AllowanceProblem, NotTotal, StaleAllowance


@pytest.mark.parametrize("reason", list(AllowanceProblem))
def test_every_allowance_reason_names_the_allowance_or_its_row(reason):
    message = StaleAllowance(9, 1, reason, "OPEN | send_ok | -", row=12, first=8).message
    assert "OPEN | send_ok | -" in message or "line 12" in message


def test_a_hole_suggests_the_row_that_covers_it():
    hole = NotTotal(4, 1, "OPEN", "busy_end", (("busy", False), ("dup", True)), (("busy", False),))
    assert hole.message == "no row covers OPEN | busy_end when busy=false; add the row `OPEN | busy_end | !busy | ? | ?`"
    assert hole.to_dict()["valuation"] == {"busy": False, "dup": True}
