"""Testing an implementation against the table, event by event.

An implementation is anything with `reset()` and `step(event) -> answer`:
an object in this process (the Python API) or a child process over the line
protocol (`protocol.py`, docs/conformance.md). This module holds what both
share: the table's answer to each event, the check that an answer is in the
protocol at all, the comparison of the two, running traces, and shrinking
the first trace whose answers part from the table's. It does no I/O itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from gapstate.results import Result
from gapstate.errors import GapstateError
from gapstate.run.machine import Machine, Status
from gapstate.run.replayer import Session, counters, machine_for
from gapstate.spec.load import Spec
from gapstate.spec.vocabulary import COUNTERS
from gapstate.run.trace import Event

REFUSALS = ("invalid_event", "after_session_end")


class Implementation(Protocol):
    """What conform drives: a fresh session on `reset()`, one answer per `step(event)`."""

    def reset(self) -> Any: ...

    def step(self, event: dict[str, Any]) -> Any: ...


class Untestable(GapstateError):
    """The implementation cannot be tested: it does not start, breaks the protocol, exits or does not answer."""


# The table's side ------------------------------------------------------------


def wire(trace: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events as the protocol sends them: the trace format with `t` always present."""
    out = []
    t = 0
    for item in trace:
        t = item.get("t", t)
        event: dict[str, Any] = {"event": item["event"], "t": t}
        for key in ("id", "speech_start"):
            if key in item:
                event[key] = item[key]
        out.append(event)
    return out


def table_answer(session: Session, event: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
    """The table's answer to `event`, in the protocol's shape, and the line of the row that decided it.

    Feeds the event to `session`; a refused event leaves it as it was.
    """
    outcome = session.feed(Event(**event))
    row = outcome.row.line if outcome.row is not None else None
    if outcome.status is Status.OK:
        config = outcome.config
        answer = {
            "state": config.state,
            "actions": list(outcome.actions),
            "counters": counters(config),
            "debt_owed": config.debt_owed,
        }
        return answer, row
    return {"refused": "after_session_end" if outcome.status is Status.ENDED else "invalid_event"}, row


# The implementation's side -----------------------------------------------------


def protocol_problem(answer: Any) -> str | None:
    """Why an answer to an event is not one the protocol allows, or None when it is."""
    if not isinstance(answer, dict):
        return f"an answer must be a JSON object, not {_kind(answer)}"
    if "refused" in answer:
        if answer["refused"] not in REFUSALS:
            return f"'refused' must be one of {', '.join(map(repr, REFUSALS))}, not {answer['refused']!r}"
        return None
    if not isinstance(answer.get("state"), str):
        return "'state' must be a string" if "state" in answer else "missing 'state' (or 'refused')"
    actions = answer.get("actions")
    if not isinstance(actions, (list, tuple)) or not all(isinstance(a, str) for a in actions):
        return "'actions' must be a list of strings" if "actions" in answer else "missing 'actions'"
    if "counters" in answer:
        given = answer["counters"]
        if not isinstance(given, dict) or not set(COUNTERS) <= set(given):
            return f"'counters' must be an object with {' and '.join(COUNTERS)}"
        if not all(type(given[name]) is int for name in COUNTERS):
            return "'counters' values must be integers"
    if "debt_owed" in answer and not isinstance(answer["debt_owed"], bool):
        return "'debt_owed' must be true or false"
    return None


def _shown(value: Any) -> str:
    """An answer as the message shows it: its JSON, cut short."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def _kind(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def differences(expected: dict[str, Any], actual: dict[str, Any]) -> tuple[str, ...]:
    """The fields in which a protocol answer parts from the table's; empty when they agree.

    Counters and debt are compared only when the answer gives them; other
    keys an answer carries are not the protocol's and are not compared.
    """
    if "refused" in expected or "refused" in actual:
        return () if expected.get("refused") == actual.get("refused") else ("refused",)
    fields = ["state"] if expected["state"] != actual["state"] else []
    fields += ["actions"] if expected["actions"] != list(actual["actions"]) else []  # a tuple, in process
    if "counters" in actual and any(expected["counters"][n] != actual["counters"][n] for n in COUNTERS):
        fields.append("counters")
    fields += ["debt_owed"] if "debt_owed" in actual and expected["debt_owed"] != actual["debt_owed"] else []
    return tuple(fields)


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

    def to_dict(self) -> dict[str, Any]:
        return {"trace": list(self.trace), "index": self.index, "expected": self.expected, "actual": self.actual}


@dataclass(frozen=True)
class ConformResult(Result):
    """What a conform run found, shaped like its JSON output."""

    spec: str
    seed: int
    vectors: int  # vector traces run
    traces: int  # generated traces run, shrinking re-runs included
    events: int  # events sent, over every trace
    divergence: Divergence | None

    @property
    def ok(self) -> bool:
        return self.divergence is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "vectors": self.vectors,
            "traces": self.traces,
            "events": self.events,
            "divergence": self.divergence.to_dict() if self.divergence else None,
        }

    def report(self) -> str:
        """The text `gapstate conform` prints, for an assertion message."""
        from gapstate.cli.render.testing import conform_text

        return conform_text(self)


# Running traces -------------------------------------------------------------------


@dataclass
class Runner:
    """Runs traces through an implementation beside the table, counting traces and events."""

    machine: Machine
    implementation: Implementation
    traces: int = 0
    events: int = 0

    def run(self, trace: Sequence[dict[str, Any]], source: str = "generated") -> Divergence | None:
        """Reset, then send the trace's events until the first divergence or refusal."""
        events = wire(trace)
        self.traces += 1
        self.implementation.reset()  # the protocol checks its answer is an object; in process it is ignored
        session = Session(self.machine)
        for index, event in enumerate(events):
            expected, row = table_answer(session, event)
            self.events += 1
            actual = self.implementation.step(dict(event))
            problem = protocol_problem(actual)
            if problem is not None:
                raise Untestable(f"the answer to event {index + 1} of {len(events)} ({event['event']}) is not in the protocol: {problem}: {_shown(actual)}")
            fields = differences(expected, actual)
            if fields:
                return Divergence(tuple(events[: index + 1]), index, expected, actual, row, fields, source, len(events))
            if "refused" in expected:
                break  # a trace ends at its first refusal
        return None

    def shrink(self, found: Divergence, budget: int = 3000) -> Divergence:
        """A simpler trace that still diverges: fewer events, then fewer distinct interval ids.

        Deletes runs of events, halving their length down to one, and gives a
        loss the id of an earlier one (so a repeated notice can lose the
        events between). Any such trace is one gapstate can judge (times never
        go back; an event the table now refuses is simply expected refused),
        so this needs no knowledge of the table. Passes repeat until none
        helps; `budget` bounds the runs.
        """
        best = found
        improved = True
        while improved and budget > 0:
            improved = False
            for candidate in _simpler(best.trace):
                if budget <= 0:
                    break
                budget -= 1
                again = self.run(candidate, best.source) if candidate else None
                if again is not None and _size(again.trace) < _size(best.trace):
                    best, improved = again, True
                    break
        return replace(best, source=found.source, shrunk_from=found.shrunk_from)


def _simpler(trace: tuple[dict[str, Any], ...]) -> Iterator[tuple[dict[str, Any], ...]]:
    """Candidates simpler than `trace`: runs of events deleted (longest first), then ids merged."""
    size = max(1, len(trace) // 2)
    while size >= 1:
        for start in range(len(trace) - size + 1):
            yield trace[:start] + trace[start + size :]
        size //= 2
    ids = _ids(trace)
    for index, event in enumerate(trace):
        if "id" in event:
            for other in ids[: ids.index(event["id"])]:
                yield trace[:index] + ({**event, "id": other},) + trace[index + 1 :]


def _ids(trace: Sequence[dict[str, Any]]) -> list[str]:
    """The interval ids of a trace in order of first appearance."""
    return list(dict.fromkeys(event["id"] for event in trace if "id" in event))


def _size(trace: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """What shrinking lowers: the events, then how late in the trace's id order each loss's id comes."""
    ids = _ids(trace)
    return len(trace), sum(ids.index(event["id"]) for event in trace if "id" in event)


# The whole run ----------------------------------------------------------------------


def conform(
    spec: Spec,
    implementation: Implementation,
    vectors: Iterable[tuple[str, Sequence[dict[str, Any]]]] | None = None,
    examples: int = 200,
    seed: int = 0,
    max_size: int = 60,
    progress: Callable[[], None] | None = None,
) -> ConformResult:
    """Run the vectors (the built-in suite when None), then `examples` generated traces; shrink the first divergence.

    A divergence in a vector is shrunk by deleting events; one in a
    generated trace by Hypothesis (then by deletion), re-running the
    implementation each time. Raises Untestable when the implementation
    breaks the protocol, and GapstateError when the spec cannot be stepped.
    """
    machine = machine_for(spec)
    runner = Runner(machine, implementation)
    if vectors is None:
        from gapstate.testing.vectors import builtin

        vectors = builtin(spec)
    count = 0
    first: Divergence | None = None
    for name, trace in vectors:
        count += 1
        found = runner.run(trace, name)
        if progress is not None:
            progress()
        if found is not None:
            first = runner.shrink(found)
            break
    # Even after a vector diverged, generated traces run: Hypothesis shrinks
    # ids and times as well as events, so its trace is often the shorter.
    generated = _generated(spec, runner, examples, seed, max_size, progress) if examples > 0 else None
    if generated is not None:
        generated = runner.shrink(generated)
        if first is None or len(generated.trace) < len(first.trace):
            first = generated
    return _result(spec, seed, count, runner, first)


def _result(spec: Spec, seed: int, vectors: int, runner: Runner, found: Divergence | None) -> ConformResult:
    return ConformResult(spec.path, seed, vectors, runner.traces - vectors, runner.events, found)


class _Diverged(Exception):
    """Raised inside the property so that Hypothesis shrinks the trace."""


def _generated(
    spec: Spec, runner: Runner, examples: int, seed: int, max_size: int, progress: Callable[[], None] | None
) -> Divergence | None:
    """Hypothesis generates traces from `strategies.traces` and shrinks the first that diverges."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as with_seed
    from hypothesis.errors import Flaky, Unsatisfiable
    from hypothesis.reporting import with_reporter

    from gapstate.strategies import traces

    found: list[Divergence] = []

    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.generate, Phase.shrink),
        report_multiple_bugs=False,
    )
    @given(traces(spec, max_size=max_size))
    def agrees_with_the_table(trace: list[dict[str, Any]]) -> None:
        divergence = runner.run(trace)
        if progress is not None and not found:
            progress()
        if divergence is not None:
            found.append(divergence)
            raise _Diverged()

    with with_reporter(lambda message: None):
        try:
            with_seed(seed)(agrees_with_the_table)()
        except (_Diverged, Flaky):
            pass  # Flaky: an implementation that answers differently on the same trace; keep the last found
        except Unsatisfiable:
            pass
    # Hypothesis replays the smallest failing example last.
    return min(reversed(found), key=lambda d: len(d.trace)) if found else None
