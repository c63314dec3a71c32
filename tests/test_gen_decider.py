"""The plan every generator spells: what each row matches and does, in the interpreter's order."""

from __future__ import annotations

from gapstate.gen.decider import Assign, header, plan

from .gen_support import SHA, SPEC
from .support import SPEC_TEXT, line_of

PLAN = plan(SPEC.table, "spec/gap-state.md", SHA, "9.9")


def _row(text: str):
    return next(r for r in PLAN.rows if r.line == line_of(SPEC_TEXT, text))


def test_every_row_is_planned_once_in_line_order():
    assert [r.line for r in PLAN.rows] == sorted(r.line for r in SPEC.table.rows)
    assert len(PLAN.rows) == 67


def test_a_row_makes_its_events_then_its_actions_assignments_in_order():
    row = _row("SENDING | send_ok | late_loss | OPEN | commit_request,reopen_gap")
    assert row.literals == (("late_loss", True),)
    assert row.assigns == (
        Assign("in_flight", False),  # the event's sets, before the guards are read
        Assign("late_loss", False),  # its then, once they are read
        Assign("session_requests", 1, add=True),  # commit_request
        Assign("standing", True),
        Assign("episode_attempts", 0),  # reopen_gap: a fresh attempt allowance
        Assign("standing", False),
    )
    assert row.commits and row.next == "OPEN" and row.remembers == "never"


def test_a_new_id_is_remembered_only_by_the_rows_that_take_a_new_one():
    assert _row("CLEAR | loss_voiced | !dup | OPEN | open_gap,preserve_debt").remembers == "always"
    assert _row("CLEAR | loss_voiced | dup | = | note_dup").remembers == "never"


def test_an_invalid_row_refuses_and_a_star_row_stays():
    assert _row("CLEAR | send_ok | - | = | invalid").refuses
    star = _row("* | loss_silent | - | = | note_trim")
    assert star.state == "*" and star.next is None and star.actions == ("note_trim",)


def test_the_guards_are_planned_from_the_vocabulary():
    how = {g.name: (g.how, g.what, g.event) for g in PLAN.guards}
    assert how["dup"] == ("seen", "id", "loss_voiced")
    assert how["post_send"] == ("after", "speech_start", "evidence_turn")
    assert how["budget_left"] == ("below_cap", "session_requests", None)
    assert PLAN.flags_set_by("busy") == (("busy_start", True), ("busy_end", False))
    assert dict(PLAN.caps) == {"session_requests": 3, "episode_attempts": 2}
    assert "invalid" not in PLAN.actions and PLAN.actions[0] == "send_request"


def test_the_header_names_the_spec_and_its_sha256():
    lines = header(PLAN, "python", "gapstate gen python x.py")
    assert f"gapstate-generated: target=python spec-sha256={SHA}" in lines
    assert "spec: spec/gap-state.md" in lines
