"""Testing an implementation: `vectors` and `conform`."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from gapstate.cli.base import (
    FORMAT,
    SPEC,
    Seconds,
    Terminated,
    choose_spec,
    main,
    read_spec_bytes,
    reports_errors,
    save_target,
    spec_for,
)
from gapstate.cli.output import say, summarize
from gapstate.errors import GapstateError
from gapstate.version import __version__
from gapstate.words import fit

MOST_TIMEOUT = 86_400  # seconds an answer may be waited for: a day, far past any adapter's need


@main.command()
@click.argument("outdir", metavar="OUTDIR")
@SPEC
@click.option("--force", is_flag=True, help="Replace OUTDIR when it exists and is not empty.")
@reports_errors
def vectors(outdir: str, spec_path: str | None, force: bool) -> int:
    """Write a conformance suite into OUTDIR: traces, their expected replay documents, a manifest.

    The traces fire every reachable row and refuse every invalid one and an
    event after session_end. Exit 0 when written; 1 (nothing written) when
    some reachable row fires only by breaking a rule; 2 when the spec cannot
    be stepped, or OUTDIR exists and is not empty (without --force).
    """
    import hashlib

    from gapstate.cli.render import to_json, trace_lines
    from gapstate.cli.render.replay import replay_json
    from gapstate.conformance.suite_folder import MANIFEST, is_suite
    from gapstate.conformance.vectors import build
    from gapstate.files.writer import write_folder

    spec, data = read_spec_bytes(choose_spec(spec_path))
    suite = build(spec)
    if suite.unfired:
        # Vectors walk only steps that break no rule, as an implementation of a
        # sound table would; a suite that silently skipped rows would overclaim.
        lines = ", ".join(map(str, suite.unfired))
        say(fit(f"rows at lines {lines} fire only on steps that break a rule (see `gapstate check`); "
                "fix the table first"), err=True)
        summarize(f"gapstate vectors: {spec.path}: nothing written")
        return 1
    digest = hashlib.sha256(data).hexdigest()  # the very bytes the table was parsed from
    files: dict[str, str] = {}
    for vector in suite.vectors:
        files[f"{vector.name}.jsonl"] = "".join(line + "\n" for line in trace_lines(vector.trace))
        files[f"{vector.name}.expected.json"] = "".join(replay_json(vector.result)) + "\n"  # as `replay --format json` prints it
    files[MANIFEST] = to_json(suite.manifest(digest, __version__, outdir)) + "\n"
    write_folder(outdir, files, force, is_suite)
    events = sum(len(vector.trace) for vector in suite.vectors)
    say(fit(f"covered: {len(suite.reachable)} reachable rows fired, {len(suite.pairs)} of {len(suite.possible_pairs)} "
            f"pairs of rows, {len(suite.goals) - len(suite.unmet)} of {len(suite.goals)} goals, "
            f"{len(suite.refusable)} invalid rows refused"), err=True)  # on its own line: the summary has to fit 100 columns
    summarize(f"gapstate vectors: {spec.path} -> {outdir}: {len(suite.vectors)} traces, {events} events written")
    return 0


@main.command(context_settings={"allow_interspersed_args": False})
@SPEC
@FORMAT
@click.option("--vectors", "vectors_dir", metavar="DIR", default=None, help="A folder written by `gapstate vectors` (default: the built-in suite).")
@click.option("--replay", "replay_path", metavar="PATH", default=None, help="Run only this trace (one saved by --save), and no generated traces.")
@click.option("--examples", default=200, show_default=True, type=click.IntRange(min=0), help="At most how many traces to generate once every vector agrees.")
@click.option("--duration", default=5.0, show_default=True, type=Seconds(zero=True), help="At most how many seconds to generate traces for (0: no limit).")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed for the generated traces.")
@click.option("--timeout", default=5.0, show_default=True, type=Seconds(most=MOST_TIMEOUT),
              help=f"Seconds to wait for each answer (at most {MOST_TIMEOUT:,}, a day).")
@click.option("--save", "save_path", metavar="PATH", default=None, help="Write the shrunk diverging trace to PATH (JSON Lines, for `replay` and `conform --replay`).")
@click.argument("command", nargs=-1, required=True, metavar="-- COMMAND [ARG...]")
@reports_errors
def conform(spec_path: str | None, fmt: str, vectors_dir: str | None, replay_path: str | None, examples: int,
            duration: float, seed: int, timeout: float, save_path: str | None, command: tuple[str, ...]) -> int:
    """Drive an implementation over the line protocol and compare every answer with the table.

    COMMAND is started once; docs/conformance.md is the protocol. Exit 0 when
    it conforms, 1 on a divergence (shrunk, explained, printed), 2 when it
    cannot be tested (cannot start, leaves the protocol, exits early, no
    answer within --timeout) or the spec, vectors or trace cannot be used.
    """
    from gapstate.cli.render import to_json, trace_lines
    from gapstate.conformance.conform import conform as run
    from gapstate.conformance.protocol import Child
    from gapstate.conformance.report import conform_summary, conform_text
    from gapstate.conformance.suite_folder import load as load_vectors
    from gapstate.conformance.suite_folder import load_trace
    from gapstate.conformance.vectors import builtin

    if vectors_dir is not None and replay_path is not None:
        raise GapstateError("use --vectors or --replay, not both")
    save_target(save_path)
    spec = spec_for(spec_path)
    spec.require_steppable()
    if replay_path is not None:
        suite, examples = [(replay_path, load_trace(replay_path))], 0
    else:
        suite = load_vectors(vectors_dir) if vectors_dir is not None else builtin(spec)
    limit = duration or None
    with _exit_on_sigterm(), Child(command, timeout) as child:  # ends the child (its process group) whatever happens
        if sys.stderr.isatty():
            with click.progressbar(length=len(suite) + examples, label="conform", file=sys.stderr) as bar:
                result = run(spec, child, suite, examples, seed, progress=lambda: bar.update(1), duration=limit)
        else:
            result = run(spec, child, suite, examples, seed, duration=limit)
    saved = None
    if save_path is not None and result.divergence is not None:
        from gapstate.files.writer import write_atomically

        trace = "".join(line + "\n" for line in trace_lines(result.divergence.trace))
        write_atomically(save_path, trace.encode("utf-8"), follow_links=False)
        saved = save_path
    report = to_json({**result.to_dict(), "saved": saved}) if fmt == "json" else conform_text(result, saved)
    if report:
        say(report)
    summarize(conform_summary(result))
    return 0 if result.ok else 1


@contextmanager
def _exit_on_sigterm() -> Iterator[None]:
    """While the implementation runs, SIGTERM (a CI job cancelled, `kill`) is an exit that unwinds, so `with` blocks end children.

    Python's default for SIGTERM is to die on the spot, which would leave the
    implementation under test running. 143 is what a shell reports for it.
    The handler before is put back after: a program or test runner that called
    conform in its own process keeps its own (and the worker processes it
    forks later do not inherit ours).
    """
    import signal

    def stop(signum: int, frame: Any) -> None:
        signal.signal(signum, signal.SIG_IGN)  # a second one must not cut the cleanup short
        raise Terminated(signum)

    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
