"""`gapstate classify`: judge continuity-experiment reports."""

from __future__ import annotations


import click

from gapstate.cli.base import (
    FORMAT,
    UnusableInput,
    main,
    reports_errors,
)
from gapstate.errors import GapstateError


@main.command()
@click.argument("report_path", metavar="REPORT")
@FORMAT
@reports_errors
def classify(report_path: str, fmt: str) -> int:
    """Judge a continuity-experiment report (JSON) by the five attribution conditions.

    The result is descriptive: an attributable turn from one clip names a case
    to repeat, not a rate. Exit 0 whatever the verdict, 2 when the report
    cannot be used (every problem is listed, with its line and JSON path).
    """
    import json  # inside, like every command's imports: classify never loads lark or networkx

    from gapstate.attribution.classifier import classify as judge
    from gapstate.attribution.classifier import problem_lines
    from gapstate.cli.render import to_json
    from gapstate.cli.render.classify import classify_text
    from gapstate.cli.render.errors import unjudgeable
    from gapstate.spec.source import label, read_text

    name = label(report_path)
    text = read_text(report_path)
    try:
        report = json.loads(text)
    except json.JSONDecodeError as error:
        raise GapstateError(f"not valid JSON: {error.msg}", name, error.lineno, error.colno) from None
    except RecursionError:
        raise GapstateError("not usable JSON: nested too deeply", name, 1, 1) from None
    try:
        result = judge(report)
    except GapstateError as error:
        located = problem_lines(text, error.problems)
        raise UnusableInput(GapstateError(unjudgeable(len(located)), name), fmt, located) from None
    click.echo(to_json(result.to_dict()) if fmt == "json" else classify_text(result, name))
    return 0
