"""`--format github` and `--format sarif`: escaping, golden outputs of a defective spec, the SARIF schema."""

from __future__ import annotations

import json
import os
import re

import pytest

from gapstate.github import command, escape_data, escape_property

from .support import ROOT

DATA = ROOT / "tests" / "data"


def unescape(text: str, prop: bool = False) -> str:
    """What GitHub's runner reads back (actions/runner ActionCommand.UnescapeValue), in its order."""
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else []) + [("%25", "%")]
    for escaped, plain in pairs:
        text = text.replace(escaped, plain)
    return text


def parse(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command split as the runner splits it: level, properties, message."""
    match = re.fullmatch(r"::(\w+)(?: ([^:]*))?::(.*)", line)
    assert match, line
    level, props, message = match.groups()
    properties = dict(p.split("=", 1) for p in props.split(",")) if props else {}
    return level, {k: unescape(v, prop=True) for k, v in properties.items()}, unescape(message)


@pytest.mark.parametrize("text", ["plain", "50% of it", "a\nb\r\nc", "%0A is not a newline", "a:b,c=d", ""])
def test_escaped_messages_and_properties_read_back_unchanged(text):
    assert unescape(escape_data(text)) == text
    assert unescape(escape_property(text), prop=True) == text
    assert "\n" not in escape_data(text) and "\r" not in escape_data(text)
    assert ":" not in escape_property(text) and "," not in escape_property(text)


def test_a_command_with_awkward_properties_parses_back():
    line = command("error", "two\nlines, 100%", file="dir,with:odd/gap-state.md", line=3, col=None, title="rule")
    assert "\n" not in line
    assert parse(line) == ("error", {"file": "dir,with:odd/gap-state.md", "line": "3", "title": "rule"}, "two\nlines, 100%")
