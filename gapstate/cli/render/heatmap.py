"""`classify --plot`: the verdicts as a heat map, arms by turns, coloured by verdict, counts in the cells.

The only module that imports matplotlib, and only when a plot is asked for.
matplotlib lays out the axes, measures every label so long names fit,
and writes text as glyph outlines, so a name from a report never becomes SVG
markup. Each cell is split into equal bands, one per verdict that some repeat
gave, each with its count: bands are equal whatever the counts, so the picture
shows counts, never a share of the repeats.
"""

from __future__ import annotations

import io
import warnings
from typing import Any

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
DARK = {"attributable"}  # white text reads better on these

LABEL = 40  # characters of an arm or turn name shown; the rest is cut
CELLS = 2500  # arms x turns beyond this make a picture nobody can read


def _short(name: str) -> str:
    """A name as drawn: its control characters and lone surrogates shown as escapes (matplotlib cannot
    measure a surrogate, and writes each label into an XML comment, where a control character is
    ill-formed), cut to the label width."""
    name = escape(name)
    return name if len(name) <= LABEL else name[: LABEL - 1] + "…"


def grid(result: Any) -> tuple[list[str], list[str], list[list[tuple[tuple[str, int], ...]]], int]:
    """(arm names, turn names, per arm and turn the (verdict, count) pairs, number of repeats) of either result."""
    if hasattr(result, "repeats"):
        arms = [arm.name for arm in result.arms]
        turns = [turn.turn for turn in result.arms[0].turns]
        cells = [[turn.verdicts for turn in arm.turns] for arm in result.arms]
        return arms, turns, cells, len(result.repeats)
    arms = [arm.name for arm in result.arms]
    turns = [turn.turn for turn in result.arms[0].turns]
    cells = [[((turn.verdict, 1),) for turn in arm.turns] for arm in result.arms]
    return arms, turns, cells, 1


def heatmap_svg(result: Any) -> bytes:
    """The SVG document, the same bytes for the same result."""
    from gapstate.errors import GapstateError

    arms, turns, cells, total = grid(result)
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
        figure = Figure(figsize=(2.0 + 1.4 * len(turns), 1.6 + 0.9 * len(arms)))
        axes = figure.add_subplot()
        for row, arm_cells in enumerate(cells):
            for column, counts in enumerate(arm_cells):
                height = 1 / len(counts)
                for band, (verdict, count) in enumerate(counts):
                    bottom = row + band * height
                    axes.add_patch(Rectangle((column, bottom), 1, height, facecolor=COLOURS[verdict],
                                             edgecolor="white", linewidth=1.5))
                    axes.text(column + 0.5, bottom + height / 2, f"{verdict} {count}", ha="center", va="center",
                              color="white" if verdict in DARK else "black", parse_math=False)
        axes.set_xlim(0, len(turns))
        axes.set_ylim(len(arms), 0)  # the first arm at the top, as in the text
        axes.set_xticks([i + 0.5 for i in range(len(turns))], [_short(t) for t in turns], rotation=30, ha="right")
        axes.set_yticks([i + 0.5 for i in range(len(arms))], [_short(a) for a in arms])
        for label in axes.get_xticklabels() + axes.get_yticklabels():
            label.set_parse_math(False)  # a `$` in a name is a dollar sign, not TeX
        axes.tick_params(length=0)
        for side in axes.spines.values():
            side.set_visible(False)
        shown = [verdict for verdict in COLOURS if any(v == verdict for row in cells for c in row for v, _ in c)]
        axes.legend(handles=[Patch(facecolor=COLOURS[v], label=v) for v in shown], loc="upper left",
                    bbox_to_anchor=(1.01, 1), frameon=False)
        what = "1 report" if total == 1 else f"{total} repeats"
        axes.set_title(f"Turn verdicts per arm: counts of {what} (descriptive, not a rate)", loc="left")
        buffer = io.BytesIO()
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return buffer.getvalue()
