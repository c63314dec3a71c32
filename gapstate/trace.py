"""The trace format: JSON Lines of events, read strictly and a line at a time.

msgspec decodes each line straight into `Event`, a typed struct that forbids
unknown fields, so type errors come out with the field's name and the whole
check costs about a tenth of `json.loads` plus hand validation (see bench/).
The reader yields events as it goes and never holds the file. Only what
reads or builds events imports this module (and msgspec with it): `check`
writes its traces with `proof.concretize` and reads none.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType

from .errors import GapstateError
from .semantics import EVENTS
from .source import label, not_utf8, open_binary


class Event(msgspec.Struct, forbid_unknown_fields=True):
    """One event of a trace: what a line decodes into, what the reader yields, what strategies build.

    A msgspec struct, so a line decodes straight into it with nothing copied
    on the way. A field the line leaves out is `UNSET`; the reader fills in
    `t` from the previous event and checks that `loss_voiced` has an `id`
    and `evidence_turn` a `speech_start`.
    """

    event: str
    t: Annotated[int, msgspec.Meta(ge=0)] | UnsetType = UNSET
    id: Annotated[str, msgspec.Meta(min_length=1)] | UnsetType = UNSET
    speech_start: Annotated[int, msgspec.Meta(ge=0)] | UnsetType = UNSET


_DECODE = msgspec.json.Decoder(Event).decode


_BYTE = re.compile(r"\(byte (\d+)\)")
_PATH = re.compile(r" - at `\$\.?(\w*)`")
_KNOWN = ", ".join(EVENTS)


def _fail(source: str, line: int | None, message: str, column: int | None = None) -> GapstateError:
    return GapstateError(message, file=source, line=line, column=column)


def _explain(error: Exception) -> tuple[str, int | None]:
    """msgspec's message in the trace's words, and a column when it gives a byte."""
    text = str(error)
    column = None
    match = _BYTE.search(text)
    if match:
        column = int(match.group(1)) + 1
        text = _BYTE.sub("", text).strip()
    if isinstance(error, msgspec.DecodeError) and not isinstance(error, msgspec.ValidationError):
        return f"not valid JSON: {text}", column
    text = text.replace("Object missing required field `event`", "missing the 'event' field")
    text = re.sub(r"Object contains unknown field `(\w+)`", r"unknown field '\1' (allowed: event, t, id, speech_start)", text)
    text = text.replace("Expected `object`", "expected a JSON object")
    text = _PATH.sub(lambda m: f" in field '{m.group(1)}'" if m.group(1) else "", text)
    return text, column


def _check(raw: Any, last: int, unset: Any) -> str | None:
    """What is wrong with a decoded line, given the previous event's time; fills in `t`."""
    name = raw.event
    if name not in EVENTS:
        return f"unknown event '{name}'; expected one of: {_KNOWN}"
    t = raw.t
    if t is unset:
        raw.t = last
    elif t < last:
        return f"'t' goes back in time: {t} after {last}"
    if name == "loss_voiced" and raw.id is unset:
        return "loss_voiced needs an 'id' (the interval id)"
    if name == "evidence_turn" and raw.speech_start is unset:
        return "evidence_turn needs a 'speech_start' (integer ms)"
    return None


class Events:
    """Checked events (`Event`), one at a time, with `line`: where the last one yielded stood.

    A bad line raises GapstateError naming the source and line.
    """

    def __init__(self, source: str, lines: Iterable[Any], decode: Any):
        self.source = source
        self.line = 0
        self._lines = lines
        self._decode = decode

    def __iter__(self) -> Iterator[Event]:
        source, decode, unset = self.source, self._decode, UNSET
        failure = msgspec.MsgspecError
        last = 0
        for number, data in enumerate(self._lines, start=1):
            if data is _BLANK:
                continue
            try:
                raw = decode(data)
            except failure as error:
                if isinstance(data, bytes):
                    try:
                        data.decode("utf-8")
                    except UnicodeDecodeError as bad:
                        raise not_utf8(data, bad, source, number) from None
                message, column = _explain(error)
                raise _fail(source, number, message, column) from None
            problem = _check(raw, last, unset)
            if problem is not None:
                raise _fail(source, number, problem)
            last = raw.t
            self.line = number
            yield raw


_BLANK = object()


def _file_lines(handle: Any) -> Iterator[Any]:
    try:
        for number, data in enumerate(handle):
            if number == 0 and data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]  # a byte-order mark, as some editors write
            yield _BLANK if data.isspace() or not data else data
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()


def read_trace(path: str | Path) -> Events:
    """The events of a JSON Lines file (`-`: standard input), read a line at a time as consumed."""
    return Events(label(path), _file_lines(open_binary(path)), _DECODE)


def from_dicts(events: Iterable[Any], source: str = "<events>") -> Events:
    """The same checks for events given as dicts (the Python API); `line` is the position + 1."""
    return Events(source, events, lambda item: msgspec.convert(item, Event))
