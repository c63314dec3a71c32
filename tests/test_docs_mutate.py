"""docs/mutate.md: the page names every kind, option and key the command has (its console examples run in test_docs.py)."""

from __future__ import annotations

import click

from gapstate.cli import main
from gapstate.proof.mutation import KINDS, mutants

from .support import ROOT, SPEC_TEXT

PAGE = (ROOT / "docs" / "mutate.md").read_text(encoding="utf-8")


def test_the_page_names_every_kind_and_option():
    with click.Context(main) as ctx:
        command = main.get_command(ctx, "mutate")
    assert all(f"| `{kind}` |" in PAGE for kind in KINDS)
    options = [name for param in command.params for name in param.opts if name.startswith("--") and name != "--help"]
    assert options and [name for name in options if name not in PAGE] == []


def test_the_json_example_has_the_keys_the_command_writes():
    from gapstate.proof.mutation import MutationResult

    document = MutationResult("spec.md", (), (), ()).to_dict()
    assert all(f'"{key}":' in PAGE for key in document)


def test_the_name_shown_is_a_mutant_of_the_bundled_table():
    names = {m.name for m in mutants(SPEC_TEXT)}
    shown = [line.strip() for line in PAGE.splitlines() if " -> " in line and line.startswith("    REQUESTED")]
    assert shown and set(shown) <= names


def test_the_json_example_is_the_document_the_command_writes_key_for_key():
    import json

    from gapstate.proof.mutation import MutationResult, Survivor, rule_kills

    block = PAGE.split("```json fragment\n", 1)[1].split("```", 1)[0]
    shown = json.loads(block)
    written = MutationResult("spec.md", (), rule_kills(()), (Survivor("a -> b", "deleted", 1, (), (), (), False),)).to_dict()
    assert list(shown) == list(written)
    assert list(shown["survivors"][0]) == list(written["survivors"][0])
    assert shown["rules"][0] == written["rules"][0]  # the checks come in the order the command lists them
