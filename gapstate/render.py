"""Text for people and JSON for programs, from the result objects alone.

Nothing here decides anything: each function takes a result the core
returned and gives back a string, so the CLI only prints it.
"""

from __future__ import annotations

import json
from typing import Any

from .semantics import COUNTERS


def to_json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2)


def trace_lines(trace: Any) -> list[str]:
    """A trace as JSON Lines, the format `gapstate replay` reads."""
    return [json.dumps(event) for event in trace]


# check ---------------------------------------------------------------------


def check_text(result: Any) -> str:
    lines: list[str] = []
    for finding in result.findings:
        lines.append(f"{result.spec}:{finding.line}:{finding.column}: {finding.kind}: {finding.message}")
        for event in trace_lines(getattr(finding, "trace", ())):
            lines.append(f"    {event}")
    s = result.stats
    numbers = (
        f"{s['states']} states, {s['events']} events, {s['rows']} rows, "
        f"{s['configurations']} configurations, {s['unreachable_allowed']} allowed unreachable"
    )
    count = len(result.findings)
    verdict = "ok" if result.ok else f"{count} finding{'s' if count != 1 else ''}"
    lines.append(f"gapstate check: {result.spec}: {verdict} ({numbers})")
    return "\n".join(lines)


# replay --------------------------------------------------------------------


def _counters_text(counters: dict[str, int], caps: dict[str, int]) -> str:
    return " ".join(f"{name}={counters[name]}/{caps.get(name, '?')}" for name in COUNTERS)


def replay_text(result: Any, caps: dict[str, int], source: str) -> str:
    lines: list[str] = []
    width = len(str(max(result.events - 1, 0)))
    for step in result.steps or ():
        guards = ",".join(f"{g}" if v else f"!{g}" for g, v in step["guards"].items()) or "-"
        lines.append(
            f"  {step['index']:>{width}}  {step['event']:<19} {step['from']:>9} -> {step['to']:<9}  "
            f"row {step['row']:<4} [{guards}] {','.join(step['actions'])}  "
            f"({_counters_text(step['counters'], caps)})"
        )
    error = result.error
    if error is not None:
        lines.append(f"! {error.index:>{width}}  {source}:{error.line}: {error.kind}: {error.message}")
    final = result.final_dict()
    lines.append(
        f"final: {final['state']} ({_counters_text(final['counters'], caps)}), "
        f"debt owed: {'yes' if final['debt_owed'] else 'no'}, "
        f"session ended: {'yes' if final['ended'] else 'no'}"
    )
    verdict = "ok" if result.ok else f"stopped at event {error.index}"
    lines.append(f"gapstate replay: {source}: {result.events} events: {verdict}")
    return "\n".join(lines)


# classify ------------------------------------------------------------------


def classify_text(result: Any) -> str:
    """One row per (arm, turn), then each arm's verdict, the overall verdict and the note."""
    header = ("arm", "turn", "verdict", "unmet")
    rows = [
        (arm.name, turn.turn, turn.verdict, ", ".join(turn.unmet) or "-")
        for arm in result.arms
        for turn in arm.turns
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    lines = [
        "  ".join(f"{cell:<{widths[i]}}" for i, cell in enumerate(row[:3])) + f"  {row[3]}"
        for row in [header, *rows]
    ]
    lines.append("")
    width = max(len(arm.name) for arm in result.arms) + 1
    for arm in result.arms:
        lines.append(f"arm {arm.name + ':':<{width}}  {arm.verdict}")
    lines.append(f"overall: {result.verdict}")
    lines.append(f"note: {result.note}")
    return "\n".join(lines)


# fuzz ----------------------------------------------------------------------


def fuzz_text(result: Any) -> str:
    """The verdict, the shrunk trace as paste-ready JSON Lines, and the row coverage."""
    lines = [f"gapstate fuzz: {result.spec}: seed {result.seed}: {result.examples} traces, {result.events} events"]
    found = result.counterexample
    if found is None:
        lines.append("no rule broken")
    else:
        lines.append(f"{found.kind} at event {found.index}: {found.message}")
        lines.append(f"shrunk trace ({len(found.trace)} events), for `gapstate replay`:")
        lines.extend(trace_lines(found.trace))
    reachable, missed = len(result.reachable), result.missed
    lines.append(f"coverage: the traces fired {reachable - len(missed)} of {reachable} reachable rows")
    if missed:
        lines.append("never fired: rows at lines " + ", ".join(str(line) for line in missed))
    return "\n".join(lines)
