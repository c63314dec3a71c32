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

    A finding that follows from another is shown under its root, indented,
    without the quoted line: the root is what to fix.

    The summary says when the spec checked is the copy bundled with the
    package, so nobody mistakes it for the file they are editing.
    """
    lines: list[str] = []
    for root, consequences in result.grouped():
        lines.append(f"{escape(result.spec)}:{root.line}:{root.column}: {root.kind}: {escape(root.message)}")
        if 1 <= root.line <= len(result.lines):
            lines.extend(quote(root.line, result.lines[root.line - 1], root.column))
        for event in trace_lines(root.trace):
            lines.append(f"    {event}")
        if consequences:
            lines.append(f"  {plural(len(consequences), 'finding')} follow{'s' if len(consequences) == 1 else ''} from it:")
            lines.extend(f"    {escape(result.spec)}:{f.line}:{f.column}: {f.kind}: {escape(f.message)}" for f in consequences)
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
    roots = sum(f.cause is None for f in result.findings)
    verdict = "ok" if result.ok else f"{count} finding{'s' if count != 1 else ''}"
    if roots < count:
        verdict += f": {roots} to fix, {count - roots} follow{'s' if count - roots == 1 else ''} from {'it' if roots == 1 else 'them'}"
    which = f"{escape(result.spec)} (the bundled spec)" if bundled else escape(result.spec)
    lines.append(f"gapstate check: {which}: {verdict} ({numbers})")
    return "\n".join(lines)
