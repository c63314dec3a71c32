"""Testing an implementation against the table, event by event.

An implementation is anything with `reset()` and `step(event) -> answer`:
an object in this process (the Python API) or a child process over the line
protocol (`protocol.py`, docs/conformance.md). This module holds what both
share: running traces beside the table (each answer checked and compared by
`answers.py`), and shrinking and explaining the first trace whose answers
part from the table's. It does no I/O itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from gapstate.conformance.answers import (
    Answers,
    agrees,
    differences,
    protocol_problem,
    shown,
    table_answers,
    wire,
)
from gapstate.errors import GapstateError
from gapstate.results import Result
from gapstate.run.event import TEXTS, TIMES, Event, fresh_id
from gapstate.run.machine import Machine, Outcome
from gapstate.run.replayer import Session, machine_for
from gapstate.table.load import Spec


class Implementation(Protocol):
    """What conform drives: a fresh session on `reset()`, one answer per `step(event)`."""

    def reset(self) -> Any: ...

    def step(self, event: dict[str, Any]) -> Any: ...


class Untestable(GapstateError):
    """The implementation cannot be tested: it does not start, breaks the protocol, exits or does not answer."""


# Results ------------------------------------------------------------------------


@dataclass(frozen=True)
class Divergence:
    """The first event at which an implementation parts from the table, and the trace that leads there."""

    trace: tuple[dict[str, Any], ...]  # ends at the diverging event
    index: int
    expected: dict[str, Any]
    actual: dict[str, Any]
    row: int | None  # the spec line of the row behind `expected`
    fields: tuple[str, ...]  # which fields differ
    source: str = "generated"  # a vector's name, or "generated"
    shrunk_from: int = 0  # the events of the trace it was shrunk from
    row_text: str | None = None  # the row behind `expected`, as the spec writes it
    reasons: tuple[str, ...] = ()  # each guard that row reads, and why the table computed it so

    def to_dict(self) -> dict[str, Any]:
        return {
            "trace": list(self.trace),
            "index": self.index,
            "expected": self.expected,
            "actual": self.actual,
            "differs": list(self.fields),
            "row": None if self.row is None else {"line": self.row, "text": self.row_text},
            "guards": list(self.reasons),
        }


@dataclass(frozen=True)
class ConformResult(Result):
    """What a conform run found, shaped like its JSON output."""

    spec: str
    seed: int
    vectors: int  # vector traces run
    traces: int  # generated traces run (shrinking's re-runs are not)
    events: int  # events sent, over every trace, shrinking's included
    divergence: Divergence | None
    shrinks: int = 0  # traces run while shrinking the divergence

    @property
    def ok(self) -> bool:
        return self.divergence is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "vectors": self.vectors,
            "traces": self.traces,
            "shrinks": self.shrinks,
            "events": self.events,
            "divergence": self.divergence.to_dict() if self.divergence else None,
        }


# Running traces -------------------------------------------------------------------


@dataclass
class Runner:
    """Runs traces through an implementation beside the table, counting traces (found, or shrinking) and events."""

    machine: Machine
    implementation: Implementation
    traces: int = 0  # run to find a divergence
    shrinks: int = 0  # run once one was found, to shrink it
    events: int = 0
    shrinking: bool = False

    answers: Answers = field(default_factory=Answers)

    def run(self, trace: Sequence[dict[str, Any]], source: str = "generated",
            outcomes: Sequence[Outcome] | None = None) -> Divergence | None:
        """Reset, then send the trace's events until the first divergence or refusal.

        `outcomes` are the table's for each event, as the walk that drew the
        trace replayed it (`strategies.chance_walks`); without them the
        trace is replayed here.
        """
        events = wire(trace)
        if self.shrinking:
            self.shrinks += 1
        else:
            self.traces += 1
        if outcomes is None:
            table = table_answers(Session(self.machine), events)  # up to the first refusal: what follows is not sent
        else:
            table = list(map(self.answers, outcomes))
        whole = getattr(self.implementation, "trace", None)  # a Child sends the trace in one write
        if whole is not None:
            answers: Iterator[Any] = whole([dict(event) for event in events[: len(table)]])
        else:
            self.implementation.reset()  # in process its answer is ignored
            answers = (self.implementation.step(dict(event)) for event in events[: len(table)])
        for index, ((expected, row), actual) in enumerate(zip(table, answers, strict=True)):
            self.events += 1
            if agrees(expected, actual):
                continue
            problem = protocol_problem(actual)
            if problem is not None:
                raise Untestable(f"the answer to event {index + 1} of {len(events)} ({events[index]['event']}) is not in the protocol: {problem}: {shown(actual)}")
            fields = differences(expected, actual)
            if fields:
                return Divergence(tuple(events[: index + 1]), index, expected, actual, row, fields, source, len(events))
        return None

    def shrink(self, found: Divergence, budget: int = 3000) -> Divergence:
        """The shortest, simplest trace found that still diverges on the same field.

        Deletes runs of events, halving their length down to one; gives a
        loss the id of an earlier one (so a repeated notice can lose the
        events between); pulls later events back in time; names ids iv-1,
        iv-2, ... in order. Any such trace is one gapstate can judge (times
        never go back; an event the table now refuses is simply expected
        refused), so this needs no knowledge of the table. A candidate is
        kept only when it diverges in the field the first divergence did
        (the first of state, actions, counters, debt_owed, refused that
        differed), so the bug shown stays the bug found. Passes repeat until
        none helps; `budget` bounds the runs.
        """
        self.shrinking = True
        best = found
        field = found.fields[0]
        improved = True
        while improved and budget > 0:
            improved = False
            for candidate in _simpler(best.trace):
                if budget <= 0:
                    break
                budget -= 1
                try:
                    again = self.run(candidate, best.source) if candidate else None
                except Untestable:  # it diverged, then stopped answering: the divergence stands, unshrunk further
                    return replace(best, source=found.source, shrunk_from=found.shrunk_from)
                if again is not None and field in again.fields and _size(again.trace) < _size(best.trace):
                    best, improved = again, True
                    break
        return replace(best, source=found.source, shrunk_from=found.shrunk_from)


def _simpler(trace: tuple[dict[str, Any], ...]) -> Iterator[tuple[dict[str, Any], ...]]:
    """Candidates simpler than `trace`: runs of events deleted (longest first), ids merged, times pulled back, ids renamed."""
    size = max(1, len(trace) // 2)
    while size >= 1:
        for start in range(len(trace) - size + 1):
            yield trace[:start] + trace[start + size :]
        size //= 2
    ids = _ids(trace)
    for index, event in enumerate(trace):
        for key in TEXTS:
            if key in event:
                for other in ids[: ids.index(event[key])]:
                    yield trace[:index] + ({**event, key: other},) + trace[index + 1 :]
    for index, event in enumerate(trace):
        gap = event["t"] - (trace[index - 1]["t"] if index else 0)
        for pull in dict.fromkeys((gap, gap // 2)):
            if pull > 0:
                yield trace[:index] + tuple(_earlier(later, pull) for later in trace[index:])
        for key in _PAYLOAD_TIMES:
            speech = event.get(key)
            if type(speech) is int and 0 < event["t"] - speech < gap:  # evidence pulled back to its speech, which stays
                pull = event["t"] - speech
                yield trace[:index] + ({**event, "t": speech},) + tuple(_earlier(later, pull) for later in trace[index + 1 :])
    names = {ident: fresh_id(n) for n, ident in enumerate(ids, start=1)}
    if any(ident != name for ident, name in names.items()):
        yield tuple({**e, **{key: names[e[key]] for key in TEXTS if key in e}} for e in trace)


_PAYLOAD_TIMES = TIMES[1:]  # the payload fields holding times, pulled back with their event's `t`


def _earlier(event: dict[str, Any], gap: int) -> dict[str, Any]:
    """The event `gap` ms earlier, its payload's times too (never before 0)."""
    moved = {**event, "t": event["t"] - gap}
    for key in _PAYLOAD_TIMES:
        if key in event and type(event[key]) is int:
            moved[key] = max(0, event[key] - gap)
    return moved


def _ids(trace: Sequence[dict[str, Any]]) -> list[str]:
    """The interval ids of a trace in order of first appearance."""
    return list(dict.fromkeys(event[key] for event in trace for key in TEXTS if key in event))


def _size(trace: Sequence[dict[str, Any]]) -> tuple[int, int, int, int]:
    """What shrinking lowers: the events, how late in the id order each loss's id comes, the time, then the ids' names."""
    ids = _ids(trace)
    named = sum(ident != fresh_id(n) for n, ident in enumerate(ids, start=1))
    return len(trace), sum(ids.index(event[key]) for event in trace for key in TEXTS if key in event), sum(e["t"] for e in trace), named


def explained(machine: Machine, found: Divergence) -> Divergence:
    """The divergence with the row that should have fired, as written, and the reasons for each of its guards."""
    from gapstate.conformance.reasons import guard_reasons

    before, after = Session(machine), Session(machine)
    for event in found.trace[: found.index]:
        before.feed(Event(**event))
        after.feed(Event(**event))
    last = found.trace[found.index]
    outcome = after.feed(Event(**last))
    row = str(outcome.row) if outcome.row is not None else None
    return replace(found, row_text=row, reasons=guard_reasons(before, last, outcome))


# The whole run ----------------------------------------------------------------------


DURATION = 5.0  # seconds of generated traces at most, by default: a default run ends soon


def conform(
    spec: Spec,
    implementation: Implementation,
    vectors: Iterable[tuple[str, Sequence[dict[str, Any]]]] | None = None,
    examples: int = 200,
    seed: int = 0,
    max_size: int = 60,
    progress: Callable[[], None] | None = None,
    duration: float | None = DURATION,
) -> ConformResult:
    """Run the vectors (the built-in suite when None), then up to `examples` generated traces for at most `duration` s.

    The vectors cover the boundaries between rows (see `vectors`), so they
    find the common bugs whatever the seed; generated traces run only when
    every vector agrees, and stop at `examples` or when `duration` seconds
    have passed, whichever comes first (None: no time limit). The first
    divergence is shrunk (by deleting and simplifying events) and explained. Raises Untestable when
    the implementation breaks the protocol, and GapstateError when the spec
    cannot be stepped.
    """
    machine = machine_for(spec)
    runner = Runner(machine, implementation)
    if vectors is None:
        from gapstate.conformance.vectors import builtin

        vectors = builtin(spec)
    count = 0
    first: Divergence | None = None
    for name, trace in vectors:
        count += 1
        found = runner.run(trace, name)
        if progress is not None:
            progress()
        if found is not None:
            first = found
            break
    if first is None and examples > 0:
        first = _generated(spec, runner, examples, seed, max_size, progress, duration)
    if first is not None:
        first = explained(machine, runner.shrink(first))
    return _result(spec, seed, count, runner, first)


def _result(spec: Spec, seed: int, vectors: int, runner: Runner, found: Divergence | None) -> ConformResult:
    return ConformResult(spec.path, seed, vectors, runner.traces - vectors, runner.events, found, runner.shrinks)


def _generated(
    spec: Spec, runner: Runner, examples: int, seed: int, max_size: int, progress: Callable[[], None] | None,
    duration: float | None,
) -> Divergence | None:
    """Up to `examples` walks of `strategies.chance_walks` from `seed`, until one diverges or `duration` s pass.

    They are the walks of the Hypothesis strategy `strategies.traces`, every
    choice drawn from a seeded `random.Random` rather than by Hypothesis'
    engine, which cost some ten times what the rest of a trace costs: so a
    seed gives the same traces on every run, and what diverges is shrunk
    by `Runner.shrink`.
    """
    import time
    from itertools import islice

    from gapstate.fuzzing.strategies import chance_walks

    deadline = None if duration is None else time.monotonic() + duration
    for trace, outcomes in islice(chance_walks(spec, seed, max_size), examples):
        if deadline is not None and time.monotonic() > deadline:
            break
        divergence = runner.run(trace, outcomes=outcomes)
        if progress is not None:
            progress()
        if divergence is not None:
            return divergence
    return None
