"""gapstate/proof/rules.py: every rule broken on a reachable step, with the shortest trace that replays to it."""

from __future__ import annotations

import pytest

import gapstate
from gapstate.table.load import parse_spec
from gapstate.table.rules import RULES
from gapstate.table.vocabulary import INVALID

from .support import check_text, labels, line_of, slow_but, variant

RULES_BY_ID = {rule.id: rule for rule in RULES}
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
    "last-attempt-not-written-off": ("SENDING | send_failed | !attempts_left | CLEAR | unrepaired_attempts", "SENDING | send_failed | !attempts_left | DUE | keep_debt"),
    "write-off-before-cap": ("SENDING | send_failed | attempts_left,!candidate_active | DUE | keep_debt", "SENDING | send_failed | attempts_left,!candidate_active | CLEAR | unrepaired_attempts"),
    "write-off-clears-debt": ("OPEN | session_end | - | CLEAR | end_unsettled", "OPEN | session_end | - | CLEAR | end_unsettled,settle"),
    "dup-changes-state": ("SENDING | loss_voiced | dup | = | note_dup", "SENDING | loss_voiced | dup | = | mark_late"),
    "session-end-not-clear": ("DUE | session_end | - | CLEAR | end_unsettled", "DUE | session_end | - | = | noop"),
    "result-without-send": ("CLEAR | send_failed | - | = | invalid", "CLEAR | send_failed | - | = | noop"),
    "undelivered-without-request": ("CLEAR | request_undelivered | - | = | invalid", "CLEAR | request_undelivered | - | = | noop"),
    "sending-without-send": ("OPEN | candidate_start | - | = | noop", "OPEN | candidate_start | - | SENDING | noop"),
    "requested-without-request": ("OPEN | candidate_start | - | = | noop", "OPEN | candidate_start | - | REQUESTED | noop"),
    "due-while-candidate-speaks": ("DUE | candidate_start | - | OPEN | supersede", "DUE | candidate_start | - | = | supersede"),
    "gap-without-debt": ("CLEAR | loss_voiced | !dup | OPEN | open_gap,preserve_debt", "CLEAR | loss_voiced | !dup | OPEN | open_gap"),
    "fresh-loss-ignored": ("CLEAR | loss_voiced | !dup | OPEN | open_gap,preserve_debt", "CLEAR | loss_voiced | !dup | = | note_dup"),
    "late-loss-forgotten": ("SENDING | loss_voiced | !dup | = | merge_gap,mark_late", "SENDING | loss_voiced | !dup | = | merge_gap"),
    "episode-starts-spent": ("CLEAR | loss_voiced | !dup | OPEN | open_gap,preserve_debt", "CLEAR | loss_voiced | !dup | OPEN | preserve_debt"),
    "send-ok-without-commit": ("SENDING | send_ok | !late_loss | REQUESTED | commit_request", "SENDING | send_ok | !late_loss | REQUESTED | noop"),
    # the two send_ok outcomes swapped, one half at a time
    "late-loss-commit-awaits": ("SENDING | send_ok | late_loss | OPEN | commit_request,reopen_gap", "SENDING | send_ok | late_loss | REQUESTED | commit_request"),
    "commit-does-not-await": ("SENDING | send_ok | !late_loss | REQUESTED | commit_request", "SENDING | send_ok | !late_loss | OPEN | commit_request,reopen_gap"),
    # what the prose says each state, notice and label means: each a one-row mistake check passed before these rules
    "possible-event-refused": ("* | loss_silent | - | = | note_trim", "* | loss_silent | - | = | invalid"),
    "evidence-mislabelled": ("* | loss_silent | - | = | note_trim", "* | loss_silent | - | = | note_dup"),
    "noop-moves": ("SENDING | send_failed | attempts_left,!candidate_active | DUE | keep_debt", "SENDING | send_failed | attempts_left,!candidate_active | DUE | noop"),
    "supersede-without-speech": ("* | busy_start | - | = | noop", "* | busy_start | - | = | supersede"),
    "speech-not-superseding": ("REQUESTED | request_undelivered | attempts_left,candidate_active | OPEN | keep_budget_spent,supersede", "REQUESTED | request_undelivered | attempts_left,candidate_active | OPEN | keep_budget_spent,keep_budget_spent"),
    "released-gap-back-to-open": ("SENDING | send_failed | attempts_left,!candidate_active | DUE | keep_debt", "SENDING | send_failed | attempts_left,!candidate_active | OPEN | keep_debt"),
    "defer-while-idle": ("* | busy_start | - | = | noop", "* | busy_start | - | = | defer_no_interrupt"),
    "busy-release-not-due": ("DUE | floor_released | busy | = | defer_no_interrupt", "DUE | floor_released | busy | = | noop"),
    "mark-late-outside-send": ("* | busy_start | - | = | noop", "* | busy_start | - | = | mark_late"),
    "merge-outside-episode": ("* | busy_start | - | = | noop", "* | busy_start | - | = | merge_gap"),
    "fresh-loss-not-merged": ("DUE | loss_voiced | !dup | = | merge_gap", "DUE | loss_voiced | !dup | = | noop"),
    "allowance-outside-episode-start": ("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | open_gap"),
    "preserve-debt-outside-opening": ("* | busy_start | - | = | noop", "* | busy_start | - | = | preserve_debt"),
    "keep-debt-off-failed-send": ("* | busy_start | - | = | noop", "* | busy_start | - | = | keep_debt"),
    "keep-budget-spent-off-undelivered": ("* | busy_start | - | = | noop", "* | busy_start | - | = | keep_budget_spent"),
    "undelivered-budget-unnamed": ("REQUESTED | request_undelivered | attempts_left,candidate_active | OPEN | keep_budget_spent,supersede", "REQUESTED | request_undelivered | attempts_left,candidate_active | OPEN | supersede,supersede"),
    "unsettled-before-end": ("DUE | busy_end | !budget_left | CLEAR | unrepaired_budget", "DUE | busy_end | !budget_left | CLEAR | end_unsettled"),
}


def test_every_rule_has_a_variant_that_breaks_it():
    assert set(RULE_VARIANTS) == {rule.id for rule in RULES}


# One rule of each family (caps, sending, an exit, an invalid row) fast; every rule under `pytest -m slow`.
@pytest.mark.parametrize("rule", slow_but(sorted(RULE_VARIANTS), "cap-exceeded", "send-while-busy", "exit-unnamed", "result-without-send", "possible-event-refused", "evidence-mislabelled", "supersede-without-speech"))
def test_a_broken_rule_is_reported_with_a_trace_that_replays_to_it(rule):
    old, new = RULE_VARIANTS[rule]
    text = variant(old, new)
    spec = parse_spec(text, "spec.md")
    result = gapstate.check(spec)
    findings = [f for f in result.findings if f.kind == "rule" and f.rule == rule]
    assert findings, labels(text)
    for finding in findings:
        if finding.line != line_of(text, new):  # a state's meaning broken, it stays broken on the rows past it
            assert result.root_of(finding) is not None, finding.message
            continue
        assert "another rule first" not in finding.message
        trace = finding.to_dict()["trace"]
        replayed = gapstate.replay(spec, trace)
        assert replayed.error is not None
        assert replayed.error.index == len(trace) - 1
        if INVALID in RULES_BY_ID[rule].on:  # a refusal: the replay is refused at the event the rule says can happen
            assert replayed.error.kind == "invalid_event"
        else:
            assert replayed.error.kind == "rule"
            assert rule in replayed.error.message
            assert replayed.steps[-1].row == finding.line
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


def _checked_on_every_step(text: str) -> dict[str, int]:
    """Per rule, the reachable steps it is checked on, counted one configuration at a time."""
    from gapstate.proof.explore import explore
    from gapstate.run.machine import Machine
    from gapstate.table.vocabulary import EVENTS

    table = parse_spec(text, "spec.md").table
    machine = Machine(table)
    counts = dict.fromkeys((rule.id for rule in RULES), 0)
    for config in explore(machine).configs():
        if config.ended or not machine.within_caps(config):
            continue
        for event in EVENTS:
            for choice in machine.choices(config, event):
                row = machine.step(config, event, choice).row
                for rule in RULES:
                    if row is not None and rule.concerns(row.event, row.actions):
                        counts[rule.id] += 1
    return counts


@pytest.mark.parametrize("cap", ["@cap session_requests 3", "@cap session_requests 12"])
def test_check_counts_the_reachable_steps_each_rule_is_tested_on(cap):
    # 12 requests a session fold configurations into classes: the counts are still one a configuration
    text = variant("@cap session_requests 3", cap)
    result = check_text(text)
    assert list(result.tested) == [rule.id for rule in RULES]
    assert result.tested == _checked_on_every_step(text)
    assert all(result.tested.values()) and not result.untested()


def test_a_rule_no_row_concerns_is_tested_on_no_step():
    text = variant("REQUESTED | evidence_turn | post_send | CLEAR | settle", "REQUESTED | evidence_turn | post_send | CLEAR | end_unsettled")
    result = check_text(text)
    assert result.tested["settle-without-evidence"] == 0
    assert "settle-without-evidence" in result.untested()
    assert {"rule": "settle-without-evidence", "tested": 0} in result.to_dict()["rules"]
