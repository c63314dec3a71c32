"""`gapstate conform`: where an implementation diverged."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from gapstate.cli.output import escape
from gapstate.cli.render import plural, trace_lines

if TYPE_CHECKING:
    from gapstate.testing.conformance import ConformResult


def conform_text(result: ConformResult) -> str:
    """The shrunk diverging trace as paste-ready JSON Lines, expected against actual at its last event, the counts."""
    lines: list[str] = []
    found = result.divergence
    if found is not None:
        origin = "a generated trace" if found.source == "generated" else f"vector {escape(found.source)}"
        lines.append(
            f"diverges at event {found.index + 1} of {len(found.trace)} ({found.trace[-1]['event']}), found in {origin} of "
            f"{plural(found.shrunk_from, 'event')} and shrunk to {len(found.trace)}; the trace, for `gapstate replay`:"
        )
        lines.extend(trace_lines(found.trace))
        row = f"  (row at line {found.row})" if found.row is not None else ""
        lines.append(f"  expected: {json.dumps(found.expected)}{row}")
        lines.append(f"  actual:   {json.dumps(found.actual)}")
        lines.append(f"  differs in: {', '.join(found.fields)}")
    verdict = "conforms" if result.ok else "diverges"
    lines.append(
        f"gapstate conform: {escape(result.spec)}: seed {result.seed}: {plural(result.vectors, 'vector')}, "
        f"{plural(result.traces, 'generated trace')}, {plural(result.events, 'event')}: {verdict}"
    )
    return "\n".join(lines)
