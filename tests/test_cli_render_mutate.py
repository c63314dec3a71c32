"""gapstate/cli/render/mutate.py: the report and summary line of `gapstate mutate`, from results made by hand."""

from __future__ import annotations

from gapstate.cli.render.mutate import mutate_summary, mutate_text
from gapstate.proof.mutation import Difference, MutationResult, Survivor, Verdict, rule_kills
from gapstate.table.vocabulary import Config, Stimulus

ROW = "REQUESTED | loss_voiced | !dup | OPEN | reopen_gap"
BECAME = "REQUESTED | loss_voiced | !dup | OPEN | open_gap"
NAME = f"{ROW} -> {BECAME}"
OPEN = Config(state="OPEN")
STEPS = (Stimulus("loss_voiced", False),)
TRACE = ({"event": "loss_voiced", "t": 100, "id": "iv-1"},)


def _result(spec: str = "spec.md") -> MutationResult:
    verdicts = (
        Verdict("action_replaced", 9, NAME, Difference(STEPS, ("ok", OPEN, ("reopen_gap",)), ("ok", OPEN, ("open_gap",))), frozenset()),
        Verdict("deleted", 9, f"{ROW} -> (deleted)", Difference(STEPS, ("ok", OPEN, ("reopen_gap",)), ("unmatched",)),
                frozenset({"not_total"})),
        Verdict("duplicated", 9, f"{ROW} -> (duplicated)", None, frozenset()),
    )
    survivor = Survivor(NAME, "action_replaced", 9, TRACE, ("ok", OPEN, ("reopen_gap",)), ("ok", OPEN, ("open_gap",)), False)
    return MutationResult(spec, verdicts, rule_kills(verdicts), (survivor,))


def test_the_report_counts_lists_kills_and_idle_checks_and_shows_each_survivor_with_its_trace():
    lines = mutate_text(_result()).splitlines()
    assert lines[0] == "spec.md: 3 mutants, 2 change behaviour, 1 killed by check, 1 survive"
    assert any(line.split() == ["not_total", "1", "(1", "alone)"] for line in lines)
    idle = lines.index(next(line for line in lines if "kill none" in line))
    assert "ambiguous" in lines[idle + 1] and all(len(line) <= 100 for line in lines[idle:])
    at = lines.index("spec.md:9: survivor (action_replaced)")
    assert lines[at + 1 : at + 7] == [
        f"  row:    {ROW}",
        f"  became: {BECAME}",
        "  table:  -> OPEN | reopen_gap",
        "  mutant: -> OPEN | open_gap",
        "  at the last event of:",
        '    {"event": "loss_voiced", "t": 100, "id": "iv-1"}',
    ]


def test_with_a_baseline_only_the_survivors_outside_it_are_shown_and_stale_names_are_noted():
    listed = _result().against([NAME, "CLEAR | busy_end | - | = | noop -> (deleted)"])
    text = mutate_text(listed)
    assert "survivor (" not in text and "1 survivor listed in the baseline; 0 outside it" in text
    assert "note: in the baseline but no survivor here (killed now, or no longer a mutant):\n    `CLEAR | busy_end | - | = | noop -> (deleted)`" in text
    assert mutate_summary(listed).endswith("; every survivor in the baseline")
    assert mutate_summary(_result().against([])).endswith("; 1 outside the baseline")
    assert mutate_summary(_result()) == "gapstate mutate: spec.md: 3 mutants, 2 change behaviour, 1 killed; 1 survivor"


def test_input_in_the_report_is_escaped():
    text = mutate_text(_result("evil\x1b[2J\n.md").against(["X | y | - | = | z -> (deleted)\x07"]))
    assert "\x1b" not in text and "\x07" not in text and "evil\\x1b[2J\\n.md:9: survivor" in text


def test_an_accepted_survivor_is_listed_with_the_reason_the_baseline_gives_escaped():
    text = mutate_text(_result().against({NAME: "both start a fresh allowance\x1b[2J"}))
    lines = text.splitlines()
    at = lines.index("accepted in the baseline, each with why and the shortest trace on which it steps differently:")
    assert lines[at + 1].startswith("  spec.md:9: REQUESTED | loss_voiced")
    assert "    why: both start a fresh allowance\\x1b[2J" in lines and "\x1b" not in text
    assert lines[-4:] == ["    table:  -> OPEN | reopen_gap", "    mutant: -> OPEN | open_gap", "    at the last event of:",
                          '      {"event": "loss_voiced", "t": 100, "id": "iv-1"}']
    unexplained = mutate_text(_result().against([NAME]))
    assert "    why: the baseline gives no reason" in unexplained.splitlines()
