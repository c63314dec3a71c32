"""gapstate/pages.py: every command's reference page is installed, and its help and SARIF point to it."""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from gapstate import pages
from gapstate.cli import main

from .support import ROOT

DOCS = sorted((ROOT / "docs").glob("*.md"))


def test_every_command_names_its_installed_page_in_its_help():
    installed = {path.name for path in DOCS}
    names = main.list_commands(click.Context(main))
    assert names == sorted(pages.PAGES)
    for command in [None, *names]:
        argv = ["--help"] if command is None else [command, "--help"]
        page = pages.PAGES.get(command or "", pages.SHARED)
        assert f"{page}.md" in installed
        help_text = CliRunner().invoke(main, argv).stdout
        assert f"Reference: {pages.name(page)}, installed at\n    {pages.path(page)}\n" in help_text
        with open(pages.path(page), encoding="utf-8") as handle:
            assert handle.read() == (ROOT / pages.name(page)).read_text(encoding="utf-8")


def test_a_uri_is_the_installed_page_absolute_with_its_anchor():
    uri = pages.uri(pages.FINDINGS, "not_total")
    assert uri == Path(pages.path(pages.FINDINGS)).as_uri() + "#not_total"
    assert uri.startswith("file:///") and "## `not_total`" in Path(pages.path(pages.FINDINGS)).read_text(encoding="utf-8")
