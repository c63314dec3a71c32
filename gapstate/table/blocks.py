"""Finding the table in markdown: the one fenced block whose first non-blank line is the header.

Fences are found as CommonMark finds them; a line meant as the header but
mistyped is told apart from an ordinary code block, and what is wrong with
it is said column by column.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from gapstate.findings import ParseError, ParseProblem

HEADER = "# state | event | guards | next | actions"
COLUMNS = tuple(HEADER.lstrip("# ").replace(" ", "").split("|"))

OPEN_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


class Fenced(NamedTuple):
    """A fenced block: its first content line (1-based), its content lines, its fence, and whether it closes."""

    start: int
    content: list[str]
    fence: str
    closed: bool


def fenced(lines: list[str]) -> list[Fenced]:
    """Every fenced block, as CommonMark finds them: an unclosed one runs to the end."""
    blocks: list[Fenced] = []
    i = 0
    while i < len(lines):
        match = OPEN_FENCE.match(lines[i])
        if not match or (match["fence"][0] == "`" and "`" in match["info"]):
            i += 1
            continue
        fence = match["fence"]
        closing = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        start = i + 1
        j = start
        while j < len(lines) and not closing.match(lines[j]):
            j += 1
        blocks.append(Fenced(start + 1, lines[start:j], fence, j < len(lines)))
        i = j + 1
    return blocks


def is_header(text: str) -> bool:
    """The header exactly, whitespace free."""
    return "".join(text.split()) == "".join(HEADER.split())


def _near_header(text: str) -> bool:
    """A line meant as the header but mistyped: it starts with `#`, has a `|`, and
    names, exactly or nearly (a letter or two off), at least three of the five columns.

    A shell or Python comment (`# replay | count`) names none, so ordinary code
    blocks stay prose; `# state | event | guard | next` is a header mistake.
    """
    head = text.strip()
    if not head.startswith("#") or "|" not in head:
        return False
    import difflib  # here: only a line that looks like a header pays for it

    words = re.findall(r"[a-z_]+", head.lower())
    return sum(1 for column in COLUMNS if difflib.get_close_matches(column, words, n=1, cutoff=0.8)) >= 3


def find_blocks(lines: list[str], near: bool = False) -> list[tuple[int, int, list[str]]]:
    """Every fenced block whose first non-blank line is the header (or, with `near`, nearly is).

    Returns (first content line number, header line number, content lines)
    for each such block, 1-based.
    """
    found = []
    for start, content, _, _ in fenced(lines):
        first = next((k for k, text in enumerate(content) if text.strip()), None)
        if first is None:
            continue
        text = content[first]
        if is_header(text) or (near and _near_header(text)):
            found.append((start, start + first, content))
    return found


def misplaced_header(lines: list[str]) -> tuple[int, int] | None:
    """(block start, header line) of a fenced block that holds the header below its first line."""
    for start, content, _, _ in fenced(lines):
        for offset, text in enumerate(content):
            if is_header(text):
                return start - 1, start + offset
    return None




def header_finding(text: str, line: int) -> ParseError:
    """What is wrong with a line meant as the header, column by column, in the header's words."""
    start = text.index("#") + 1
    cells: list[tuple[int, str]] = []  # (1-based column, text) of each cell
    for part in text[start:].split("|"):
        cells.append((start + len(part) - len(part.lstrip()) + 1, part.strip()))
        start += len(part) + 1
    for index, expected in enumerate(COLUMNS):
        if index >= len(cells):
            column, what = len(text.rstrip()) + 1, f"the '{expected}' column is missing"
            return ParseError(line, column, ParseProblem.BAD_HEADER, detail=what)
        column, found = cells[index]
        if found != expected:
            what = (
                f"the '{expected}' column is missing"
                if found in COLUMNS[index + 1 :]
                else f"'{found}' where '{expected}' belongs" if found else f"the '{expected}' column is empty"
            )
            return ParseError(line, column, ParseProblem.BAD_HEADER, detail=what)
    column, found = cells[len(COLUMNS)]
    what = f"'{found}' after 'actions'; the header has five columns"
    return ParseError(line, column, ParseProblem.BAD_HEADER, detail=what)
