"""gapstate/proof/reach.py: rows no reachable configuration fires, and the allow-list of those that may not."""

from __future__ import annotations

import gapstate
from gapstate.table.load import parse_spec

from .support import ALLOWED, SPEC_TEXT, assert_findings, check_text, line_of, table, variant


def test_the_allow_listed_rows_are_exactly_the_unreachable_ones():
    text = SPEC_TEXT
    for line in text.splitlines():
        if line.startswith("@unreachable"):
            text = variant(line, "", text)
    assert_findings(text, *(f"unreachable@{line_of(text, row)}" for row in ALLOWED))


def test_removing_one_allowance_leaves_that_row_unreachable():
    text = variant("@unreachable DUE | busy_end | budget_left,!attempts_left", "")
    assert_findings(text, f"unreachable@{line_of(text, ALLOWED[2])}")


def test_an_allowance_matches_its_row_whatever_the_guard_order():
    text = variant(
        "@unreachable DUE | busy_end | budget_left,!attempts_left",
        "@unreachable DUE | busy_end | !attempts_left , budget_left",
    )
    assert_findings(text)


def test_a_row_that_can_never_fire_is_unreachable():
    # late_loss is only ever set in SENDING, so REQUESTED never sees it.
    text = variant(
        "REQUESTED | busy_end | - | = | noop",
        "REQUESTED | busy_end | late_loss | = | noop\nREQUESTED | busy_end | !late_loss | = | noop",
    )
    assert_findings(text, f"unreachable@{line_of(text, 'REQUESTED | busy_end | late_loss')}")


def test_an_allowance_for_a_row_that_fires_is_stale():
    text = variant(
        "@unreachable DUE | busy_end | budget_left,!attempts_left",
        "@unreachable DUE | busy_end | budget_left,!attempts_left\n@unreachable DUE | busy_end | !budget_left",
    )
    assert_findings(text, f"stale_allowance@{line_of(text, '@unreachable DUE | busy_end | !budget_left')}")


def test_an_allowance_that_names_no_row_is_stale():
    text = variant(
        "@unreachable DUE | busy_end | budget_left,!attempts_left",
        "@unreachable DUE | busy_end | budget_left,!attempts_left\n@unreachable DUE | busy_end | -",
    )
    [finding] = check_text(text).findings
    assert (finding.kind, finding.line) == ("stale_allowance", line_of(text, "@unreachable DUE | busy_end | -"))
    assert "names no row" in finding.message


def test_an_allowance_repeated_is_stale():
    text = variant(
        "@unreachable DUE | busy_end | budget_left,!attempts_left",
        "@unreachable DUE | busy_end | budget_left,!attempts_left\n@unreachable DUE | busy_end | !attempts_left,budget_left",
    )
    assert_findings(text, f"stale_allowance@{line_of(text, '@unreachable DUE | busy_end | !attempts_left,budget_left')}")


def test_a_table_whose_states_are_all_wildcards_has_no_initial_state():
    text = table(*(f"* | {e} | - | = | noop" for e in ("loss_silent", "busy_start")))
    [finding] = check_text(text).findings
    assert finding.kind == "parse_error" and "no row starts from or leads to CLEAR" in finding.message


def test_a_table_without_clear_is_a_finding_even_when_it_names_other_states():
    text = table("OPEN | loss_silent | - | = | note_trim")
    assert "parse_error" in [f.kind for f in check_text(text).findings]


NO_REQUESTED = ("SENDING | send_ok | !late_loss | REQUESTED | commit_request", "SENDING | send_ok | !late_loss | DUE | commit_request")


def test_a_seed_state_no_row_enters_is_unreachable_not_unknown():
    text = variant(*NO_REQUESTED)
    result = check_text(text)
    assert not [f for f in result.findings if f.kind == "unknown_name"]
    requested = [n for n, line in enumerate(text.splitlines(), 1) if line.startswith("REQUESTED |") and "invalid" not in line]
    unreachable = [f for f in result.findings if f.kind == "unreachable"]
    assert sorted(f.line for f in unreachable) == requested
    assert all("no row leads to REQUESTED" in f.message for f in unreachable)
    # the proof went on: the stale allowances and a broken rule are reported too
    assert result.stats["configurations"] > 0
    assert {"stale_allowance", "rule"} <= {f.kind for f in result.findings}


def test_a_table_whose_seed_state_no_row_enters_still_replays():
    spec = parse_spec(variant(*NO_REQUESTED), "spec.md")
    run = gapstate.replay(spec, [{"event": "busy_start"}])
    assert run.ok and run.final.state == "CLEAR"


def test_a_row_taken_by_an_earlier_one_says_which():
    from gapstate.proof.explore import explore
    from gapstate.proof.reach import why_unreachable
    from gapstate.run.machine import Machine
    from gapstate.table.load import parse_spec

    text = variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | noop\nCLEAR | loss_silent | - | = | noop")
    table = parse_spec(text, "spec.md").table
    machine = Machine(table)
    configs = [c for c in explore(machine).configs() if not c.ended]
    row = next(r for r in table.rows if str(r) == "CLEAR | loss_silent | - | = | noop")
    wildcard = line_of(text, "* | loss_silent")
    assert why_unreachable(machine, configs, table, row).words() == (
        f"every reachable valuation it matches is taken by the row at line {wildcard}, written first"
    )
