"""docs/diff.md: every example change prints the lines the page shows."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from gapstate.cli import main
from gapstate.review.diff import KINDS

from .support import ROOT, SPEC_TEXT

PAGE = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r"## `(\w+)`.*?```diff\n(.*?)```\n\n```text\n(.*?)```", PAGE, flags=re.S)


def apply(diff: str) -> str:
    """The bundled spec with the `-` lines of its table removed and the `+` lines put where the first was."""
    removed = [line[1:] for line in diff.splitlines() if line.startswith("-")]
    added = [line[1:] for line in diff.splitlines() if line.startswith("+")]
    lines = SPEC_TEXT.splitlines()
    header = lines.index("# state | event | guards | next | actions")
    at = [header + lines[header:].index(line) for line in removed]
    kept = [line for i, line in enumerate(lines) if i not in at]
    first = at[0] - sum(1 for i in at if i < at[0])
    return "\n".join(kept[:first] + added + kept[first:]) + "\n"


def test_every_change_kind_has_an_example():
    assert sorted(kind for kind, _, _ in EXAMPLES) == sorted(KINDS)


@pytest.mark.parametrize("kind, diff, shown", EXAMPLES, ids=[k for k, _, _ in EXAMPLES])
def test_the_example_prints_what_the_page_shows(tmp_path, monkeypatch, kind, diff, shown):
    (tmp_path / "old.md").write_text(SPEC_TEXT, encoding="utf-8")
    (tmp_path / "new.md").write_text(apply(diff), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["diff", "old.md", "new.md"])
    assert result.exit_code == 1, result.output
    output = result.stdout.splitlines()
    for line in shown.splitlines():
        assert line in output
    assert any(line.startswith(kind + ":") for line in shown.splitlines())
