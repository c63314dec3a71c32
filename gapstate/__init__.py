"""gapstate: prove, replay and fuzz the gap-state transition table.

The public API mirrors the commands and returns the same data as their JSON
outputs (result objects with `.to_dict()`, also readable as `result["ok"]`).
Imports are deferred so that `import gapstate` costs almost nothing and
`classify` never loads lark or networkx.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from gapstate.errors import GapstateError
from gapstate.version import __version__ as __version__

if TYPE_CHECKING:  # the real types, without importing the modules (or pathlib) at run time
    from pathlib import Path

    from gapstate.attribution.conditions import ClassifyResult
    from gapstate.conformance.conform import ConformResult, Implementation
    from gapstate.proof.check import CheckResult
    from gapstate.run.replayer import ReplayResult
    from gapstate.table.load import Spec

    SpecArgument = Spec | str | Path | None

__all__ = ["GapstateError", "check", "classify", "conform", "conform_report", "load_spec", "replay"]


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
    from gapstate.attribution.conditions import classify as judge

    return judge(report)


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
