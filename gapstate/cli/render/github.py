"""GitHub Actions workflow commands: one annotation per finding, on its spec line.

`::error file=PATH,line=N,col=C,title=KIND::message` makes GitHub show the
message on that line of the pull request. GitHub reads `%`, CR and LF in a
message as escapes (and also `:` and `,` in a property), so they are escaped
here; a `rule` finding's trace goes into the message as JSON Lines, one
event a line, ready to paste into `gapstate replay`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from gapstate.cli.render.review import case_lines, change_lines
from gapstate.errors import GapstateError, Unusable

if TYPE_CHECKING:
    from gapstate.proof.check import CheckResult


def escape_data(text: str) -> str:
    """A message as GitHub's workflow-command parser reads it back unchanged."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value (file, title): the message escapes plus `:` and `,`, which separate properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **properties: Any) -> str:
    """One workflow command, `::level prop=value,...::message`; properties that are None are left out."""
    shown = ",".join(f"{name}={escape_property(str(value))}" for name, value in properties.items() if value is not None)
    return f"::{level}{' ' + shown if shown else ''}::{escape_data(message)}"


def _with_trace(message: str, trace: Any) -> str:
    lines = [json.dumps(event) for event in trace or ()]
    return "\n".join([message, "trace, for `gapstate replay`:", *lines]) if lines else message


def error_github(error: GapstateError | Unusable) -> str:
    """Input that cannot be used, as one annotation too, so a failing CI step says why on the file."""
    return command("error", error.message, file=error.file, line=error.line, col=error.column, title="unusable input")


def check_github(outcomes: Iterable[CheckResult | GapstateError]) -> str:
    """One `::error` per root finding of each spec checked (a `::notice` for one that follows from another),
    at its line and column; a `::notice` per rule tested on no reachable step; one per spec that could not be read.

    `outcomes` holds, per spec, its check result or the GapstateError that stopped it.
    """
    lines = []
    for outcome in outcomes:
        if isinstance(outcome, GapstateError):
            lines.append(error_github(outcome))
            continue
        lines.extend(
            command(
                "error" if outcome.root_of(finding) is None else "notice",  # a consequence is fixed by fixing its root
                _with_trace(outcome.message(finding), finding.trace),
                file=outcome.spec,
                line=finding.line,
                col=finding.column,
                title=finding.kind,
            )
            for finding in outcome.findings
        )
        lines.extend(command("notice", outcome.untested_note(rule), file=outcome.spec, title="untested rule")
                     for rule in outcome.untested())
    return "\n".join(lines)


def fuzz_github(result: Any) -> str:
    """An `::error` for the shrunk counterexample at its row, and under the coverage gate one per row never fired."""
    lines = []
    found = result.counterexample
    if found is not None:
        message = f"{found.message} (gapstate fuzz --seed {found.seed}; shrunk to {len(found.trace)} events)"
        lines.append(command("error", _with_trace(message, found.trace), file=result.spec, line=found.row, title=found.kind))
    if result.require_coverage:
        traces = f"{result.examples} generated traces (seed {result.seed})"
        for line in result.missed:
            lines.append(
                command("error", f"this reachable row was never fired by {traces}", file=result.spec, line=line, title="coverage")
            )
    return "\n".join(lines)


def diff_github(result: Any) -> str:
    """One annotation per changed row of the new table: what changed there and, with --traces, the sessions it affects.

    A `::warning` where recorded sessions behave differently, a `::notice`
    elsewhere; a change with no line in the new table (a row or cap
    removed) is annotated on the file as a whole.
    """
    notes: dict[int | None, list[str]] = {}
    for change in result.changes:
        if change.kind == "behaviour":
            head = change_lines(change)[0]
            for case in change.cases:  # an annotation is one line: a case wrapped for the terminal is joined again
                text = " ".join(part.strip() for part in case_lines(case))
                notes.setdefault(case.new.line if case.new else None, []).append(f"{head} {text}")
        else:
            line = change.line if change.kind in ("name_added", "allowance_added") else getattr(change, "new_line", None)
            notes.setdefault(line, []).extend(change_lines(change))
    warned: set[int | None] = set()
    sessions = result.traces
    if sessions is not None:
        for group in sessions.groups:
            example = group.example
            notes.setdefault(group.new_row, []).append(
                f"{group.traces} of {sessions.read} recorded sessions behave differently here, first at "
                f"{group.state} | {group.event} | {','.join(group.guards) or '-'} (e.g. {example.trace}, event index {example.index})"
            )
            warned.add(group.new_row)
        for change in sessions.unreached:
            notes.setdefault(change.new_row, []).append(
                f"untested by recorded traffic: no recorded session reaches {change.state} | {change.event} | {','.join(change.guards) or '-'}"
            )
    return "\n".join(
        command(
            "warning" if line in warned else "notice",
            "\n".join(notes[line]),
            file=result.new,
            line=line,
            title="recorded sessions" if line in warned else "behaviour change",
        )
        for line in sorted(notes, key=lambda n: -1 if n is None else n)
    )
