"""`gapstate coverage`: which reachable rows recorded traces fire, and how often.

Every trace goes through the same `replay` as `gapstate replay`, and the row
of each step it takes is counted, so the counts are exactly those of
replaying the traces one by one. A trace that stops (an invalid event, an
event after session_end, a broken rule) counts the steps it took and is
listed with its error; a malformed trace is unusable input.

Thousands of traces are spread over worker processes. Each worker reads its
own trace files a line at a time (handing the events over a pipe would cost
more than replaying them), and the parent only adds up counts, in the order
of the input, so the result is the same whatever the number of jobs and the
first malformed trace in that order is the one reported.
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gapstate.errors import GapstateError
from gapstate.run.replayer import ReplayError
from gapstate.spec.load import Spec, parse_spec


@dataclass(frozen=True)
class Stop:
    """A trace whose replay stopped, and the replay's error (index, kind, message, trace line)."""

    trace: str
    error: ReplayError

    def to_dict(self) -> dict[str, Any]:
        return {"trace": self.trace, "index": self.error.index, "kind": self.error.kind}


@dataclass(frozen=True)
class TraceCount:
    """One trace's contribution: its rows fired (line -> count), events read, and stop."""

    trace: str
    fired: dict[int, int]
    events: int
    stop: Stop | None


@dataclass(frozen=True)
class CoverageResult:
    """The sum over every trace, shaped like the JSON output."""

    traces: int
    events: int
    fired: dict[int, int]  # every reachable row (zero included), and any other row fired
    reachable: tuple[int, ...]  # lines of the rows the proof finds reachable
    stopped: tuple[Stop, ...]

    @property
    def never(self) -> tuple[int, ...]:
        return tuple(line for line in self.reachable if not self.fired.get(line))

    def to_dict(self) -> dict[str, Any]:
        return {
            "traces": self.traces,
            "events": self.events,
            "fired": {str(line): count for line, count in sorted(self.fired.items())},
            "never": list(self.never),
            "reachable": len(self.reachable),
            "stopped": [stop.to_dict() for stop in self.stopped],
        }

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]


def count(spec: Spec, events: Any, name: str) -> TraceCount:
    """Replay one trace's checked events (see `trace.Events`) and count the rows its steps fired."""
    from gapstate.run.replayer import replay

    fired: Counter[int] = Counter()
    result = replay(spec, events, keep_steps=False, on_step=lambda step: fired.update((step.row,)))
    stop = None if result.error is None else Stop(name, result.error)
    return TraceCount(name, dict(fired), result.events, stop)


def trace_files(paths: Iterable[str]) -> Iterator[str]:
    """The trace files named: a file as given, a folder as its `*.jsonl` files (recursively, sorted).

    A folder holding none is an error, not an empty result: a coverage gate
    pointed at the wrong folder should not pass.
    """
    for path in paths:
        if path != "-" and os.path.isdir(path):
            found = sorted(str(p) for p in Path(path).rglob("*.jsonl") if p.is_file())
            if not found:
                raise GapstateError("a folder with no trace files (*.jsonl) in it", file=path)
            yield from found
        else:
            yield path


# The spec each worker process replays against, set once by `_start`.
_WORKER_SPEC: Spec | None = None


def _start(text: str, name: str) -> None:
    global _WORKER_SPEC
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _WORKER_SPEC = parse_spec(text, name)


def _count_file(spec: Spec, path: str) -> TraceCount | tuple[str, str | None, int | None, int | None]:
    """A trace file's count, or a malformed file's error as plain data (it crosses a pipe)."""
    from gapstate.spec.source import label
    from gapstate.run.trace import read_trace

    try:
        return count(spec, read_trace(path), label(path))
    except GapstateError as error:
        return (error.message, error.file, error.line, error.column)


def _work(path: str) -> TraceCount | tuple[str, str | None, int | None, int | None]:
    assert _WORKER_SPEC is not None
    return _count_file(_WORKER_SPEC, path)


def coverage(
    spec: Spec,
    spec_text: str,
    paths: list[str],
    jobs: int,
    progress: Callable[[], None] | None = None,
) -> CoverageResult:
    """Replay every trace file in `paths` against the spec and add up the rows fired.

    `spec_text` is the spec's markdown, which the worker processes parse for
    themselves. Raises GapstateError for the first malformed trace, in the
    order of `paths`.
    """
    from gapstate.proof.explore import explore
    from gapstate.run.replayer import machine_for

    reachable = tuple(sorted(explore(machine_for(spec)).fired))
    fired: Counter[int] = Counter({line: 0 for line in reachable})
    events = 0
    stopped: list[Stop] = []
    for item in _counts(spec, spec_text, paths, jobs):
        if isinstance(item, tuple):
            message, file, line, column = item
            raise GapstateError(message, file, line, column)
        fired.update(item.fired)
        events += item.events
        if item.stop is not None:
            stopped.append(item.stop)
        if progress is not None:
            progress()
    return CoverageResult(len(paths), events, dict(fired), reachable, tuple(stopped))


def _counts(spec: Spec, spec_text: str, paths: list[str], jobs: int) -> Iterator[Any]:
    """Each path's count, in order: in this process, or from a pool when it pays."""
    if jobs <= 1 or len(paths) < 2 * jobs or "-" in paths:
        for path in paths:
            yield _count_file(spec, path)
        return
    import multiprocessing

    chunk = max(1, min(64, len(paths) // (jobs * 8)))
    with multiprocessing.Pool(jobs, initializer=_start, initargs=(spec_text, spec.path)) as pool:
        yield from pool.imap(_work, paths, chunksize=chunk)
