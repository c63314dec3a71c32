"""The trace format: JSON Lines of events, read strictly and a line at a time.

msgspec decodes each line straight into a typed struct that forbids unknown
fields, so type errors come out with the field's name and the whole check
costs about a tenth of `json.loads` plus hand validation (see bench/). The
reader yields events as it goes and never holds the file. msgspec is
imported only when a trace is read: `check` writes traces but reads none.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, NamedTuple

from .errors import GapstateError
from .semantics import EVENTS
from .source import label, not_utf8, open_binary


class Event(NamedTuple):
    """One checked event of a trace: what the reader yields and the strategies build.

    `t` is filled in from the previous event when the line leaves it out;
    `id` and `speech_start` are None when absent (the reader has checked that
    the events that need them have them).
    """

    event: str
    t: int
    id: str | None = None
    speech_start: int | None = None


class _Schema(NamedTuple):
    line: Any  # the msgspec struct one line decodes into
    decoder: Any
    unset: Any  # msgspec's UNSET, for a field the line leaves out


@lru_cache(maxsize=1)
def _schema() -> _Schema:
    """What a line decodes into; built on first use, so that msgspec loads only when a trace is read."""
    import msgspec

    unset, maybe = msgspec.UNSET, msgspec.UnsetType
    ms = Annotated[int, msgspec.Meta(ge=0)]
    line = msgspec.defstruct(
        "Line",
        [
            ("event", str),
            ("t", ms | maybe, unset),
            ("id", Annotated[str, msgspec.Meta(min_length=1)] | maybe, unset),
            ("speech_start", ms | maybe, unset),
        ],
        forbid_unknown_fields=True,
    )
    return _Schema(line, msgspec.json.Decoder(line), unset)


_BYTE = re.compile(r"\(byte (\d+)\)")
_PATH = re.compile(r" - at `\$\.?(\w*)`")
_KNOWN = ", ".join(EVENTS)


def _fail(source: str, line: int | None, message: str, column: int | None = None) -> GapstateError:
    return GapstateError(message, file=source, line=line, column=column)


def _explain(error: Exception) -> tuple[str, int | None]:
    """msgspec's message in the trace's words, and a column when it gives a byte."""
    import msgspec

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
        import msgspec

        source, decode, unset = self.source, self._decode, _schema().unset
        make = Event._make
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
            ident, speech = raw.id, raw.speech_start
            yield make((raw.event, last, None if ident is unset else ident, None if speech is unset else speech))


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
    return Events(label(path), _file_lines(open_binary(path)), _schema().decoder.decode)


def from_dicts(events: Iterable[Any], source: str = "<events>") -> Events:
    """The same checks for events given as dicts (the Python API); `line` is the position + 1."""
    import msgspec

    line_type = _schema().line
    return Events(source, events, lambda item: msgspec.convert(item, line_type))


def concretize(steps: Iterable[tuple[str, bool]]) -> list[dict[str, Any]]:
    """A replayable trace for abstract steps (event, value of its chosen guard).

    Times advance 100 ms a step. A fresh loss gets a new id and a dup repeats
    the newest; evidence with post_send speaks 50 ms before its own time, so
    after every earlier event, and otherwise at 0, after nothing.
    """
    trace: list[dict[str, Any]] = []
    issued = 0
    for index, (event, choice) in enumerate(steps, start=1):
        item: dict[str, Any] = {"event": event, "t": 100 * index}
        if event == "loss_voiced":
            if not choice:
                issued += 1
            item["id"] = f"iv-{max(issued, 1)}"
        elif event == "evidence_turn":
            item["speech_start"] = 100 * index - 50 if choice else 0
        trace.append(item)
    return trace
