"""`gapstate diff`: the behaviour a change of the table changes, and with --traces, the recorded sessions it changes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from gapstate.cli.render import nth, plural
from gapstate.words import WIDTH, wrap

if TYPE_CHECKING:
    from gapstate.review.diff import DiffResult

from gapstate.cli.output import escape


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


def _old_to_new(head: str, old: str, new: str, indent: str) -> list[str]:
    """`head old -> new` on one line when it fits 100 columns; else broken before `-> new`, then after
    `head`, each piece going on at `indent` (and wrapped, should one alone not fit), as a diff reads."""
    if len(whole := f"{head} {old} -> {new}") <= WIDTH:
        return [whole]
    if len(first := f"{head} {old}") <= WIDTH:
        pieces = [first, f"{indent}-> {new}"]
    elif len(rest := f"{indent}{old} -> {new}") <= WIDTH:
        pieces = [head, rest]
    else:
        pieces = [head, indent + old, f"{indent}-> {new}"]
    return [part for piece in pieces for part in wrap(piece)]


def case_lines(case: Any) -> list[str]:
    """One case of a behaviour change, old outcome to new: a line, or more where it does not fit the width."""
    return _old_to_new(f"    {when_text(case.valuations)}:", _outcome_words(case.old, "old"), _outcome_words(case.new, "new"),
                       " " * 8)


def change_lines(change: Any) -> list[str]:
    """One change as diff's text shows it: a behaviour change's head and a line per case, else one line."""
    kind = change.kind
    if kind == "behaviour":
        return [f"behaviour: {change.state} | {change.event}"] + [line for case in change.cases for line in case_lines(case)]
    if kind in ("name_added", "name_removed"):
        side = "new" if kind == "name_added" else "old"
        return [f"{kind}: {change.role} {change.name} ({side} line {change.line})"]
    if kind == "cap":
        was = "none" if change.old is None else f"{change.old} (old line {change.old_line})"
        now = "none" if change.new is None else f"{change.new} (new line {change.new_line})"
        return [f"cap: {change.counter} {was} -> {now}"]
    if kind in ("allowance_added", "allowance_removed"):
        side = "new" if kind == "allowance_added" else "old"
        return [f"{kind}: @unreachable {change.state} | {change.event} | {change.guards} ({side} line {change.line})"]
    if kind == "bound":
        from gapstate.table.bounds import BOUNDS

        bound = next(b for b in BOUNDS if b.name == change.name)
        return [f"bound: {change.name}: {bound.change(change.old, change.new)}"]
    now = "now fires" if change.reachable else "no longer fires"
    return [
        f"reachability: row {change.state} | {change.event} | {change.guards} {now} "
        f"(old line {change.old_line}, new line {change.new_line})"
    ]


def diff_lines(result: DiffResult) -> Iterator[str]:
    """The changes grouped by kind, behaviour first, each with its lines; with --traces the sessions."""
    for change in result.changes:
        yield from change_lines(change)
    if result.traces is not None:
        yield from sessions_lines(result.traces)


def diff_summary(result: DiffResult) -> str:
    """The summary line: the two tables and how many changes, with --traces how many sessions behave differently."""
    count = len(result.changes)
    verdict = "no change in behaviour, caps, names, allow-list, reachability or bounds" if result.same else (
        f"{count} change{'s' if count != 1 else ''}"
    )
    if result.traces is not None:
        verdict += f"; {result.traces.differing} of {plural(result.traces.read, 'recorded session')} behave differently"
    return f"gapstate diff: {result.old} -> {result.new}: {verdict}"


def _step_words(step: dict[str, Any], side: str) -> str:
    if "row" not in step:
        return f"{side}: stops ({step['stopped']})"
    broken = " (breaks a rule)" if "stopped" in step else ""
    return f"{side} line {step['row']}: {step['to']} | {','.join(step['actions'])}{broken}"


def sessions_lines(sessions: Any) -> Iterator[str]:
    """For a PR comment: how many recorded sessions behave differently, one line per group and its example, and the untested changes."""
    affected = sessions.differing
    yield f"recorded sessions: {affected} of {sessions.read} behave differently ({plural(sessions.events, 'event')} read)"
    width = len(str(max((group.traces for group in sessions.groups), default=0)))
    for group in sessions.groups:
        example = group.example
        guards = ",".join(group.guards) or "-"
        under = " " * (width + 13)  # the column of the group's valuation
        yield from _old_to_new(
            f"  {group.traces:>{width}} {'session ' if group.traces == 1 else 'sessions'}  {group.state} | {group.event} | {guards}:",
            _step_words(example.old, "old"), _step_words(example.new, "new"), under,
        )
        yield from wrap(f"{under}e.g. {escape(example.trace)}, the {nth(example.index)} event")
    if sessions.unreached:
        yield from wrap(f"untested by recorded traffic: no recorded session reaches {plural(len(sessions.unreached), 'changed valuation')}:")
        cases: dict[tuple[str, str, int | None, int | None], list[Any]] = {}
        for change in sessions.unreached:
            cases.setdefault((change.state, change.event, change.old_row, change.new_row), []).append(change.valuation)
        for (state, event, old_row, new_row), valuations in cases.items():
            was = f"old line {old_row}" if old_row is not None else "no row (old)"
            now = f"new line {new_row}" if new_row is not None else "no row (new)"
            yield from wrap(f"  {state} | {event} {when_text(valuations)}: {was} -> {now}")
