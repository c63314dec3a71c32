"""`gapstate fuzz`: generated traces that walk the table."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import click

from gapstate.cli.base import (
    SPEC,
    Seconds,
    main,
    reports_errors,
    save_target,
    spec_for,
)
from gapstate.cli.output import say, summarize
from gapstate.errors import GapstateError

EXAMPLES = 500  # traces a worker generates when neither --examples nor --duration is given


@main.command()
@SPEC
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "jsonl", "github"]),
    default="text",
    show_default=True,
    help="text for people; json, one document; jsonl, only the shrunk trace on stdout (the report goes to stderr); "
    "github, workflow commands: an annotation at the row that failed.",
)
@click.option("--examples", type=click.IntRange(min=1), default=None, help=f"How many traces each worker generates.  [default: {EXAMPLES}]")
@click.option("--duration", type=Seconds(), default=None, help="Run until the time is up instead of a number of traces.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, help="Processes, with seeds SEED, SEED+1, ...; all stop at the first failure.")
@click.option("--workers", type=click.IntRange(min=1), default=None, hidden=True)  # the old name of --jobs
@click.option("--seed", type=int, default=None, help="Seed for a reproducible run (default: a random one, printed).")
@click.option("--max-events", default=60, show_default=True, type=click.IntRange(min=1), help="Longest generated trace.")
@click.option("--require-all", is_flag=True, help="Also fail unless the traces fired every reachable row.")
@click.option("--require-coverage", is_flag=True, hidden=True)  # the old name of --require-all
@click.option("--save", "save_path", metavar="PATH", default=None, help="Write the shrunk trace to PATH (JSON Lines, for `gapstate replay`).")
@reports_errors
def fuzz(
    spec_path: str | None,
    fmt: str,
    examples: int | None,
    duration: float | None,
    jobs: int,
    workers: int | None,
    seed: int | None,
    max_events: int,
    require_all: bool,
    require_coverage: bool,
    save_path: str | None,
) -> int:
    """Replay generated traces that walk the table; shrink the first one that fails.

    A trace fails when a step breaks a rule or an event the table does not
    mark invalid matches no row. Exit 1 then (the shrunk trace is printed as
    JSON Lines, ready for `gapstate replay`), or with --require-all when
    some reachable row was never fired; 2 when the spec or an option cannot
    be used. Failing traces are kept in .hypothesis/ and replayed first next time.
    """
    import random
    from pathlib import Path  # here, not at the top: classify starts without it

    from gapstate.cli.render import to_json, trace_lines
    from gapstate.cli.render.fuzz import fuzz_summary, fuzz_text
    from gapstate.fuzzing.campaign import campaign

    if examples is not None and duration is not None:
        raise GapstateError("use --examples or --duration, not both")
    save_target(save_path)
    workers = jobs if workers is None else workers
    require_coverage = require_all or require_coverage
    spec = spec_for(spec_path)
    spec.require_steppable()
    if examples is None and duration is None:
        examples = EXAMPLES
    seed = random.SystemRandom().randrange(2**32) if seed is None else seed
    store = Path(os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY", ".hypothesis")) / "examples"
    options: dict[str, Any] = dict(require_coverage=require_coverage, duration=duration, database_dir=store)
    if sys.stderr.isatty():
        length = examples * workers if examples is not None else int((duration or 0) * 10)  # one of the two is given
        label = "fuzzing" if examples is not None else f"fuzzing for {duration:g} s"
        with click.progressbar(length=length, label=label, file=sys.stderr, show_pos=examples is not None) as bar:
            started = time.monotonic()

            def show(done: int) -> None:
                bar.update((done if examples is not None else int((time.monotonic() - started) * 10)) - bar.pos)

            result = campaign(spec, workers, examples, seed, max_events, progress=show, **options)
    else:
        result = campaign(spec, workers, examples, seed, max_events, **options)
    found = result.counterexample
    saved = None
    unsaved = None  # why the trace could not be saved: it is still printed, then the run exits 2
    if save_path is not None and found is not None:
        from gapstate.files.writer import write_atomically

        try:
            write_atomically(save_path, "".join(line + "\n" for line in trace_lines(found.trace)).encode("utf-8"), follow_links=False)
            saved = save_path
        except GapstateError as error:
            unsaved = error
    if fmt == "json":
        say(to_json({**result.to_dict(), "saved": saved}))
    elif fmt == "jsonl":
        if found is not None:
            say("\n".join(trace_lines(found.trace)))
        say(fuzz_text(result, saved, with_trace=False), err=True)
    elif fmt == "github":
        from gapstate.cli.render.github import fuzz_github

        annotations = fuzz_github(result)
        if annotations:
            say(annotations)
    else:
        say(fuzz_text(result, saved))
    summarize(fuzz_summary(result))
    if unsaved is not None:  # after the counterexample, which is not lost; the summary line still comes last
        from gapstate.cli.render.errors import error_text

        say(error_text(unsaved), err=True)
        return 2
    return 0 if result.ok else 1
