"""`gapstate fuzz`: replay many generated traces and report the first rule broken.

Hypothesis generates well-formed traces with `strategies.traces`, each is
replayed (which checks every rule after every step), and a trace that breaks
one is shrunk to a short one a person can paste into `gapstate replay`. The
rows the traces fired are compared with the rows the proof finds reachable,
so a strategy that never reaches a corner of the table is noticed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import seed as with_seed
from hypothesis.errors import Unsatisfiable
from hypothesis.reporting import with_reporter

from .replayer import replay
from .spec import Spec
from .strategies import traces
from .trace import from_dicts


@dataclass(frozen=True)
class Counterexample:
    """The shrunk trace that broke a rule, and how the replay stopped on it."""

    trace: tuple[dict[str, Any], ...]
    kind: str
    message: str
    index: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "index": self.index, "trace": list(self.trace)}


@dataclass(frozen=True)
class FuzzResult:
    """What a fuzz run found, shaped like its JSON output."""

    spec: str
    seed: int
    examples: int  # traces replayed, shrinking included
    events: int
    counterexample: Counterexample | None
    reachable: tuple[int, ...]  # lines of rows the proof finds reachable
    fired: tuple[int, ...]  # lines of rows the generated traces fired

    @property
    def missed(self) -> tuple[int, ...]:
        fired = set(self.fired)
        return tuple(line for line in self.reachable if line not in fired)

    @property
    def ok(self) -> bool:
        return self.counterexample is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "spec": self.spec,
            "seed": self.seed,
            "examples": self.examples,
            "events": self.events,
            "counterexample": self.counterexample.to_dict() if self.counterexample else None,
            "coverage": {
                "reachable": list(self.reachable),
                "fired": list(self.fired),
                "missed": list(self.missed),
            },
        }

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]


class _Broken(Exception):
    """Raised inside the property so that Hypothesis shrinks the trace."""


def fuzz(
    spec: Spec,
    examples: int,
    seed: int,
    max_size: int = 60,
    progress: Callable[[], None] | None = None,
) -> FuzzResult:
    """Replay `examples` generated traces against the spec; shrink the first that breaks a rule."""
    from .proof import explore
    from .replayer import machine_for

    reachable = tuple(sorted(explore(machine_for(spec)).fired))
    fired: set[int] = set()
    counts = {"examples": 0, "events": 0}
    found: list[Counterexample] = []

    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.generate, Phase.target, Phase.shrink),
        report_multiple_bugs=False,
    )
    @given(traces(spec, max_size=max_size))
    def replays_without_breaking_a_rule(trace: list[dict[str, Any]]) -> None:
        result = replay(spec, from_dicts(trace))
        counts["examples"] += 1
        counts["events"] += len(trace)
        rows = {step.row for step in result.steps}
        fired.update(rows)
        # Guide generation towards traces that fire many different rows: the
        # corners behind the caps take long, purposeful traces to reach.
        target(float(len(rows)), label="distinct rows fired")
        spent = result.steps[-1].counters if result.steps else {}
        target(float(sum(spent.values())), label="counters spent")
        if progress is not None:
            progress()
        if result.error is not None:
            error = result.error
            # the events after the one that broke the rule are not part of the story
            found.append(Counterexample(tuple(trace[: error.index + 1]), error.kind, error.message, error.index))
            raise _Broken(error.message)

    run = with_seed(seed)(replays_without_breaking_a_rule)
    with with_reporter(lambda message: None):
        try:
            run()
        except _Broken:
            pass
        except Unsatisfiable:  # a table whose initial state accepts no event: nothing to generate
            pass
    # Hypothesis replays the shrunk example last, so the last one found is the smallest.
    return FuzzResult(
        spec=spec.path,
        seed=seed,
        examples=counts["examples"],
        events=counts["events"],
        counterexample=found[-1] if found else None,
        reachable=reachable,
        fired=tuple(sorted(fired)),
    )
