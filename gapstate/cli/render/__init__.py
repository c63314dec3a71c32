"""Text for people and JSON for programs, from the result objects alone.

Nothing here decides anything: each function takes a result the core
returned and gives back a string, so the CLI only prints it.
"""

from __future__ import annotations

import json
from typing import Any, Iterator


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


def trace_lines(trace: Any) -> list[str]:
    """A trace as JSON Lines, the format `gapstate replay` reads."""
    return [json.dumps(event) for event in trace]


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def nth(index: int) -> str:
    """A 0-based index as people count: 0 is '1st', 10 is '11th' (the JSON keeps the index)."""
    n = index + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
