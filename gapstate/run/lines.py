"""Reading a trace as whole lines, bounded: about a MiB of a file, or a few thousand dicts, at a time.

A line longer than the limit is an error naming it, raised once that much of
it is read; a byte-order mark is dropped; a batch's lines are split only
when the slow path asks for them.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from gapstate.files.source import MAX_LINE, too_long


def object_ends(batch: bytes) -> int:
    """How many lines of `batch` end in `}` (a JSON string holds no raw line break, so each is a line's end)."""
    ends = batch.count(b"}\n") + (batch.count(b"}\r\n") if b"\r" in batch else 0)  # `in` is a quick scan, count is not
    return ends + (not batch.endswith(b"\n") and batch.rstrip().endswith(b"}"))


def same_text(encoded: bytes, batch: bytes) -> bool:
    """Whether `batch` is `encoded` (a decoder's lines written again, one compact object a line) give or take blanks.

    Then each of its lines holds one object with each key once: deleting
    spaces, tabs and CRs keeps every JSON token (a string holds no raw tab
    or CR, and loses its spaces on both sides), so the two texts have the same
    tokens, and `encoded` has no key twice and no line without its object.
    """
    if encoded == batch:
        return True
    if b" " in encoded:  # only inside a string: `encoded` has no other blank
        encoded = encoded.translate(None, _BLANKS)
    return encoded == batch.translate(None, _BLANKS)


_BLANKS = b" \t\r"
BLANK = object()
CHUNK = 1 << 20  # bytes of a file read at once
BATCH = 4096  # dicts converted at once


def remaining(rows: Iterator[tuple[int, Any]], batches: Iterator[tuple[Any, Any]], after: int) -> Iterator[tuple[int, Any]]:
    """(line, data) for the rest of a batch's lines, then every later batch's."""
    yield from rows
    for _, lines in batches:
        start = after + 1
        for after, data in enumerate(lines, start):
            yield after, data


def file_batches(handle: Any, source: str, limit: int = MAX_LINE) -> Iterator[tuple[bytes, Any]]:
    """About a MiB of whole lines at a time, with their lines (split only if the slow path asks).

    A line longer than `limit` bytes is a GapstateError naming it, raised
    once that much of it is read: blocks are at most `limit` long, so only a
    line that spans blocks (held in `rest`) can be longer.
    """
    size = min(CHUNK, limit)
    try:
        rest = b""
        first = True  # nothing handed on yet: a byte-order mark may still start the data
        line = 1  # the line `rest` starts
        while True:
            block = handle.read(size)
            data = rest + block
            if first and (len(data) >= 3 or not block):
                first = False
                if data.startswith(b"\xef\xbb\xbf"):
                    data = data[3:]  # a byte-order mark, as some editors write
            if not block:
                if data:
                    yield data, _lines(data)
                return
            end = data.rfind(b"\n") + 1
            if not end:
                if len(data) > limit:
                    raise too_long(source, line, limit)
                rest = data
                continue
            if rest and data.find(b"\n") > limit:
                raise too_long(source, line, limit)
            rest = data[end:]
            chunk = data[:end]
            lines = _Lines(chunk)
            first = False
            yield chunk, lines
            line += len(lines)  # once read: a reader that knows the count (see `_Lines`) spares the scan
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()


class _Lines:
    """A chunk's lines, split only when the slow path asks; its len is its count of newlines.

    The count is scanned for when first asked, unless the reader set it
    (`count`), knowing it from the events it decoded.
    """

    __slots__ = ("chunk", "count")

    def __init__(self, chunk: bytes):
        self.chunk = chunk
        self.count: int | None = None

    def __len__(self) -> int:
        if self.count is None:
            self.count = self.chunk.count(b"\n")
        return self.count

    def __iter__(self) -> Iterator[Any]:
        return iter(_lines(self.chunk, len(self)))


def _lines(data: bytes, count: int | None = None) -> list[Any]:
    """The lines of `data` (the first `count`, or all but an empty last), blank ones as BLANK."""
    lines = data.split(b"\n")
    if count is None:
        if lines and lines[-1] == b"":
            lines.pop()
    else:
        del lines[count:]
    return [BLANK if not line or line.isspace() else line for line in lines]


def dict_batches(events: Iterable[Any]) -> Iterator[tuple[list[Any], list[Any]]]:
    iterator = iter(events)
    while True:
        batch = list(itertools.islice(iterator, BATCH))
        if not batch:
            return
        yield batch, batch
