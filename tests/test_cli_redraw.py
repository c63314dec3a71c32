"""Rewriting a spec's marked diagram block in its file (`graph --update`, `check --fix`)."""

from __future__ import annotations

import codecs

import pytest

import gapstate
from gapstate.cli.redraw import diagram_words, update_diagram
from gapstate.errors import GapstateError
from gapstate.table.diagram import MARKER, build, mermaid

from .support import SPEC_TEXT, without_diagram

DRAWN = mermaid(build(gapstate.load_spec(SPEC_TEXT).table))


def test_a_stale_block_is_redrawn_and_every_other_byte_kept(tmp_path):
    path = tmp_path / "spec.md"
    stale = codecs.BOM_UTF8 + (without_diagram(SPEC_TEXT) + f"\n{MARKER}\n```mermaid\nflowchart LR\n```\ntail\n").encode()
    path.write_bytes(stale)
    assert update_diagram(str(path), DRAWN, stale) is True
    data = path.read_bytes()
    assert data.startswith(codecs.BOM_UTF8) and data.endswith(f"```mermaid\n{DRAWN}```\ntail\n".encode())
    assert update_diagram(str(path), DRAWN, data) is False  # now current: nothing written
    assert path.read_bytes() == data


def test_a_file_changed_since_it_was_read_is_left_alone(tmp_path):
    path = tmp_path / "spec.md"
    path.write_text(SPEC_TEXT + "\nedited\n", encoding="utf-8")
    with pytest.raises(GapstateError, match="changed while gapstate was reading it"):
        update_diagram(str(path), DRAWN, SPEC_TEXT.encode())
    assert path.read_text(encoding="utf-8").endswith("edited\n")


def test_the_words_say_what_was_done_and_escape_the_path():
    assert diagram_words("a.md", True) == "a.md: diagram updated"
    assert diagram_words("a\nb.md", False) == "a\\nb.md: the diagram is current"
