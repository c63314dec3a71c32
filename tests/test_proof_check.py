"""gapstate/proof/check.py: the result of a check: the bundled spec is clean, the result reads like the JSON, findings come in line order (each kind has its own module's tests)."""

from __future__ import annotations

import gapstate

from .support import SPEC_TEXT, check_text, variant


def test_bundled_spec_checks_clean():
    result = gapstate.check()
    assert result.ok, [f.to_dict() for f in result.findings]
    assert result.stats["states"] == 5
    assert result.stats["events"] == 12
    assert result.stats["rows"] == 67
    assert result.stats["unreachable_allowed"] == 3
    assert result.stats["configurations"] > 5


def test_a_table_whose_first_row_is_another_state_s_still_starts_in_clear_and_checks_clean():
    """Moving OPEN's row above the `*` rows is no change: the rules still read CLEAR as the no-gap state."""
    moved, first = "OPEN | loss_voiced | dup | = | note_dup", "* | loss_silent | - | = | note_trim"
    text = variant(moved, "").replace(first, f"{moved}\n{first}")
    assert text.index(moved) < text.index("CLEAR | loss_voiced")
    assert check_text(text).findings == ()


def test_moving_a_row_that_shares_an_arrow_above_the_star_rows_keeps_the_diagram_fresh():
    """`OPEN | session_end` is drawn on one arrow with a write-off; written first, the drawing is still the table's."""
    moved, first = "OPEN | session_end | - | CLEAR | end_unsettled", "* | loss_silent | - | = | note_trim"
    text = SPEC_TEXT.replace(f"{moved}\n", "").replace(first, f"{moved}\n{first}")
    assert text.index(moved) < text.index(first) and "<!-- gapstate:graph -->" in text
    assert check_text(text).findings == ()


def test_result_reads_like_the_json_output():
    result = gapstate.check()
    document = result.to_dict()
    assert document == {
        "ok": True,
        "spec": result.spec,
        "stats": result.stats,
        "rules": [{"rule": rule, "tested": steps} for rule, steps in result.tested.items()],
        "bounds": result.progress.to_dict(),
        "findings": [],
    }
    assert result["ok"] is True


def test_findings_come_in_line_order():
    text = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")
    text = variant("CLEAR | busy_end | - | = | noop", "", text)
    lines = [f.line for f in check_text(text).findings]
    assert lines == sorted(lines)


def test_findings_only_gives_the_same_findings_without_their_causes_or_the_bounds():
    from gapstate.proof.check import check

    spec = gapstate.load_spec(variant("OPEN | floor_released | busy | DUE | defer_no_interrupt",
                                      "OPEN | floor_released | busy | SENDING | send_request"))
    full, bare = check(spec), check(spec, findings_only=True)
    assert full.findings and sorted(f.kind for f in bare.findings) == sorted(f.kind for f in full.findings)
    assert full.causes and not bare.causes and not bare.tested and bare.progress.bounds == ()
