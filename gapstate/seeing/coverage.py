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
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from gapstate.errors import GapstateError
from gapstate.results import Result
from gapstate.run.recorded import UnusableTrace
from gapstate.run.replayer import ReplayError
from gapstate.table.load import Spec, parse_spec


@dataclass(frozen=True)
class StoppedTrace:
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
    stop: StoppedTrace | None


@dataclass(frozen=True)
class CoverageResult(Result):
    """The sum over every trace, shaped like the JSON output."""

    _attributes = frozenset()

    traces: int
    events: int
    fired: dict[int, int]  # every reachable row (zero included), and any other row fired
    reachable: tuple[int, ...]  # lines of the rows the proof finds reachable
    stopped: tuple[StoppedTrace, ...]
    unusable: tuple[UnusableTrace, ...] | None = None  # with --keep-going: the traces that could not be read

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
            **({} if self.unusable is None else {"unusable": [u.to_dict() for u in self.unusable]}),
        }


def trace_files(paths: Iterable[str]) -> Iterator[str]:
    """The trace files named: a file as given, a folder as its `*.jsonl` files (recursively, sorted).

    A folder holding none is an error, not an empty result: a coverage gate
    pointed at the wrong folder should not pass. Nothing is skipped in
    silence: a subfolder that cannot be listed is an error, a `*.jsonl`
    that is a link to nothing is named, so it fails when read, and a link
    (to a folder or a `*.jsonl`) that leads out of the folder given is an
    error naming it (`_outside`).
    """
    for path in paths:
        if path != "-" and os.path.isdir(path):
            found = sorted(_jsonl_under(path))
            if not found:
                raise GapstateError("a folder with no trace files (*.jsonl) in it", file=path)
            yield from found
        else:
            yield path


def _outside(link: str, folder: str) -> GapstateError:
    """The error for a link in a trace folder that leads out of it: a pull request's folder must not read the runner's files."""
    return GapstateError(
        f"a symbolic link leading out of {folder}, the folder given: gapstate reads only the traces inside it "
        "(to read what it leads to, name that on the command line)",
        file=link,
    )


def _jsonl_under(folder: str) -> Iterator[str]:
    """Every `*.jsonl` entry under `folder` that is not a folder, following links to folders once each.

    A link that resolves outside `folder`'s tree (`inside_tree`) is an
    error, before anything it leads to is listed or read.
    """
    from gapstate.files.source import inside_tree

    def refuse(error: OSError) -> None:
        raise GapstateError(f"cannot list this folder: {error.strerror or error}", file=error.filename)

    seen: set[str] = set()
    for root, folders, files in os.walk(folder, onerror=refuse, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:  # a link back up the tree: each folder is read once
            folders.clear()
            continue
        seen.add(real)
        jsonl = [os.path.join(root, name) for name in files if name.endswith(".jsonl")]
        for path in (*(os.path.join(root, name) for name in folders), *jsonl):
            if os.path.islink(path) and not inside_tree(path, folder):
                raise _outside(path, folder)
        yield from jsonl


def _context(text: str, name: str, split_by: str | None, keep_going: bool) -> tuple[Any, ...]:
    """What a worker replays with: the spec (parsed from its text), its machine, and how to read traces."""
    from gapstate.run.replayer import machine_for

    spec = parse_spec(text, name)
    return spec, machine_for(spec), split_by, keep_going


def _tally() -> tuple[Callable[[Any], None], Counter[int]]:
    fired: Counter[int] = Counter()
    return (lambda step: fired.update((step.row,))), fired


def _count_path(context: tuple[Any, ...], path: str) -> list[TraceCount | UnusableTrace]:
    """Each session of a trace file counted, or why it could not be read (plain data: it crosses a pipe)."""
    from gapstate.run.recorded import replay_path
    from gapstate.run.replayer import stop_error

    _, machine, split_by, keep_going = context
    counted: list[TraceCount | UnusableTrace] = []
    for item in replay_path(machine, path, split_by, _tally, keep_going):
        if isinstance(item, UnusableTrace):
            counted.append(item)
        else:
            stop = None
            if item.stop is not None:
                assert item.line is not None, "a session that stopped has the line it stopped at"
                stop = StoppedTrace(item.trace, stop_error(item.stop, item.line))
            counted.append(TraceCount(item.trace, dict(item.tally), item.events, stop))
    return counted


def coverage(
    spec: Spec,
    spec_text: str,
    paths: list[str],
    jobs: int,
    progress: Callable[[], None] | None = None,
    split_by: str | None = None,
    keep_going: bool = False,
) -> CoverageResult:
    """Replay every trace file in `paths` against the spec and add up the rows fired.

    `spec_text` is the spec's markdown, which the worker processes parse for
    themselves. With `split_by`, each file is a log of sessions keyed by that
    field (see `gapstate.run.recorded`). Raises GapstateError for the first
    unusable trace, in the order of `paths`; with `keep_going`, lists it in
    `unusable` and counts the rest.
    """
    from gapstate.proof.explore import explore
    from gapstate.run.recorded import in_order
    from gapstate.run.replayer import machine_for

    reachable = tuple(sorted(explore(machine_for(spec)).fired))
    fired: Counter[int] = Counter({line: 0 for line in reachable})
    events = traces = 0
    stopped: list[StoppedTrace] = []
    unusable: list[UnusableTrace] = []
    context = (spec, machine_for(spec), split_by, keep_going)
    for counted in in_order(_count_path, context, paths, jobs, _context, (spec_text, spec.path, split_by, keep_going)):
        for item in counted:
            if isinstance(item, UnusableTrace):
                if not keep_going:
                    raise item.error()
                unusable.append(item)
                continue
            traces += 1
            fired.update(item.fired)
            events += item.events
            if item.stop is not None:
                stopped.append(item.stop)
        if progress is not None:
            progress()
    return CoverageResult(traces, events, dict(fired), reachable, tuple(stopped), tuple(unusable) if keep_going else None)
