"""docs/security.md: the limits and the escape it states are the ones the code has."""

from __future__ import annotations

from gapstate.cli.output import escape
from gapstate.files.source import MAX_LINE
from gapstate.run.event import LATEST
from gapstate.table.model import MAX_CAP_DIGITS

from .support import ROOT

PAGE = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")


def test_the_limits_the_page_states_are_the_code_s():
    assert MAX_LINE == 1 << 20 and f"1 MiB ({MAX_LINE:,} bytes)" in PAGE
    assert f"`@cap` of more than {MAX_CAP_DIGITS}\n  digits" in PAGE
    assert LATEST == 2**63 - 1 and "at\n  most 2^63 - 1 ms" in PAGE


def test_the_escaped_id_the_page_shows_is_what_gapstate_prints():
    assert f"`{escape('a' + chr(0x1B) + ']0;x' + chr(7) + chr(13) + chr(10) + '::error::pwned')}`" in PAGE


def test_the_page_names_the_prctl_option_the_reaper_sets():
    from gapstate.conformance import reaper

    assert reaper._SET_SUBREAPER == 36 and "`prctl(PR_SET_CHILD_SUBREAPER)`" in PAGE
    assert "is not tracked" not in PAGE


def test_the_page_states_the_cr_rule_text_lines_follows():
    from gapstate.files.source import text_lines

    assert "holds CRs and no\n  LF at all has lines ended by CR" in PAGE
    assert text_lines("a\rb\r") == ["a", "b"] and text_lines("a\rb\n") == ["a\rb"]
    assert "(LF, CRLF, or CR in a file with no LF)" in PAGE
