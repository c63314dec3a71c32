"""docs/findings.md: every example diff produces the message the page shows."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from gapstate.cli import main
from gapstate.findings import KINDS

from .support import ROOT, SPEC_TEXT

PAGE = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
# Every (diff, text) pair of the page, under the heading it belongs to: a
# finding kind (`## `kind``) or a rule (`### `rule-id``, under `## `rule``).
EXAMPLES = [
    (name, diff, shown)
    for name, body in re.findall(r"^#{2,3} `([\w-]+)`\n(.*?)(?=^#{2,3} `|\Z)", PAGE, flags=re.S | re.M)
    for diff, shown in re.findall(r"```diff\n(.*?)```\n\n```text\n(.*?)```", body, flags=re.S)
]


def apply(diff: str) -> str:
    """The bundled spec with each `-` line of the diff replaced by the `+` lines after it."""
    hunks: list[tuple[str, list[str]]] = []
    for line in diff.splitlines():
        if line.startswith("-"):
            hunks.append((line[1:], []))
        elif line.startswith("+"):
            assert hunks, "a diff of the page starts with the line it replaces"
            hunks[-1][1].append(line[1:])
    lines = SPEC_TEXT.splitlines()
    for removed, added in hunks:
        index = lines.index(removed)
        lines[index : index + 1] = added
    return "\n".join(lines) + "\n"


def test_apply_replaces_each_removed_line_by_the_lines_added_after_it():
    first, second = SPEC_TEXT.splitlines()[170:172]
    changed = apply(f"-{first}\n+one\n+two\n-{second}\n+three\n").splitlines()
    assert changed[170:173] == ["one", "two", "three"] and len(changed) == len(SPEC_TEXT.splitlines()) + 1


# Kinds whose example needs files beside the spec (settings, a generated file): a console example in
# their section, run by tests/test_docs.py in a folder holding the files the page writes.
CONSOLE_SHOWN = {
    name for name, body in re.findall(r"^## `([\w-]+)`\n(.*?)(?=^## |\Z)", PAGE, flags=re.S | re.M) if "```console\n" in body
}


def test_every_finding_kind_has_an_example():
    assert {kind for kind, _, _ in EXAMPLES} | CONSOLE_SHOWN >= set(KINDS)
    assert CONSOLE_SHOWN == {"stale_generated"}


@pytest.mark.parametrize("kind, diff, shown", EXAMPLES, ids=[k for k, _, _ in EXAMPLES])
def test_the_example_prints_what_the_page_shows(tmp_path, kind, diff, shown):
    spec = tmp_path / "spec" / "gap-state.md"
    spec.parent.mkdir()
    spec.write_text(apply(diff), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        result = CliRunner().invoke(main, ["check", "--spec", "spec/gap-state.md"])
    assert result.exit_code == 1
    output = result.stdout.splitlines()
    for line in shown.splitlines():
        assert line in output
    first = shown.splitlines()[0].split(": ")
    assert first[1] == kind if kind in KINDS else first[1:3] == ["rule", kind]
