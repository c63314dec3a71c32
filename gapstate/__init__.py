"""gapstate: prove, replay and fuzz the gap-state transition table.

The public API mirrors the commands and returns the same data as their JSON
outputs (result objects with `.to_dict()`, also readable as `result["ok"]`).
The result and record types a caller meets are exported here too (for type
hints and isinstance), each imported on first use: `import gapstate` costs
almost nothing, and `classify` never loads lark or networkx.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from gapstate.errors import GapstateError, Problem
from gapstate.version import __version__ as __version__

if TYPE_CHECKING:  # the real types, without importing the modules (or pathlib) at run time
    from pathlib import Path

    from gapstate.attribution.conditions import ClassifyResult
    from gapstate.conformance.conform import ConformResult, Divergence, Implementation
    from gapstate.findings.record import Cause, Finding
    from gapstate.proof.check import CheckResult
    from gapstate.run.replayer import ReplayError, ReplayResult, Step
    from gapstate.table.load import Spec

    SpecArgument = Spec | str | Path | None

# The types exported on first use, and the module each comes from.
_TYPES = {
    "Spec": "gapstate.table.load",
    "CheckResult": "gapstate.proof.check",
    "Finding": "gapstate.findings.record",
    "Cause": "gapstate.findings.record",
    "ReplayResult": "gapstate.run.replayer",
    "Step": "gapstate.run.replayer",
    "ReplayError": "gapstate.run.replayer",
    "ClassifyResult": "gapstate.attribution.conditions",
    "ConformResult": "gapstate.conformance.conform",
    "Divergence": "gapstate.conformance.conform",
    "Implementation": "gapstate.conformance.conform",
}

__all__ = [
    # the functions
    "load_spec", "check", "replay", "classify", "conform", "conform_report",
    # what they return and raise, and the records those hold
    "Spec", "CheckResult", "Finding", "Cause", "ReplayResult", "Step", "ReplayError",
    "ClassifyResult", "ConformResult", "Divergence", "Implementation", "GapstateError", "Problem",
]


def __getattr__(name: str) -> Any:
    """A type of `_TYPES`, imported when first asked for and kept."""
    module = _TYPES.get(name)
    if module is None:
        raise AttributeError(f"module 'gapstate' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_TYPES})


def load_spec(path_or_text: str | Path | None = None) -> Spec:
    """Parse a spec: a path, markdown text (a str containing a line end, LF or CR), or None for the bundled spec.

    Syntax and vocabulary problems become findings of the returned spec;
    only a file that cannot be read raises GapstateError.
    """
    from gapstate.table.load import load_spec as load

    return load(path_or_text)


def check(spec: SpecArgument = None, max_configurations: int | None = 2_500_000) -> CheckResult:
    """Prove a spec (a loaded spec, a path, text or None): returns a CheckResult.

    Raises GapstateError, before exploring, when the caps imply more
    configurations than `max_configurations` (None: no limit).
    """
    from gapstate.proof.check import check as prove
    from gapstate.table.load import resolve

    return prove(resolve(spec), None, max_configurations)


def replay(spec: SpecArgument, events: Iterable[dict[str, Any]]) -> ReplayResult:
    """Replay events given as dicts (the trace format): returns a ReplayResult.

    A malformed event, or a table that cannot be stepped, raises GapstateError.
    """
    from gapstate.run.replayer import replay as run
    from gapstate.run.trace import from_dicts
    from gapstate.table.load import resolve

    if isinstance(events, (str, bytes, dict)) or not hasattr(events, "__iter__"):
        raise GapstateError(f"replay takes an iterable of event dicts, not {type(events).__name__}")
    return run(resolve(spec), from_dicts(events))


def classify(report: dict[str, Any]) -> ClassifyResult:
    """Judge a continuity-experiment report (a dict): returns a ClassifyResult.

    A malformed report raises GapstateError listing every problem with its JSON path.
    """
    from gapstate.attribution import conditions

    return conditions.classify(report)


def conform(
    implementation: Implementation,
    spec: SpecArgument = None,
    *,
    vectors: str | Path | None = None,
    examples: int = 200,
    seed: int = 0,
    duration: float | None = 5.0,
) -> ConformResult:
    """Check an implementation that lives in Python against the table: returns a ConformResult.

    `implementation` has `reset()` (start a fresh session; its return value
    is ignored) and `step(event) -> dict`, answering each event (a dict in
    the trace format, `t` always present) as the line protocol does:
    `{"state", "actions"}` (optionally `"counters"`, `"debt_owed"`) or
    `{"refused": "invalid_event" | "after_session_end"}`. The vectors (the
    built-in suite, or a folder written by `gapstate vectors`) run first,
    then, when every vector agrees, up to `examples` generated traces for at most `duration` seconds
    (None: no time limit); the first divergence is shrunk and explained.
    `result.ok`, `result.divergence`, `result.to_dict()` (the JSON of
    `gapstate conform`), `conform_report(result)` (its text). An answer outside
    the protocol raises GapstateError; an exception in `step` propagates.
    """
    from gapstate.conformance.conform import conform as run
    from gapstate.conformance.suite_folder import load
    from gapstate.table.load import resolve

    suite = load(vectors) if vectors is not None else None
    return run(resolve(spec), implementation, suite, examples, seed, duration=duration)


def conform_report(result: ConformResult) -> str:
    """The text `gapstate conform` prints for a result: a readable assertion message (`assert result.ok, conform_report(result)`)."""
    from gapstate.conformance.report import conform_summary, conform_text

    return "\n".join(filter(None, [conform_text(result), conform_summary(result)]))
