"""gapstate check: the bundled spec is clean and every kind of defect is found at its line."""

from __future__ import annotations

import pytest

import gapstate
from gapstate.proof.explore import concretize
from gapstate.spec.vocabulary import EVENTS, RULES
from gapstate.spec.load import parse_spec

from .support import SPEC_TEXT, assert_findings, check_text, labels, line_of, table, variant, without_diagram

ALLOWED = (
    "OPEN | floor_released | !busy,budget_left,!attempts_left | CLEAR | unrepaired_attempts",
    "DUE | floor_released | !busy,budget_left,!attempts_left | CLEAR | unrepaired_attempts",
    "DUE | busy_end | budget_left,!attempts_left | CLEAR | unrepaired_attempts",
)


def test_bundled_spec_checks_clean():
    result = gapstate.check()
    assert result.ok, [f.to_dict() for f in result.findings]
    assert result.stats["states"] == 5
    assert result.stats["events"] == 12
    assert result.stats["rows"] == 67
    assert result.stats["unreachable_allowed"] == 3
    assert result.stats["configurations"] > 5


def test_result_reads_like_the_json_output():
    result = gapstate.check()
    document = result.to_dict()
    assert document == {
        "ok": True,
        "spec": result.spec,
        "stats": result.stats,
        "findings": [],
    }
    assert result["ok"] is True


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


# parse_error -----------------------------------------------------------------


def test_a_row_with_a_missing_column_is_a_parse_error_at_its_line_and_column():
    text = variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | =")
    line = line_of(text, "CLEAR | busy_end | - | =")
    [finding] = check_text(text).findings
    assert (finding.kind, finding.line, finding.column) == ("parse_error", line, 25)
    assert "five columns" in finding.message


def test_every_bad_line_is_reported_not_only_the_first():
    text = variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | noop extra")
    text = variant("OPEN | busy_end | - | = | noop", "OPEN | busy_end | | = | noop", text)
    assert_findings(
        text,
        f"parse_error@{line_of(text, 'noop extra')}",
        f"parse_error@{line_of(text, 'OPEN | busy_end | |')}",
    )


def test_a_header_typo_is_a_parse_error_at_the_header():
    text = variant(
        "# state | event | guards | next | actions", "# state | event | guard | next | actions"
    )
    [finding] = check_text(text).findings
    assert finding.kind == "parse_error"
    assert finding.line == line_of(text, "# state | event | guard |")
    assert finding.column == 19
    assert "'guards'" in finding.message


def test_a_document_without_a_table_is_a_parse_error():
    result = check_text("# Title\n\nJust prose.\n\n```python\nprint('hi')\n```\n")
    assert [(f.kind, f.line) for f in result.findings] == [("parse_error", 1)]
    assert "no transition table" in result.findings[0].message


def test_a_document_with_two_tables_is_a_parse_error_at_the_second():
    text = table("* | busy_start | - | = | noop") + "\n" + table("* | busy_end | - | = | noop")
    second = [n for n, line in enumerate(text.splitlines(), 1) if line.startswith("# state")][1]
    assert_findings(text, f"parse_error@{second}")


def test_a_tilde_fence_with_an_info_string_holds_the_table():
    text = without_diagram(SPEC_TEXT).replace("```gapstate", "~~~~ table").replace("\n```\n", "\n~~~~\n")
    assert check_text(text).ok


def test_the_block_is_found_by_its_header_not_by_being_first():
    text = "```sh\ngapstate check\n```\n\n" + SPEC_TEXT
    assert check_text(text).ok


# unknown_name, bad_cap, contradiction ------------------------------------------


@pytest.mark.parametrize(
    "old, new, name",
    [
        ("CLEAR | busy_end | - | = | noop", "CLEAR | busy_ends | - | = | noop", "busy_ends"),
        ("DUE | busy_end | !budget_left | CLEAR | unrepaired_budget", "DUE | busy_end | !budget | CLEAR | unrepaired_budget", "budget"),
        ("OPEN | candidate_start | - | = | noop", "OPEN | candidate_start | - | = | nop", "nop"),
        ("DUE | candidate_start | - | OPEN | supersede", "DUE | candidate_start | - | OPENED | supersede", "OPENED"),
    ],
)
def test_an_unknown_name_is_reported_at_its_column(old, new, name):
    text = variant(old, new)
    [finding] = [f for f in check_text(text).findings if f.kind == "unknown_name"]
    assert finding.line == line_of(text, new)
    assert finding.column == new.index(name) + 1
    assert f"'{name}'" in finding.message


def test_a_state_no_row_leads_to_is_an_unknown_name_not_a_new_state():
    old = "OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request"
    text = variant(old, old.replace("OPEN", "OPNE", 1))
    [finding] = check_text(text).findings
    assert (finding.kind, finding.line, finding.column) == ("unknown_name", line_of(text, "OPNE"), 1)
    assert "unknown state 'OPNE'; no row leads to it" in finding.message


@pytest.mark.parametrize("new", [
    "CLEAR | send_ok | - | = | invalid,noop",
    "CLEAR | send_ok | - | OPEN | invalid",
])
def test_invalid_stands_alone_and_keeps_the_state(new):
    text = variant("CLEAR | send_ok | - | = | invalid", new)
    [finding] = check_text(text).findings
    assert (finding.kind, finding.line) == ("parse_error", line_of(text, new))
    assert "`invalid` stands alone" in finding.message


def test_any_positive_cap_is_accepted_and_explored():
    """The contract's `@cap COUNTER N` takes any positive N; more budget, more configurations."""
    small = check_text(SPEC_TEXT)
    large = check_text(variant("@cap session_requests 3", "@cap session_requests 400"))
    assert large.ok, large.findings
    assert large.stats["configurations"] > 100 * small.stats["configurations"]


def test_unknown_names_stop_the_proof_so_nothing_else_is_reported():
    text = variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_ends | - | = | noop")
    assert_findings(text, f"unknown_name@{line_of(text, 'busy_ends')}")


@pytest.mark.parametrize(
    "new, words",
    [
        ("@cap session_request 3", "unknown counter"),
        ("@cap session_requests 0", "positive"),
        ("@cap session_requests -2", "positive"),
    ],
)
def test_a_bad_cap_line_is_reported_at_its_line(new, words):
    text = variant("@cap session_requests 3", new)
    findings = check_text(text).findings
    assert any(f.kind == "bad_cap" and f.line == line_of(text, new) and words in f.message for f in findings)


@pytest.mark.parametrize(
    "new, message",
    [
        ("@cap episode_attempt 2", "unknown counter 'episode_attempt'; did you mean 'episode_attempts'?"),
        ("@cap session_request 3", "unknown counter 'session_request'; did you mean 'session_requests'?"),
        ("@cap holds 3", "unknown counter 'holds'; expected one of: session_requests, episode_attempts"),
    ],
)
def test_an_unknown_counter_suggests_the_close_one_like_other_unknown_names(new, message):
    old = "@cap episode_attempts 2" if "episode" in new else "@cap session_requests 3"
    text = variant(old, new)
    messages = [f.message for f in check_text(text).findings if f.kind == "bad_cap" and f.line == line_of(text, new)]
    assert message in messages


def test_a_counter_capped_twice_is_a_bad_cap_at_the_second_line():
    text = variant("@cap episode_attempts 2", "@cap episode_attempts 2\n@cap episode_attempts 4")
    assert_findings(text, f"bad_cap@{line_of(text, '@cap episode_attempts 4')}")


def test_a_counter_without_a_cap_is_a_bad_cap_at_the_header():
    text = variant("@cap episode_attempts 2", "")
    [finding] = check_text(text).findings
    assert (finding.kind, finding.line) == ("bad_cap", line_of(text, "# state | event"))
    assert "episode_attempts" in finding.message


def test_a_row_whose_guards_contradict_is_found_and_not_also_called_unreachable():
    text = variant(
        "CLEAR | busy_end | - | = | noop",
        "CLEAR | busy_end | - | = | noop\nCLEAR | busy_end | busy,!busy | = | noop",
    )
    assert_findings(text, f"contradiction@{line_of(text, 'busy,!busy')}")


# not_total, ambiguous --------------------------------------------------------


def test_a_missing_valuation_is_not_total_with_the_row_to_add():
    text = variant(ALLOWED[0], "")
    result = check_text(text)
    [gap] = [f for f in result.findings if f.kind == "not_total"]
    assert (gap.state, gap.event) == ("OPEN", "floor_released")
    assert gap.to_dict()["valuation"] == {"busy": False, "budget_left": True, "attempts_left": False}
    assert "OPEN | floor_released | !busy,budget_left,!attempts_left | ? | ?" in gap.message
    assert gap.line == line_of(text, "OPEN | floor_released | busy | DUE")
    # its allowance now names no row
    assert [f.kind for f in result.findings] == ["stale_allowance", "not_total"]


def test_the_suggested_row_is_as_wide_as_the_gap():
    text = variant("DUE | busy_end | !budget_left | CLEAR | unrepaired_budget", "")
    [gap] = [f for f in check_text(text).findings if f.kind == "not_total"]
    assert "`DUE | busy_end | !budget_left | ? | ?`" in gap.message


def test_a_state_and_event_with_no_row_at_all_is_not_total_at_the_header():
    text = variant("CLEAR | busy_end | - | = | noop", "")
    [gap] = check_text(text).findings
    assert (gap.kind, gap.state, gap.event, gap.line) == ("not_total", "CLEAR", "busy_end", line_of(text, "# state |"))
    assert gap.to_dict()["valuation"] == {}


def test_a_duplicated_row_is_ambiguous_naming_both_lines():
    text = variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | noop\nCLEAR | busy_end | - | = | noop")
    lines = [n for n, line in enumerate(text.splitlines(), 1) if line == "CLEAR | busy_end | - | = | noop"]
    assert_findings(text, f"ambiguous@{lines[1]}")
    [finding] = check_text(text).findings
    assert finding.to_dict()["rows"] == lines
    assert finding.to_dict()["valuation"] == {}


def test_overlapping_guards_are_ambiguous_with_a_shared_valuation():
    text = variant(
        "DUE | busy_end | !budget_left | CLEAR | unrepaired_budget",
        "DUE | busy_end | !budget_left | CLEAR | unrepaired_budget\nDUE | busy_end | !attempts_left | CLEAR | unrepaired_attempts",
    )
    found = [f for f in check_text(text).findings if f.kind == "ambiguous"]
    assert found, labels(text)
    valuation = found[0].to_dict()["valuation"]
    assert valuation["attempts_left"] is False
    added = line_of(text, "DUE | busy_end | !attempts_left")
    assert all(added in f.to_dict()["rows"] and f.line == max(f.to_dict()["rows"]) for f in found)


def test_a_wildcard_row_overlapping_a_state_row_is_ambiguous_once():
    text = variant("CLEAR | busy_end | - | = | noop", "* | busy_end | busy | = | noop")
    wildcard = line_of(text, "* | busy_end | busy")
    pairs = [tuple(f.to_dict()["rows"]) for f in check_text(text).findings if f.kind == "ambiguous"]
    assert pairs, labels(text)  # the wildcard overlaps the busy_end rows of the other states
    assert all(pair[0] == wildcard for pair in pairs)
    assert len(set(pairs)) == len(pairs)


# unreachable, stale_allowance ------------------------------------------------


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


@pytest.mark.parametrize("new, name, suggestion", [
    ("@unreachable DUE | busy_ends | budget_left,!attempts_left", "busy_ends", "busy_end"),
    ("@unreachable DUE | busy_end | budget_lef,!attempts_left", "budget_lef", "budget_left"),
    ("@unreachable DEU | busy_end | budget_left,!attempts_left", "DEU", "DUE"),
])
def test_a_typo_in_an_allowance_is_an_unknown_name_with_a_suggestion(new, name, suggestion):
    text = variant("@unreachable DUE | busy_end | budget_left,!attempts_left", new)
    [finding] = check_text(text).findings
    assert (finding.kind, finding.line, finding.column) == ("unknown_name", line_of(text, new), new.index(name) + 1)
    assert finding.to_dict()["suggestion"] == suggestion
    assert finding.message.endswith(f"did you mean '{suggestion}'?")


def test_an_allowance_repeated_is_stale():
    text = variant(
        "@unreachable DUE | busy_end | budget_left,!attempts_left",
        "@unreachable DUE | busy_end | budget_left,!attempts_left\n@unreachable DUE | busy_end | !attempts_left,budget_left",
    )
    assert_findings(text, f"stale_allowance@{line_of(text, '@unreachable DUE | busy_end | !attempts_left,budget_left')}")


# rules -----------------------------------------------------------------------

RULE_VARIANTS = {
    "cap-exceeded": ("SENDING | send_ok | !late_loss | REQUESTED | commit_request", "SENDING | send_ok | !late_loss | REQUESTED | commit_request,commit_request"),
    "send-while-busy": ("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request"),
    "send-while-candidate-active": ("SENDING | send_failed | attempts_left,candidate_active | OPEN | supersede", "SENDING | send_failed | attempts_left,candidate_active | SENDING | send_request"),
    "send-without-budget": ("OPEN | floor_released | !busy,!budget_left | CLEAR | unrepaired_budget", "OPEN | floor_released | !busy,!budget_left | SENDING | send_request"),
    "send-without-attempts": ("SENDING | send_failed | !attempts_left | CLEAR | unrepaired_attempts", "SENDING | send_failed | !attempts_left | SENDING | send_request"),
    "send-only-on-release": ("SENDING | send_failed | attempts_left,!candidate_active | DUE | keep_debt", "SENDING | send_failed | attempts_left,!candidate_active | SENDING | send_request"),
    "second-send-in-flight": ("SENDING | floor_released | - | = | noop", "SENDING | floor_released | - | = | send_request"),
    "commit-without-send-result": ("REQUESTED | evidence_turn | !post_send | = | noop", "REQUESTED | evidence_turn | !post_send | = | commit_request"),
    "settle-without-evidence": ("REQUESTED | evidence_turn | !post_send | = | noop", "REQUESTED | evidence_turn | !post_send | CLEAR | settle"),
    "exit-unnamed": ("REQUESTED | evidence_turn | !post_send | = | noop", "REQUESTED | evidence_turn | !post_send | CLEAR | noop"),
    "ending-outside-exit": ("OPEN | candidate_start | - | = | noop", "OPEN | candidate_start | - | = | end_unsettled"),
    "write-off-before-cap": ("SENDING | send_failed | attempts_left,!candidate_active | DUE | keep_debt", "SENDING | send_failed | attempts_left,!candidate_active | CLEAR | unrepaired_attempts"),
    "write-off-clears-debt": ("CLEAR | loss_voiced | !dup | OPEN | open_gap,preserve_debt", "CLEAR | loss_voiced | !dup | OPEN | open_gap"),
    "dup-changes-state": ("SENDING | loss_voiced | dup | = | note_dup", "SENDING | loss_voiced | dup | = | mark_late"),
    "session-end-not-clear": ("DUE | session_end | - | CLEAR | end_unsettled", "DUE | session_end | - | = | noop"),
}


def test_every_rule_has_a_variant_that_breaks_it():
    assert set(RULE_VARIANTS) == {rule.id for rule in RULES}


@pytest.mark.parametrize("rule", sorted(RULE_VARIANTS))
def test_a_broken_rule_is_reported_with_a_trace_that_replays_to_it(rule):
    old, new = RULE_VARIANTS[rule]
    text = variant(old, new)
    spec = parse_spec(text, "spec.md")
    findings = [f for f in gapstate.check(spec).findings if f.kind == "rule" and f.rule == rule]
    assert findings, labels(text)
    for finding in findings:
        assert "another rule first" not in finding.message
        trace = finding.to_dict()["trace"]
        result = gapstate.replay(spec, trace)
        assert result.error is not None
        assert result.error.kind == "rule"
        assert result.error.index == len(trace) - 1
        assert rule in result.error.message
        assert result.steps[-1].row == finding.line
    if rule != "write-off-clears-debt":  # that variant breaks the rule at every write-off row
        assert any(f.line == line_of(text, new) for f in findings)


def test_the_trace_is_the_shortest_that_breaks_the_rule():
    # Sending while busy needs a gap, a busy interviewer and a release: three events.
    text = variant(*RULE_VARIANTS["send-while-busy"])
    [finding] = [f for f in check_text(text).findings if f.rule == "send-while-busy"]
    assert [e["event"] for e in finding.trace] == ["loss_voiced", "busy_start", "floor_released"]


def test_a_trace_avoids_breaking_other_rules_on_the_way():
    # Sending while busy also spends budget that is not there: the shortest way to
    # that second rule must still not send while busy earlier on.
    text = variant(*RULE_VARIANTS["send-while-busy"])
    spec = parse_spec(text, "spec.md")
    for finding in gapstate.check(spec).findings:
        result = gapstate.replay(spec, finding.trace)
        if "another rule first" not in finding.message:
            assert result.error.index == len(finding.trace) - 1
            assert finding.rule in result.error.message


def test_a_rule_reachable_only_past_another_says_so():
    text = variant(*RULE_VARIANTS["send-while-busy"])
    cap = [f for f in check_text(text).findings if f.rule == "cap-exceeded"]
    assert cap and all("every way there breaks another rule first" in f.message for f in cap)


def test_findings_come_in_line_order():
    text = variant(*RULE_VARIANTS["send-while-busy"])
    text = variant("CLEAR | busy_end | - | = | noop", "", text)
    lines = [f.line for f in check_text(text).findings]
    assert lines == sorted(lines)


def test_settling_a_request_that_no_longer_stands_breaks_settle_without_evidence():
    # DUE after an undelivered request: post_send can hold (something was
    # committed) but the request went undelivered, so nothing may settle.
    text = variant("DUE | evidence_turn | - | = | noop", "DUE | evidence_turn | post_send | CLEAR | settle\nDUE | evidence_turn | !post_send | = | noop")
    found = [f for f in check_text(text).findings if f.kind == "rule"]
    assert [f.rule for f in found] == ["settle-without-evidence"]
    assert found[0].line == line_of(text, "DUE | evidence_turn | post_send")


def test_committing_on_a_send_ok_with_no_send_in_flight_breaks_commit_without_send_result():
    text = variant("REQUESTED | send_ok | - | = | invalid", "REQUESTED | send_ok | - | = | commit_request")
    found = [f for f in check_text(text).findings if f.kind == "rule" and f.rule == "commit-without-send-result"]
    assert [f.line for f in found] == [line_of(text, "REQUESTED | send_ok | - | = | commit_request")]


def test_a_table_whose_states_are_all_wildcards_has_no_initial_state():
    text = table(*(f"* | {e} | - | = | noop" for e in ("loss_silent", "busy_start")))
    [finding] = check_text(text).findings
    assert finding.kind == "parse_error" and "no row names a state" in finding.message


def test_concretized_traces_use_fresh_and_repeated_ids_and_post_send_speech():
    trace = concretize([("loss_voiced", False), ("loss_voiced", True), ("loss_voiced", False), ("evidence_turn", True), ("evidence_turn", False)])
    assert [e.get("id") for e in trace[:3]] == ["iv-1", "iv-1", "iv-2"]
    assert trace[3]["speech_start"] > trace[2]["t"]
    assert trace[4]["speech_start"] == 0
    assert [e["t"] for e in trace] == sorted(e["t"] for e in trace)


# what the seed says, read exactly ----------------------------------------------

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


def test_a_name_neither_in_the_vocabulary_nor_entered_stays_unknown():
    old = "REQUESTED | busy_end | - | = | noop"
    text = variant(old, old.replace("REQUESTED", "WAITING"))
    [finding] = check_text(text).findings
    assert (finding.kind, finding.name) == ("unknown_name", "WAITING")


def test_a_seed_state_entered_but_without_rows_is_not_total_not_unknown():
    text = SPEC_TEXT
    for line in SPEC_TEXT.splitlines():
        if line.startswith("REQUESTED |"):
            text = variant(line, "", text)
    findings = check_text(text).findings
    assert not [f for f in findings if f.kind == "unknown_name"]
    gaps = {f.event for f in findings if f.kind == "not_total" and f.state == "REQUESTED"}
    wildcard = {line.split(" | ")[1] for line in SPEC_TEXT.splitlines() if line.startswith("* |")}
    assert gaps == set(EVENTS) - wildcard


IMMEDIATE_RETRY = (
    "SENDING | send_failed | attempts_left,!candidate_active | DUE | keep_debt",
    "SENDING | send_failed | attempts_left,!candidate_active,!busy,budget_left | SENDING | send_request\n"
    "SENDING | send_failed | attempts_left,!candidate_active,busy | DUE | keep_debt\n"
    "SENDING | send_failed | attempts_left,!candidate_active,!busy,!budget_left | DUE | keep_debt",
)


def test_an_immediate_retry_on_send_failed_breaks_send_only_on_release():
    text = variant(*IMMEDIATE_RETRY)
    [finding] = [f for f in check_text(text).findings if f.kind == "rule"]
    assert (finding.rule, finding.line) == ("send-only-on-release", line_of(text, "!busy,budget_left | SENDING | send_request"))
    assert [e["event"] for e in finding.trace] == ["loss_voiced", "floor_released", "send_failed"]


def test_sends_on_a_release_or_end_of_busy_keep_send_only_on_release():
    assert not [f for f in gapstate.check().findings if f.kind == "rule"]
    assert "send-only-on-release" in {rule.id for rule in RULES}


# names: suggestions and labels ------------------------------------------------


@pytest.mark.parametrize("old, new, name, suggestion", [
    ("CLEAR | busy_end | - | = | noop", "CLEAR | busy_ennd | - | = | noop", "busy_ennd", "busy_end"),
    ("DUE | busy_end | !budget_left | CLEAR | unrepaired_budget", "DUE | busy_end | !budgt_left | CLEAR | unrepaired_budget", "budgt_left", "budget_left"),
    ("DUE | candidate_start | - | OPEN | supersede", "DUE | candidate_start | - | OPNE | supersede", "OPNE", "OPEN"),
    ("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | DUE | defer_no_interupt", "defer_no_interupt", "defer_no_interrupt"),
])
def test_an_unknown_name_suggests_the_closest_known_one(old, new, name, suggestion):
    text = variant(old, new)
    [finding] = [f for f in check_text(text).findings if f.kind == "unknown_name"]
    assert finding.column == new.index(name) + 1
    assert finding.to_dict()["suggestion"] == suggestion
    assert f"unknown {finding.role} '{name}'; did you mean '{suggestion}'?" == finding.message


def test_an_unknown_name_far_from_every_known_one_lists_them_instead():
    text = variant("CLEAR | busy_end | - | = | noop", "CLEAR | xyzzy | - | = | noop")
    [finding] = check_text(text).findings
    assert finding.to_dict()["suggestion"] is None
    assert finding.message.startswith("unknown event 'xyzzy'; expected one of: loss_silent, sdk_unknown")


def test_an_action_that_is_no_near_miss_is_a_label_the_replay_records():
    old = "CLEAR | busy_end | - | = | noop"
    spec = parse_spec(variant(old, "CLEAR | busy_end | - | = | log_idle"), "spec.md")
    assert gapstate.check(spec).ok
    run = gapstate.replay(spec, [{"event": "busy_end"}])
    assert run.ok and run.to_dict()["steps"][0]["actions"] == ["log_idle"]
    assert run.final == gapstate.replay(gapstate.load_spec(), [{"event": "busy_end"}]).final


# every gap, every copy once ---------------------------------------------------


def test_every_uncovered_valuation_is_reported_as_the_fewest_rows_to_add():
    text = variant("OPEN | floor_released | !busy,!budget_left | CLEAR | unrepaired_budget", "")
    text = variant("OPEN | floor_released | !busy,budget_left,!attempts_left | CLEAR | unrepaired_attempts", "", text)
    gaps = [f for f in check_text(text).findings if f.kind == "not_total"]
    assert sorted(f.suggestion for f in gaps) == [
        "OPEN | floor_released | !busy,!budget_left | ? | ?",
        "OPEN | floor_released | !busy,budget_left,!attempts_left | ? | ?",
    ]
    for gap in gaps:  # each example valuation is one the suggested row covers
        assert all(gap.to_dict()["valuation"][g] == v for g, v in gap.cube)


def _members(cube, width):
    from itertools import product

    return {v for v in product((False, True), repeat=width) if all(v[i] == b for i, b in cube)}


def test_the_rows_suggested_cover_exactly_the_uncovered_valuations_without_overlapping():
    from itertools import product

    from gapstate.proof.totality import minimal_cover

    for bits in range(1, 256):  # every non-empty set of valuations of three guards
        valuations = [v for i, v in enumerate(product((False, True), repeat=3)) if bits >> i & 1]
        cubes = [_members(c, 3) for c in minimal_cover(valuations)]
        assert set().union(*cubes) == set(valuations)
        assert sum(len(c) for c in cubes) == len(valuations)  # disjoint: no two suggested rows overlap


@pytest.mark.parametrize("valuations, fewest", [
    ([(False, False, True), (False, True, False), (False, True, True), (True, False, False), (True, False, True), (True, True, False)], 3),
    ([(False, False, False), (True, True, True)], 2),
    ([(a, b) for a in (False, True) for b in (False, True)], 1),
    ([(False, b, c) for b in (False, True) for c in (False, True) if not (b and c)], 2),
])
def test_minimal_cover_finds_the_fewest_rows(valuations, fewest):
    from gapstate.proof.totality import minimal_cover

    assert len(minimal_cover(valuations)) == fewest


def test_copies_of_a_row_are_each_reported_once_against_the_first():
    row = "CLEAR | busy_end | - | = | noop"
    text = variant(row, "\n".join([row] * 300))
    first = text.splitlines().index(row) + 1
    findings = check_text(text).findings
    assert len(findings) == 299
    assert all(f.kind == "ambiguous" and f.to_dict()["rows"] == [first, f.line] for f in findings)
    assert findings[0].message == f"row at line {first + 1} repeats the state, event and guards of the row at line {first}; keep one"


def test_a_copy_with_another_outcome_is_still_one_finding_against_the_first():
    row = "CLEAR | busy_end | - | = | noop"
    text = variant(row, row + "\nCLEAR | busy_end | - | OPEN | open_gap\nCLEAR | busy_end | - | = | note_trim")
    first = text.splitlines().index(row) + 1
    assert [f.to_dict()["rows"] for f in check_text(text).findings if f.kind == "ambiguous"] == [[first, first + 1], [first, first + 2]]


# walks on the configuration graph ----------------------------------------------


def _exploration():
    from gapstate.proof.explore import explore
    from gapstate.run.replayer import machine_for

    return explore(machine_for(gapstate.load_spec()))


def test_the_shortest_walk_to_a_row_ends_on_that_row():
    exploration = _exploration()
    line = line_of(SPEC_TEXT, "OPEN | floor_released | busy | DUE | defer_no_interrupt")
    walk = exploration.firing(exploration.initial, {line})
    assert [(s.event, s.row == line) for s in walk] == [("loss_voiced", False), ("busy_start", False), ("floor_released", True)]
    assert walk[-1].target.state == "DUE"


def test_a_walk_starts_where_it_is_told_and_finds_nothing_past_the_end():
    exploration = _exploration()
    settle = line_of(SPEC_TEXT, "REQUESTED | evidence_turn | post_send | CLEAR | settle")
    walk = exploration.firing(exploration.initial, {settle})
    requested = walk[-2].target  # one step before settling
    assert requested.state == "REQUESTED"
    assert [s.row for s in exploration.firing(requested, {settle})] == [settle]
    ended = exploration.walk(exploration.initial, lambda config: config.ended)[1]
    assert exploration.firing(ended, {settle}) is None
