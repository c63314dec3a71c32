"""`gapstate classify`: one report's verdict table, or how the verdicts fall across repeats, and the summary line.

Nothing here decides anything: each function takes the result the core
returned and gives back lines of text. Counts across repeats are written as counts
("attributable in 2 of 5 repeats"), never as a share of the repeats.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from gapstate.cli.output import escape
from gapstate.cli.render import plural
from gapstate.words import WIDTH, wrap

OVERFLOW_MARK = "SDK overflow logged during its audio"


def unjudgeable(count: int, shown: int) -> str:
    more = f"; the first {shown} are shown" if count > shown else ""
    return f"the report cannot be judged ({plural(count, 'problem')}{more}):"


def not_a_repeat(count: int, first: str) -> str:
    return f"not a repeat of {first} ({plural(count, 'difference')}):"


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> Iterator[str]:
    """Columns padded to their widest cell; the last column is left ragged. Cells (names from the report) are escaped.

    Each row is escaped as it is yielded; the widths need every cell first,
    but a column with nothing to escape (the usual case) is measured as it is.
    A last cell too long for the width of text output goes on under itself
    (`_ragged`), so the row still reads as one.
    """
    widths = [len(header[i]) for i in range(len(header) - 1)]
    for i in range(len(widths)):
        column = [row[i] for row in rows]
        if escape("".join(column)) != "".join(column):
            column = [escape(cell) for cell in column]
        widths[i] = max([widths[i], *map(len, column)])
    for row in [header, *rows]:
        cells = [escape(cell) for cell in row]
        yield from _ragged("  ".join(f"{cell:<{widths[i]}}" for i, cell in enumerate(cells[:-1])) + "  ", cells[-1])


def _ragged(head: str, words: str) -> list[str]:
    """`head` then `words`, which wrap (`gapstate.words.wrap`) under their own first column, or four columns in
    when that leaves less than half the width (long names in the first columns)."""
    indent = " " * (len(head) if len(head) <= WIDTH - 30 else 4)
    return wrap(head + words, indent=indent, keep=len(head))


def _arm_lines(names: list[str], said: list[str]) -> Iterator[str]:
    names = [escape(name) for name in names]
    width = max(len(name) for name in names) + 1
    for name, words in zip(names, said, strict=True):
        yield from _ragged(f"arm {name + ':':<{width}}  ", words)


def overflow_words(overflow: Any) -> str:
    return (f"{plural(overflow.lines, 'overflow line')}: the SDK dropped "
            f"{overflow.dropped_min} to {overflow.dropped_max} frames")


def classify_lines(result: Any, source: str = "<report>") -> Iterator[str]:
    """One row per (arm, turn), each arm's verdict, the overall verdict, the note."""
    rows = [
        (arm.name, turn.turn, turn.verdict,
         "; ".join(filter(None, [", ".join(turn.unmet) or "-", OVERFLOW_MARK if turn.sdk_overflow else ""])))
        for arm in result.arms
        for turn in arm.turns
    ]
    yield from _table(("arm", "turn", "verdict", "unmet"), rows)
    yield ""
    yield from _arm_lines(
        [arm.name for arm in result.arms],
        [arm.verdict + (f" ({overflow_words(arm.sdk_overflow)})" if arm.sdk_overflow else "") for arm in result.arms],
    )
    yield from wrap(f"overall: {result.verdict}")
    yield from wrap(f"note: {result.note}")


def classify_summary(result: Any, source: str) -> str:
    """The summary line of one report: how many arms and turns, and the overall verdict."""
    turns = sum(len(arm.turns) for arm in result.arms)
    return (
        f"gapstate classify: {source}: {plural(len(result.arms), 'arm')}, {plural(turns, 'turn')}: "
        f"{result.verdict} (descriptive)"
    )


def in_repeats(counts: Iterable[tuple[str, int]], total: int) -> str:
    """`attributable in 2 of 5 repeats, inconclusive in 3 of 5 repeats`."""
    return ", ".join(f"{what} in {n} of {total} repeats" for what, n in counts)


def repeats_lines(result: Any) -> Iterator[str]:
    """Per (arm, turn) how the verdicts fell across the repeats, per arm, per repeat, overall, the note."""
    total = len(result.repeats)
    arms_of = [{arm.name: arm for arm in repeat.result.arms} for repeat in result.repeats]
    rows = []
    for arm in result.arms:
        for index, turn in enumerate(arm.turns):
            logged = sum(1 for arms in arms_of if arms[arm.name].turns[index].sdk_overflow)
            unmet = ", ".join(f"{condition} in {n}" for condition, n in turn.unmet) or "-"
            mark = f"SDK overflow logged in {logged}" if logged else ""  # during its audio (docs/classify.md)
            verdicts = ", ".join(f"{verdict} in {n}" for verdict, n in turn.verdicts)  # of `total`, as the header says
            rows.append((arm.name, turn.turn, verdicts, "; ".join(filter(None, [unmet, mark]))))
    yield from _table(("arm", "turn", f"verdicts (of {total} repeats)", "unmet (repeats)"), rows)
    yield ""
    said = []
    for arm in result.arms:
        overflows = [arms[arm.name].sdk_overflow for arms in arms_of if arms[arm.name].sdk_overflow]
        extra = ""
        if overflows:
            most = max(overflow.dropped_max for overflow in overflows)
            extra = f"; overflow lines logged in {len(overflows)} of {total} repeats, at most {most} frames dropped"
        said.append(in_repeats(arm.verdicts, total) + extra)
    yield from _arm_lines([arm.name for arm in result.arms], said)
    for number, repeat in enumerate(result.repeats, start=1):
        yield from wrap(f"repeat {number}: {escape(repeat.report)}: {repeat.result.verdict}")
    yield from wrap(f"overall: {in_repeats(result.verdicts, total)}")
    yield from wrap(f"note: {result.note}")


def repeats_summary(result: Any) -> str:
    """The summary line of repeats: how many, of how many arms and turns, and how the overall verdicts fell
    (`attributable in 1, inconclusive in 1`: of the repeats it has just counted, so that it fits 100 columns)."""
    total = len(result.repeats)
    first = result.repeats[0].result
    turns = sum(len(arm.turns) for arm in first.arms)
    return (
        f"gapstate classify: {plural(total, 'repeat')} of {plural(len(first.arms), 'arm')}, "
        f"{plural(turns, 'turn')}: {', '.join(f'{verdict} in {n}' for verdict, n in result.verdicts)} (descriptive)"
    )
