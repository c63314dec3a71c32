"""gapstate.proof.causes: one mistake, one root finding; the rest name it as their cause; why a row never fires."""

from __future__ import annotations

import json

import pytest

from .support import check_text, line_of, run, variant

COMMIT = "SENDING | send_ok | !late_loss | REQUESTED | commit_request"


def test_a_deleted_row_is_one_root_hole_and_what_it_cuts_off_follows_from_it():
    text = variant(COMMIT, "")
    result = check_text(text)
    findings = result.findings
    assert len(findings) > 10  # the hole, and every REQUESTED row it cuts off
    [hole] = result.roots()
    assert (hole.kind, hole.state, hole.event, dict(hole.cube)) == ("not_total", "SENDING", "send_ok", {"late_loss": False})
    assert all(result.root_of(f) is hole for f in findings if f is not hole)
    cut_off = [f for f in findings if f.kind == "unreachable"]
    assert cut_off and all("remove" not in result.message(f) and "mend that, not this row" in result.message(f) for f in cut_off)


def test_json_gives_every_finding_a_cause_null_for_a_root_and_the_hole_for_a_consequence(tmp_path):
    spec = tmp_path / "spec.md"
    spec.write_text(variant(COMMIT, ""), encoding="utf-8")
    findings = json.loads(run("check", str(spec), "--format", "json").stdout)["findings"]
    assert all("cause" in f for f in findings)
    [root] = [f for f in findings if f["cause"] is None]
    hole = {"kind": "not_total", "line": root["line"], "state": "SENDING", "event": "send_ok", "guards": "!late_loss"}
    assert all(f["cause"] == hole for f in findings if f is not root)


def test_text_shows_the_consequences_under_their_root_and_counts_the_roots(tmp_path):
    spec = tmp_path / "spec.md"
    spec.write_text(variant(COMMIT, ""), encoding="utf-8")
    result = run("check", str(spec))
    lines = result.stdout.splitlines()
    top = [line for line in lines if line.startswith(f"{spec}:") and ": note: " not in line]
    assert len(top) == 1 and ": not_total: " in top[0]
    follow = [line for line in lines if line.startswith(f"    {spec}:")]
    assert follow and all(": unreachable: " in line for line in follow)
    assert f"findings: 1 to fix, {len(follow)} follow from it" in result.stderr.splitlines()[-1]


def test_a_wildcard_row_deleted_is_one_hole_with_the_wildcard_row_to_add():
    result = check_text(variant("* | busy_start | - | = | noop", ""))
    [hole] = result.roots()
    assert (hole.kind, hole.state, hole.event) == ("not_total", "*", "busy_start")
    assert "add the row `* | busy_start | - | ? | ?`" in hole.message


def test_a_negated_guard_is_one_root_overlap_at_that_row_and_the_hole_it_left_follows():
    old = "OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request"
    text = variant(old, old.replace("!busy", "busy"))
    result = check_text(text)
    findings = result.findings
    [root] = result.roots()
    assert (root.kind, root.line) == ("ambiguous", line_of(text, "OPEN | floor_released | busy,budget_left"))
    assert [f.kind for f in findings if result.root_of(f) is root] == ["not_total"]


def test_a_dropped_guard_is_reported_at_the_widened_row():
    old = "OPEN | floor_released | busy | DUE | defer_no_interrupt"
    text = variant(old, "OPEN | floor_released | - | DUE | defer_no_interrupt")
    result = check_text(text)
    findings = result.findings
    [root] = result.roots()
    assert root.line == line_of(text, "OPEN | floor_released | - |")
    assert root.kind == "ambiguous"
    # the widened row also defers on an idle release (defer-while-idle): at the same row, under the overlap
    assert all(f.line == root.line and f.kind in ("ambiguous", "rule") for f in findings)


def test_a_rule_broken_only_past_another_breach_follows_from_it():
    # sending while busy at 195 lets the episode run on to spend more than the session cap allows
    text = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")
    result = check_text(text)
    findings = result.findings
    [root] = result.roots()
    assert (root.kind, root.rule) == ("rule", "send-while-busy")
    assert {f.rule for f in findings if result.root_of(f) is not None} >= {"cap-exceeded"}


def test_an_allowance_of_a_deleted_row_follows_from_the_hole_it_left():
    text = variant("DUE | busy_end | budget_left,!attempts_left | CLEAR | unrepaired_attempts", "")
    result = check_text(text)
    findings = result.findings
    [root] = result.roots()
    assert root.kind == "not_total"
    assert [f.kind for f in findings if result.root_of(f) is not None] == ["stale_allowance"]


# why a row is unreachable ---------------------------------------------------------


def test_an_unreachable_row_names_the_valuations_that_do_occur():
    text = variant("@unreachable DUE | busy_end | budget_left,!attempts_left", "")
    [finding] = check_text(text).findings
    assert "`!attempts_left` never holds on busy_end" in finding.message
    assert "the valuations that occur there: `!budget_left,attempts_left`, `budget_left,attempts_left`" in finding.message
    assert "allow it with @unreachable" in finding.message  # a root keeps its advice


@pytest.mark.parametrize(
    "old, new, reason",
    [
        (COMMIT, COMMIT.replace("REQUESTED | commit", "DUE | commit"), "no row leads to REQUESTED"),
        (
            "REQUESTED | loss_voiced | dup | = | note_dup",
            "REQUESTED | loss_voiced | dup | = | note_dup\nREQUESTED | loss_voiced | - | = | note_dup",
            None,
        ),
    ],
)
def test_an_unreachable_row_says_why(old, new, reason):
    result = check_text(variant(old, new))
    findings = result.findings
    unreachable = [f for f in findings if f.kind == "unreachable"]
    if reason is not None:
        assert unreachable and all(reason in f.message for f in unreachable)
    else:  # an overlap whose later row is taken is the overlap's finding, not also an unreachable one
        assert not unreachable and [f.kind for f in result.roots()] == ["ambiguous"]


# one-row mistakes, as bench/mutants.py makes them -----------------------------


def test_the_swapped_send_ok_outcomes_break_the_rules_the_prose_states():
    late = "SENDING | send_ok | late_loss | OPEN | commit_request,reopen_gap"
    plain = "SENDING | send_ok | !late_loss | REQUESTED | commit_request"
    text = variant(late, "SENDING | send_ok | late_loss | REQUESTED | commit_request")
    text = variant(plain, "SENDING | send_ok | !late_loss | OPEN | commit_request,reopen_gap", text)
    broken = {(f.rule, f.line) for f in check_text(text).findings if f.kind == "rule"}
    assert ("late-loss-commit-awaits", line_of(text, "late_loss | REQUESTED")) in broken
    assert ("commit-does-not-await", line_of(text, "!late_loss | OPEN")) in broken


def _sample(kinds, every):
    from bench.mutants import mutants

    return [m for i, m in enumerate(m for m in mutants() if m.kind in kinds) if i % every == 0]


SAMPLE = _sample(("deleted", "guard_negated"), 17)


@pytest.mark.parametrize("mutant", SAMPLE, ids=[f"{m.kind}@{m.line}" for m in SAMPLE])
def test_a_sample_of_one_row_mistakes_each_have_one_root_at_the_mistake(mutant):
    from bench.mutants import Verdict, one_root

    result = check_text(mutant.text)
    findings = result.findings
    assert findings
    assert one_root(Verdict(mutant, True, findings, tuple(result.roots()))), [(f.kind, f.line, result.cause(f)) for f in findings]
    advice = [result.message(f) for f in findings if result.root_of(f) is not None]
    assert not [m for m in advice if "remove" in m or "delete" in m or "keep one" in m], advice


@pytest.mark.slow
def test_every_deleted_row_and_changed_guard_is_killed_with_one_root_at_the_mistake():
    from bench.mutants import run

    verdicts = [v for v in run(only=("deleted", "guard_negated", "guard_dropped")) if v.changes]
    assert verdicts and all(v.killed for v in verdicts)
    from bench.mutants import one_root

    missed = [v.mutant for v in verdicts if not one_root(v)]
    assert len(missed) <= len(verdicts) // 10, missed  # the rest are pairs of rows only behaviour tells apart


def test_past_the_cause_budget_the_findings_not_yet_tried_stay_roots(monkeypatch):
    """The budget bounds the walks; what it cuts short is shown on its own, never hidden under a wrong root."""
    import gapstate
    from gapstate.proof import causes
    from gapstate.proof.check import check

    spec = gapstate.load_spec(variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request"))
    unbounded = check(spec)
    assert unbounded.causes
    monkeypatch.setattr(causes, "CAUSE_BUDGET", -1)
    bounded = check(spec)
    assert [f.kind for f in bounded.findings] == [f.kind for f in unbounded.findings]
    assert all(bounded.root_of(f) is None for f in bounded.findings if f.kind in ("unreachable", "rule"))


# the row most likely mistaken, by the patterns the table keeps elsewhere --------


def test_a_guard_negated_into_a_copy_of_its_neighbour_is_at_the_row_unlike_the_others():
    # `!dup` with note_dup, where every other note_dup row notes a duplicate (`dup`)
    text = variant("OPEN | loss_voiced | dup | = | note_dup", "OPEN | loss_voiced | !dup | = | note_dup")
    [root] = check_text(text).roots()
    assert (root.kind, root.line) == ("ambiguous", line_of(text, "OPEN | loss_voiced | !dup | = | note_dup"))


def test_a_guard_negated_against_every_other_row_with_its_actions_is_at_that_row():
    # a send with no attempt left, where every other send_request row needs `attempts_left`
    old = "DUE | busy_end | budget_left,attempts_left | SENDING | send_request"
    text = variant(old, "DUE | busy_end | budget_left,!attempts_left | SENDING | send_request")
    [root] = check_text(text).roots()
    assert (root.kind, root.line) == ("ambiguous", line_of(text, "budget_left,!attempts_left | SENDING"))


def test_a_dropped_guard_is_at_the_row_its_siblings_in_other_states_do_not_match():
    old = "OPEN | floor_released | !busy,!budget_left | CLEAR | unrepaired_budget"
    text = variant(old, "OPEN | floor_released | !budget_left | CLEAR | unrepaired_budget")
    [root] = check_text(text).roots()
    assert (root.kind, root.line) == ("ambiguous", line_of(text, "OPEN | floor_released | !budget_left |"))


@pytest.mark.parametrize("became", ["!post_send", "-"])
def test_a_guard_changed_beside_a_row_that_refines_its_siblings_is_at_the_changed_row(became):
    # the `!post_send` noop after a request adds a guard to the unguarded noop of
    # evidence_turn in other states: it splits what its own state tells apart, no mistake
    old = "REQUESTED | evidence_turn | post_send | CLEAR | settle"
    text = variant(old, f"REQUESTED | evidence_turn | {became} | CLEAR | settle")
    [root] = check_text(text).roots()
    assert (root.kind, root.line) == ("ambiguous", line_of(text, f"REQUESTED | evidence_turn | {became} | CLEAR"))


def test_a_dropped_guard_is_at_the_row_an_allowance_still_names_as_it_was():
    # both rows have one guard, and one more would part either from the other:
    # the `@unreachable DUE | busy_end | budget_left,!attempts_left` line tells them apart
    old = "DUE | busy_end | budget_left,!attempts_left | CLEAR | unrepaired_attempts"
    text = variant(old, "DUE | busy_end | !attempts_left | CLEAR | unrepaired_attempts")
    result = check_text(text)
    findings = result.findings
    [root] = result.roots()
    assert (root.kind, root.line) == ("ambiguous", line_of(text, "DUE | busy_end | !attempts_left |"))
    [allowance] = [f for f in findings if f.kind == "stale_allowance"]
    assert result.root_of(allowance) is root


def test_an_allowed_row_that_fires_only_past_a_rule_breaking_row_follows_from_it():
    # CLEAR to OPEN on a release opens no gap: the episode's spent attempts carry into OPEN
    text = variant("CLEAR | floor_released | - | = | noop", "CLEAR | floor_released | - | OPEN | noop")
    result = check_text(text)
    findings = result.findings
    [root] = result.roots()
    assert (root.kind, root.line) == ("rule", line_of(text, "CLEAR | floor_released | - | OPEN"))
    allowances = [f for f in findings if f.kind == "stale_allowance"]
    assert allowances and all(result.root_of(f) is root for f in allowances)
    # under a cause, an allowance is no longer to be removed: mending the root makes it hold again
    assert all("remove" not in result.message(f) and "holds again" in result.message(f) for f in allowances)


def test_an_episode_opened_without_open_gap_is_one_root_and_the_allowed_rows_it_lets_fire_follow():
    # the spent attempts of the last episode carry into the next: the rows allowed for a spent episode fire
    old = "CLEAR | loss_voiced | !dup | OPEN | open_gap,preserve_debt"
    text = variant(old, "CLEAR | loss_voiced | !dup | OPEN | preserve_debt")
    result = check_text(text)
    findings = result.findings
    [root] = result.roots()
    assert (root.kind, root.rule, root.line) == ("rule", "episode-starts-spent", line_of(text, "OPEN | preserve_debt"))
    allowances = [f for f in findings if f.kind == "stale_allowance"]
    assert len(allowances) == 2 and all(result.root_of(f) is root for f in allowances)


def _proof_lines(copies: int) -> int:
    """Lines of gapstate.proof run to check the bundled table with one row written `copies` times (a count, not a time)."""
    import sys

    from gapstate.table.load import parse_spec

    from .support import SPEC_TEXT, without_diagram

    row = "CLEAR | busy_end | - | = | noop"
    spec = parse_spec(without_diagram(SPEC_TEXT).replace(row + "\n", (row + "\n") * copies, 1), "spec.md")
    count = 0

    def local(frame, event, arg):  # noqa: ANN001
        nonlocal count
        count += event == "line"
        return local

    def calls(frame, event, arg):  # noqa: ANN001
        return local if "gapstate/proof/" in frame.f_code.co_filename else None

    import gapstate

    sys.settrace(calls)
    try:
        findings = gapstate.check(spec).findings
    finally:
        sys.settrace(None)
    assert len(findings) == copies - 1  # each copy overlaps the first
    return count


@pytest.mark.slow  # a scaling test: 150 and 300 copies proved, about 0.5 s of CPU
def test_the_causes_of_many_copies_of_one_row_cost_in_proportion_to_them():
    """30,000 copies took over 400 s: each overlap, tried as a root, went over every finding and every row."""
    small, large = _proof_lines(150), _proof_lines(300)
    assert large < 2.3 * small, (small, large)  # twice the copies, about twice the work (1.2 now); the quadratic walk gave 3.3
