"""Seeing the table: `witness`, `explain`, `coverage` and `graph`."""

from __future__ import annotations

import sys
from typing import Any

import click

from gapstate.cli.base import (
    FORMAT,
    JOBS,
    SPEC,
    SPLIT_BY,
    choose_spec,
    format_option,
    jobs_default,
    main,
    read_spec_bytes,
    reports_errors,
    spec_for,
)
from gapstate.cli.output import say, say_json, say_lines, summarize

ROW = click.argument("address", metavar="ROW")


def _ways(spec_path: str | None) -> Any:
    from gapstate.seeing.witness import Ways

    return Ways(spec_for(spec_path))  # Ways steps the spec: GapstateError when it cannot


def _bound_names() -> list[str]:
    from gapstate.table.bounds import BOUND_NAMES

    return list(BOUND_NAMES)


@main.command()
@click.argument("address", metavar="[ROW]", required=False)
@click.option("--bound", "bound", type=click.Choice(_bound_names()), default=None,
              help="Instead of a row, print a run that reaches this bound (see `gapstate check --bounds`).")
@SPEC
@FORMAT
@reports_errors
def witness(address: str | None, bound: str | None, spec_path: str | None, fmt: str) -> int:
    """Print the shortest trace (JSON Lines) whose last event fires ROW, or a run that reaches a bound.

    ROW is a spec line or `STATE|EVENT|GUARDS` as written in the table
    (guards in any order, `-` for none; a state a `*` row covers names that
    row, fired in that state). The trace walks only steps that
    break no rule, so `gapstate replay` of it ends on that row. Exit 1 for a
    row no reachable configuration fires (saying why) and for an `invalid`
    row (the trace then ends on the refused event); 2 for no such row.

    With --bound NAME instead of ROW: a run that takes the most of that
    bound the table allows (the most sends one gap can take, ...); exit 1
    when the table sets it no bound (the run then goes once round a loop).
    """
    from gapstate.cli.render import to_json, trace_lines
    from gapstate.cli.render.seeing import bound_summary, witness_summary
    from gapstate.seeing.witness import locate
    from gapstate.seeing.witness import witness as find

    if (address is None) == (bound is None):
        raise click.UsageError("give a ROW or --bound NAME, not both and not neither")
    ways = _ways(spec_path)
    if bound is not None:
        reached = ways.bound(bound)
        document = reached.to_dict()
        if fmt == "json":
            say(to_json({"ok": reached.value is not None, "bound": bound, **document}))
        else:
            say("\n".join(trace_lines(document["trace"])))
        summarize(bound_summary(reached, ways.spec.path))
        return 0 if reached.value is not None else 1
    assert address is not None
    result = find(ways, *locate(ways.spec.table, address, ways.spec.path))
    if fmt == "json":
        say(to_json(result.to_dict()))
    elif result.trace is not None:
        say("\n".join(trace_lines(result.trace)))
    summarize(witness_summary(result, ways.spec.path))
    return 0 if result.ok else 1


@main.command()
@ROW
@SPEC
@FORMAT
@reports_errors
def explain(address: str, spec_path: str | None, fmt: str) -> int:
    """Explain ROW: when it fires, what it does, its rules, and a trace that fires it.

    ROW is a spec line or `STATE|EVENT|GUARDS`. Exit 0 for any row of the
    table (an unreachable one is explained too), 2 for no such row.
    """
    from gapstate.cli.render import to_json
    from gapstate.cli.render.seeing import explain_summary, explain_text
    from gapstate.seeing.explain import explain as tell
    from gapstate.seeing.witness import locate

    ways = _ways(spec_path)
    said = tell(ways, *locate(ways.spec.table, address, ways.spec.path))
    say(to_json(said.to_dict()) if fmt == "json" else explain_text(said))
    summarize(explain_summary(said))
    return 0


def _fired(spec: Any, paths: tuple[str, ...], jobs: int, label: str, split_by: str | None = None,
           keep_going: bool = False) -> Any:
    """Replay the trace files (folders: their *.jsonl) with a progress bar on a terminal."""
    from gapstate.seeing.coverage import coverage as run
    from gapstate.seeing.coverage import trace_files

    files = list(trace_files(paths))
    options: dict[str, Any] = {"split_by": split_by, "keep_going": keep_going}
    if sys.stderr.isatty() and len(files) > 1:
        with click.progressbar(length=len(files), label=label, file=sys.stderr) as bar:
            return run(spec, spec.text, files, jobs, progress=lambda: bar.update(1), **options)
    return run(spec, spec.text, files, jobs, **options)


@main.command()
@click.argument("traces", metavar="TRACE...", nargs=-1, required=True)
@SPEC
@FORMAT
@JOBS
@SPLIT_BY
@click.option("--require-all", is_flag=True, help="Exit 1 when some reachable row was never fired.")
@click.option("--keep-going", is_flag=True, help="List unusable traces (malformed, unreadable) and count the rest; exit 1.")
@reports_errors
def coverage(traces: tuple[str, ...], spec_path: str | None, fmt: str, jobs: int | None, split_by: str | None,
             require_all: bool, keep_going: bool) -> int:
    """Replay recorded traces and report how often each reachable row fired.

    TRACE is a JSON Lines trace file, or a folder (its *.jsonl files,
    recursively); with --split-by FIELD, each file is a log of many
    sessions told apart by FIELD. A trace that stops (an invalid event, a
    broken rule) counts the steps before the stop and is listed. Exit 0; 1
    when a trace stopped (it broke the table, as `replay` would say), with
    --require-all when some reachable row was never fired, or with
    --keep-going when some trace could not be used; 2 for a malformed trace
    (named, with its line; --keep-going lists it instead) or an unusable spec.
    """
    from gapstate.cli.render.seeing import coverage_lines, coverage_summary

    spec = spec_for(spec_path)
    spec.require_steppable()
    result = _fired(spec, traces, jobs or jobs_default(), "replaying", split_by, keep_going)
    code = 1 if result.stopped or result.unusable or (require_all and result.never) else 0
    # Every trace was read before this point (an unusable one has raised), so nothing is half-written;
    # the stopped traces are written as they are rendered, not joined first.
    if fmt == "json":
        say_json({"ok": code == 0, **result.to_dict()})
    else:
        say_lines(coverage_lines(result, {row.line: str(row) for row in spec.table.rows}))
    summarize(coverage_summary(result, spec.path))
    return code


@main.command()
@click.argument("traces", metavar="[TRACE]...", nargs=-1)
@SPEC
@format_option("mermaid", "dot", help="mermaid (what GitHub renders) or dot (Graphviz).")
@click.option("--all", "all_rows", is_flag=True, help="Also draw rows that stay (`=`) and `invalid` rows.")
@click.option(
    "--coverage",
    "covered",
    metavar="TRACE",
    multiple=True,
    help="Colour each edge by whether these traces (files or folders) fired its rows; "
    "further TRACE arguments count too.",
)
@click.option("--update", is_flag=True, help="Rewrite the spec's marked diagram block in place (added at the end if none).")
@JOBS
@reports_errors
def graph(
    traces: tuple[str, ...],
    spec_path: str | None,
    fmt: str,
    all_rows: bool,
    covered: tuple[str, ...],
    update: bool,
    jobs: int | None,
) -> int:
    """Draw the state diagram of the table, as Mermaid or Graphviz DOT.

    States are nodes (the initial one marked); one edge per (state, next
    state) labelled `event [guards] / actions`; allow-listed unreachable rows
    dashed. --update rewrites only the block after the line
    `<!-- gapstate:graph -->` in the spec, atomically; `gapstate check`
    reports that block as `stale_diagram` when it is out of date.
    """
    from gapstate.table.diagram import build, dot, mermaid
    from gapstate.words import plural

    if traces and not covered:
        raise click.UsageError("TRACE arguments go with --coverage")
    if update and (covered or all_rows or fmt != "mermaid"):
        raise click.UsageError("--update writes the plain Mermaid diagram: leave out --coverage, --all and --format dot")
    from gapstate.cli.config import resolve_spec_path

    choice = resolve_spec_path(spec_path) if update else choose_spec(spec_path)
    if update and (choice.bundled or choice.path == "-"):
        where = "standard input" if choice.path == "-" else "the spec bundled with gapstate"
        raise click.UsageError(f"--update rewrites a spec file in place, not {where}: name it with --spec PATH")
    spec, read = read_spec_bytes(choice)
    table = spec.require_steppable()
    if update:
        from gapstate.cli.redraw import diagram_words, update_diagram

        changed = update_diagram(spec.path, mermaid(build(table)), read)
        summarize(f"gapstate graph: {diagram_words(spec.path, changed)}")
        return 0
    fired = None
    if covered:
        result = _fired(spec, covered + traces, jobs or jobs_default(), "replaying")
        fired = {line for line, count in result.fired.items() if count}
    diagram = build(table, all_rows=all_rows, fired=fired)
    say(mermaid(diagram) if fmt == "mermaid" else dot(diagram), nl=False)
    summarize(f"gapstate graph: {spec.path}: {len(diagram.states)} states, {plural(len(diagram.arrows), 'arrow')}")
    return 0
