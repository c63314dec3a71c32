"""gapstate/table/model.py: the table as immutable records, each with its line; guards as literals; rows by (state, event)."""

from __future__ import annotations

import gapstate
from gapstate.table.model import ANY_STATE, STAY, Allowance, Cap, Literal, Row, Table, format_guards, holds

BUSY, NOT_BUSY, BUDGET = Literal("busy", True), Literal("busy", False), Literal("budget_left", True)


def row(line: int, state: str, event: str, *guards: Literal, next: str = STAY, actions: tuple[str, ...] = ("noop",)) -> Row:
    return Row(line, state, event, guards, next, actions, names=())


def test_a_literal_is_written_as_the_table_writes_it_and_holds_where_its_guard_has_its_sign():
    assert (str(BUSY), str(NOT_BUSY)) == ("busy", "!busy")
    assert format_guards((NOT_BUSY, BUDGET)) == "!busy,budget_left"
    assert format_guards(()) == "-"
    assert holds((NOT_BUSY, BUDGET), {"busy": False, "budget_left": True})
    assert not holds((NOT_BUSY, BUDGET), {"busy": True, "budget_left": True})
    assert holds((), {})  # no guards: always


def test_every_row_of_the_bundled_spec_reads_back_as_its_line():
    spec = gapstate.load_spec()
    lines = spec.text.splitlines()
    assert [str(r) for r in spec.table.rows] == [lines[r.line - 1].strip() for r in spec.table.rows]


def test_a_row_stays_where_its_next_column_says_so_and_the_wildcard_applies_everywhere():
    stays, moves = row(3, ANY_STATE, "busy_start"), row(4, "OPEN", "send_ok", next="SENDING", actions=("invalid",))
    assert stays.target("DUE") == "DUE" and moves.target("OPEN") == "SENDING"
    assert stays.applies_to("CLEAR") and not moves.applies_to("CLEAR")
    assert moves.invalid and not stays.invalid


def test_states_are_those_the_state_column_names_clear_first_and_initial_whatever_the_order_of_rows():
    table = Table.build(1, (row(2, "OPEN", "a"), row(3, ANY_STATE, "b"), row(4, "DUE", "a"), row(5, "CLEAR", "a")),
                        (Cap(6, "session_requests", 3),), ())
    assert table.states == ("CLEAR", "OPEN", "DUE") and table.initial == "CLEAR"
    assert table.cap_limits() == {"session_requests": 3}


def test_a_table_that_names_no_clear_state_has_no_initial_state():
    assert Table.build(1, (row(2, "OPEN", "a"),), (), ()).initial is None
    assert Table.build(1, (), (), ()).initial is None


def test_rows_for_a_state_merge_its_own_and_the_wildcard_rows_in_line_order():
    own_late, wild, own_early = row(9, "OPEN", "busy_start", BUSY), row(5, ANY_STATE, "busy_start"), row(2, "OPEN", "busy_start", NOT_BUSY)
    table = Table.build(1, (own_early, wild, own_late), (), ())
    assert table.rows_for("OPEN", "busy_start") == (own_early, wild, own_late)
    assert table.rows_for("CLEAR", "busy_start") == (wild,)
    assert table.rows_for(ANY_STATE, "busy_start") == (wild,)
    assert table.rows_for("OPEN", "send_ok") == ()
    assert table.rows_written("OPEN", "busy_start") == (own_early, own_late)


def test_a_new_table_is_never_answered_from_an_older_table_s_index():
    """The index is keyed by identity: a table made where a dropped one lived gets its own rows."""
    for n in range(20):  # past the few indexes kept, and ids reused as tables come and go
        mine = row(n + 2, "OPEN", "busy_start")
        assert Table.build(1, (mine,), (), ()).rows_for("OPEN", "busy_start") == (mine,)


def test_an_allowance_names_a_row_whatever_the_order_of_its_guards():
    allowance = Allowance(7, "OPEN", "floor_released", (BUDGET, NOT_BUSY))
    assert allowance.names(row(9, "OPEN", "floor_released", NOT_BUSY, BUDGET))
    assert not allowance.names(row(9, "OPEN", "floor_released", NOT_BUSY))
    assert not allowance.names(row(9, "DUE", "floor_released", NOT_BUSY, BUDGET))
    assert str(allowance) == "OPEN | floor_released | budget_left,!busy"
