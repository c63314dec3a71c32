"""Recorded sessions, as `coverage` and `diff --traces` read them: trace files, and logs of many sessions.

A trace file is one session. With `--split-by FIELD` a file is a log of many
sessions, interleaved: every line carries FIELD (a string or an integer),
lines are grouped by it in file order, and FIELD is taken out before the line
is read as an event. Each session is replayed as the log is read, with its
own `Session`, so a log is never held in memory: only one configuration and
history per session it holds. A session is named `PATH#VALUE`; values are
grouped by that text, so `7` and `"7"` are one session.

Files are spread over worker processes by `in_order`, which hands each
file's results back in the order of the input, whatever the number of jobs.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from dataclasses import field as _field
from functools import lru_cache, partial
from typing import Any

import msgspec

from gapstate.errors import GapstateError
from gapstate.files.source import label, open_lines
from gapstate.run.event import Event, given
from gapstate.run.lines import BLANK, file_batches, object_ends
from gapstate.run.malformed import check_event, diagnose, kind, repeated, shape, text_of
from gapstate.run.replayer import Session, Step, Stop
from gapstate.run.trace import read_trace

# A log is hostile input too: the sessions it may open, and how long a session's name may be.
MAX_SESSIONS = 1_000_000
MAX_KEY = 200

# What a caller gathers per session: a factory of (the record callback for each step, what it fills).
Tally = Callable[[], tuple[Callable[[Step], None] | None, Any]]


@dataclass(frozen=True)
class UnusableTrace:
    """A trace or session that could not be read: its name, the line (None: the file as a whole) and why."""

    trace: str
    line: int | None
    message: str
    file: str  # the file, for the error (a session's name adds `#VALUE`)
    column: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"trace": self.trace, "line": self.line, "message": self.message}

    def error(self) -> GapstateError:
        return GapstateError(self.message, self.file, self.line, self.column)


@dataclass(frozen=True)
class Replayed:
    """A session replayed to its end or its stop: events read, the stop and its trace line, what was gathered."""

    trace: str
    events: int
    stop: Stop | None
    line: int | None  # the trace line of the stop
    tally: Any


def replay_path(machine: Any, path: str, split_by: str | None, tally: Tally, keep_going: bool) -> list[Replayed | UnusableTrace]:
    """Every session of the file at `path`: the file, or with `split_by`, one per value of that field.

    `machine` is what a `Session` steps (a compiled table, or anything with
    its `node` and `step`). Without `keep_going` a log stops at its first
    unusable line; with it, a line that names its session makes only that
    session unusable, and one that does not, the whole file.
    """
    if split_by is None:
        return [_replay_file(machine, path, tally)]
    problem = field_problem(split_by)
    if problem is not None:  # the command line refuses it first (cli.base), a caller of the function here
        raise GapstateError(f"--split-by {problem}")
    return _replay_log(machine, path, split_by, tally, keep_going)


def _replay_file(machine: Any, path: str, tally: Tally) -> Replayed | UnusableTrace:
    name = label(path)
    try:
        events = read_trace(path)
        record, gathered = tally()
        session = Session(machine)
        iterator = iter(events)
        stop = session.run(iterator, record)
        line = events.line_of(stop.index) if stop is not None else None
        total = session.read + sum(1 for _ in iterator)  # reading the rest validates it
    except GapstateError as error:
        return UnusableTrace(name, error.line, error.message, error.file or name, error.column)
    return Replayed(name, total, stop, line, gathered)


def field_problem(split_by: str) -> str | None:
    """Why `split_by` cannot name the field that tells a log's sessions apart, or None when it can.

    Not one of the events' own fields, not empty, and printable: no `"`,
    `\\` or control character, which a JSON key would have to escape (the
    decoder names the field as written, and messages quote it).
    """
    from gapstate.run.event import FIELDS
    from gapstate.words import escape

    if not split_by:
        return "'' names no field; name the field that tells sessions apart"
    if split_by in FIELDS:
        return f"'{split_by}' is a field of the events themselves; name the field that tells sessions apart"
    if not split_by.isprintable() or '"' in split_by or "\\" in split_by:
        return (f"'{escape(split_by)}' holds a control character, `\"` or `\\`, which its name in the log "
                "would have to escape; gapstate reads a session field only by a plain name")
    return None


@lru_cache(maxsize=4)
def _decoder(split_by: str) -> msgspec.json.Decoder:
    """A decoder for events that also carry `split_by`, into a subclass of `Event` (so replay reads it as one).

    Its name is any string: an unknown one makes its session unusable
    (`check_event`), not the log.
    """
    keyed = msgspec.defstruct(
        "Keyed",
        [("key", str | int, msgspec.field(name=split_by)), ("event", str)],
        bases=(Event,),
        kw_only=True,
        forbid_unknown_fields=True,
        gc=False,
    )
    return msgspec.json.Decoder(keyed)


@dataclass
class _Open:
    """A session of a log, as the log is read."""

    session: Session
    record: Callable[[Step], None] | None
    gathered: Any
    events: int = 0
    last: int = 0  # the t of its last event
    stop: Stop | None = None
    line: int | None = None
    bad: UnusableTrace | None = None
    pending: list[Any] = _field(default_factory=list)  # its events in the chunk being read
    lines: list[int] = _field(default_factory=list)


class _FileProblem(Exception):
    """A line that sinks the whole log: it cannot be read, or does not say which session it belongs to."""

    def __init__(self, line: int, message: str, column: int | None):
        self.line, self.message, self.column = line, message, column


def _replay_log(machine: Any, path: str, split_by: str, tally: Tally, keep_going: bool) -> list[Replayed | UnusableTrace]:
    source = label(path)
    decoder = _decoder(split_by)
    sessions: dict[str, _Open] = {}
    try:
        number = 0
        for chunk, lines in file_batches(open_lines(path), source):
            first = number + 1
            number += len(lines)
            items, problem = _decode(decoder, chunk, lines, first, split_by)
            touched: list[_Open] = []
            for raw, line in items:
                key = raw.key
                name = key if key.__class__ is str else str(key)
                live = sessions.get(name)
                if live is None:
                    if len(sessions) >= MAX_SESSIONS:
                        raise _FileProblem(line, f"more than {MAX_SESSIONS:,} sessions in one file", None)
                    if len(name) > MAX_KEY:
                        raise _FileProblem(line, f"'{split_by}' is longer than {MAX_KEY} characters", None)
                    if not name.isprintable():  # a session's name is printed: no line breaks or terminal controls
                        raise _FileProblem(line, f"'{split_by}' holds a character that cannot be printed", None)
                    live = sessions[name] = _Open(Session(machine), *tally())
                if live.bad is not None:
                    continue
                wrong = check_event(raw, live.last, "")
                if wrong is not None:
                    live.bad = UnusableTrace(f"{source}#{name}", line, f"session {name}: {wrong[0]}", source)
                    if not keep_going:
                        return [live.bad]
                    continue
                live.last = raw.t
                live.events += 1
                if live.stop is None:
                    if not live.pending:
                        touched.append(live)
                    live.pending.append(raw)
                    live.lines.append(line)
            for live in touched:
                start = live.session.read
                live.stop = live.session.run(live.pending, live.record, start=start)
                if live.stop is not None:
                    live.line = live.lines[live.stop.index - start]
                live.pending, live.lines = [], []
            if problem is not None:
                raise problem
    except GapstateError as error:
        return [UnusableTrace(source, error.line, error.message, error.file or source, error.column)]
    except _FileProblem as problem:
        return [UnusableTrace(source, problem.line, problem.message, source, problem.column)]
    return [
        live.bad if live.bad is not None else Replayed(f"{source}#{name}", live.events, live.stop, live.line, live.gathered)
        for name, live in sessions.items()
    ]


def _decode(decoder: Any, chunk: bytes, lines: Any, first: int, split_by: str) -> tuple[list[tuple[Any, int]], _FileProblem | None]:
    """A chunk's events with their lines, decoded in one call when it is clean; else a line at a time, to the first bad one."""
    try:
        decoded = decoder.decode_lines(chunk)
    except msgspec.MsgspecError:
        decoded = None
    if decoded is not None and len(decoded) == len(lines) == object_ends(chunk):
        # every key needs a ':' (the session's too), so a chunk with no more of them than fields given repeats none
        if chunk.count(b":") == sum(map(given, decoded)) + len(decoded):
            return [(raw, first + i) for i, raw in enumerate(decoded)], None
    items: list[tuple[Any, int]] = []
    for number, data in enumerate(lines, start=first):
        if data is BLANK:
            continue
        try:
            raw = decoder.decode(data)
        except msgspec.MsgspecError:
            message, column = _diagnose(data, split_by)
            return items, _FileProblem(number, message, column)
        twice = repeated(raw, data)
        if twice is not None:
            return items, _FileProblem(number, *twice)
        items.append((raw, number))
    return items, None


def _diagnose(data: bytes, split_by: str) -> tuple[str, int | None]:
    """What is wrong with a line of a log that the decoder refused, in the trace's words."""
    text = text_of(data)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not UTF-8 text: byte 0x{data[bad.start]:02x} cannot be decoded (a trace is UTF-8 JSON Lines)", bad.start + 1
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return diagnose(text)
    if not isinstance(value, dict):
        return shape(value, text)
    if split_by not in value:
        return f"no '{split_by}' field: with --split-by {split_by} every line names its session", 1
    key = value.pop(split_by)
    if isinstance(key, bool) or not isinstance(key, (str, int)):
        column = text.find(f'"{split_by}"')
        return f"'{split_by}' must be a string or an integer (the session), not {kind(key)}", column + 1 if column >= 0 else None
    return shape(value, text)


# Worker processes ------------------------------------------------------------------------------

_CONTEXT: Any = None  # what each worker process works with, built once by `_start`


def _start(build: Callable[..., Any], args: tuple[Any, ...]) -> None:
    global _CONTEXT
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the pool's terminate() ends us, whatever the parent's handler
    _CONTEXT = build(*args)


def _pooled(work: Callable[[Any, str], Any], path: str) -> Any:
    return work(_CONTEXT, path)


def in_order(
    work: Callable[[Any, str], Any],
    context: Any,
    paths: list[str],
    jobs: int,
    build: Callable[..., Any],
    args: tuple[Any, ...],
) -> Iterator[Any]:
    """`work(context, path)` for each path, in order: in this process, or from `jobs` workers when it pays.

    Each worker makes its own context with `build(*args)` (plain data, such
    as spec texts, crosses to it better than a compiled table); `work` and
    `build` are module-level functions, and what `work` returns crosses a
    pipe. Each worker reads its own files (handing events over a pipe would
    cost more than replaying them).
    """
    if jobs <= 1 or len(paths) < 2 * jobs or "-" in paths:
        for path in paths:
            yield work(context, path)
        return
    import multiprocessing

    chunk = max(1, min(64, len(paths) // (jobs * 8)))
    with multiprocessing.Pool(jobs, initializer=_start, initargs=(build, args)) as pool:
        yield from pool.imap(partial(_pooled, work), paths, chunksize=chunk)
