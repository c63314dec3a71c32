"""`gapstate classify`: judge continuity-experiment reports, one or several repeats of one experiment."""

from __future__ import annotations

from typing import Any

import click

from gapstate.cli.base import (
    FORMAT,
    main,
    reports_errors,
)
from gapstate.cli.output import say_json, say_lines, summarize
from gapstate.errors import GapstateError


def _plot_path(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not value.lower().endswith(".svg"):
        raise click.BadParameter("the heat map is SVG: name a file ending in .svg", ctx, param)
    return value


# How to get matplotlib, said alike by --help, the error, the README and docs/classify.md
# (tests/test_docs_figures.py): gapstate is installed from its source, never by a bare name.
PLOT_INSTALL = "the plot extra, pip install '.[plot]' in a clone of gapstate (docs/classify.md)"


@main.command()
@click.argument("report_paths", metavar="REPORT...", nargs=-1, required=True)
@FORMAT
@click.option("--plot", "plot_path", metavar="FILE.svg", default=None, callback=_plot_path,
              help="Also draw the verdicts as a heat map (arms x turns, coloured by verdict, counts in the "
                   f"cells) into this SVG file; needs matplotlib: {PLOT_INSTALL}.")
@reports_errors
def classify(report_paths: tuple[str, ...], fmt: str, plot_path: str | None) -> int:
    """Judge continuity-experiment reports (JSON) by the five attribution conditions.

    One REPORT: each stall arm's turns are attributable, inconclusive (naming
    each unmet condition), intact, a delay or incomplete. Several REPORTs are
    repeats of one experiment (the same answer_key, the same arms by name and
    kind): the verdicts are counted across them, as numbers of repeats, never
    as a rate. The result is descriptive: an attributable turn names a case to
    repeat. Exit 0 whatever the verdict, 2 when a report cannot be used (every
    problem is listed, with its line and JSON path) or is not a repeat of the
    first.

    \b
    The report (JSON; docs/classify.md describes every field and verdict):
      {"answer_key": ["q1", ...],
       "arms": [{"name": str, "kind": "control" | "stall",
                 "capture_complete": bool, "transcript_received": bool,
                 "counters": {name: int},
                 "intervals": [{"kind": "drop" | "quarantine",
                                "start": ms, "end": ms, "voiced": bool}],
                 "sdk_overflow": [{"t": ms, "dropped": frames}],
                 "turns": {"q1": {"status": "present" | "absent" | "repeated" | "late",
                                  "transmitted": bool, "audio": [start_ms, end_ms],
                                  "peer_bytes": int}}}]}
    Every object may also hold "meta": anything, never read.
    """
    read = [_read(path, fmt) for path in report_paths]
    first_name, _, first = read[0]
    if len(read) == 1:
        from gapstate.attribution.conditions import judge
        from gapstate.cli.render.classify import classify_lines, classify_summary

        result: Any = judge(first)
        lines = classify_lines(result, first_name)
        summary = classify_summary(result, first_name)
    else:  # repeats: imported only here, so one report starts as fast as before
        from gapstate.attribution.repeats import differences, judge_repeats
        from gapstate.cli.render.classify import not_a_repeat, repeats_lines, repeats_summary

        for name, text, model in read[1:]:
            found = differences(first, model, first_name)
            if found:
                raise _refuse(not_a_repeat(len(found), first_name), name, text, found, fmt)
        result = judge_repeats([(name, model) for name, _, model in read])
        lines = repeats_lines(result)
        summary = repeats_summary(result)
    if plot_path is not None:
        _plot(result, plot_path)
    # Every report was read and judged before this point, so nothing is half-written; a table of
    # many turns is written as it is rendered.
    if fmt == "json":
        say_json(result.to_dict())
    else:
        say_lines(lines)
    summarize(summary)
    return 0


def _read(path: str, fmt: str) -> tuple[str, str, Any]:
    """(label, text, validated model) of one report; exit 2 listing its problems when it cannot be judged."""
    from gapstate.attribution.report import build
    from gapstate.attribution.validation import problems
    from gapstate.cli.render.classify import unjudgeable
    from gapstate.files.source import label, parse_json, read_text

    name = label(path)
    text = read_text(path)
    report = parse_json(text, name)
    found = problems(report)
    if found:
        from gapstate.attribution.positions import SHOWN

        raise _refuse(unjudgeable(len(found), SHOWN), name, text, found, fmt)
    return name, text, build(report)


def _refuse(headline: str, name: str, text: str, problems: Any, fmt: str) -> GapstateError:
    """Exit 2: the headline, then the first SHOWN problems at their lines in `text`."""
    from gapstate.attribution.positions import SHOWN, problem_lines

    return GapstateError(headline, name, problems=problem_lines(text, problems, SHOWN))


def _plot(result: Any, path: str) -> None:
    """Draw the heat map, then write it whole, and only over a regular file."""
    from gapstate.files.writer import writable, write_atomically

    try:
        from gapstate.cli.render.heatmap import heatmap_svg
    except ImportError:
        raise GapstateError(f"--plot needs matplotlib: {PLOT_INSTALL}", path) from None
    writable(path, follow_links=False)
    try:
        drawn = heatmap_svg(result)
    except GapstateError as error:
        raise error.replaced(file=path) from None
    write_atomically(path, drawn, follow_links=False)
