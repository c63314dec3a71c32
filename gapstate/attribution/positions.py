"""Pointing a report's problems at its text: the line and column of each JSON path.

`json` forgets positions, so the text is walked once more to find where the
values on the way to each problem start; every other value is stepped over
without being kept, so the walk holds memory for the problems' paths only,
however large or deep the rest of the report. A problem's line is then found
by counting line ends between the sorted offsets, so pointing p problems
into n characters costs about n + p log p.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from gapstate import errors
from gapstate.attribution.validation import Path, ReportProblem, format_path

# How many problems the command shows; the rest are counted, never listed, so
# that a report broken in a million places still answers at once.
SHOWN = 1000

_KEY = json.JSONDecoder().raw_decode  # a key's text at an offset: (the key, the offset after it)

# Inside a value being stepped over, what matters: a string (whose brackets do not count) or a bracket.
_STEP = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def locate(text: str, paths: Iterable[Path]) -> dict[Path, int]:
    """The offset where each value on the way to each of `paths` starts, keyed by its path, in a valid JSON document.

    Only those values are kept: a path the text lacks yields its nearest
    enclosing values. For a duplicated key the last one wins, as in
    `json.loads`. Returns what it found so far if the text is not valid JSON.
    """
    wanted: dict[Any, Any] = {}  # a trie of the paths: key or index -> what is wanted below it
    for path in paths:
        node = wanted
        for part in path:
            node = node.setdefault(part, {})
    found: dict[Path, int] = {}
    scalar = json.JSONDecoder().raw_decode
    space = re.compile(r"[ \t\n\r]*")

    def skip(i: int) -> int:
        return space.match(text, i).end()  # type: ignore[union-attr]

    def step_over(i: int) -> int:
        """Past the value at `i`, holding nothing of it."""
        if text[i] not in "{[":
            return scalar(text, i)[1]
        depth = 0
        for token in _STEP.finditer(text, i):
            mark = token.group()
            if mark in "[{":
                depth += 1
            elif mark in "]}":
                depth -= 1
                if depth == 0:
                    return token.end()
        raise ValueError("unclosed")

    def value(i: int, path: Path, below: dict[Any, Any]) -> int:
        i = skip(i)
        found[path] = i
        opener = text[i]
        if not below or opener not in "{[":
            return step_over(i)
        closer = "}" if opener == "{" else "]"
        i = skip(i + 1)
        index = 0
        while text[i] != closer:
            if opener == "{":
                key, i = _KEY(text, i)
                i = skip(i) + 1  # past ':'
                part: Any = key
            else:
                part, index = index, index + 1
            inner = below.get(part)
            i = value(i, path + (part,), inner) if inner is not None else step_over(skip(i))
            i = skip(i)
            if text[i] == ",":
                i = skip(i + 1)
        return i + 1

    try:
        value(0, (), wanted)
    except (ValueError, IndexError, RecursionError):
        pass
    return found


def _nearest(offsets: dict[Path, int], path: Path) -> int:
    """The offset of the value at `path`, or of its nearest enclosing value (a missing field points at its object)."""
    while path and path not in offsets:
        path = path[:-1]
    return offsets.get(path, 0)


def _line_column(text: str, offset: int, line: int = 1, since: int = 0) -> tuple[int, int]:
    """1-based line and column of `offset`, counting on from `line`, which starts at or before `since`."""
    line += text.count("\n", since, offset)
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def position(text: str, offsets: dict[Path, int], path: Path) -> tuple[int, int]:
    """1-based line and column of the value at `path` (`offsets` from `locate`), or of its nearest enclosing value."""
    return _line_column(text, _nearest(offsets, path))


def problem_lines(text: str, problems: Iterable[ReportProblem], limit: int | None = None) -> tuple[errors.Problem, ...]:
    """Each problem at the line and column it concerns in `text`, in the order of the text; the first `limit` only.

    They come back as the error record every command shows: line, column, JSON path, message.
    """
    problems = list(problems)
    offsets = locate(text, (problem.path for problem in problems))
    placed = sorted((_nearest(offsets, problem.path), index, problem) for index, problem in enumerate(problems))
    shown = []
    line, since = 1, 0
    for offset, _, problem in placed[:limit]:
        line, column = _line_column(text, offset, line, since)
        since = offset
        shown.append(errors.Problem(problem.expected, line, column, path=format_path(problem.path)))
    return tuple(shown)
