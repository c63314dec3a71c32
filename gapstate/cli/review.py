"""Reviewing a change: `gapstate diff`, and with --traces, what it does to the sessions recorded."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import click

from gapstate.cli.base import (
    JOBS,
    SPLIT_BY,
    format_option,
    jobs_default,
    main,
    reports_errors,
)
from gapstate.cli.output import say, say_json, say_lines, summarize


@main.command()
@click.argument("paths", nargs=-1, metavar="OLD NEW | --git REV [PATH]")
@click.option("--git", "revision", metavar="REV", default=None, help=(
    "Compare PATH as it was at git revision REV (a commit, tag, HEAD~1...) with PATH in the working tree; "
    "A..B compares it at A with it at B, A...B from the merge base of A and B, as git diff does. "
    "Without PATH, the `spec` setting of [tool.gapstate]."
))
@click.option(
    "--traces",
    metavar="TRACE",
    multiple=True,
    help="Replay these recorded traces (files, or folders of *.jsonl) under both tables and report the sessions "
    "that behave differently; further arguments after OLD NEW (or PATH) count too.",
)
@SPLIT_BY
@JOBS
@format_option("text", "json", "github", help="text for people (and PR comments), json for programs, "
               "github for annotations on the changed rows of the new table.")
@reports_errors
def diff(paths: tuple[str, ...], revision: str | None, traces: tuple[str, ...], split_by: str | None,
         jobs: int | None, fmt: str) -> int:
    """Show what a change to the table does to behaviour, per (state, event, guard valuation).

    Also caps, names, the allow-list and rows whose reachability changed.
    Reordering, reformatting and splitting a row into rows with the same
    outcome is no change. With --traces, every recorded session is replayed
    under both tables: which behave differently, grouped by the first
    differing step, and which changes no session reaches. Exit 0 when
    nothing changed, 1 when the tables or some session differ, 2 when a
    table or a trace cannot be used (the message names the file).
    """
    from pathlib import Path

    from gapstate.cli.render.review import diff_lines, diff_summary
    from gapstate.files.source import read_revision, split_range
    from gapstate.review.diff import diff as compare
    from gapstate.table.load import load_spec, parse_spec

    wanted = 1 if revision is not None else 2
    if revision is not None and not paths:
        from gapstate.cli.config import resolve_spec_path

        configured = resolve_spec_path(None)
        if configured.bundled:
            raise click.UsageError("--git REV without PATH compares the `spec` setting (gapstate.toml or [tool.gapstate]), and none is set here: name PATH")
        paths = (configured.path,)
    if len(paths) < wanted or (len(paths) > wanted and not traces):
        usage = "--git REV PATH takes one PATH" if revision is not None else "diff takes OLD and NEW (or --git REV PATH)"
        raise click.UsageError(f"{usage}; got {len(paths)} path{'s' if len(paths) != 1 else ''}")
    if split_by is not None and not traces:
        raise click.UsageError("--split-by says how to read the traces of --traces")
    traces += paths[wanted:]
    if revision is not None:
        before, after = split_range(revision)
        old = parse_spec(*reversed(read_revision(before, paths[0], tree=after is None)))
        new = load_spec(Path(paths[0])) if after is None else parse_spec(*reversed(read_revision(after, paths[0])))
    else:
        old, new = load_spec(Path(paths[0])), load_spec(Path(paths[1]))  # a Path: a name with a newline is still a name
    result = compare(old, new)
    if traces:
        result = dataclasses.replace(result, traces=_sessions(old, new, result.changes, traces, jobs or jobs_default(), split_by))
    # Every session was replayed before this point (an unusable trace has raised), so nothing is
    # half-written; the affected sessions, one per recorded session at most, are written as encoded.
    if fmt == "json":
        say_json(result.to_dict())
        if result.traces is not None and result.traces.differing > len(result.traces.affected):
            say(f"gapstate diff: note: {result.traces.differing} sessions behave differently; affected_traces lists "
                f"the first {len(result.traces.affected)}, and each group counts them all", err=True)
    elif fmt == "github":
        from gapstate.cli.render.github import diff_github

        shown = diff_github(result)
        if shown:
            say(shown)
    elif result.changes or result.traces is not None:  # no change: nothing on stdout but the summary on stderr
        say_lines(diff_lines(result))
    summarize(diff_summary(result))
    return 1 if result.differs else 0


def _sessions(old: Any, new: Any, changes: Any, paths: tuple[str, ...], jobs: int, split_by: str | None) -> Any:
    """Every recorded session under both tables, with a progress bar on a terminal."""
    from gapstate.review.sessions import replay_sessions
    from gapstate.seeing.coverage import trace_files

    files = list(trace_files(paths))
    if sys.stderr.isatty() and len(files) > 1:
        with click.progressbar(length=len(files), label="replaying", file=sys.stderr) as bar:
            return replay_sessions(old, new, changes, files, jobs, split_by, progress=lambda: bar.update(1))
    return replay_sessions(old, new, changes, files, jobs, split_by)
