"""`gapstate mutate`: every one-row mistake of the table through the proof, and the survivors against a baseline."""

from __future__ import annotations

import sys

import click

from gapstate.cli.base import (
    FORMAT,
    SPEC,
    LateBar,
    choose_spec,
    jobs_default,
    main,
    read_spec,
    reports_errors,
    save_target,
)
from gapstate.cli.output import say, say_json, summarize
from gapstate.proof.mutation import KINDS


@main.command()
@click.argument("path", required=False, metavar="[SPEC]")
@SPEC
@click.option("--baseline", metavar="FILE", default=None, help=(
    "Accept the survivors this file lists, one mutant a line as --save-baseline writes them (`#` starts a "
    "comment): exit 1 only for a survivor outside it."))
@click.option("--save-baseline", "save", metavar="FILE", default=None,
              help="Write this run's survivors to FILE, as --baseline reads them (whole or not at all).")
@click.option("--line", "lines", type=click.IntRange(min=1), multiple=True, metavar="N",
              help="Only the mutants of the row at line N of the spec (repeat for more rows).")
@click.option("--kind", "kinds", type=click.Choice(KINDS), multiple=True, help="Only the mutants of this kind (repeat for more).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes judging mutants (default, and at most: every core).")
@FORMAT
@reports_errors
def mutate(path: str | None, spec_path: str | None, baseline: str | None, save: str | None, lines: tuple[int, ...],
           kinds: tuple[str, ...], jobs: int | None, fmt: str) -> int:
    """Make every one-row mistake in the table and see which of them `check` catches.

    A mutant is the table with one row deleted or duplicated, one guard
    negated or dropped, the next state changed or one action replaced. It
    changes behaviour when some reachable configuration steps differently,
    and is killed when `check` reports a finding on it (a stale diagram
    aside). Prints how many mutants each check kills and kills alone, the
    checks that kill none, and each survivor (it changes behaviour and
    passes) with the shortest trace on which it steps differently from the
    table. SPEC or --spec names the spec; the table must pass `check`.
    Exit 0 when every survivor is listed in --baseline, 1 when one is not
    (without a baseline: when any survives), 2 when the spec or the
    baseline cannot be used.
    """
    from gapstate.cli.render.mutate import mutate_summary, mutate_text
    from gapstate.files.source import label, read_text
    from gapstate.proof.mutation import baseline_text, read_baseline
    from gapstate.proof.mutation import mutate as run

    if path is not None and spec_path is not None:
        raise click.UsageError("name the spec once: SPEC or --spec PATH")
    save_target(save)
    accepted = None
    if baseline is not None:
        accepted = read_baseline(read_text(baseline), label(baseline))
    choice = choose_spec(path if path is not None else spec_path, "mutates", "pass its path, `gapstate mutate spec/gap-state.md`")
    spec = read_spec(choice)
    bar = LateBar("mutants") if sys.stderr.isatty() else None
    try:
        cores = jobs_default()  # a worker more than the cores gains nothing, and each holds the table's exploration
        result = run(spec, min(jobs or cores, cores), accepted, lines or None, kinds or None, bar)
    finally:
        if bar is not None:
            bar.close()
    if save is not None:
        from gapstate.files.writer import write_atomically

        write_atomically(save, baseline_text(result.survivors, accepted, result.kept()).encode(), follow_links=False)
    if fmt == "json":
        say_json(result.to_dict())
    else:
        say(mutate_text(result))
    summarize(mutate_summary(result))
    return 0 if result.ok else 1
