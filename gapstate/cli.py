"""The `gapstate` command: the only code that prints or exits.

Files are read by `source` (through `spec` and `trace`) as the core asks for
them; what goes to a terminal, and the exit status, are decided here alone.

Exit codes, on every command: 0 success or nothing found; 1 the input was
read and breaks the rules; 2 the input could not be used. Heavy modules are
imported inside each command, so `classify` never loads lark or networkx and
`replay` never loads networkx.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import click

from . import __version__
from .errors import GapstateError

def format_option(*choices: str, help: str) -> Callable[..., Any]:
    """`--format`, read into `fmt`; the first choice is the default."""
    return click.option(
        "--format", "fmt", type=click.Choice(list(choices)), default=choices[0], show_default=True, help=help
    )


FORMAT = format_option("text", "json", help="text for people, json (one document on stdout) for programs.")
SPEC = click.option(
    "--spec",
    "spec_path",
    metavar="PATH",
    default=None,
    help=(
        "The spec file (markdown with the table). Default: the `spec` setting of [tool.gapstate] "
        "in the nearest pyproject.toml above this folder, else the spec bundled with gapstate."
    ),
)

# Exit codes for a stop the user asked for, as a shell reports a process
# killed by SIGINT (128 + 2) or SIGPIPE (128 + 13); 1 would claim findings.
INTERRUPTED = 130
CLOSED_PIPE = 141


class UnusableInput(click.ClickException):
    """Input that cannot be used at all: exit 2, with text and JSON rendered by `render`.

    The one way a command signals exit 2 for its own reasons (click's usage
    errors, also exit 2, are click's). With --format json, stdout gets a
    document too, so a program reading it is never left with nothing.
    """

    exit_code = 2

    def __init__(self, error: GapstateError, fmt: str = "text", problems: tuple[Any, ...] | None = None):
        super().__init__(str(error))
        self.error = error
        self.fmt = fmt
        self.problems = problems  # classify's located problems, when there are several

    def show(self, file: Any = None) -> None:
        from .render import error_json, error_text

        click.echo(error_text(self.error, self.problems), err=True)
        if self.fmt == "json":
            click.echo(error_json(self.error, self.problems))
        elif self.fmt == "github":
            from .github import error_github

            click.echo(error_github(self.error))


class LateBar:
    """A progress bar on stderr that shows only once the work has taken a second.

    Called with (done, total) as the work goes; a quick command prints nothing.
    """

    def __init__(self, label: str, delay: float = 1.0):
        import time

        self._clock = time.monotonic
        self._start = self._clock() + delay
        self._label = label
        self._bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            if self._clock() < self._start:
                return
            self._bar = click.progressbar(length=max(total, 1), label=self._label, file=sys.stderr)
            self._bar.__enter__()
        self._bar.update(done - self._bar.pos)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


def reports_errors(command: Callable[..., None]) -> Callable[..., None]:
    """Turn the core's GapstateError into UnusableInput, in the format the command was asked for."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            command(*args, **kwargs)
        except GapstateError as error:
            # Problems that carry their own line (a trace's malformed lines) are shown one by one.
            located = tuple(p for p in error.problems if hasattr(p, "line")) or None
            raise UnusableInput(error, kwargs.get("fmt", "text"), located) from None

    return run


def read_spec(choice: Any) -> Any:
    """The spec at a path `resolve_spec_path` chose; GapstateError when it cannot be read."""
    return read_spec_bytes(choice)[0]


def read_spec_bytes(choice: Any) -> tuple[Any, bytes]:
    """The spec and the bytes it was parsed from, read once (standard input cannot be read twice)."""
    from .source import decode_text, label, read_bytes
    from .spec import parse_spec

    try:
        data = read_bytes(choice.path)
        return parse_spec(decode_text(data, label(choice.path)), label(choice.path)), data
    except GapstateError as error:
        if choice.setting is not None and error.line is None:
            error.message += f" (the spec setting of [tool.gapstate] in {choice.setting})"
        raise


def spec_for(spec_path: str | None) -> Any:
    """The spec a command with --spec means: that path, else the project's, else the bundled one.

    Every command that takes --spec reads its spec through here (see
    gapstate.config.resolve_spec_path); GapstateError when it cannot be read.
    """
    from .config import resolve_spec_path

    return read_spec(resolve_spec_path(spec_path))


class Gapstate(click.Group):
    """click's group, but Ctrl-C exits 130 and a closed stdout 141, both quietly.

    click would print "Aborted!" and exit 1 for both, and 1 means findings here.
    """

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click.ClickException as error:
            error.show()
            sys.exit(error.exit_code)
        except click.Abort:  # click's name for a Ctrl-C outside a command
            sys.exit(INTERRUPTED)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            try:
                return super().invoke(ctx)
            finally:
                sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        except BrokenPipeError:
            _silence_stdout()
            sys.exit(CLOSED_PIPE)
        except KeyboardInterrupt:
            sys.exit(INTERRUPTED)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush does not fail again (Python docs, signal)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (a test runner's capture)
        pass


@click.group(cls=Gapstate, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="gapstate")
def main() -> None:
    """Prove, replay and fuzz the gap-state table; test implementations of it; judge continuity reports."""


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
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings (2 still means unusable input).")
@reports_errors
def check(paths: tuple[str, ...], spec_path: str | None, fmt: str, exit_zero: bool) -> None:
    """Prove the table total, unambiguous and reachable, and check its rules.

    PATH (one or more) or --spec names the spec files; without either, the
    `spec` setting of [tool.gapstate] in the nearest pyproject.toml, else the
    bundled spec. Exit 0 when nothing is found, 1 with findings, 2 when a
    spec cannot be read (with several, the worst).
    """
    from .config import resolve_spec_path
    from .proof import check as prove
    from .render import check_text, error_detail, error_text, to_json

    def explored(spec: Any) -> Any:
        """The proof, with a progress bar on a terminal once exploring has taken a second."""
        bar = LateBar("exploring") if sys.stderr.isatty() else None
        try:
            return prove(spec, bar)
        finally:
            if bar is not None:
                bar.close()

    given = ([spec_path] if spec_path is not None else []) + list(paths)
    choices = [resolve_spec_path(path) for path in given or [None]]
    if len(choices) == 1 and fmt in ("text", "json"):
        result = explored(read_spec(choices[0]))
        click.echo(to_json(result.to_dict()) if fmt == "json" else check_text(result, bundled=choices[0].bundled))
        sys.exit(0 if result.ok or exit_zero else 1)
    # Several specs, or a CI format: each is checked and reported in turn; the
    # exit code is the worst, and JSON or SARIF is one document holding each spec's.
    checked: list[tuple[Any, Any]] = []  # (choice, its CheckResult or GapstateError), in order
    worst = 0
    for choice in choices:
        try:
            result = explored(read_spec(choice))
        except GapstateError as error:
            if len(choices) == 1 and fmt != "sarif":
                raise  # one spec: the usual report of unusable input, in the format asked for
            # SARIF is always a log, so code scanning reads one: the spec that could
            # not be read becomes a tool execution notification in it.
            click.echo(error_text(error), err=True)
            checked.append((choice, error))
            worst = 2
            continue
        checked.append((choice, result))
        worst = max(worst, 0 if result.ok or exit_zero else 1)
    outcomes = [outcome for _, outcome in checked]
    if fmt == "github":
        from .github import check_github

        annotations = check_github(outcomes)
        if annotations:
            click.echo(annotations)
    elif fmt == "sarif":
        from .findings import CATALOGUE
        from .sarif import check_sarif

        click.echo(to_json(check_sarif(outcomes, CATALOGUE, __version__)))
    elif fmt == "json":
        documents = [
            {"ok": False, "spec": choice.path, "error": error_detail(outcome)}
            if isinstance(outcome, GapstateError)
            else outcome.to_dict()
            for choice, outcome in checked
        ]
        click.echo(to_json({"ok": all(d["ok"] for d in documents), "specs": documents}))
    else:
        texts = [check_text(o, bundled=c.bundled) for c, o in checked if not isinstance(o, GapstateError)]
        if texts:
            click.echo("\n".join(texts))
    sys.exit(worst)


@main.command()
@click.argument("trace_path", metavar="TRACE")
@SPEC
@FORMAT
@click.option("--summary", is_flag=True, help="Print only the final configuration and any error.")
@reports_errors
def replay(trace_path: str, spec_path: str | None, fmt: str, summary: bool) -> None:
    """Replay a JSON Lines trace of events through the table.

    Exit 0 when every event replays, 1 on an invalid event, an event after
    session_end or a broken rule, 2 when the trace or spec cannot be used.
    """
    import tempfile

    from .render import replay_json, replay_step_line, replay_tail, step_json
    from .replayer import Step, replay as run
    from .source import label
    from .trace import read_trace

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
                click.echo(chunk, nl=False)
            click.echo("")
        else:
            for chunk in body:
                click.echo(chunk, nl=False)
            click.echo(replay_tail(result, caps, label(trace_path)))
    sys.exit(0 if result.ok else 1)


@main.command()
@click.argument("report_path", metavar="REPORT")
@FORMAT
@reports_errors
def classify(report_path: str, fmt: str) -> None:
    """Judge a continuity-experiment report (JSON) by the five attribution conditions.

    The result is descriptive: an attributable turn from one clip names a case
    to repeat, not a rate. Exit 0 whatever the verdict, 2 when the report
    cannot be used (every problem is listed, with its line and JSON path).
    """
    import json  # inside, like every command's imports: classify never loads lark or networkx

    from .classifier import classify as judge, problem_lines
    from .render import classify_text, to_json, unjudgeable
    from .source import label, read_text

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
    sys.exit(0)


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
@click.option("--examples", type=click.IntRange(min=1), default=None, help="How many traces each worker generates.  [default: 500]")
@click.option("--duration", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS", help="Run until the time is up instead of a number of traces.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, help="Processes, with seeds SEED, SEED+1, ...; all stop at the first failure.")
@click.option("--seed", type=int, default=None, help="Seed for a reproducible run (default: a random one, printed).")
@click.option("--max-events", default=60, show_default=True, type=click.IntRange(min=1), help="Longest generated trace.")
@click.option("--require-coverage", is_flag=True, help="Also fail unless the traces fired every reachable row.")
@click.option("--save", "save_path", metavar="PATH", default=None, help="Write the shrunk trace to PATH (JSON Lines, for `gapstate replay`).")
@reports_errors
def fuzz(
    spec_path: str | None,
    fmt: str,
    examples: int | None,
    duration: float | None,
    workers: int,
    seed: int | None,
    max_events: int,
    require_coverage: bool,
    save_path: str | None,
) -> None:
    """Replay generated traces that walk the table; shrink the first one that fails.

    A trace fails when a step breaks a rule or an event the table does not
    mark invalid matches no row. Exit 1 then (the shrunk trace is printed as
    JSON Lines, ready for `gapstate replay`), or with --require-coverage when
    some reachable row was never fired; 2 when the spec or an option cannot
    be used. Failing traces are kept in .hypothesis/ and replayed first next time.
    """
    import random
    from pathlib import Path  # here, not at the top: classify starts without it

    from .fuzzer import campaign
    from .render import fuzz_text, to_json, trace_lines

    if examples is not None and duration is not None:
        raise GapstateError("use --examples or --duration, not both")
    if save_path is not None:
        if not save_path or Path(save_path).is_dir() or not Path(save_path).resolve().parent.is_dir():
            raise GapstateError("cannot save there: not a file in an existing folder", file=save_path or "''")
    spec = spec_for(spec_path)
    spec.require_steppable()
    if examples is None and duration is None:
        examples = 500
    seed = random.SystemRandom().randrange(2**32) if seed is None else seed
    store = Path(os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY", ".hypothesis")) / "examples"
    options = dict(require_coverage=require_coverage, duration=duration, database_dir=store)
    if sys.stderr.isatty():
        length = examples * workers if examples is not None else int(duration * 10)
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
    if save_path is not None and found is not None:
        from .source import write_atomically

        write_atomically(save_path, "".join(line + "\n" for line in trace_lines(found.trace)).encode("utf-8"))
        saved = save_path
    if fmt == "json":
        click.echo(to_json({**result.to_dict(), "saved": saved}))
    elif fmt == "jsonl":
        if found is not None:
            click.echo("\n".join(trace_lines(found.trace)))
        click.echo(fuzz_text(result, saved, with_trace=False), err=True)
    elif fmt == "github":
        from .github import fuzz_github

        annotations = fuzz_github(result)
        if annotations:
            click.echo(annotations)
    else:
        click.echo(fuzz_text(result, saved))
    sys.exit(0 if result.ok else 1)


ROW = click.argument("address", metavar="ROW")


def _ways(spec_path: str | None) -> Any:
    from .witness import Ways

    return Ways(spec_for(spec_path))  # Ways steps the spec: GapstateError when it cannot


@main.command()
@ROW
@SPEC
@FORMAT
@reports_errors
def witness(address: str, spec_path: str | None, fmt: str) -> None:
    """Print the shortest trace (JSON Lines) whose last event fires ROW.

    ROW is a spec line or `STATE|EVENT|GUARDS` as written in the table
    (guards in any order, `-` for none; a state a `*` row covers names that
    row, fired in that state). The trace walks only steps that
    break no rule, so `gapstate replay` of it ends on that row. Exit 1 for a
    row no reachable configuration fires (saying why) and for an `invalid`
    row (the trace then ends on the refused event); 2 for no such row.
    """
    from .render import to_json, trace_lines, witness_note
    from .witness import locate, witness as find

    ways = _ways(spec_path)
    result = find(ways, *locate(ways.spec.table, address, ways.spec.path))
    if fmt == "json":
        click.echo(to_json(result.to_dict()))
    elif result.trace is not None:
        click.echo("\n".join(trace_lines(result.trace)))
    note = witness_note(result)
    if note is not None:
        click.echo(f"gapstate witness: {note}", err=True)
    sys.exit(0 if result.ok else 1)


@main.command()
@ROW
@SPEC
@FORMAT
@reports_errors
def explain(address: str, spec_path: str | None, fmt: str) -> None:
    """Explain ROW: when it fires, what it does, its rules, and a trace that fires it.

    ROW is a spec line or `STATE|EVENT|GUARDS`. Exit 0 for any row of the
    table (an unreachable one is explained too), 2 for no such row.
    """
    from .explain import explain as tell
    from .render import explain_text, to_json
    from .witness import locate

    ways = _ways(spec_path)
    said = tell(ways, *locate(ways.spec.table, address, ways.spec.path))
    click.echo(to_json(said.to_dict()) if fmt == "json" else explain_text(said))


def _jobs_default() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _fired(spec: Any, paths: tuple[str, ...], jobs: int, label: str) -> Any:
    """Replay the trace files (folders: their *.jsonl) with a progress bar on a terminal."""
    from .coverage import coverage as run, trace_files

    files = list(trace_files(paths))
    if sys.stderr.isatty() and len(files) > 1:
        with click.progressbar(length=len(files), label=label, file=sys.stderr) as bar:
            return run(spec, spec.text, files, jobs, progress=lambda: bar.update(1))
    return run(spec, spec.text, files, jobs)


JOBS = click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes replaying traces (default: every core).",
)


@main.command()
@click.argument("traces", metavar="TRACE...", nargs=-1, required=True)
@SPEC
@FORMAT
@JOBS
@click.option("--require-all", is_flag=True, help="Exit 1 when some reachable row was never fired.")
@reports_errors
def coverage(traces: tuple[str, ...], spec_path: str | None, fmt: str, jobs: int | None, require_all: bool) -> None:
    """Replay recorded traces and report how often each reachable row fired.

    TRACE is a JSON Lines trace file, or a folder (its *.jsonl files,
    recursively). A trace that stops (an invalid event, a broken rule)
    counts the steps before the stop and is listed. Exit 0; 1 when a trace
    stopped (it broke the table, as `replay` would say), or with
    --require-all when some reachable row was never fired; 2 for a
    malformed trace (named, with its line) or an unusable spec.
    """
    from .render import coverage_text, to_json

    spec = spec_for(spec_path)
    spec.require_steppable()
    result = _fired(spec, traces, jobs or _jobs_default(), "replaying")
    if fmt == "json":
        click.echo(to_json(result.to_dict()))
    else:
        click.echo(coverage_text(result, {row.line: str(row) for row in spec.table.rows}))
    sys.exit(1 if result.stopped or (require_all and result.never) else 0)


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
) -> None:
    """Draw the state diagram of the table, as Mermaid or Graphviz DOT.

    States are nodes (the initial one marked); one edge per (state, next
    state) labelled `event [guards] / actions`; allow-listed unreachable rows
    dashed. --update rewrites only the block after the line
    `<!-- gapstate:graph -->` in the spec, atomically; `gapstate check`
    reports that block as `stale_diagram` when it is out of date.
    """
    from .diagram import build, dot, mermaid

    if traces and not covered:
        raise click.UsageError("TRACE arguments go with --coverage")
    if update and (covered or all_rows or fmt != "mermaid"):
        raise click.UsageError("--update writes the plain Mermaid diagram: leave out --coverage, --all and --format dot")
    from .config import resolve_spec_path

    choice = resolve_spec_path(spec_path)
    if update and (choice.bundled or choice.path == "-"):
        where = "standard input" if choice.path == "-" else "the spec bundled with gapstate"
        raise click.UsageError(f"--update rewrites a spec file in place, not {where}: name it with --spec PATH")
    spec = read_spec(choice)
    table = spec.require_steppable()
    if update:
        _update_diagram(spec.path, mermaid(build(table)))
        return
    fired = None
    if covered:
        result = _fired(spec, covered + traces, jobs or _jobs_default(), "replaying")
        fired = {line for line, count in result.fired.items() if count}
    diagram = build(table, all_rows=all_rows, fired=fired)
    click.echo(mermaid(diagram) if fmt == "mermaid" else dot(diagram), nl=False)


def _update_diagram(path: str, drawn: str) -> None:
    """Rewrite the marked block of the spec at `path`, keeping every other byte (a BOM included)."""
    import codecs

    from .diagram import UnclosedBlock, update
    from .source import open_binary, write_atomically

    with open_binary(path) as handle:
        data = handle.read()
    bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
    text = data[len(bom) :].decode("utf-8")  # load_spec already read it as UTF-8
    try:
        new = update(text, drawn)
    except UnclosedBlock as error:
        raise GapstateError(str(error), file=path, line=error.line) from None
    if new == text:
        click.echo(f"gapstate graph: {path}: the diagram is current", err=True)
        return
    write_atomically(path, bom + new.encode("utf-8"))
    click.echo(f"gapstate graph: {path}: diagram updated", err=True)


@main.command()
@click.argument("outdir", metavar="OUTDIR")
@SPEC
@click.option("--force", is_flag=True, help="Replace OUTDIR when it exists and is not empty.")
@reports_errors
def vectors(outdir: str, spec_path: str | None, force: bool) -> None:
    """Write a conformance suite into OUTDIR: traces, their expected replay documents, a manifest.

    The traces fire every reachable row and refuse every invalid one and an
    event after session_end. Exit 0 when written; 1 (nothing written) when
    some reachable row fires only by breaking a rule; 2 when the spec cannot
    be stepped, or OUTDIR exists and is not empty (without --force).
    """
    import hashlib

    from .config import resolve_spec_path
    from .render import replay_json, to_json, trace_lines
    from .source import write_folder
    from .vectors import MANIFEST, build

    spec, data = read_spec_bytes(resolve_spec_path(spec_path))
    suite = build(spec)
    if suite.unfired:
        # Vectors walk only steps that break no rule, as an implementation of a
        # sound table would; a suite that silently skipped rows would overclaim.
        lines = ", ".join(map(str, suite.unfired))
        click.echo(
            f"gapstate vectors: {spec.path}: rows at lines {lines} fire only on steps that break a rule "
            "(see `gapstate check`); fix the table first. Nothing written.",
            err=True,
        )
        sys.exit(1)
    digest = hashlib.sha256(data).hexdigest()  # the very bytes the table was parsed from
    files: dict[str, str] = {}
    for vector in suite.vectors:
        files[f"{vector.name}.jsonl"] = "".join(line + "\n" for line in trace_lines(vector.trace))
        files[f"{vector.name}.expected.json"] = "".join(replay_json(vector.result)) + "\n"  # as `replay --format json` prints it
    files[MANIFEST] = to_json(suite.manifest(digest, __version__)) + "\n"
    write_folder(outdir, files, force)
    events = sum(len(vector.trace) for vector in suite.vectors)
    click.echo(
        f"gapstate vectors: {outdir}: {len(suite.vectors)} traces, {events} events: "
        f"{len(suite.reachable)} reachable rows fired, {len(suite.refusable)} invalid rows refused"
    )


@main.command(context_settings={"allow_interspersed_args": False})
@SPEC
@FORMAT
@click.option("--vectors", "vectors_dir", metavar="DIR", default=None, help="A folder written by `gapstate vectors` (default: the built-in suite).")
@click.option("--examples", default=200, show_default=True, type=click.IntRange(min=0), help="How many traces to generate after the vectors.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed for the generated traces.")
@click.option("--timeout", default=5.0, show_default=True, type=click.FloatRange(min=0, min_open=True), help="Seconds to wait for each answer.")
@click.argument("command", nargs=-1, required=True, metavar="-- COMMAND [ARG...]")
@reports_errors
def conform(spec_path: str | None, fmt: str, vectors_dir: str | None, examples: int, seed: int, timeout: float, command: tuple[str, ...]) -> None:
    """Drive an implementation over the line protocol and compare every answer with the table.

    COMMAND is started once; docs/conformance.md is the protocol. Exit 0 when
    it conforms, 1 on a divergence (shrunk, printed), 2 when it cannot be
    tested (cannot start, leaves the protocol, exits early, no answer within
    --timeout) or the spec or vectors cannot be used.
    """
    from .conformance import conform as run
    from .protocol import Child
    from .render import conform_text, to_json
    from .vectors import builtin, load as load_vectors

    spec = spec_for(spec_path)
    spec.require_steppable()
    suite = load_vectors(vectors_dir) if vectors_dir is not None else builtin(spec)
    _exit_on_sigterm()
    with Child(command, timeout) as child:  # ends the child (its process group) whatever happens
        if sys.stderr.isatty():
            with click.progressbar(length=len(suite) + examples, label="conform", file=sys.stderr) as bar:
                result = run(spec, child, suite, examples, seed, progress=lambda: bar.update(1))
        else:
            result = run(spec, child, suite, examples, seed)
    click.echo(to_json(result.to_dict()) if fmt == "json" else conform_text(result))
    sys.exit(0 if result.ok else 1)


@main.command()
@click.argument("paths", nargs=-1, metavar="OLD NEW | --git REV PATH")
@click.option("--git", "revision", metavar="REV", default=None, help="Compare PATH as it was at git revision REV with PATH in the working tree.")
@FORMAT
@reports_errors
def diff(paths: tuple[str, ...], revision: str | None, fmt: str) -> None:
    """Show what a change to the table does to behaviour, per (state, event, guard valuation).

    Also caps, names, the allow-list and rows whose reachability changed.
    Reordering, reformatting and splitting a row into rows with the same
    outcome is no change. Exit 0 when nothing changed, 1 when something did,
    2 when either table cannot be used (the message names the file).
    """
    from .diff import diff as compare
    from .render import diff_text, to_json
    from .source import read_revision
    from .spec import load_spec, parse_spec

    wanted = 1 if revision is not None else 2
    if len(paths) != wanted:
        usage = "--git REV PATH takes one PATH" if revision is not None else "diff takes OLD and NEW (or --git REV PATH)"
        raise click.UsageError(f"{usage}; got {len(paths)} path{'s' if len(paths) != 1 else ''}")
    if revision is not None:
        name, text = read_revision(revision, paths[0])
        old, new = parse_spec(text, name), load_spec(paths[0])
    else:
        old, new = load_spec(paths[0]), load_spec(paths[1])
    result = compare(old, new)
    click.echo(to_json(result.to_dict()) if fmt == "json" else diff_text(result))
    sys.exit(0 if result.same else 1)


def _exit_on_sigterm() -> None:
    """Turn SIGTERM (a CI job cancelled, `kill`) into an exit that unwinds, so `with` blocks end children.

    Python's default for SIGTERM is to die on the spot, which would leave the
    implementation under test running. 143 is what a shell reports for it.
    """
    import signal

    def stop(signum: int, frame: Any) -> None:
        signal.signal(signum, signal.SIG_IGN)  # a second one must not cut the cleanup short
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)


def entry() -> None:
    """The console script: `main`, minus tracebacks for a closed pipe or Ctrl-C, and minus the teardown.

    The Gapstate group already ends a command whose output meets a closed
    pipe (141) or a Ctrl-C (130), quietly; what reaches here is what happens
    outside it, such as an error report meeting a pipe already closed
    (`gapstate replay x --format json | true`).

    Once the command has answered, the process ends with `os._exit` after
    flushing the standard streams and running the `atexit` hooks: tearing
    down the modules (networkx alone has hundreds) and freeing every object
    would cost more than some commands' own work, for memory the system
    reclaims anyway. Every file gapstate writes is closed before then.
    """
    try:
        main(prog_name="gapstate")
        code: Any = 0
    except SystemExit as done:
        code = done.code
    except BrokenPipeError:
        _silence_stdout()
        code = CLOSED_PIPE
    except KeyboardInterrupt:
        code = INTERRUPTED
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):
            # The reader went away with output still buffered: it cannot be delivered.
            _silence_stdout()
            code = CLOSED_PIPE
    import atexit

    atexit._run_exitfuncs()
    os._exit(code or 0)


if __name__ == "__main__":  # pragma: no cover
    entry()
