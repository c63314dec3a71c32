"""docs/classify.md: it names every field, condition and verdict, and its error examples print what it shows.

Its console examples are run by tests/test_docs.py; the error examples go to
stderr, which that test does not read, so they are run here.
"""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from gapstate.attribution.conditions import ARM_VERDICTS, CONDITIONS, OVERALL_VERDICTS, TURN_VERDICTS
from gapstate.attribution.report import META
from gapstate.attribution.validation import _ARM_FIELDS, _INTERVAL_FIELDS, _LINE_FIELDS, _TOP_FIELDS, _TURN_FIELDS
from gapstate.cli import main

from .support import ROOT

PAGE = (ROOT / "docs" / "classify.md").read_text(encoding="utf-8")
EXAMPLE = (ROOT / "spec" / "classify-example.json").read_text(encoding="utf-8")


def test_the_page_names_every_field_condition_and_verdict():
    names = {*_TOP_FIELDS, *_ARM_FIELDS, *_TURN_FIELDS, *_INTERVAL_FIELDS, *_LINE_FIELDS, META,
             *CONDITIONS, *TURN_VERDICTS, *ARM_VERDICTS, *OVERALL_VERDICTS}
    assert {name for name in names if f"`{name}`" not in PAGE and f'"{name}"' not in PAGE} == set()


def stderr_block(after: str) -> list[str]:
    """The indented block that follows `after` on the page, as lines."""
    tail = PAGE[PAGE.index(after) + len(after):]
    block = re.search(r"\n\n((?:    [^\n]*\n)+)", tail)
    assert block, after
    return [line[4:] for line in block.group(1).splitlines()]


def test_the_not_a_repeat_example_prints_what_the_page_shows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.json").write_text(EXAMPLE, encoding="utf-8")
    (tmp_path / "b.json").write_text(EXAMPLE.replace('"stall-5s"', '"stall-9s"'), encoding="utf-8")
    [command, *shown] = stderr_block("renamed `stall-9s`:")
    result = CliRunner().invoke(main, command.split()[2:])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == shown


def test_the_unusable_report_example_prints_what_the_page_shows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = "\n".join(stderr_block("For this `report.json`:")) + "\n"
    json.loads(text)
    (tmp_path / "report.json").write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["classify", "report.json"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == stderr_block("stderr says:")
