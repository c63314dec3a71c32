"""Text for people and JSON for programs, from the result objects alone.

Nothing here decides anything: each function takes a result the core
returned and gives back a string, so the CLI only prints it.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from gapstate.words import nth, plural, trace_lines

__all__ = ["json_chunks", "nth", "plural", "to_json", "trace_lines"]


def to_json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2)


def json_chunks(document: dict[str, Any]) -> Iterator[str]:
    """`to_json`'s text in pieces of about 64 KiB, for a document too big to build whole.

    With `indent`, json encodes in Python, a few characters a piece, and
    `dumps` keeps every piece until it joins them: ten times the document
    (190 MB for check's 15 MB document of a 10,000-row table's findings).
    """
    pieces: list[str] = []
    size = 0
    for piece in json.JSONEncoder(indent=2).iterencode(document):
        pieces.append(piece)
        size += len(piece)
        if size >= 1 << 16:
            yield "".join(pieces)
            pieces, size = [], 0
    yield "".join(pieces)
