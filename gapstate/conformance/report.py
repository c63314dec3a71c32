"""`gapstate conform`'s text, where an implementation diverged, and its summary line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gapstate.words import as_json, escape, plural, shell_word, trace_lines, wrap

if TYPE_CHECKING:
    from gapstate.conformance.conform import ConformResult


def conform_text(result: ConformResult, saved: str | None = None) -> str:
    """The shrunk diverging trace as paste-ready JSON Lines, the row that should have fired and why, each differing field; "" when it conforms."""
    lines: list[str] = []
    found = result.divergence
    if found is not None:
        origin = "a generated trace" if found.source == "generated" else f"vector {escape(found.source)}"
        lines.extend(wrap(
            f"diverges at event {found.index + 1} of {len(found.trace)} ({found.trace[-1]['event']}), found in {origin} of "
            f"{plural(found.shrunk_from, 'event')} and shrunk to {len(found.trace)}; the trace, for `gapstate replay`:"
        ))
        lines.extend(trace_lines(found.trace))  # whole, a line an event, to paste; what else is said wraps
        if found.row is not None:
            lines.extend(wrap(f"  the table fires line {found.row}: {found.row_text}"))
        lines.extend(part for reason in found.reasons for part in wrap(f"    {reason}"))
        width = max(len(field) for field in found.fields) + 1
        for field in found.fields:
            expected, actual = found.expected.get(field), found.actual.get(field)
            lines.extend(wrap(f"  {field + ':':<{width}} expected {as_json(expected)}, actual {as_json(actual)}"))
        lines.extend(wrap(f"  expected: {as_json(found.expected)}"))  # whole, on one line, in --format json
        lines.extend(wrap(f"  actual:   {as_json(found.actual)}"))
        if saved is not None:
            shown = escape(saved)  # a file name is input: on one line, and quoted for the shell in the command to paste
            lines.extend(wrap(f"  saved to {shown}: `gapstate conform --replay {escape(shell_word(saved))} -- ...` runs it again"))
    return "\n".join(lines)


def conform_summary(result: ConformResult) -> str:
    """The summary line: the spec, the seed, the vectors, generated traces and shrink attempts run, the events, and whether it conforms:
    `seed 0: 74 vectors, 12 traces, 80 shrinks, 8123 events: diverges`."""
    verdict = "conforms" if result.ok else "diverges"
    # the JSON's names, each count but the vectors' only when not 0, so that the line fits 100 columns
    counts = [plural(result.vectors, "vector")] + [plural(n, word) for n, word in ((result.traces, "trace"), (result.shrinks, "shrink")) if n]
    return f"gapstate conform: {escape(result.spec)}: seed {result.seed}: {', '.join(counts)}, {plural(result.events, 'event')}: {verdict}"
