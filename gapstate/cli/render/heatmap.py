"""`classify --plot`: the verdicts as a heat map, arms by turns, coloured by verdict, counts in the cells.

The only module that imports matplotlib, and only when a plot is asked for.
matplotlib lays out the axes, measures every label so long names fit,
and writes text as glyph outlines, so a name from a report never becomes SVG
markup. Each cell is split into equal bands, one per verdict that some repeat
gave, each with its count: bands are equal whatever the counts, so the picture
shows counts, never a share of the repeats. A last column gives each arm's
own verdict the same way (an arm reported as `unexplained_silence` says so,
whatever its turns show), and the title the overall verdict, counted.
"""

from __future__ import annotations

import io
import warnings
from typing import Any, NamedTuple

from gapstate.words import escape

# Okabe and Ito's palette, told apart with any colour vision; pale where the
# turn is unremarkable, strong where it asks for attention.
COLOURS = {
    "intact": "#cfe8dc",
    "delay": "#56b4e9",
    "attributable": "#d55e00",
    "inconclusive": "#e69f00",
    "incomplete": "#bbbbbb",
    "missing": "#cc79a7",
}
# An arm's own verdict, in the last column: the control and an assessed arm pale,
# an arm whose silence nothing explains (or only an SDK overflow) dark.
ARM_COLOURS = {
    "control": "#eeeeee",
    "assessed": "#f7f7f7",
    "incomplete": COLOURS["incomplete"],
    "unexplained_silence": "#000000",
    "sdk_overflow": "#0072b2",
}
DARK = {"attributable", "unexplained_silence", "sdk_overflow"}  # white text reads better on these
ARM_COLUMN = "arm verdict"

LABEL = 40  # characters of an arm or turn name shown; the rest is cut
CELLS = 2500  # arms x turns beyond this make a picture nobody can read


def _short(name: str) -> str:
    """A name as drawn: its control characters and lone surrogates shown as escapes (matplotlib cannot
    measure a surrogate, and writes each label into an XML comment, where a control character is
    ill-formed), cut to the label width."""
    name = escape(name)
    return name if len(name) <= LABEL else name[: LABEL - 1] + "…"


Counts = tuple[tuple[str, int], ...]  # (verdict, how many repeats gave it), only those some repeat gave


class Grid(NamedTuple):
    """What the picture shows, from either result: one report, or repeats counted."""

    arms: list[str]
    turns: list[str]
    cells: list[list[Counts]]  # per arm, per turn
    total: int  # repeats
    arm_verdicts: list[Counts]  # per arm: its own verdict
    overall: Counts


def grid(result: Any) -> Grid:
    """The arms, turns, per arm and turn the verdicts counted, the repeats, each arm's verdicts and the overall ones."""
    arms = [arm.name for arm in result.arms]
    turns = [turn.turn for turn in result.arms[0].turns]
    if hasattr(result, "repeats"):
        cells = [[turn.verdicts for turn in arm.turns] for arm in result.arms]
        return Grid(arms, turns, cells, len(result.repeats), [arm.verdicts for arm in result.arms], result.verdicts)
    cells = [[((turn.verdict, 1),) for turn in arm.turns] for arm in result.arms]
    return Grid(arms, turns, cells, 1, [((arm.verdict, 1),) for arm in result.arms], ((result.verdict, 1),))


def _counted(counts: Counts, total: int) -> str:
    """`attributable` for one report; `attributable 2, inconclusive 1` for repeats."""
    return ", ".join(verdict if total == 1 else f"{verdict} {count}" for verdict, count in counts)


def heatmap_svg(result: Any) -> bytes:
    """The SVG document, the same bytes for the same result."""
    from gapstate.errors import GapstateError

    arms, turns, cells, total, arm_verdicts, overall = grid(result)
    if len(arms) * len(turns) > CELLS:
        raise GapstateError(f"too many cells to draw ({len(arms)} arms x {len(turns)} turns; at most {CELLS})")

    import matplotlib
    from matplotlib.figure import Figure  # not pyplot: no display, no GUI toolkit, no global figures
    from matplotlib.patches import Patch, Rectangle

    # matplotlib warns about each glyph its font lacks, quoting the name: those warnings would reach
    # stderr raw, past `say`. A missing glyph is drawn as a box; the warnings are dropped.
    with matplotlib.rc_context({"svg.hashsalt": "gapstate", "svg.fonttype": "path", "font.size": 8}), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        figure = Figure(figsize=(3.6 + 1.4 * len(turns), 1.6 + 0.9 * len(arms)))
        axes = figure.add_subplot()
        arm_column = len(turns) + 0.25  # set apart from the turns: it judges the arm, not a turn
        for row, arm_cells in enumerate(cells):
            placed = [(column, counts, COLOURS) for column, counts in enumerate(arm_cells)]
            for column, counts, colours in [*placed, (arm_column, arm_verdicts[row], ARM_COLOURS)]:
                height = 1 / len(counts)
                for band, (verdict, count) in enumerate(counts):
                    bottom = row + band * height
                    axes.add_patch(Rectangle((column, bottom), 1, height, facecolor=colours[verdict],
                                             edgecolor="white", linewidth=1.5))
                    axes.text(column + 0.5, bottom + height / 2, f"{verdict} {count}", ha="center", va="center",
                              color="white" if verdict in DARK else "black", parse_math=False)
        axes.set_xlim(0, arm_column + 1)
        axes.set_ylim(len(arms), 0)  # the first arm at the top, as in the text
        columns = [i + 0.5 for i in range(len(turns))] + [arm_column + 0.5]
        axes.set_xticks(columns, [_short(t) for t in turns] + [ARM_COLUMN], rotation=30, ha="right")
        axes.set_yticks([i + 0.5 for i in range(len(arms))], [_short(a) for a in arms])
        for label in axes.get_xticklabels() + axes.get_yticklabels():
            label.set_parse_math(False)  # a `$` in a name is a dollar sign, not TeX
        axes.tick_params(length=0)
        for side in axes.spines.values():
            side.set_visible(False)
        given = {v for row in cells for c in row for v, _ in c}
        handles = [Patch(facecolor=COLOURS[v], label=v) for v in COLOURS if v in given]
        given_arms = {v for c in arm_verdicts for v, _ in c} - given  # `incomplete` is listed once
        handles += [Patch(facecolor=ARM_COLOURS[v], edgecolor="#999999", label=f"arm: {v}") for v in ARM_COLOURS if v in given_arms]
        axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
        what = "1 report" if total == 1 else f"{total} repeats"
        title = (f"Turn and arm verdicts: counts of {what} (descriptive, not a rate)\n"
                 f"overall: {_counted(overall, total)}")
        axes.set_title(title, loc="left", parse_math=False)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return buffer.getvalue()
