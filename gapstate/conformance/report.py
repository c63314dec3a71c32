"""`gapstate conform`'s text, where an implementation diverged, and its summary line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gapstate.words import as_json, escape, plural, shell_word, trace_lines

if TYPE_CHECKING:
    from gapstate.conformance.conform import ConformResult


def conform_text(result: ConformResult, saved: str | None = None) -> str:
    """The shrunk diverging trace as paste-ready JSON Lines, the row that should have fired and why, each differing field; "" when it conforms."""
    lines: list[str] = []
    found = result.divergence
    if found is not None:
        origin = "a generated trace" if found.source == "generated" else f"vector {escape(found.source)}"
        lines.append(
            f"diverges at event {found.index + 1} of {len(found.trace)} ({found.trace[-1]['event']}), found in {origin} of "
            f"{plural(found.shrunk_from, 'event')} and shrunk to {len(found.trace)}; the trace, for `gapstate replay`:"
        )
        lines.extend(trace_lines(found.trace))
        if found.row is not None:
            lines.append(f"  the table fires line {found.row}: {found.row_text}")
        lines.extend(f"    {reason}" for reason in found.reasons)
        width = max(len(field) for field in found.fields) + 1
        for field in found.fields:
            expected, actual = found.expected.get(field), found.actual.get(field)
            lines.append(f"  {field + ':':<{width}} expected {as_json(expected)}, actual {as_json(actual)}")
        lines.append(f"  expected: {as_json(found.expected)}")
        lines.append(f"  actual:   {as_json(found.actual)}")
        if saved is not None:
            shown = escape(saved)  # a file name is input: on one line, and quoted for the shell in the command to paste
            lines.append(f"  saved to {shown}: `gapstate conform --replay {escape(shell_word(saved))} -- ...` runs it again")
    return "\n".join(lines)


def conform_summary(result: ConformResult) -> str:
    """The summary line: the spec, the seed, the vectors, generated traces and shrink attempts run, the events, and whether it conforms."""
    verdict = "conforms" if result.ok else "diverges"
    shrinks = f"{plural(result.shrinks, 'shrink attempt')}, " if result.shrinks else ""
    return (
        f"gapstate conform: {escape(result.spec)}: seed {result.seed}: {plural(result.vectors, 'vector')}, "
        f"{plural(result.traces, 'generated trace')}, {shrinks}{plural(result.events, 'event')}: {verdict}"
    )
