"""gapstate/run/machine.py: Machine.step, the pure step, tested directly (no history, no I/O)."""

from __future__ import annotations

import gapstate
from gapstate.run.machine import Machine, Status, compiled
from gapstate.table.load import parse_spec
from gapstate.table.vocabulary import Config

from .support import SPEC_TEXT, line_of, variant

SPEC = gapstate.load_spec()
MACHINE = Machine(SPEC.table)
CLEAR = Config(state="CLEAR")


def test_a_matching_row_fires_and_returns_the_configuration_after():
    outcome = MACHINE.step(CLEAR, "loss_voiced", False)
    assert outcome.status is Status.OK
    assert outcome.row.line == line_of(SPEC_TEXT, "CLEAR | loss_voiced | !dup | OPEN")
    assert outcome.config.state == "OPEN" and outcome.config.debt_owed
    assert outcome.guards == (("dup", False),)
    assert outcome.actions == ("open_gap", "preserve_debt")
    assert outcome.broken == ()


def test_the_choice_picks_the_row_of_the_events_chosen_guard():
    outcome = MACHINE.step(CLEAR, "loss_voiced", True)
    assert outcome.status is Status.OK and outcome.actions == ("note_dup",)
    assert outcome.config.state == "CLEAR" and not outcome.config.debt_owed  # a dup opens no gap


def test_an_invalid_row_refuses_the_event_and_changes_nothing():
    outcome = MACHINE.step(CLEAR, "send_ok")
    assert outcome.status is Status.REFUSED
    assert outcome.config == CLEAR
    assert outcome.row.line == line_of(SPEC_TEXT, "CLEAR | send_ok | - | = | invalid")


def test_nothing_steps_after_the_session_ended():
    ended = MACHINE.step(CLEAR, "session_end").config
    assert ended.ended
    outcome = MACHINE.step(ended, "loss_silent")
    assert outcome.status is Status.ENDED and outcome.row is None and outcome.config == ended


def test_a_valuation_no_row_covers_is_unmatched():
    spec = parse_spec(variant("DUE | busy_end | !budget_left | CLEAR | unrepaired_budget", ""), "spec.md")
    machine = Machine(spec.table)
    spent = Config(state="DUE", session_requests=3)
    outcome = machine.step(spent, "busy_end")
    assert outcome.status is Status.UNMATCHED and outcome.row is None and outcome.config == spent


def test_a_step_that_breaks_a_rule_names_it():
    text = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")
    machine = Machine(parse_spec(text, "spec.md").table)
    busy_open = Config(state="OPEN", busy=True, debt_owed=True)
    outcome = machine.step(busy_open, "floor_released")
    assert outcome.status is Status.OK and "send-while-busy" in outcome.broken


def test_the_step_is_memoised_and_the_machine_compiled_once_per_table():
    assert MACHINE.step(CLEAR, "busy_start") is MACHINE.step(CLEAR, "busy_start")
    assert compiled(SPEC.table) is compiled(gapstate.load_spec().table)


def test_dup_is_a_choice_only_once_a_loss_was_seen():
    assert MACHINE.choices(CLEAR, "loss_voiced") == (False,)
    seen = MACHINE.step(CLEAR, "loss_voiced", False).config
    assert MACHINE.choices(seen, "loss_voiced") == (False, True)
    assert MACHINE.choices(seen, "busy_start") == (False,)


def test_rows_are_looked_up_by_state_and_event_as_a_scan_of_every_row_finds_them():
    """The index behind `rows_for` gives each (state, event) its own rows and the `*` ones, in line order."""
    table = SPEC.table  # with a row of its own for OPEN after the `*` row of busy_start
    table = table._replace(rows=table.rows + (table.rows[0]._replace(line=999, state="OPEN", event="busy_start"),))
    for state in (*table.states, "*", "NOWHERE"):
        for event in gapstate.table.vocabulary.EVENTS:
            scan = tuple(r for r in table.rows if r.event == event and r.applies_to(state))
            assert table.rows_for(state, event) == scan
            assert table.rows_written(state, event) == tuple(r for r in table.rows if r.event == event and r.state == state)
    assert [r.line for r in table.rows_for("OPEN", "busy_start")] == sorted(r.line for r in table.rows_for("OPEN", "busy_start"))
    assert len(table.rows_for("OPEN", "busy_start")) == 2


def test_a_machine_sharing_anothers_steps_steps_as_a_fresh_one_and_takes_only_the_unchanged_pairs():
    from gapstate.proof.explore import explore
    from gapstate.table.vocabulary import EVENTS

    base = Machine(parse_spec(SPEC_TEXT, "spec.md").table)
    configs = [c for c in explore(base, budget=None).configs() if not c.ended]
    keys = [(c, e, x) for c in configs for e in EVENTS for x in base.choices(c, e)]
    for key in keys:
        base.step(*key)
    changed = parse_spec(variant("OPEN | busy_end | - | = | noop", "OPEN | busy_end | - | = | note_trim"), "m").table
    shared, fresh = base.sharing(changed), Machine(changed)
    assert shared.table == changed and [shared.step(*k) for k in keys] == [fresh.step(*k) for k in keys]
    assert shared.step(Config(state="OPEN"), "busy_end").actions == ("note_trim",)
    capped = parse_spec(SPEC_TEXT.replace("@cap session_requests 3", "@cap session_requests 4"), "c").table
    shared, fresh = base.sharing(capped), Machine(capped)  # made once: a machine per key cost 4 s of the suite
    assert [shared.step(*k) for k in keys] == [fresh.step(*k) for k in keys]
