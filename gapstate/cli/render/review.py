"""`gapstate diff`: the behaviour a change of the table changes."""

from __future__ import annotations

from typing import Any


def _valuation_words(valuation: Any) -> str:
    return ",".join(g if v else f"!{g}" for g, v in valuation)


def when_text(valuations: Any) -> str:
    """Valuations as a reader writes guards: the shared literals when they cover every value of the rest."""
    fixed = [pair for pair in valuations[0] if all(pair in v for v in valuations)]
    if len(valuations) == 2 ** (len(valuations[0]) - len(fixed)):
        return f"when {_valuation_words(fixed)}" if fixed else "always"
    return "when " + " or ".join(_valuation_words(v) for v in valuations)


def _outcome_words(outcome: Any, side: str) -> str:
    if outcome is None:
        return f"no row ({side})"
    return f"{side} line {outcome.line}: {outcome.next} | {','.join(outcome.actions)}"


def diff_text(result: Any) -> str:
    """The changes grouped by kind, behaviour first, each with its lines; then a verdict line."""
    lines: list[str] = []
    for change in result.changes:
        kind = change.kind
        if kind == "behaviour":
            lines.append(f"behaviour: {change.state} | {change.event}")
            for case in change.cases:
                lines.append(f"    {when_text(case.valuations)}: {_outcome_words(case.old, 'old')} -> {_outcome_words(case.new, 'new')}")
        elif kind in ("name_added", "name_removed"):
            side = "new" if kind == "name_added" else "old"
            lines.append(f"{kind}: {change.role} {change.name} ({side} line {change.line})")
        elif kind == "cap":
            was = "none" if change.old is None else f"{change.old} (old line {change.old_line})"
            now = "none" if change.new is None else f"{change.new} (new line {change.new_line})"
            lines.append(f"cap: {change.counter} {was} -> {now}")
        elif kind in ("allowance_added", "allowance_removed"):
            side = "new" if kind == "allowance_added" else "old"
            lines.append(f"{kind}: @unreachable {change.state} | {change.event} | {change.guards} ({side} line {change.line})")
        else:
            now = "now fires" if change.reachable else "no longer fires"
            lines.append(
                f"reachability: row {change.state} | {change.event} | {change.guards} {now} "
                f"(old line {change.old_line}, new line {change.new_line})"
            )
    count = len(result.changes)
    verdict = "no change in behaviour, caps, names, allow-list or reachability" if result.same else (
        f"{count} change{'s' if count != 1 else ''}"
    )
    lines.append(f"gapstate diff: {result.old} -> {result.new}: {verdict}")
    return "\n".join(lines)
