"""The trace format: JSON Lines of events, read strictly and a line at a time.

msgspec decodes each line straight into a typed struct that forbids unknown
fields, so type errors come out with the field's name and the whole check
costs about a tenth of `json.loads` plus hand validation (see bench/). The
reader yields events as it goes and never holds the file. msgspec is
imported only when a trace is read: `check` writes traces but reads none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, NamedTuple

from .errors import GapstateError
from .semantics import EVENTS


@lru_cache(maxsize=1)
def _schema() -> tuple[Any, Any, Any]:
    """The struct one line decodes into, its decoder, and msgspec's UNSET."""
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
    return line, msgspec.json.Decoder(line), unset


class TraceEvent(NamedTuple):
    """One event with its time filled in; `id` and `speech_start` are None when absent."""

    event: str
    t: int
    id: str | None
    speech_start: int | None
    line: int  # where it stood in the trace file (1-based), or its position + 1

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.event, "t": self.t}
        if self.id is not None:
            out["id"] = self.id
        if self.speech_start is not None:
            out["speech_start"] = self.speech_start
        return out


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


class _Checker:
    """The checks that need the previous event: times in order, required payloads."""

    def __init__(self, source: str):
        self.source = source
        self.t = 0
        self.unset = _schema()[2]

    def accept(self, raw: Any, line: int) -> TraceEvent:
        name = raw.event
        if name not in EVENTS:
            raise _fail(self.source, line, f"unknown event '{name}'; expected one of: {_KNOWN}")
        unset = self.unset
        t = self.t if raw.t is unset else raw.t
        if t < self.t:
            raise _fail(self.source, line, f"'t' goes back in time: {t} after {self.t}")
        self.t = t
        ident = None if raw.id is unset else raw.id
        speech = None if raw.speech_start is unset else raw.speech_start
        if name == "loss_voiced" and ident is None:
            raise _fail(self.source, line, "loss_voiced needs an 'id' (the interval id)")
        if name == "evidence_turn" and speech is None:
            raise _fail(self.source, line, "evidence_turn needs a 'speech_start' (integer ms)")
        return TraceEvent(name, t, ident, speech, line)


def read_trace(path: str | Path) -> Iterator[TraceEvent]:
    """Events of a JSON Lines file, one line at a time; GapstateError names the bad line."""
    source = str(path)
    checker = _Checker(source)
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        raise _fail(source, None, "no such file") from None
    except IsADirectoryError:
        raise _fail(source, None, "is a directory, not a file") from None
    except OSError as error:
        raise _fail(source, None, f"cannot read: {error.strerror}") from None
    import msgspec

    decode = _schema()[1].decode
    with handle:
        for number, data in enumerate(handle, start=1):
            if data.isspace() or not data:
                continue
            try:
                raw = decode(data)
            except msgspec.MsgspecError as error:
                message, column = _explain(error)
                raise _fail(source, number, message, column) from None
            yield checker.accept(raw, number)


def from_dicts(events: Iterable[Any], source: str = "<events>") -> Iterator[TraceEvent]:
    """The same checks for events given as dicts (the Python API); 'line' is the position + 1."""
    import msgspec

    checker = _Checker(source)
    line_type = _schema()[0]
    for number, item in enumerate(events, start=1):
        try:
            raw = msgspec.convert(item, line_type)
        except msgspec.MsgspecError as error:
            message, _ = _explain(error)
            raise _fail(source, number, message) from None
        yield checker.accept(raw, number)


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
