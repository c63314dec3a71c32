"""The trace format: JSON Lines of events, read strictly, about a MiB at a time.

msgspec decodes the lines straight into `Event`, a typed struct that forbids
unknown fields, and a whole chunk of lines in one call (see `Events`). The
reader yields events as it goes and never holds the file. Only what
reads traces imports this module: `check` writes its traces with
`run.concrete.concretize` and reads none. The event and its one check are
`run.event`; reading whole lines within a bound is `run.lines`; what is
wrong with a line, in the trace's words, is `run.malformed`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NoReturn, cast

import msgspec

from gapstate.errors import Problem
from gapstate.files.source import MAX_LINE, label, open_lines
from gapstate.run.event import Event, Settled, given, settle
from gapstate.run.lines import (
    BLANK,
    dict_batches,
    file_batches,
    object_ends,
    remaining,
    same_text,
)
from gapstate.run.malformed import (
    MAX_PROBLEMS,
    check_event,
    diagnose,
    file_hint,
    repeated,
    shape,
    text_of,
    unusable,
)

_DECODER = msgspec.json.Decoder(Event)
_DECODE = _DECODER.decode
_DECODE_LINES = _DECODER.decode_lines  # many lines in one call
_ENCODE_LINES = msgspec.json.Encoder().encode_lines
_EVENTS = list[Event]


class Events:
    """Checked events (`Event`), with `line_of(index)`: the line the index-th event stood on.

    Lines come in batches (about a MiB of a file, or a few thousand dicts),
    each decoded by msgspec in one call and checked whole before any of its
    events is handed on, so iterating is a C loop over lists. (Why: a line
    at a time, reading cost as much as replaying.) A file's batch is
    whole when its text is its events written again (`lines.same_text`):
    then no line holds a key twice, two events or none, with no count of
    its lines, braces or colons. A batch that fails a
    check, or holds a blank line, is read again a line at a time. At the
    first malformed line nothing more is handed on, but the rest is still
    read, so that GapstateError lists every malformed line (up to
    MAX_PROBLEMS, then a count), each as an errors.Problem quoting the line.
    The events just before a bad line in its batch are not handed on
    either: replay reads the whole trace anyway, so the outcome is the same
    error.
    """

    def __init__(self, source: str, batches: Iterable[tuple[Any, Any]], dicts: bool = False):
        self.source = source
        self._batches = batches  # (the batch for the fast path, its lines for the slow path)
        self._decode = (lambda item: msgspec.convert(item, Event)) if dicts else _DECODE
        self._decode_batch = (lambda items: msgspec.convert(items, _EVENTS)) if dicts else _DECODE_LINES
        self._from_file = not dicts  # a dict has no column, and cannot repeat a key
        # msgspec refuses a str holding a lone surrogate (the API's, not a file's) with UnicodeEncodeError
        self._failure = (msgspec.MsgspecError, ValueError) if dicts else msgspec.MsgspecError
        self.positional = dicts  # every event's line is its position + 1: `line_of` need not be asked
        self._start = 0  # events handed on before the current batch
        self._first = 1  # the line the current batch starts on
        self._numbers: list[int] | None = None  # its events' lines, when it had blank lines

    def __iter__(self) -> Iterator[Event]:
        return itertools.chain.from_iterable(self._checked())

    def line_of(self, index: int) -> int:
        """The line of the index-th event (0-based), in the batch last handed on."""
        if self._numbers is not None:
            return self._numbers[index - self._start]
        return self._first + index - self._start

    def _checked(self) -> Iterator[list[Event]]:
        decode_batch, failure = self._decode_batch, self._failure
        from_file = self._from_file
        batches = iter(self._batches)
        last = 0
        number = 0  # lines before the batch
        handed = 0
        for batch, lines in batches:
            first = number + 1
            decoded: list[Event] | None
            try:
                decoded = decode_batch(batch)
            except failure:
                decoded = None
            numbers = None
            if decoded is None:
                good = False
            elif not from_file:
                good = len(decoded) == len(lines)
            elif decoded and same_text(_ENCODE_LINES(decoded), batch):
                # one event a line, each field once, no blank line: the text is the events'
                # own (give or take blanks), so the line count need not be scanned for
                good = True
                lines.count = len(decoded)
            else:
                # every key needs a ':', so a batch with no more of them than fields given repeats no key
                good = len(decoded) == len(lines) == object_ends(batch) and batch.count(b":") == sum(map(given, decoded))
            number += len(lines)
            if good:
                assert decoded is not None
                _, settled, fault = settle(decoded, last)  # the whole batch in one call
                if fault is None:
                    last = settled
                else:
                    good = False
            if not good:
                decoded, numbers, last = self._slow(lines, first, last, batches, number)
            assert decoded is not None
            self._start, self._first, self._numbers = handed, first, numbers
            handed += len(decoded)
            yield decoded

    def _slow(self, lines: Iterable[Any], first: int, last: int, batches: Iterator[tuple[Any, Any]],
              after: int) -> tuple[list[Event], list[int], int]:
        """A line at a time: the events, their lines and the last time, or at a malformed line, every problem raised."""
        decode, failure = self._decode, self._failure
        events: list[Event] = []
        numbers: list[int] = []
        rows = enumerate(lines, start=first)
        for number, data in rows:
            if data is BLANK:
                continue
            try:
                raw = decode(data)
            except failure:
                self._problems(number, data, last, remaining(rows, batches, after))
            if repeated(raw, data) is not None:
                self._problems(number, data, last, remaining(rows, batches, after))
            _, settled, fault = settle((raw,), last)
            if fault is not None:
                self._problems(number, data, last, remaining(rows, batches, after))
            last = settled
            events.append(raw)
            numbers.append(number)
        return events, numbers, last

    def _problems(self, number: int, data: Any, last: int, lines: Iterator[tuple[int, Any]]) -> NoReturn:
        """Read the rest of the lines, collecting what is wrong with each, then raise."""
        decode, failure = self._decode, self._failure
        problems: list[Problem] = []
        more = 0
        from_here = itertools.chain([(number, data)], lines)
        for number, data in from_here:
            if data is BLANK:
                continue
            text = text_of(data)
            found: tuple[str, int | None] | None = None
            if isinstance(data, bytes):
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError as bad:
                    byte = data[bad.start]
                    found = f"not UTF-8 text: byte 0x{byte:02x} cannot be decoded (a trace is UTF-8 JSON Lines)", bad.start + 1
            if found is None:
                try:
                    raw = decode(data)
                except failure:
                    found = diagnose(text) if isinstance(data, (bytes, str)) else shape(data, text)
                else:
                    found = repeated(raw, data) or check_event(raw, last, text)
                    if found is None:
                        last = cast("Settled", raw).t  # check_event filled it in
                        continue
            if len(problems) < MAX_PROBLEMS:
                column = found[1] if self._from_file else None
                problems.append(Problem(found[0], number, column, text=text))
            else:
                more += 1
        raise unusable(self.source, problems, more, file_hint(problems) if self._from_file else "")


def read_trace(path: str | Path, limit: int = MAX_LINE) -> Events:
    """The events of a JSON Lines file (`-`: standard input), read about a MiB at a time as consumed.

    A line longer than `limit` bytes is a GapstateError naming it.
    """
    return Events(label(path), file_batches(open_lines(path, limit), label(path), limit))


def from_dicts(events: Iterable[Any], source: str = "<events>") -> Events:
    """The same checks for events given as dicts (the Python API); `line_of(i)` is the event's 1-based number."""
    return Events(source, dict_batches(events), dicts=True)
