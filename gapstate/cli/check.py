"""`gapstate check`: prove one or more specs and report in the format asked for."""

from __future__ import annotations

import sys
from typing import Any

import click

from gapstate.cli.base import (
    SPEC,
    LateBar,
    choose_spec,
    format_option,
    main,
    read_spec_bytes,
    reports_errors,
)
from gapstate.cli.output import escape, say, say_json, summarize
from gapstate.collector import paused
from gapstate.errors import GapstateError
from gapstate.version import __version__


@main.command()
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@SPEC
@format_option(
    "text",
    "json",
    "github",
    "sarif",
    help="text for people, json (one document on stdout) for programs, github (workflow commands: "
    "annotations on the spec's lines), sarif (SARIF 2.1.0, for code scanning).",
)
@click.option(
    "--max-configurations",
    "budget",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Stop (exit 2) before exploring when the caps imply more configurations than N. Default: "
    "max-configurations of [tool.gapstate], else 2,500,000 (about 10 s on one core).",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings (2 still means unusable input).")
@click.option(
    "--fix",
    is_flag=True,
    help="Mend what can be mended mechanically (a stale marked diagram block: redrawn in place; a stale "
    "file of the generated setting: written again by `gapstate gen`, when the table checks clean), "
    "say what changed on stderr, then report what is left.",
)
@click.option(
    "--bounds",
    "show_bounds",
    is_flag=True,
    help="Also print the bounds: the most sends and committed requests one gap can take, committed "
    "requests one session can take, attempts one episode can spend (JSON always has them).",
)
@reports_errors
@paused()  # the proof and the text of thousands of findings: see gapstate/collector.py
def check(
    paths: tuple[str, ...],
    spec_path: str | None,
    fmt: str,
    budget: int | None,
    exit_zero: bool,
    fix: bool,
    show_bounds: bool,
) -> int:
    """Prove the table total, unambiguous and reachable, and check its rules.

    PATH (one or more) or --spec names the spec files; without either, the
    `spec` setting (gapstate.toml or [tool.gapstate]), else the bundled
    example (said on stderr; --require-spec makes it exit 2). Exit 0
    when nothing is found, 1 with findings, 2 when a spec cannot be read
    (with several, the worst).
    """
    from gapstate.cli.config import max_configurations, resolve_spec_path
    from gapstate.cli.render import to_json
    from gapstate.cli.render.check import bounds_text, check_summary, check_text, check_verdict
    from gapstate.cli.render.errors import error_text

    def explored(spec: Any) -> Any:
        """The proof, with a progress bar on a terminal once exploring has taken a second."""
        from gapstate.proof.check import check as prove  # networkx, loaded once a spec has been read
        from gapstate.proof.explore import MAX_CONFIGURATIONS

        bar = LateBar("exploring") if sys.stderr.isatty() else None
        try:
            return prove(spec, bar, MAX_CONFIGURATIONS if limit is None else limit)
        finally:
            if bar is not None:
                bar.close()

    limit = max_configurations(budget)

    def proved(choice: Any) -> Any:
        """The proof of one spec; with --fix, of the spec once its mechanical findings are mended."""
        spec, read = read_spec_bytes(choice)
        result = explored(spec)
        if fix and _mend(choice, spec, result, read):
            spec, read = read_spec_bytes(choice)
            result = explored(spec)
        return _with_generated(choice, spec, read, result, fix)

    given = ([spec_path] if spec_path is not None else []) + list(paths)
    # Nothing named and nothing configured: a green run would prove only the example (said, or refused).
    choices = [resolve_spec_path(path) for path in given] or [choose_spec(None, "checks", "pass its path, `gapstate check spec/gap-state.md`")]
    if len(choices) == 1 and fmt in ("text", "json"):
        result = proved(choices[0])
        if fmt == "json":
            say_json(result.streamed())  # the findings of a big table make a big document
        else:
            shown = [check_text(result), bounds_text(result) if show_bounds else ""]
            if any(shown):
                say("\n".join(filter(None, shown)))
        summarize(check_summary([(choices[0].bundled, result)]))
        return 0 if result.ok or exit_zero else 1
    # Several specs, or a CI format: each is checked and reported in turn; the
    # exit code is the worst, and JSON or SARIF is one document holding each spec's.
    checked: list[tuple[Any, Any]] = []  # (choice, its CheckResult or GapstateError), in order
    worst = 0
    for choice in choices:
        try:
            result = proved(choice)
        except GapstateError as error:
            if len(choices) == 1 and fmt != "sarif":
                raise  # one spec: the usual report of unusable input, in the format asked for
            # SARIF is always a log, so code scanning reads one: the spec that could
            # not be read becomes a tool execution notification in it.
            say(error_text(error), err=True)
            checked.append((choice, error))
            worst = 2
            continue
        checked.append((choice, result))
        worst = max(worst, 0 if result.ok or exit_zero else 1)
    outcomes = [outcome for _, outcome in checked]
    if fmt == "github":
        from gapstate.cli.render.github import check_github

        annotations = check_github(outcomes)
        if annotations:
            say(annotations)
    elif fmt == "sarif":
        from gapstate.findings import CATALOGUE
        from gapstate.review.sarif import check_sarif

        say(to_json(check_sarif(outcomes, CATALOGUE, __version__)))
    elif fmt == "json":
        documents = [
            {"ok": False, "spec": choice.path, "error": outcome.record.to_dict()}
            if isinstance(outcome, GapstateError)
            else outcome.to_dict()
            for choice, outcome in checked
        ]
        say_json({"ok": all(d["ok"] for d in documents), "specs": documents})
    else:
        # Several specs: each one's findings, then its verdict (the summary line then counts them).
        several = len(checked) > 1
        texts = [
            "\n".join(filter(None, [check_text(o), bounds_text(o) if show_bounds else "",
                                     check_verdict(o, c.bundled) if several else ""]))
            for c, o in checked
            if not isinstance(o, GapstateError)
        ]
        if any(texts):
            say("\n".join(filter(None, texts)))
    summarize(check_summary([(c.bundled, o) for c, o in checked]))
    return worst


def _with_generated(choice: Any, spec: Any, read: bytes, result: Any, fix: bool) -> Any:
    """The result with a `stale_generated` finding for each file of the `generated` setting made from
    another version of the spec; with --fix, those files written again first, when the table checks clean."""
    import dataclasses

    from gapstate.cli.generated import generated_findings, regenerate

    stale = generated_findings(choice, spec, read)
    if fix and stale:
        if result.findings:
            say(f"gapstate check --fix: {escape(choice.path)}: generated files not regenerated: the table does not "
                "check clean", err=True)
        else:
            for path in regenerate(choice, spec, read, stale):
                say(f"gapstate check --fix: {escape(path)}: regenerated", err=True)
            stale = generated_findings(choice, spec, read)
    if not stale:
        return result
    findings = tuple(sorted((*result.findings, *stale), key=lambda f: f.sort_key))
    return dataclasses.replace(result, findings=findings)


def _mend(choice: Any, spec: Any, result: Any, read: bytes) -> bool:
    """Redraw a stale marked diagram block in place (the one finding a machine can mend); True if it did."""
    from gapstate.findings import DiagramProblem, StaleDiagram

    stale = [f for f in result.findings if isinstance(f, StaleDiagram) and f.reason is not DiagramProblem.UNCLOSED]
    if not stale or choice.bundled or choice.path == "-" or spec.table is None:
        return False
    from gapstate.cli.redraw import diagram_words, update_diagram
    from gapstate.table.diagram import build, mermaid

    changed = update_diagram(choice.path, mermaid(build(spec.table)), read)
    say(f"gapstate check --fix: {diagram_words(choice.path, changed)}", err=True)  # a note; the summary line follows
    return changed
