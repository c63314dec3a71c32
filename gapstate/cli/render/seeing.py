"""`gapstate witness`, `coverage` and `explain`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from gapstate.cli.output import escape
from gapstate.cli.render import never_fired, nth, plural, trace_lines
from gapstate.words import wrap

if TYPE_CHECKING:
    from gapstate.proof.progress import Reached
    from gapstate.seeing.coverage import CoverageResult
    from gapstate.seeing.explain import Explanation
    from gapstate.seeing.witness import RowWitness


# witness --------------------------------------------------------------------


def witness_summary(result: RowWitness, spec: str) -> str:
    """The summary line: the row, and its trace's length or why it does not fire.

    The row is named by its line (`gapstate explain LINE` shows it): written
    out, it alone could pass the width of text output.
    """
    head = f"gapstate witness: {spec}: row at line {result.row.line}"
    if result.reason is not None:
        return f"{head}: {result.reason}"
    count = len(result.trace or ())
    if result.detour:
        return f"{head}: every way there breaks a rule first; the shortest regardless: {plural(count, 'event')}"
    return f"{head}: fired by the last of {plural(count, 'event')}"


def bound_summary(reached: Reached, spec: str) -> str:
    """The summary line of `witness --bound`: the bound in words, and the run that reaches it."""
    from gapstate.table.bounds import BOUNDS

    said = next(b for b in BOUNDS if b.name == reached.name).says(reached.value)
    count = plural(len(reached.steps), "event")
    if reached.value is None:
        return f"gapstate witness: {escape(spec)}: {reached.name}: {said}; this run of {count} goes once round a loop"
    return f"gapstate witness: {escape(spec)}: {reached.name} = {reached.value}: {said}; a run of {count} reaches it"


# coverage -------------------------------------------------------------------


def coverage_lines(result: CoverageResult, rows: dict[int, str]) -> Iterator[str]:
    """Every reachable row with how often it fired, the rows never fired, the traces that stopped or could not be read."""
    fired = result.fired
    never = result.never
    width = max((len(str(n)) for n in fired.values()), default=1)
    for line in sorted(fired):
        mark = "  never" if not fired[line] else ""
        head = f"  row {line:<4} {fired[line]:>{width}}  "
        yield from wrap(f"{head}{rows.get(line, '?')}{mark}", indent=" " * (len(head) - 2), keep=len(head))  # on under the row
    if never:
        yield from never_fired(never)
    if result.stopped:
        count = len(result.stopped)
        yield f"stopped: {count} trace{'s' if count != 1 else ''} (the steps before the stop are counted)"
        for stop in result.stopped:
            error = stop.error
            where = f"  {escape(stop.trace)}:{error.line}: the {nth(error.index)} event: {error.kind}:"
            yield from wrap(f"{where} {escape(error.message)}", keep=len(where))
    if result.unusable:
        count = len(result.unusable)
        yield f"unusable: {count} trace{'s' if count != 1 else ''} could not be read (not counted)"
        for bad in result.unusable:
            where = escape(bad.trace) if bad.line is None else f"{escape(bad.trace)}:{bad.line}"
            yield from wrap(f"  {where}: {escape(bad.message)}", keep=len(where) + 3)


def coverage_summary(result: CoverageResult, spec: str) -> str:
    """The summary line: the spec, how many traces and events, and how many reachable rows they fired."""
    return (
        f"gapstate coverage: {escape(spec)}: {result.traces} trace{'s' if result.traces != 1 else ''}, {result.events} events: "
        f"fired {len(result.reachable) - len(result.never)} of {len(result.reachable)} reachable rows"
    )


# explain --------------------------------------------------------------------


def explain_text(said: Explanation) -> str:
    """One row in a reviewer's words: when it fires, what it does, its rules, a trace, or why it never fires."""
    from gapstate.seeing.witness import REFUSED, UNREACHABLE

    row = said.row
    lines = [f"{escape(said.spec)}:{row.line}: {row}"]
    if said.status == UNREACHABLE:
        allowed = "allowed with @unreachable" if said.allowed else "NOT allowed: `gapstate check` reports it"
        lines.append(f"never fires ({allowed}): {said.reason}")
    elif said.status == REFUSED:
        lines.append(
            f"refuses {row.event} on {said.configurations} reachable configuration"
            f"{'s' if said.configurations != 1 else ''}: the event cannot occur there and the replay fails on it"
        )
    else:
        lines.append(
            f"fires on {said.configurations} reachable configuration{'s' if said.configurations != 1 else ''}"
            f" ({said.steps} reachable step{'s' if said.steps != 1 else ''})"
        )
    if said.guards:
        lines.append("when:")
        lines.extend(f"  {literal}: {meaning}" for literal, meaning in said.guards)
    else:
        lines.append(f"when: always, on {row.event} (no guards)")
    lines.append("does:")
    lines.extend(f"  {effect}" for effect in said.effects)
    if said.rules:
        lines.append("rules:")
        for note in said.rules:
            scope = " (checked on every step)" if note.every_step else ""
            because = f": the row requires `{note.guarded_by}`" if note.guarded_by else ""
            if note.kept is None:
                verdict = "nothing to check: the row never fires"
            elif note.kept:
                verdict = f"kept on all {note.checked} reachable steps that fire it{because}"
            else:
                verdict = f"BROKEN on {note.broken} of {note.checked} reachable steps (see `gapstate check`)"
            lines.append(f"  {note.id}{scope}: {verdict}")
    if said.trace is not None:
        ends = "ends on its refusal" if said.status == REFUSED else "fires it"
        lines.append(f"shortest trace that {ends} ({len(said.trace)} event{'s' if len(said.trace) != 1 else ''}):")
    where = len(f"{escape(said.spec)}:{row.line}:")  # the row's place stays whole on the first line, for editors
    shown = [*wrap(lines[0], keep=where), *(part for line in lines[1:] for part in wrap(line))]
    if said.trace is not None:
        shown.extend(f"  {event}" for event in trace_lines(said.trace))  # whole, a line an event
    return "\n".join(shown)


def explain_summary(said: Explanation) -> str:
    """The summary line: the row, and whether it fires, refuses its event or never fires."""
    from gapstate.seeing.witness import REFUSED, UNREACHABLE

    verdict = "never fires" if said.status == UNREACHABLE else "refuses its event" if said.status == REFUSED else "fires"
    return f"gapstate explain: {said.spec}: row at line {said.row.line}: {verdict}"
