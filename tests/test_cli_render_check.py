"""gapstate/cli/render/check.py: each finding quoting its line, what follows from it under it, the verdict and the summary line."""

from __future__ import annotations

import dataclasses

import gapstate
from gapstate.cli.render.check import check_summary, check_text, check_verdict

from .support import DEFECTIVE, ROOT, unwrapped, variant

TYPO = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | buzy | DUE | defer_no_interrupt")


def _checked(path_or_text):
    return gapstate.check(gapstate.load_spec(path_or_text))


def test_a_root_finding_quotes_its_line_shows_its_trace_and_lists_what_follows_from_it_under_it():
    lines = unwrapped(check_text(_checked(ROOT / DEFECTIVE)))
    at = next(i for i, line in enumerate(lines) if ": rule: send-while-busy: " in line)
    assert lines[at].endswith(f"{DEFECTIVE}:196:1: rule: send-while-busy: sends a request while the interviewer is busy (shortest trace: 3 events)")
    assert lines[at + 1:at + 3] == ["  196 | OPEN | floor_released | busy | SENDING | send_request", "      | ^"]
    assert lines[at + 3] == '    {"event": "loss_voiced", "t": 100, "id": "iv-1"}'  # the trace, paste-ready
    assert lines[at + 6] == "  4 findings follow from it:"  # busy-release-not-due on the same step among them
    following = lines[at + 7:at + 11]
    assert all(line.startswith(f"    {ROOT / DEFECTIVE}:") for line in following)
    assert not any(line.lstrip().startswith("|") for line in following)  # the root is what to fix: no quote


def test_the_caret_stands_under_the_column_of_the_finding():
    assert check_text(_checked(TYPO)).split("\n") == [
        "<text>:195:25: unknown_name: unknown guard 'buzy'; did you mean 'busy'?",
        "  195 | OPEN | floor_released | buzy | DUE | defer_no_interrupt",
        "      |                         ^",
    ]


def test_a_sound_spec_has_no_text_and_its_verdict_counts_what_the_proof_read_and_says_it_is_bundled():
    result = _checked(None)
    assert check_text(result) == ""
    verdict = check_verdict(result, bundled=True)
    assert verdict.endswith(" (the bundled spec): ok (67 rows, 284 configurations)")
    assert "(the bundled spec)" not in check_verdict(result)


def test_when_the_proof_did_not_run_the_verdict_says_what_was_read_and_why():
    assert check_verdict(_checked(TYPO)) == (
        "<text>: 1 finding (read 67 rows, 2 caps, 3 allowances; not proved until fixed)"
    )


def test_the_verdict_counts_roots_and_what_follows_from_them():
    assert ": 7 findings: 3 to fix, 4 follow from them (" in check_verdict(_checked(ROOT / DEFECTIVE))


def test_the_summary_of_several_specs_counts_each_outcome_and_escapes_a_single_spec_s_name():
    sound, typo = _checked(None), _checked(TYPO)
    assert check_summary([(False, typo), (True, sound), (False, gapstate.GapstateError("gone"))]) == (
        "gapstate check: 3 specs: 1 ok, 1 with findings, 1 unusable"
    )
    assert check_summary([(False, sound), (False, typo)]) == "gapstate check: 2 specs: 1 ok, 1 with findings"
    renamed = dataclasses.replace(sound, spec="a\x1b.md")
    assert check_summary([(False, renamed)]).startswith("gapstate check: a\\x1b.md: ok (")
