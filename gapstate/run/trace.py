"""The trace format: JSON Lines of events, read strictly, about a MiB at a time.

msgspec decodes the lines straight into `Event`, a typed struct that forbids
unknown fields, and a whole chunk of lines in one call (see `Events`). The
reader yields events as it goes and never holds the file. Only what
reads or builds events imports this module (and msgspec with it): `check`
writes its traces with `proof.traces.concretize` and reads none.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, NoReturn

import msgspec
from msgspec import UNSET, UnsetType

from gapstate.errors import GapstateError, Problem
from gapstate.spec.vocabulary import EVENTS, PAYLOADS, closest
from gapstate.spec.source import MAX_LINE, label, long_number, open_lines, too_long


# The latest time a trace may give, in ms: a signed 64-bit integer, as
# implementations keep it. Every way in (file, stdin, dicts, vectors) is
# held to it by `Event`, so all say the same.
LATEST = 2**63 - 1


class Event(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One event of a trace: what a line decodes into, what the reader yields, what strategies build.

    A msgspec struct, so a line decodes straight into it with nothing copied
    on the way. A field the line leaves out is `UNSET`; the reader fills in
    `t` from the previous event and checks that an event whose payload sets
    a guard has that field (`vocabulary.PAYLOADS`: `id`, `speech_start`).
    """

    event: str
    t: Annotated[int, msgspec.Meta(ge=0, le=LATEST)] | UnsetType = UNSET
    id: Annotated[str, msgspec.Meta(min_length=1)] | UnsetType = UNSET
    speech_start: Annotated[int, msgspec.Meta(ge=0, le=LATEST)] | UnsetType = UNSET


_DECODER = msgspec.json.Decoder(Event)
_DECODE = _DECODER.decode
_DECODE_LINES = _DECODER.decode_lines  # many lines in one call
_EVENTS = list[Event]


_FIELDS = ("event", "t", "id", "speech_start")
# The field each event requires: the one its payload sets a guard from.
_NEEDS = {event: payload.field for event, payload in PAYLOADS.items()}
assert set(_NEEDS.values()) <= set(_FIELDS), "a payload field the trace format lacks"
_KNOWN = ", ".join(EVENTS)

# A trace with more malformed lines than this is reported by its first ones
# and a count of the rest, as a compiler stops listing errors.
MAX_PROBLEMS = 20


def _kind(value: Any) -> str:
    """A JSON value's kind, as a person would name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number with a fraction"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


_JSON_WORDS = (
    ("Extra data", "more than one JSON value on this line; a trace has one event object a line"),
    ("Expecting property name enclosed in double quotes", "expected a field name in double quotes (JSON has no trailing commas)"),
    ("Expecting ',' delimiter", "expected ',' between fields"),
    ("Expecting ':' delimiter", "expected ':' after a field name"),
    ("Unterminated string", "a string is not closed"),
    ("Invalid control character", "a control character (such as a tab) inside a string"),
    ("Invalid \\escape", "a backslash escape JSON does not know"),
    ("Expecting value", "expected a JSON value"),
)


def _field_column(text: str, key: str) -> int | None:
    at = text.find(f'"{key}"')
    return at + 1 if at >= 0 else None


def diagnose(text: str) -> tuple[str, int | None]:
    """What is wrong with a line the decoder refused, in the trace's words (no decoder text), and a column."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        if text.rstrip().endswith(","):
            try:
                json.loads(text.rstrip()[:-1])
            except json.JSONDecodeError:
                pass
            else:
                return "a ',' after the event: JSON Lines puts nothing between lines", len(text.rstrip())
        if error.msg.startswith("Extra data") and text.lstrip().startswith('"'):
            return "a field on a line of its own, outside an event object", 1
        if error.pos >= len(text.rstrip()) and text.lstrip().startswith(("{", "[")):
            # `{` alone, or `{"event": "x",`: not a trailing comma, a line break.
            return (
                "not valid JSON: the event object is not closed on this line; a trace has each event object on one line "
                "(pretty-printed JSON is not a trace)",
                len(text.rstrip()) + 1,
            )
        words = next((said for known, said in _JSON_WORDS if error.msg.startswith(known)), error.msg.lower())
        return f"not valid JSON: {words}", error.colno
    except RecursionError:
        return "not valid JSON: nested too deeply", 1
    except ValueError:  # a number Python will not convert (4,300 digits and more)
        at = long_number(text)
        return "a number too long to be read", None if at is None else at + 1
    return _shape(value, text)


def _shape(value: Any, text: str) -> tuple[str, int | None]:
    """What is wrong with a parsed line's value (kinds, names, ranges)."""
    if not isinstance(value, dict):
        return f"expected an event object, found {_kind(value)}", 1
    for key in value:
        if key not in _FIELDS:
            return f"unknown field '{key}' (allowed: {', '.join(_FIELDS)})", _field_column(text, key)
    if "event" not in value:
        return "missing the 'event' field", 1
    if not isinstance(value["event"], str):
        return f"'event' must be a string naming an event, not {_kind(value['event'])}", _field_column(text, "event")
    for key in ("t", "speech_start"):
        if key in value:
            number = value[key]
            if isinstance(number, float):
                # 1e3 and 1000.0 are whole in value, but a trace writes integers only.
                return (
                    f"'{key}' must be an integer number of milliseconds, written without an exponent or fraction",
                    _field_column(text, key),
                )
            if isinstance(number, bool) or not isinstance(number, int):
                return f"'{key}' must be a whole number of milliseconds, not {_kind(number)}", _field_column(text, key)
            if number < 0:
                return f"'{key}' must not be negative ({number})", _field_column(text, key)
            if number > LATEST:
                return f"'{key}' is past the latest time a trace may give ({LATEST} ms): {number}", _field_column(text, key)
    if "id" in value:
        if not isinstance(value["id"], str):
            return f"'id' must be a string (the interval id), not {_kind(value['id'])}", _field_column(text, "id")
        if not value["id"]:
            return "'id' must not be empty", _field_column(text, "id")
        try:
            value["id"].encode("utf-8")
        except UnicodeEncodeError:
            return "'id' must be Unicode text: it holds a lone surrogate escape (\\ud800 to \\udfff)", _field_column(text, "id")
    return "not a valid event", 1


def _check(raw: Any, last: int, unset: Any, text: str) -> tuple[str, int | None] | None:
    """What is wrong with a decoded line, given the previous event's time; fills in `t`."""
    name = raw.event
    if name not in EVENTS:
        close = closest(name, EVENTS)
        hint = f"did you mean '{close}'?" if close else f"expected one of: {_KNOWN}"
        return f"unknown event '{name}'; {hint}", _field_column(text, "event")
    t = raw.t
    if t is unset:
        raw.t = last
    elif t < last:
        return f"'t' goes back in time: {t} after {last}", _field_column(text, "t")
    payload = PAYLOADS.get(name)
    if payload is not None and getattr(raw, payload.field) is unset:
        article = "an" if payload.field[0] in "aeiou" else "a"
        return f"{name} needs {article} '{payload.field}' ({payload.says})", 1
    return None


def _hint(problems: list[Problem]) -> str:
    """The mistake behind the whole file, when its lines show one: an array, or pretty-printed JSON."""
    first = problems[0].text.strip()
    if first.startswith("["):
        return "the file looks like a JSON array; a trace is JSON Lines, one event object a line (jq -c '.[]' FILE)"
    if first in ("{", "}", "},") or first.startswith('"'):
        return "the file looks like pretty-printed JSON; a trace has each event object on one line (jq -c . FILE)"
    return ""


def _unusable(source: str, problems: list[Problem], more: int, hint: str) -> GapstateError:
    """One error for every malformed line found: the first's place, a count and a hint in the message."""
    first = problems[0]
    count = len(problems) + more
    if count == 1:
        message = first.message + (f"; {hint}" if hint else "")
        return GapstateError(message, source, first.line, first.column, problems=tuple(problems))
    message = f"{count} malformed lines, the first here" + (f"; {hint}" if hint else "")
    if more:
        message += f" (the first {len(problems)} are listed)"
    return GapstateError(message, source, first.line, first.column, problems=tuple(problems))


def _text(data: Any) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace").rstrip("\r\n")
    try:
        return json.dumps(data)
    except (TypeError, ValueError):
        return repr(data)


def _repeated(raw: Event, data: Any) -> tuple[str, int | None] | None:
    """The field a line names twice, when it has more ':' than `raw` has fields set; None when none is.

    msgspec keeps the last of two equal keys without a word, so a line such
    as `{"event":"loss_voiced","id":"a","event":"busy_start"}` would replay
    as busy_start. Every key needs a ':', so a line with no more of them than
    fields set repeats nothing; only the rest (a ':' inside a string, or a
    repeat) is decoded again to look.
    """
    if not isinstance(data, bytes):
        return None  # a dict cannot repeat a key
    fields = 1 + (raw.t is not UNSET) + (raw.id is not UNSET) + (raw.speech_start is not UNSET)
    if data.count(b":") <= fields:
        return None
    text = data.decode("utf-8")
    seen: set[str] = set()
    repeated: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        for key, _ in items:
            if key in seen and not repeated:
                repeated.append(key)
            seen.add(key)
        return dict(items)

    json.loads(text, object_pairs_hook=pairs)
    if not repeated:
        return None
    key = repeated[0]
    written = list(re.finditer(r'"' + re.escape(key) + r'"\s*:', text))  # fewer when a key is escaped
    column = written[1].start() + 1 if len(written) > 1 else None
    return f"the field '{key}' appears twice in one event; give each field once", column


class Events:
    """Checked events (`Event`), with `line_of(index)`: the line the index-th event stood on.

    Lines come in batches (about a MiB of a file, or a few thousand dicts),
    each decoded by msgspec in one call and checked whole before any of its
    events is handed on, so iterating is a C loop over lists. (Why: a line
    at a time, reading cost as much as replaying.) A batch that fails a
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
        decode_batch, failure, unset, known, needs = self._decode_batch, msgspec.MsgspecError, UNSET, EVENTS, _NEEDS
        batches = iter(self._batches)
        last = 0
        number = 0  # lines before the batch
        handed = 0
        for batch, lines in batches:
            first = number + 1
            number += len(lines)
            try:
                decoded = decode_batch(batch)
            except failure:
                decoded = None
            numbers = None
            good = decoded is not None and len(decoded) == len(lines)
            if good:
                before = last
                fields = 0  # every key needs a ':', so a chunk with no more of them than fields set repeats none
                for raw in decoded:  # what `_check` does, inline
                    name = raw.event
                    if name not in known:
                        good = False
                        break
                    t = raw.t
                    fields += 1 + (raw.id is not unset) + (raw.speech_start is not unset)
                    if t is unset:
                        raw.t = last
                    elif t < last:
                        good = False
                        break
                    else:
                        fields += 1
                        last = t
                    if name in needs and getattr(raw, needs[name]) is unset:
                        good = False
                        break
                if good and self._from_file and batch.count(b":") != fields:
                    good = False  # a repeated key, or a ':' inside a string: the slow path tells which
                if good and self._from_file and _object_ends(batch) != len(decoded):
                    # msgspec reads `{...}{...}` on one line as two events; a blank line
                    # elsewhere in the batch would hide that from the count of lines.
                    good = False
                if not good:
                    last = before
            if not good:
                decoded, numbers = self._slow(lines, first, last, batches, number)
                if decoded:
                    last = decoded[-1].t
            self._start, self._first, self._numbers = handed, first, numbers
            handed += len(decoded)
            yield decoded

    def _slow(self, lines: Iterable[Any], first: int, last: int, batches: Iterator[tuple[Any, Any]],
              after: int) -> tuple[list[Event], list[int]]:
        """A line at a time: the events and their lines, or at a malformed line, every problem raised."""
        decode, unset, failure = self._decode, UNSET, msgspec.MsgspecError
        events: list[Event] = []
        numbers: list[int] = []
        rows = enumerate(lines, start=first)
        for number, data in rows:
            if data is _BLANK:
                continue
            try:
                raw = decode(data)
            except failure:
                self._problems(number, data, last, _rest(rows, batches, after))
            if _repeated(raw, data) is not None or _check(raw, last, unset, "") is not None:
                self._problems(number, data, last, _rest(rows, batches, after))
            last = raw.t
            events.append(raw)
            numbers.append(number)
        return events, numbers
    def _problems(self, number: int, data: Any, last: int, lines: Iterator[tuple[int, Any]]) -> NoReturn:
        """Read the rest of the lines, collecting what is wrong with each, then raise."""
        unset, decode, failure = UNSET, self._decode, msgspec.MsgspecError
        problems: list[Problem] = []
        more = 0
        for number, data in itertools.chain([(number, data)], lines):
            if data is _BLANK:
                continue
            text = _text(data)
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
                    found = diagnose(text) if isinstance(data, (bytes, str)) else _shape(data, text)
                else:
                    found = _repeated(raw, data) or _check(raw, last, unset, text)
                    if found is None:
                        last = raw.t
                        continue
            if len(problems) < MAX_PROBLEMS:
                column = found[1] if self._from_file else None
                problems.append(Problem(found[0], number, column, text=text))
            else:
                more += 1
        raise _unusable(self.source, problems, more, _hint(problems) if self._from_file else "")


def _object_ends(batch: bytes) -> int:
    """How many lines of `batch` end in `}` (a JSON string holds no raw line break, so each is a line's end)."""
    ends = batch.count(b"}\n") + batch.count(b"}\r\n")
    return ends + (not batch.endswith(b"\n") and batch.rstrip().endswith(b"}"))


_BLANK = object()
_CHUNK = 1 << 20  # bytes of a file read at once
_BATCH = 4096  # dicts converted at once


def _rest(rows: Iterator[tuple[int, Any]], batches: Iterator[tuple[Any, Any]], after: int) -> Iterator[tuple[int, Any]]:
    """(line, data) for the rest of a batch's lines, then every later batch's."""
    yield from rows
    for _, lines in batches:
        for after, data in enumerate(lines, start=after + 1):
            yield after, data


def _file_batches(handle: Any, source: str, limit: int = MAX_LINE) -> Iterator[tuple[bytes, Any]]:
    """About a MiB of whole lines at a time, with their lines (split only if the slow path asks).

    A line longer than `limit` bytes is a GapstateError naming it, raised
    once that much of it is read: blocks are at most `limit` long, so only a
    line that spans blocks (held in `rest`) can be longer.
    """
    size = min(_CHUNK, limit)
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
            line += len(lines)
            first = False
            yield chunk, lines
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()


class _Lines:
    """A chunk's lines, split only when the slow path asks; its len is its count of newlines."""

    __slots__ = ("chunk", "count")

    def __init__(self, chunk: bytes):
        self.chunk = chunk
        self.count = chunk.count(b"\n")

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[Any]:
        return iter(_lines(self.chunk, self.count))


def _lines(data: bytes, count: int | None = None) -> list[Any]:
    """The lines of `data` (the first `count`, or all but an empty last), blank ones as _BLANK."""
    lines = data.split(b"\n")
    if count is None:
        if lines and lines[-1] == b"":
            lines.pop()
    else:
        del lines[count:]
    return [_BLANK if not line or line.isspace() else line for line in lines]


def _dict_batches(events: Iterable[Any]) -> Iterator[tuple[list[Any], list[Any]]]:
    iterator = iter(events)
    while True:
        batch = list(itertools.islice(iterator, _BATCH))
        if not batch:
            return
        yield batch, batch


def read_trace(path: str | Path, limit: int = MAX_LINE) -> Events:
    """The events of a JSON Lines file (`-`: standard input), read about a MiB at a time as consumed.

    A line longer than `limit` bytes is a GapstateError naming it.
    """
    return Events(label(path), _file_batches(open_lines(path, limit), label(path), limit))


def from_dicts(events: Iterable[Any], source: str = "<events>") -> Events:
    """The same checks for events given as dicts (the Python API); `line_of(i)` is the event's 1-based number."""
    return Events(source, _dict_batches(events), dicts=True)
