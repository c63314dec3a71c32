"""gapstate/table/load.py: the names a table may use and its caps, checked before the proof (unknown_name, bad_cap)."""

from __future__ import annotations

import pytest

import gapstate
from gapstate.table.load import parse_spec

from .support import SPEC_TEXT, assert_findings, check_text, line_of, variant


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


@pytest.mark.slow  # proves the table at 400 requests (about 32,000 configurations): about 0.8 s of CPU
def test_any_positive_cap_is_accepted_and_explored():
    """`@cap COUNTER N` takes any positive N; more budget, more configurations."""
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
        ("@cap session_requests " + "9" * 1001, "more than 1000 digits"),
        ("@cap session_requests " + "9" * 5000, "more than 1000 digits"),  # past the digits Python converts
    ],
    ids=["unknown", "zero", "negative", "1001 digits", "5000 digits"],
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


def test_a_name_neither_in_the_vocabulary_nor_entered_stays_unknown():
    old = "REQUESTED | busy_end | - | = | noop"
    text = variant(old, old.replace("REQUESTED", "WAITING"))
    [finding] = check_text(text).findings
    assert (finding.kind, finding.name) == ("unknown_name", "WAITING")


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


_ROW = "CLEAR | busy_end | - | = | noop"


def test_an_action_close_to_one_in_other_words_is_an_unknown_name_naming_it():
    new = "CLEAR | busy_end | - | = | record_commit"
    text = variant(_ROW, new)
    [finding] = check_text(text).findings
    assert finding.kind == "unknown_name"
    assert (finding.line, finding.column) == (line_of(text, new), new.index("record_commit") + 1)
    assert finding.to_dict()["suggestion"] == "commit_request"


def test_a_label_declared_with_at_label_passes():
    text = variant(_ROW, "@label record_commit\nCLEAR | busy_end | - | = | record_commit")
    assert check_text(text).ok


@pytest.mark.parametrize("labels", ["@label commit_request", "@label log_idle\n@label log_idle"])
def test_a_label_of_a_vocabulary_action_or_declared_twice_is_a_finding_at_its_line(labels):
    text = variant(_ROW, f"{labels}\n{_ROW}")
    [finding] = check_text(text).findings
    assert finding.line == line_of(text, _ROW) - 1


def test_the_bundled_spec_is_named_as_the_commands_name_it_not_by_its_path():
    import gapstate
    from gapstate.table.load import BUNDLED_NAME

    assert gapstate.load_spec(None).path == BUNDLED_NAME
    result = gapstate.conform(_Never(), examples=0)
    assert gapstate.conform_report(result).splitlines()[-1].startswith(f"gapstate conform: {BUNDLED_NAME}: ")


class _Never:
    """Answers every event as if nothing happened: conform stops at the first vector."""

    def reset(self):
        pass

    def step(self, event):
        return {"state": "CLEAR", "actions": ["noop"]}
