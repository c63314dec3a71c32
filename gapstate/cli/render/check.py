"""`gapstate check`: the findings, each quoting its spec line, and the summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gapstate.cli.output import escape
from gapstate.cli.render import plural, trace_lines
from gapstate.cli.render.errors import quote

if TYPE_CHECKING:
    from gapstate.proof.check import CheckResult


def check_text(result: CheckResult, bundled: bool = False) -> str:
    """Findings a line (`path:line:column: kind: message`, a rule's trace indented), then the summary.

    The summary says when the spec checked is the copy bundled with the
    package, so nobody mistakes it for the file they are editing.
    """
    lines: list[str] = []
    for finding in result.findings:
        lines.append(f"{escape(result.spec)}:{finding.line}:{finding.column}: {finding.kind}: {escape(finding.message)}")
        if 1 <= finding.line <= len(result.lines):
            lines.extend(quote(finding.line, result.lines[finding.line - 1], finding.column))
        for event in trace_lines(finding.trace):
            lines.append(f"    {event}")
    s = result.stats
    if result.proved:
        numbers = (
            f"{s['states']} states, {s['events']} events, {s['rows']} rows, "
            f"{s['configurations']} configurations, {s['unreachable_allowed']} allowed unreachable"
        )
    else:
        rows, caps, allowances = result.read
        numbers = (
            f"read {plural(rows, 'row')}, {plural(caps, 'cap')}, {plural(allowances, 'allowance')}; "
            "the proof did not run: fix the findings above first"
        )
    count = len(result.findings)
    verdict = "ok" if result.ok else f"{count} finding{'s' if count != 1 else ''}"
    which = f"{escape(result.spec)} (the bundled spec)" if bundled else escape(result.spec)
    lines.append(f"gapstate check: {which}: {verdict} ({numbers})")
    return "\n".join(lines)
