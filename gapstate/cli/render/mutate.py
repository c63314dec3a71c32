"""`gapstate mutate`: the kills per check, the checks that kill none, each survivor with its trace, the summary line."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gapstate.cli.output import escape
from gapstate.cli.render import plural, trace_lines
from gapstate.words import wrap

if TYPE_CHECKING:
    from gapstate.proof.mutation import MutationResult, Survivor


def mutate_text(result: MutationResult) -> str:
    """The report: the counts, the kills of each check, the idle checks, the survivors outside the baseline."""
    from gapstate.proof.mutation import step_words

    spec = escape(result.spec)
    survivors = len(result.survivors)
    lines = [
        f"{spec}: {plural(len(result.verdicts), 'mutant')}, {result.behaviour_changing} change behaviour, "
        f"{result.killed} killed by check, {survivors} survive",
    ]
    killing = [r for r in result.rules if r.kills]
    if killing:
        width = max(len(r.rule) for r in killing)
        lines.append("mutants killed by each check (and by it alone):")
        lines.extend(f"  {r.rule:<{width}}  {r.kills:>5}  ({r.alone} alone)" for r in killing)
    idle = result.idle()
    if idle:
        lines.append(f"{plural(len(idle), 'check')} kill none (vacuous on this table, or always finding with others):")
        lines.extend(_wrapped(idle))
    shown = result.new
    if result.baseline is not None:
        listed = survivors - len(shown)
        lines.append(f"{plural(listed, 'survivor')} listed in the baseline; {len(shown)} outside it")
        lines.extend(f"{spec}: note: in the baseline but no survivor here (killed now, or no longer a mutant): `{escape(name)}`"
                     for name in result.unused)
    for survivor in shown:
        lines.extend(_survivor_lines(spec, survivor, step_words))
    accepted = [s for s in result.survivors if s.listed]
    if accepted:
        lines.append("accepted in the baseline, each with why and the shortest trace on which it steps differently:")
        for survivor in accepted:
            lines.append(f"  {spec}:{survivor.line}: {escape(survivor.name)}")
            lines.append(f"    why: {escape(survivor.reason)}" if survivor.reason else "    why: the baseline gives no reason")
            lines.extend(f"  {line}" for line in _difference_lines(survivor, step_words))
    # within the width, but a trace's events whole (they are JSON Lines to paste into a file)
    return "\n".join(part for line in lines for part in ([line] if line.lstrip().startswith("{") else wrap(line)))


def _wrapped(names: list[str], width: int = 96) -> list[str]:
    """Names joined by commas, on lines of at most `width` columns after a two-space indent."""
    lines, line = [], ""
    for name in names:
        piece = f"{line}, {name}" if line else name
        if line and len(piece) + 2 > width:
            lines.append(f"  {line},")
            piece = name
        line = piece
    return [*lines, f"  {line}"] if line else lines


def _survivor_lines(spec: str, survivor: Survivor, step_words: Callable[[tuple[Any, ...]], str]) -> list[str]:
    """A survivor: where, its row and what it became, what each table does at the last event of the trace."""
    row, _, became = survivor.name.partition(" -> ")
    lines = [f"{spec}:{survivor.line}: survivor ({survivor.kind})", f"  row:    {escape(row)}"]
    if survivor.kind not in ("deleted", "duplicated"):
        lines.append(f"  became: {escape(became)}")
    return lines + _difference_lines(survivor, step_words)


def _difference_lines(survivor: Survivor, step_words: Callable[[tuple[Any, ...]], str]) -> list[str]:
    """What the table and the mutant each do at the last event of the survivor's trace, then the trace."""
    lines = [f"  table:  {step_words(survivor.table)}", f"  mutant: {step_words(survivor.mutant)}", "  at the last event of:"]
    lines.extend(f"    {event}" for event in trace_lines(survivor.trace))
    return lines


def mutate_summary(result: MutationResult) -> str:
    """`gapstate mutate: SPEC: N mutants, ...`: the counts and the verdict."""
    spec = result.spec
    survivors = len(result.survivors)
    verdict = (f"{len(result.new)} outside the baseline" if result.baseline is not None and result.new
               else "every survivor in the baseline" if result.baseline is not None
               else "ok: no survivor" if not survivors else f"{plural(survivors, 'survivor')}")
    return (f"gapstate mutate: {spec}: {plural(len(result.verdicts), 'mutant')}, {result.behaviour_changing} change "
            f"behaviour, {result.killed} killed; {verdict}")
