"""Redrawing a spec's marked diagram block in its file: for `graph --update` and `check --fix`.

Shared by the two commands, so neither command module imports the other.
"""

from __future__ import annotations

from gapstate.cli.output import escape
from gapstate.errors import GapstateError


def update_diagram(path: str, drawn: str, read: bytes) -> bool:
    """Rewrite the marked block of the spec at `path`, keeping every other byte (a BOM included); True if it changed.

    `drawn` was drawn from the spec's bytes `read`: if the file no longer
    holds them (changed, removed or replaced since), nothing is written, as
    the diagram would be of another table; that is checked once more once
    the new bytes are on disk, just before they replace the file.
    """
    import codecs

    from gapstate.files.writer import unchanged, write_atomically
    from gapstate.table.diagram import UnclosedBlock, update

    unchanged(path, read)  # before the work, and again just before the rename
    data = read
    bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
    text = data[len(bom) :].decode("utf-8")  # load_spec already read it as UTF-8
    try:
        new = update(text, drawn)
    except UnclosedBlock as error:
        raise GapstateError(str(error), file=path, line=error.line) from None
    if new == text:
        return False
    write_atomically(path, bom + new.encode("utf-8"), expected=read)
    return True


def diagram_words(path: str, changed: bool) -> str:
    """What `update_diagram` did to the spec at `path`, for the summary line or a note."""
    return f"{escape(path)}: {'diagram updated' if changed else 'the diagram is current'}"
