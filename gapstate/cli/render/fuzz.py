"""`gapstate fuzz`: the run, a failure and its shrunk trace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gapstate.cli.output import escape
from gapstate.cli.render import never_fired, trace_lines
from gapstate.words import wrap

if TYPE_CHECKING:
    from gapstate.fuzzing.fuzzer import FuzzResult


def fuzz_text(result: FuzzResult, saved: str | None = None, with_trace: bool = True) -> str:
    """The failure and its shrunk trace as paste-ready JSON Lines, then the row and goal coverage.

    Every line but the trace's wraps to the width of text output (the rows and goals never met can
    be dozens); the trace stays whole, a line an event, for `gapstate replay`.
    """
    lines: list[str] = []
    found = result.counterexample
    if found is not None:
        head = f"{found.kind} at event {found.index + 1} of {len(found.trace)}:"
        lines.extend(wrap(f"{head} {found.message}", keep=len(head)))
        if len(result.seeds) > 1:
            lines.append(f"found by seed {found.seed} after {found.after} traces: re-run it alone with --seed {found.seed}")
        if with_trace:
            lines.append(f"shrunk trace ({len(found.trace)} events), for `gapstate replay`:")
            lines.extend(trace_lines(found.trace))
        else:
            lines.append(f"shrunk trace: {len(found.trace)} events, on stdout")
        if saved is not None:
            lines.extend(wrap(f"saved the shrunk trace to {escape(saved)}"))
    reachable, missed = len(result.reachable), result.missed
    coverage = f"coverage: the traces fired {reachable - len(missed)} of {reachable} reachable rows"
    if not missed and result.complete_after is not None:
        coverage += f" (all of them within {result.complete_after} traces)"
    lines.extend(wrap(coverage))
    if missed:
        lines.extend(never_fired(missed))
    goals = result.goal_coverage
    if result.goals:
        met, pairs = len(goals["met"]), goals["pairs"]
        lines.extend(wrap(f"goals: the traces met {met} of {len(result.goals)} boundary goals and "
                          f"{pairs['covered']} of {pairs['possible']} pairs of rows"))
        if goals["missed"]:
            lines.extend(wrap("never met: " + ", ".join(goals["missed"])))
    return "\n".join(lines)


def fuzz_summary(result: FuzzResult) -> str:
    """The summary line: the spec, the seeds, how many traces and events, and the verdict, within 100 columns
    for a campaign of thousands of traces (the report above says which rows and goals were missed)."""
    seeds, found = result.seeds, result.counterexample
    named = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]} to {seeds[-1]}"  # a worker a seed
    summary = f"gapstate fuzz: {result.spec}: {named}: {result.examples} traces, {result.events} events"
    if found is not None:
        verdict = f"{found.kind} at event {found.index + 1} of {len(found.trace)}"
    elif result.gate_failed:
        verdict = "coverage gate failed"  # so no rule broke; the report above names the rows never fired
    else:
        verdict = "no rule broken"
    return f"{summary}: {verdict}"
