"""`gapstate fuzz`: replay many generated traces and report the first failure, shrunk.

Hypothesis draws traces with `strategies.traces`, which walks the table
towards its rows along the proof's shortest ways (see `guide`). Each trace
is replayed, which checks every rule after every step and refuses an event
no row matches; the first trace that fails is shrunk by the graph (the
shortest way to the same failure, in the canonical form `check` uses) and
cut down until every event is needed. The rows the traces fired are
compared with the rows the proof finds reachable, so a run that misses a
corner of the table says so.

Campaigns of several worker processes are in `campaign`; shrinking in
`shrinking`. A run may be bounded by time rather than by a number of traces.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.errors import Unsatisfiable
from hypothesis.reporting import with_reporter

from gapstate.fuzzing.seeded import seeded
from gapstate.fuzzing.shrinking import failing_row, minimize
from gapstate.fuzzing.strategies import traces
from gapstate.results import Result
from gapstate.run.replayer import ReplayError, machine_for, replay
from gapstate.run.trace import from_dicts
from gapstate.table.load import Spec
from gapstate.version import __version__


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
    goals: tuple[str, ...] = ()  # the boundary goals a walk can meet on this table (`goal_coverage`), by name
    met: tuple[str, ...] = ()  # the goals and `pair:A>B` pairs the traces met
    pairs: int = 0  # how many pairs of rows can fire one right after the other

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
                "goals": self.goal_coverage,
            },
        }

    @property
    def goal_coverage(self) -> dict[str, Any]:
        """The boundary goals met and missed, by the names `gapstate vectors` gives them, and the pairs of rows covered."""
        met = set(self.met)
        return {
            "met": [name for name in self.goals if name in met],
            "missed": [name for name in self.goals if name not in met],
            "pairs": {"possible": self.pairs, "covered": sum(name.startswith("pair:") for name in met)},
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
    met: set[str] = field(default_factory=set)
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
    goals: bool = True,
) -> FuzzResult:
    """One run: replay `examples` generated traces (or as many as `duration` seconds allow).

    The first four fifths of the traces walk towards any row and any
    boundary goal (`traces(spec, goals=True)`); the last fifth head for the
    rows the first part fired least and the goals it has not met (a second
    Hypothesis run): rows and boundaries rarely reached so far get reached.
    Each replay is read for the goals and pairs of rows it meets. The
    first trace that fails ends the run and is shrunk by `minimize`;
    Hypothesis' own shrinking is not used, as it takes thousands of
    replays where the table's graph gives the answer at once. `stop` (a multiprocessing Event) ends the run early when another
    worker sets it; this run sets it when a trace fails. `goals=False`
    heads for rows only (what `bench/fuzz_depth.py goals` compares with);
    the goals met are read and reported either way.
    """
    from gapstate.fuzzing.goal_coverage import fuzz_goals, met
    from gapstate.proof.paths import roadmap

    machine = machine_for(spec)
    reachable = roadmap(machine).rows
    meetable = fuzz_goals(machine)
    wanted = set(reachable)
    tally = _Tally()
    fired: Counter[int] = Counter()
    started = time.monotonic()
    parts: list[tuple[int | None, float | None]]  # (traces, deadline) of each part
    if examples is None:
        assert duration is not None
        parts = [(None, started + duration * (1 - RARE_SHARE)), (None, started + duration)]
    else:
        parts = [(examples - examples // RARE_PART, None), (examples // RARE_PART, None)]

    def part(count: int | None, deadline: float | None, toward: tuple[int, ...] | None, heading: Any) -> None:
        store = database(database_dir, spec, max_size, (toward, heading))

        @settings(
            max_examples=count if count is not None else 10**9,
            database=store,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            phases=(Phase.explicit, Phase.reuse, Phase.generate),
            report_multiple_bugs=False,
        )
        @given(traces(spec, max_size=max_size, toward=toward, goals=heading, _goal_walks=False))
        def replays_without_failing(trace: list[dict[str, Any]]) -> None:
            # A timed run replays at least one trace, however long the start took on a loaded machine.
            if (deadline is not None and tally.examples and time.monotonic() > deadline) or (stop is not None and stop.is_set()):
                raise _Stopped
            result = replay(spec, from_dicts(trace))
            tally.examples += 1
            tally.events += len(trace)
            rows = {step.row for step in result.steps or ()}  # kept: replay keeps the steps unless told not to
            tally.met |= met(meetable.goals, result)
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

        run = seeded(replays_without_failing, seed, store)  # reproducible, and a failure found once is replayed first
        with with_reporter(lambda message: None):
            try:
                run()
            except (_Broken, _Stopped):
                pass
            except Unsatisfiable:  # a table whose initial state accepts no event: nothing to generate
                pass

    (count, deadline), (rare_count, rare_deadline) = parts
    part(count, deadline, None, goals or None)
    if tally.found is None and not (stop is not None and stop.is_set()) and (rare_count or rare_deadline):
        least = sorted(reachable, key=lambda line: (fired[line], line))[:RARE_ROWS]
        unmet = tuple(name for name in meetable.names if name not in tally.met)
        part(rare_count, rare_deadline, tuple(sorted(least)), (unmet or True) if goals else None)
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
        goals=meetable.names,
        met=tuple(sorted(tally.met)),
        pairs=len(meetable.pairs),
    )
