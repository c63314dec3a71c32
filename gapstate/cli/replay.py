"""`gapstate replay`: a trace through the interpreter, streamed step by step."""

from __future__ import annotations


import click

from gapstate.cli.base import (
    FORMAT,
    SPEC,
    main,
    reports_errors,
    spec_for,
)
from gapstate.cli.output import say


@main.command()
@click.argument("trace_path", metavar="TRACE")
@SPEC
@FORMAT
@click.option("--summary", is_flag=True, help="Print only the final configuration and any error.")
@reports_errors
def replay(trace_path: str, spec_path: str | None, fmt: str, summary: bool) -> int:
    """Replay a JSON Lines trace of events through the table.

    Exit 0 when every event replays, 1 on an invalid event, an event after
    session_end or a broken rule, 2 when the trace or spec cannot be used.
    """
    import tempfile

    from gapstate.cli.render.replay import replay_json, replay_step_line, replay_tail, step_json
    from gapstate.run.replayer import Step
    from gapstate.run.replayer import replay as run
    from gapstate.run.trace import read_trace
    from gapstate.spec.source import label

    spec = spec_for(spec_path)
    caps = spec.table.cap_limits() if spec.table else {}
    # Steps go to a spool (memory, then a temporary file past 8 MiB) as they
    # happen, and reach stdout only once the whole trace proved usable: a
    # million steps are never held in memory, and exit 2 prints no half.
    with tempfile.SpooledTemporaryFile(max_size=8 << 20, mode="w+", encoding="utf-8") as spool:
        if summary:
            writer = None
        elif fmt == "json":
            def writer(step: Step) -> None:
                spool.write((",\n" if spool.tell() else "") + step_json(step))
        else:
            def writer(step: Step) -> None:
                spool.write(replay_step_line(step, caps) + "\n")
        result = run(spec, read_trace(trace_path), keep_steps=False, on_step=writer)
        spool.seek(0)
        body = iter(lambda: spool.read(1 << 16), "")
        if fmt == "json":
            for chunk in replay_json(result, None if summary else body):
                say(chunk, nl=False)
            say("")
        else:
            for chunk in body:
                say(chunk, nl=False)
            say(replay_tail(result, caps, label(trace_path)))
    return 0 if result.ok else 1
