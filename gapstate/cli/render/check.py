"""`gapstate check`: the findings, each quoting its spec line, and the summary line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gapstate.cli.output import escape
from gapstate.cli.render import plural, trace_lines
from gapstate.cli.render.errors import quote
from gapstate.findings import RetryLoop
from gapstate.words import wrap

if TYPE_CHECKING:
    from gapstate.errors import GapstateError
    from gapstate.findings import Finding
    from gapstate.proof.check import CheckResult


def check_text(result: CheckResult) -> str:
    """Findings a line (`path:line:column: kind: message`, a rule's trace indented), then a note for each
    rule tested on no reachable step; "" when there is neither.

    A finding that follows from another is shown under its root, indented,
    without the quoted line: the root is what to fix. A finding longer than the
    width of text output goes on over indented lines, so its first line is still
    `path:line:column: kind: ...` for editors and grep; traces stay whole, to paste.
    """
    lines: list[str] = []
    for root, consequences in result.grouped():
        lines.extend(_finding_lines("", result.spec, root, result.message(root)))
        if 1 <= root.line <= len(result.lines):
            lines.extend(quote(root.line, result.lines[root.line - 1], root.column))
        for event in trace_lines(root.trace):
            lines.append(f"    {event}")
        if isinstance(root, RetryLoop):
            lines.append("  then these events repeat (each time round with later times and fresh interval ids):")
            lines.extend(f"    {event}" for event in trace_lines(root.cycle))
        if consequences:
            lines.append(f"  {plural(len(consequences), 'finding')} follow{'s' if len(consequences) == 1 else ''} from it:")
            for f in consequences:
                lines.extend(_finding_lines("    ", result.spec, f, result.message(f)))
    for rule in result.untested():
        lines.extend(wrap(f"{escape(result.spec)}: note: {result.untested_note(rule)}"))
    return "\n".join(lines)

def _finding_lines(lead: str, spec: str, finding: Finding, message: str) -> list[str]:
    """`path:line:column: kind: message`, wrapped, its first line holding at least the message's first word."""
    head = f"{lead}{escape(spec)}:{finding.line}:{finding.column}: {finding.kind}: "
    text = escape(message)
    return wrap(head + text, keep=len(head) + len(text.split(" ", 1)[0]))


def bounds_text(result: CheckResult) -> str:
    """The bounds of `check --bounds`, a line each: `NAME = N: what it means`; "" when the proof did not run."""
    from gapstate.table.bounds import BOUNDS

    if result.progress is None:
        return ""
    lines = ["bounds (`gapstate witness --bound NAME` prints a run that reaches one):"]
    for bound in BOUNDS:
        value = result.progress.bound(bound.name).value
        lines.extend(wrap(f"  {bound.name} = {'unbounded' if value is None else value}: {bound.says(value)}"))
    return "\n".join(lines)


def check_verdict(result: CheckResult, bundled: bool = False) -> str:
    """`PATH: VERDICT (NUMBERS)`: the spec, ok or how many findings, and what the proof counted (or read).

    It says when the spec checked is the copy bundled with the package, so
    nobody mistakes it for the file they are editing. Short enough that the
    summary line fits the width of text output for a path of some 20 characters.
    """
    s = result.stats
    if result.proved:
        # the rows and what the proof explored; states, events and allowances are in the JSON's stats
        numbers = f"{plural(s['rows'], 'row')}, {plural(s['configurations'], 'configuration')}"
    else:
        rows, caps, allowances = result.read
        numbers = f"read {plural(rows, 'row')}, {plural(caps, 'cap')}, {plural(allowances, 'allowance')}; not proved until fixed"
    count = len(result.findings)
    roots = len(result.roots())
    verdict = "ok" if result.ok else f"{count} finding{'s' if count != 1 else ''}"
    if roots < count:
        verdict += f": {roots} to fix, {count - roots} follow{'s' if count - roots == 1 else ''} from {'it' if roots == 1 else 'them'}"
    which = f"{escape(result.spec)} (the bundled spec)" if bundled else escape(result.spec)
    return f"{which}: {verdict} ({numbers})"


def check_summary(outcomes: list[tuple[bool, CheckResult | GapstateError]]) -> str:
    """The summary line: one spec's verdict, or for several how many were ok, had findings or could not be read.

    `outcomes` holds (bundled, the spec's CheckResult or the GapstateError that
    kept it from being read), in the order checked.
    """
    from gapstate.errors import GapstateError

    if len(outcomes) == 1:
        bundled, result = outcomes[0]
        if not isinstance(result, GapstateError):
            return f"gapstate check: {check_verdict(result, bundled)}"
    unusable = sum(isinstance(o, GapstateError) for _, o in outcomes)
    found = sum(not isinstance(o, GapstateError) and not o.ok for _, o in outcomes)
    counts = [f"{len(outcomes) - unusable - found} ok", f"{found} with findings"] + ([f"{unusable} unusable"] if unusable else [])
    return f"gapstate check: {plural(len(outcomes), 'spec')}: {', '.join(counts)}"
