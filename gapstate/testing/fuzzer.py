"""`gapstate fuzz`: replay many generated traces and report the first failure, shrunk.

Hypothesis draws traces with `strategies.traces`, which walks the table
towards its rows along the proof's shortest ways (see `guide`). Each trace
is replayed, which checks every rule after every step and refuses an event
no row matches; the first trace that fails is shrunk by the graph (the
shortest way to the same failure, in the canonical form `check` uses) and
cut down until every event is needed. The rows the traces fired are
compared with the rows the proof finds reachable, so a run that misses a
corner of the table says so.

Campaigns: several worker processes with distinct seeds, their coverage
merged, all stopped at the first failure; or a run bounded by time rather
than by a number of traces.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as with_seed
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.errors import Unsatisfiable
from hypothesis.reporting import with_reporter

from gapstate import __version__
from gapstate.results import Result
from gapstate.run.machine import Status
from gapstate.run.replayer import ReplayError, Session, machine_for, replay
from gapstate.spec.load import Spec
from gapstate.strategies import traces
from gapstate.run.trace import from_dicts


@dataclass(frozen=True)
class Counterexample:
    """The shrunk trace that failed, how the replay stopped on it, and the seed of the run that found it."""

    trace: tuple[dict[str, Any], ...]
    kind: str
    message: str
    index: int
    seed: int
    after: int  # traces the finding run had replayed when it first failed
    row: int | None = None  # the spec line of the row whose step broke a rule

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "index": self.index,
            "row": self.row,
            "seed": self.seed,
            "after": self.after,
            "trace": list(self.trace),
        }


@dataclass(frozen=True)
class FuzzResult(Result):
    """What a fuzz run found, shaped like its JSON output."""

    spec: str
    seeds: tuple[int, ...]  # one per worker; the first is --seed
    examples: int  # traces replayed, shrinking included
    events: int
    counterexample: Counterexample | None
    reachable: tuple[int, ...]  # lines of rows the proof finds reachable
    fired: tuple[int, ...]  # lines of rows the generated traces fired
    require_coverage: bool = False
    # traces replayed when the traces of one run first covered every reachable row (the fewest over the runs)
    complete_after: int | None = None

    @property
    def seed(self) -> int:
        return self.seeds[0]

    @property
    def missed(self) -> tuple[int, ...]:
        fired = set(self.fired)
        return tuple(line for line in self.reachable if line not in fired)

    @property
    def gate_failed(self) -> bool:
        """--require-coverage was given and some reachable row never fired."""
        return self.require_coverage and bool(self.missed)

    @property
    def ok(self) -> bool:
        return self.counterexample is None and not self.gate_failed

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "spec": self.spec,
            "seed": self.seed,
            "seeds": list(self.seeds),
            "examples": self.examples,
            "events": self.events,
            "counterexample": self.counterexample.to_dict() if self.counterexample else None,
            "coverage": {
                "reachable": list(self.reachable),
                "fired": list(self.fired),
                "missed": list(self.missed),
                "required": self.require_coverage,
                "complete_after": self.complete_after,
            },
        }


# The last fifth of a run's traces (of its time, with --duration) head for
# the RARE_ROWS rows the run fired least so far.
RARE_PART = 5
RARE_SHARE = 1 / RARE_PART
RARE_ROWS = 8


class _Broken(Exception):
    """Raised inside the property when a trace fails: Hypothesis saves it in its database and stops."""


class _Stopped(BaseException):
    """Ends a run early (time is up, another worker failed); Hypothesis lets a BaseException through."""


@dataclass
class _Tally:
    examples: int = 0
    events: int = 0
    fired: set[int] = field(default_factory=set)
    complete_after: int | None = None
    found: tuple[tuple[dict[str, Any], ...], ReplayError] | None = None


class KeyedDatabase(ExampleDatabase):
    """An example database whose keys also name the spec and the trace length.

    Hypothesis keys examples by the test function, which is the same for
    every spec: without the prefix, a failure saved for one table would be
    replayed, pass, and be deleted, on the next.
    """

    def __init__(self, inner: ExampleDatabase, prefix: bytes):
        super().__init__()
        self.inner = inner
        self.prefix = prefix

    def save(self, key: bytes, value: bytes) -> None:
        self.inner.save(self.prefix + key, value)

    def fetch(self, key: bytes) -> Any:
        return self.inner.fetch(self.prefix + key)

    def delete(self, key: bytes, value: bytes) -> None:
        self.inner.delete(self.prefix + key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.inner.move(self.prefix + src, self.prefix + dest, value)


def database(directory: str | Path | None, spec: Spec, max_size: int, toward: Any = None) -> ExampleDatabase | None:
    """The example database for this spec and strategy in `directory` (`.hypothesis/examples`), or None for none."""
    if directory is None:
        return None
    table = repr(spec.table).encode()  # rows, caps and lines: what the traces depend on
    digest = hashlib.sha256(table + f"|{max_size}|{toward}|{__version__}".encode()).hexdigest()[:16]
    return KeyedDatabase(DirectoryBasedExampleDatabase(str(directory)), f"gapstate-fuzz-{digest}-".encode())


def fuzz(
    spec: Spec,
    examples: int | None,
    seed: int,
    max_size: int = 60,
    progress: Callable[[], None] | None = None,
    require_coverage: bool = False,
    duration: float | None = None,
    database_dir: str | Path | None = None,
    stop: Any = None,
) -> FuzzResult:
    """One run: replay `examples` generated traces (or as many as `duration` seconds allow).

    The first four fifths of the traces walk towards any row; the last
    fifth head for the rows the first part fired least (a second
    Hypothesis run, with `traces(spec, toward=those rows)`): rows rarely
    fired so far get reached. The first trace that fails ends the run and
    is shrunk by `minimize`; Hypothesis' own shrinking is not used, as it
    takes thousands of replays where the table's graph gives the answer at
    once. `stop` (a multiprocessing Event) ends the run early when another
    worker sets it; this run sets it when a trace fails.
    """
    from gapstate.proof.paths import roadmap

    reachable = roadmap(machine_for(spec)).rows
    wanted = set(reachable)
    tally = _Tally()
    fired: Counter[int] = Counter()
    started = time.monotonic()
    if examples is None:
        assert duration is not None
        parts = [(None, started + duration * (1 - RARE_SHARE)), (None, started + duration)]
    else:
        parts = [(examples - examples // RARE_PART, None), (examples // RARE_PART, None)]

    def part(count: int | None, deadline: float | None, toward: tuple[int, ...] | None) -> None:
        store = database(database_dir, spec, max_size, toward)

        @settings(
            max_examples=count if count is not None else 10**9,
            database=store,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            phases=(Phase.explicit, Phase.reuse, Phase.generate),
            report_multiple_bugs=False,
        )
        @given(traces(spec, max_size=max_size, toward=toward))
        def replays_without_failing(trace: list[dict[str, Any]]) -> None:
            # A timed run replays at least one trace, however long the start took on a loaded machine.
            if (deadline is not None and tally.examples and time.monotonic() > deadline) or (stop is not None and stop.is_set()):
                raise _Stopped
            result = replay(spec, from_dicts(trace))
            tally.examples += 1
            tally.events += len(trace)
            rows = {step.row for step in result.steps}
            fired.update(rows)
            if tally.complete_after is None and wanted.issubset(fired):
                tally.complete_after = tally.examples
            if progress is not None:
                progress()
            error = result.error
            if error is not None:
                if stop is not None:
                    stop.set()
                # the events after the one that failed are not part of the story
                tally.found = (tuple(trace[: error.index + 1]), error)
                raise _Broken(error.message)

        run = with_seed(seed)(replays_without_failing)
        # @seed turns the database off (a seed is meant to reproduce a run on
        # its own); gapstate wants both: the seed for a reproducible run, the
        # database so that a failure found once is replayed first next time.
        run._hypothesis_internal_use_settings = settings(run._hypothesis_internal_use_settings, database=store)
        with with_reporter(lambda message: None):
            try:
                run()
            except (_Broken, _Stopped):
                pass
            except Unsatisfiable:  # a table whose initial state accepts no event: nothing to generate
                pass

    (count, deadline), (rare_count, rare_deadline) = parts
    part(count, deadline, None)
    if tally.found is None and not (stop is not None and stop.is_set()) and (rare_count or rare_deadline):
        least = sorted(reachable, key=lambda line: (fired[line], line))[:RARE_ROWS]
        part(rare_count, rare_deadline, tuple(sorted(least)))
    tally.fired = set(fired)
    counterexample = None
    if tally.found is not None:
        trace, error = minimize(spec, *tally.found)
        row = failing_row(spec, trace) if error.kind == "rule" else None
        counterexample = Counterexample(trace, error.kind, error.message, error.index, seed, tally.examples, row)
    return FuzzResult(
        spec=spec.path,
        seeds=(seed,),
        examples=tally.examples,
        events=tally.events,
        counterexample=counterexample,
        reachable=reachable,
        fired=tuple(sorted(tally.fired & wanted)),
        require_coverage=require_coverage,
        complete_after=tally.complete_after,
    )


def campaign(
    spec: Spec,
    workers: int,
    examples: int | None,
    seed: int,
    max_size: int = 60,
    progress: Callable[[int], None] | None = None,
    require_coverage: bool = False,
    duration: float | None = None,
    database_dir: str | Path | None = None,
) -> FuzzResult:
    """`workers` runs in as many processes, seeds `seed`, `seed + 1`, ...: coverage merged, all stopped at the first failure.

    `progress` is called with the number of traces replayed so far, every
    tenth of a second. With one worker, the run happens in this process.
    """
    if workers == 1:
        count = [0]

        def tick() -> None:
            count[0] += 1
            if progress is not None:
                progress(count[0])

        return fuzz(spec, examples, seed, max_size, tick, require_coverage, duration, database_dir)
    import multiprocessing
    import queue

    from gapstate.testing.guide import guide_for

    guide_for(machine_for(spec))  # explored once here, inherited by forked workers
    context = multiprocessing.get_context()
    stop, done, counter = context.Event(), context.Queue(), context.Value("q", 0)
    processes = [
        context.Process(
            target=_worker,
            args=(done, stop, counter, spec, examples, seed + i, max_size, duration, database_dir),
            daemon=True,
        )
        for i in range(workers)
    ]
    for process in processes:
        process.start()
    results: list[tuple[float, FuzzResult]] = []
    try:
        while len(results) < workers:
            try:
                outcome = done.get(timeout=0.1)
            except queue.Empty:
                if not any(p.is_alive() for p in processes) and done.empty():
                    raise RuntimeError("a fuzz worker died without reporting") from None
            else:
                if isinstance(outcome, BaseException):
                    raise outcome
                results.append(outcome)
            if progress is not None:
                progress(counter.value)
    finally:
        stop.set()
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
    return merge([result for _, result in results], require_coverage, first=min(results, key=_found_at)[1])


def _found_at(item: tuple[float, FuzzResult]) -> float:
    at, result = item
    return at if result.counterexample is not None else float("inf")


def _worker(done: Any, stop: Any, counter: Any, spec: Spec, examples: int | None, seed: int, max_size: int, duration: float | None, database_dir: Any) -> None:
    """One worker process: a run, and its result (with when it failed) put on `done`.

    Ctrl-C reaches every process of the group: the workers ignore it and
    the parent, which handles it, stops them.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def tick() -> None:
        with counter.get_lock():
            counter.value += 1

    try:
        result = fuzz(spec, examples, seed, max_size, tick, False, duration, database_dir, stop)
        done.put((time.monotonic() if result.counterexample else float("inf"), result))
    except Exception as error:  # a bug: hand it to the parent to raise
        done.put(error)


def merge(results: list[FuzzResult], require_coverage: bool, first: FuzzResult) -> FuzzResult:
    """Several runs as one: seeds in order, counts added, coverage united, the first failure."""
    results = sorted(results, key=lambda r: r.seed)
    fired = set().union(*(r.fired for r in results))
    complete = [r.complete_after for r in results if r.complete_after is not None]
    return FuzzResult(
        spec=first.spec,
        seeds=tuple(r.seed for r in results),
        examples=sum(r.examples for r in results),
        events=sum(r.events for r in results),
        counterexample=first.counterexample,
        reachable=first.reachable,
        fired=tuple(sorted(fired)),
        require_coverage=require_coverage,
        complete_after=min(complete) if complete else None,
    )


def failing_row(spec: Spec, trace: tuple[dict[str, Any], ...]) -> int | None:
    """The spec line of the row whose step broke a rule: the replay stops after that step, so it is the last."""
    steps = replay(spec, from_dicts(trace)).steps
    return steps[-1].row if steps else None


def minimize(spec: Spec, trace: tuple[dict[str, Any], ...], error: ReplayError) -> tuple[tuple[dict[str, Any], ...], ReplayError]:
    """The failing trace cut down to the events the failure needs, in `check`'s canonical form.

    What fails is the last event: a row that breaks a rule, or an event no
    row matches, sent from the configuration the trace reached. Any trace
    to a configuration where the same event fails the same way (the same
    row breaks one of the same rules, or the same hole) shows the same
    defect, so the trace becomes the proof's shortest such way, along steps
    that break nothing (`check` picks its counterexamples the same way).
    Then each event is dropped in turn while the failure stays, until no
    single event can go. Events are written as `concretize` writes them
    (times 100 ms apart, ids iv-1, iv-2, ...), so the result does not depend
    on the draws that found it. Falls back to the trace as given if its
    canonical form does not fail alike (it always should).
    """
    from gapstate.proof.traces import concretize
    from gapstate.proof.paths import roadmap

    machine = machine_for(spec)
    steps, before = _abstract(spec, trace)
    last = machine.step(before, *steps[-1])
    same = _same_failure(last)

    def failure(candidate: list[tuple[str, bool]]) -> ReplayError | None:
        result = replay(spec, from_dicts(concretize(candidate)))
        found = result.error
        if found is None or found.index != len(candidate) - 1:
            return None
        session = Session(machine)
        for item in from_dicts(concretize(candidate[:-1])):
            session.feed(item)
        return found if same(machine.step(session.config, *candidate[-1])) else None

    found = failure(steps)
    if found is None:
        return trace, error
    road = roadmap(machine)
    hits = road.hits.get(last.row.line if last.row is not None and last.status is Status.OK else (before.state, steps[-1][0]), [])
    nearest = sorted(
        ((road.depth[way.config], n, way.config, (way.event, way.choice)) for n, way in enumerate(hits)
         if way.config in road.depth and same(machine.step(way.config, way.event, way.choice))),
        key=lambda item: item[:2],
    )
    if nearest and nearest[0][0] + 1 < len(steps):
        _, _, source, final = nearest[0]
        shortest = road.exploration.steps_to(source) + [final]
        again = failure(shortest)
        if again is not None:
            steps, found = shortest, again
    changed = True
    while changed:
        changed = False
        index = 0
        while index < len(steps) - 1:  # the last event is the one that fails
            trial = steps[:index] + steps[index + 1 :]
            shorter = failure(trial)
            if shorter is not None:
                steps, found, changed = trial, shorter, True
            else:
                index += 1
    return tuple(concretize(steps)), found


def _same_failure(outcome: Any) -> Callable[[Any], bool]:
    """Whether another step's outcome fails like this one: the same hole, or the same row breaking one of the same rules."""
    if outcome.status is not Status.OK:
        return lambda other: other.status == outcome.status
    rules = set(outcome.broken)
    return lambda other: other.status is Status.OK and other.row.line == outcome.row.line and bool(rules.intersection(other.broken))


def _abstract(spec: Spec, trace: tuple[dict[str, Any], ...]) -> tuple[list[tuple[str, bool]], Any]:
    """Each event of a trace with the value of its chosen guard, and the configuration before the last.

    The value is read off the step: the one the machine, from the same
    configuration, answers alike to (when both do, the table cannot tell
    them apart, and either will do).
    """
    session = Session(machine_for(spec))
    machine = session.machine
    steps = []
    before = session.config
    for item in from_dicts(trace):
        before = session.config
        outcome = session.feed(item)
        choice = next(c for c in machine.choices(before, item.event) if machine.step(before, item.event, c) == outcome)
        steps.append((item.event, choice))
        if outcome.status is not Status.OK:
            break
    return steps, before
