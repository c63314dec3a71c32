"""Pointing a report's problems at its text: the line and column of each JSON path.

`json` forgets positions, so the text is walked once more to find where each
value starts; a problem's line is then found by bisecting the line starts,
so pointing p problems into n characters costs about n + p log n.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from json.decoder import scanstring
from typing import Iterable

from gapstate import errors
from gapstate.attribution.validation import Path, Problem, format_path

# How many problems the command shows; the rest are counted, never listed, so
# that a report broken in a million places still answers at once.
SHOWN = 1000


def locate(text: str) -> dict[Path, int]:
    """The offset where each value of a valid JSON document starts, keyed by its path.

    For a duplicated key the last one wins, as in `json.loads`. Returns what
    it found so far if the text is not valid JSON.
    """
    found: dict[Path, int] = {}
    scalar = json.JSONDecoder().raw_decode
    space = re.compile(r"[ \t\n\r]*")

    def skip(i: int) -> int:
        return space.match(text, i).end()  # type: ignore[union-attr]

    def value(i: int, path: Path) -> int:
        i = skip(i)
        found[path] = i
        opener = text[i]
        if opener not in "{[":
            return scalar(text, i)[1]
        closer = "}" if opener == "{" else "]"
        i = skip(i + 1)
        index = 0
        while text[i] != closer:
            if opener == "{":
                key, i = scanstring(text, i + 1)
                i = skip(i) + 1  # past ':'
                i = value(i, path + (key,))
            else:
                i = value(i, path + (index,))
                index += 1
            i = skip(i)
            if text[i] == ",":
                i = skip(i + 1)
        return i + 1

    try:
        value(0, ())
    except (ValueError, IndexError, RecursionError):
        pass
    return found


class Lines:
    """Where each line of a text starts, found once, so that a position costs a bisection."""

    def __init__(self, text: str):
        self.starts = [0] + [match.end() for match in re.finditer("\n", text)]

    def at(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def position(text: str, offsets: dict[Path, int], path: Path, lines: Lines | None = None) -> tuple[int, int]:
    """1-based line and column of the value at `path`, or of its nearest enclosing value (a missing field points at its object)."""
    while path and path not in offsets:
        path = path[:-1]
    return (lines or Lines(text)).at(offsets.get(path, 0))


def problem_lines(text: str, problems: Iterable[Problem], limit: int | None = None) -> tuple[errors.Problem, ...]:
    """Each problem at the line and column it concerns in `text`, in the order of the text; the first `limit` only.

    They come back as the error record every command shows: line, column, JSON path, message.
    """
    offsets = locate(text)
    lines = Lines(text)
    placed = sorted((position(text, offsets, problem.path, lines), index, problem)
                    for index, problem in enumerate(problems))
    return tuple(errors.Problem(problem.expected, *at, path=format_path(problem.path)) for at, _, problem in placed[:limit])
