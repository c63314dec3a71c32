"""`gapstate replay`: a trace through the interpreter, streamed step by step."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import click

from gapstate.cli.base import (
    FORMAT,
    SPEC,
    main,
    reports_errors,
    spec_for,
)
from gapstate.cli.output import Gathered, say, summarize
from gapstate.table.vocabulary import EVENTS, PAYLOADS


def event_help(width: int = 76) -> str:
    """The events a trace may hold and what each means, from the vocabulary: a paragraph of --help.

    It starts with click's no-rewrap marker; each meaning is wrapped here,
    under its own column, so the list reads as a table in 80 columns (click
    indents it by two).
    """
    import textwrap

    column = max(map(len, EVENTS)) + 4
    lines = [f"The {len(EVENTS)} events (docs/replay.md lists them too):"]
    for name, event in EVENTS.items():
        payload = PAYLOADS.get(name)
        words = event.meaning + (f"; needs '{payload.field}' ({payload.says})" if payload else "")
        lines.extend(
            textwrap.wrap(words, width, initial_indent=f"  {name:<{column - 2}}", subsequent_indent=" " * column)
        )
    return "\b\n" + "\n".join(lines)


_REPLAY_HELP = """Replay a JSON Lines trace of events through the table.

Exit 0 when every event replays, 1 on an invalid event, an event after
session_end or a broken rule, 2 when the trace or spec cannot be used.
"""


@main.command(help=_REPLAY_HELP + "\n" + event_help())
@click.argument("trace_path", metavar="TRACE")
@SPEC
@FORMAT
@click.option("--summary", is_flag=True, help="Print only the final configuration and any error.")
@reports_errors
def replay(trace_path: str, spec_path: str | None, fmt: str, summary: bool) -> int:
    """Replay a trace: streamed step by step, each printed as it happens (the help is `_REPLAY_HELP`)."""
    import os

    from gapstate.cli.render.replay import replay_step_line, replay_tail, step_json
    from gapstate.files.source import STDIN, label
    from gapstate.run.replayer import replay as run
    from gapstate.run.trace import read_trace

    spec = spec_for(spec_path)
    caps = spec.table.cap_limits() if spec.table else {}
    if summary:
        return _finish(run(spec, read_trace(trace_path), keep_steps=False), fmt, caps, (spec.path, label(trace_path)))
    render = step_json if fmt == "json" else (lambda step: replay_step_line(step, caps))
    if trace_path == STDIN or not os.path.isfile(trace_path):
        return _spooled(spec, trace_path, fmt, caps, render)
    # A regular file is read twice: first whole with nothing printed, so
    # unusable input (exit 2) prints no half, and for JSON replayed, so its
    # "ok" is known up front (text needs only the reading: its verdict comes
    # last); then replayed again, each step printed as it happens, so
    # `| head` gets its lines at once and a million steps are never held.
    out = Gathered(",\n" if fmt == "json" else "\n")
    if fmt == "json":
        from gapstate.cli.render.replay import replay_json_ends

        result = run(spec, read_trace(trace_path), keep_steps=False)
        head, tail = replay_json_ends(result)
        say(head, nl=False)
        run(spec, read_trace(trace_path), keep_steps=False, on_step=lambda step: out.add(render(step)))
        out.close()
        say(tail)
    else:
        for _ in read_trace(trace_path):  # a malformed line raises here, before any is printed
            pass
        result = run(spec, read_trace(trace_path), keep_steps=False, on_step=lambda step: out.add(render(step)))
        out.close()
        if out.written:
            say("")
        say(replay_tail(result, caps, label(trace_path)))
    return _summarized(result, (spec.path, label(trace_path)))


def _spooled(spec: Any, trace_path: str, fmt: str, caps: dict[str, int], render: Callable[[Any], str]) -> int:
    """Standard input or a pipe cannot be read twice: the steps are held until the trace proved usable.

    They go to a spool (memory, then a temporary file past 8 MiB), and reach
    stdout only after the whole trace was read: exit 2 still prints no half.
    """
    import tempfile

    from gapstate.files.source import label
    from gapstate.run.replayer import replay as run
    from gapstate.run.trace import read_trace

    with tempfile.SpooledTemporaryFile(max_size=8 << 20, mode="w+", encoding="utf-8") as spool:
        separator = ",\n" if fmt == "json" else "\n"

        def writer(step: Any) -> None:
            spool.write((separator if spool.tell() else "") + render(step))

        result = run(spec, read_trace(trace_path), keep_steps=False, on_step=writer)
        if fmt != "json" and spool.tell():
            spool.write("\n")
        spool.seek(0)
        return _finish(result, fmt, caps, (spec.path, label(trace_path)), iter(lambda: spool.read(1 << 16), ""))


def _finish(result: Any, fmt: str, caps: dict[str, int], names: tuple[str, str], body: Iterable[str] | None = None) -> int:
    """Print the steps (`body`, if any) and what follows them; the exit code. `names`: the spec's and the trace's."""
    from gapstate.cli.render.replay import replay_json, replay_tail

    if fmt == "json":
        for chunk in replay_json(result, body):
            say(chunk, nl=False)
        say("")
    else:
        for chunk in body or ():
            say(chunk, nl=False)
        say(replay_tail(result, caps, names[1]))
    return _summarized(result, names)


def _summarized(result: Any, names: tuple[str, str]) -> int:
    """Hand over the summary line, naming the spec and the trace; the exit code."""
    from gapstate.cli.render.replay import replay_summary

    summarize(replay_summary(result, *names))
    return 0 if result.ok else 1
