"""`gapstate classify`: the verdict table and the summary."""

from __future__ import annotations

from typing import Any

from gapstate.cli.render import plural


def classify_text(result: Any, source: str = "<report>") -> str:
    """One row per (arm, turn), each arm's verdict, the overall verdict, the note, then a summary line."""
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
    turns = sum(len(arm.turns) for arm in result.arms)
    lines.append(
        f"gapstate classify: {source}: {plural(len(result.arms), 'arm')}, {plural(turns, 'turn')}: "
        f"{result.verdict} (descriptive)"
    )
    return "\n".join(lines)
