"""What every command shares: its options, its one error path, reading the spec, the group.

Exit codes, on every command: 0 success or nothing found; 1 the input was
read and breaks the rules; 2 the input could not be used. Heavy modules are
imported inside each command, so `classify` never loads lark or networkx and
`replay` never loads networkx.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any

import click

from gapstate.cli.output import say, say_summary
from gapstate.collector import started
from gapstate.errors import GapstateError
from gapstate.version import __version__


def format_option(*choices: str, help: str) -> Callable[..., Any]:
    """`--format`, read into `fmt`; the first choice is the default."""
    return click.option(
        "--format", "fmt", type=click.Choice(list(choices)), default=choices[0], show_default=True, help=help
    )


FORMAT = format_option("text", "json", help="text for people, json (one document on stdout) for programs.")
_REQUIRED = "gapstate.require_spec"  # click's context meta: --require-spec was given


def _spec_options() -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--spec PATH` (read into `spec_path`) and `--require-spec` (kept for `choose_spec`), on every command that reads a spec."""
    spec = click.option(
        "--spec",
        "spec_path",
        metavar="PATH",
        default=None,
        help=(
            "The spec file (markdown with the table). Default: the `spec` setting of the nearest "
            "gapstate.toml, .gapstate.toml or pyproject.toml [tool.gapstate] above this folder, "
            "else the example bundled with gapstate (said on stderr)."
        ),
    )

    def remember(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
        # given to a group (`gen --require-spec python ...`), its subcommand's default does not undo it
        ctx.meta[_REQUIRED] = value or ctx.meta.get(_REQUIRED, False)
        return value

    require = click.option(
        "--require-spec",
        is_flag=True,
        expose_value=False,
        callback=remember,
        help="Exit 2 rather than read the bundled example when no spec is given and none is configured "
        "(for CI and hooks: a step that reads nothing of yours must not pass).",
    )
    return lambda command: spec(require(command))


SPEC = _spec_options()

# Exit codes for a stop the user asked for, as a shell reports a process
# killed by SIGINT (128 + 2) or SIGPIPE (128 + 13); 1 would claim findings.
INTERRUPTED = 130
CLOSED_PIPE = 141


class Terminated(BaseException):
    """A signal that ends the command (SIGTERM): raised in its handler to unwind, exit 128 + signum."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.code = 128 + signum


class UnusableInput(click.ClickException):
    """Input that cannot be used at all: exit 2, with text and JSON rendered by `render`.

    The one way a command signals exit 2 for its own reasons (click's usage
    errors, also exit 2, are click's). With --format json, stdout gets a
    document too, so a program reading it is never left with nothing.
    """

    exit_code = 2

    def __init__(self, error: GapstateError, fmt: str = "text"):
        super().__init__(str(error))
        self.error = error.record
        self.fmt = fmt

    def show(self, file: Any = None) -> None:
        from gapstate.cli.render.errors import error_json, error_text

        say(error_text(self.error), err=True)
        if self.fmt == "json":
            say(error_json(self.error))
        elif self.fmt == "github":
            from gapstate.cli.render.github import error_github

            say(error_github(self.error))


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


OUT_OF_MEMORY = (
    "ran out of memory: the input needs more than this machine has (for `check`, lower the caps "
    "or --max-configurations N, which stops before exploring what would not fit)"
)


def reports_errors(command: Callable[..., int | None]) -> Callable[..., int | None]:
    """Turn the core's GapstateError into UnusableInput, in the format the command was asked for.

    Running out of memory is unusable input too (exit 2 with a message, never
    a traceback and exit 1, which would read as findings): whatever held the
    memory is let go with the frames of the failed call before the message is built.
    """

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> int | None:
        fmt = kwargs.get("fmt", "text")
        try:
            return command(*args, **kwargs)
        except GapstateError as error:
            raise UnusableInput(error, fmt) from None
        except MemoryError:
            pass
        raise UnusableInput(GapstateError(OUT_OF_MEMORY), fmt) from None

    return run


def read_spec(choice: Any) -> Any:
    """The spec at a path `resolve_spec_path` chose; GapstateError when it cannot be read."""
    return read_spec_bytes(choice)[0]


def read_spec_bytes(choice: Any) -> tuple[Any, bytes]:
    """The spec and the bytes it was parsed from, read once (standard input cannot be read twice)."""
    from gapstate.files.source import decode_text, label, read_bytes
    from gapstate.table.load import BUNDLED_NAME, parse_spec

    try:
        data = read_bytes(choice.path)
        name = BUNDLED_NAME if choice.bundled else label(choice.path)  # not a path deep in site-packages
        return parse_spec(decode_text(data, name), name), data
    except GapstateError as error:
        if choice.setting is not None and error.line is None:
            raise error.noted(f" (the spec setting of {choice.setting})") from None
        raise


def save_target(path: str | None) -> None:
    """Refuse a --save PATH that cannot be written before any work is done: it must name a file in an existing folder."""
    from pathlib import Path

    if path is None:
        return
    from gapstate.files.writer import writable

    if not path:
        raise GapstateError("cannot save there: an empty path names no file", file="''")
    target = Path(path)
    if not target.is_symlink():  # a link, dangling or not, is refused by `writable`, as a link
        if target.is_dir():
            raise GapstateError("cannot save there: it is a folder, not a file", file=path)
        if not target.absolute().parent.is_dir():
            raise GapstateError("cannot save there: no folder holds that path", file=path)
    writable(path, follow_links=False)  # refused now, not after the run


def spec_for(spec_path: str | None) -> Any:
    """The spec a command with --spec means, read: `choose_spec`, then `read_spec`; GapstateError when it cannot be read."""
    return read_spec(choose_spec(spec_path))


def choose_spec(spec_path: str | None, verb: str = "reads", hint: str = "name it with --spec PATH") -> Any:
    """The spec a command with --spec means: that path, else the configured one, else the bundled one, said.

    Every command that takes --spec decides through here (see
    gapstate.cli.config.resolve_spec_path). Falling back to the bundled
    example is never silent: a warning on stderr, in every format, and a note
    for each file of the repository that holds a gap-state table no setting
    names, with the line to add; with --require-spec, GapstateError instead.
    """
    from gapstate.cli.config import resolve_spec_path

    choice = resolve_spec_path(spec_path)
    if choice.bundled:
        fallback(verb, hint)
    return choice


def fallback(verb: str, hint: str) -> None:
    """Say that the command falls back to the bundled example, or refuse to with --require-spec."""
    from gapstate.cli.config import unconfigured_tables

    if click.get_current_context().meta.get(_REQUIRED):  # meta is shared by the group's and the command's contexts
        raise GapstateError(f"{NO_SPEC} ({hint}); --require-spec refuses to read the bundled example instead")
    # Warnings, not the summary line (which follows, last): worded as errors are, `gapstate: warning: ...`.
    # Wrapped to the width of text output, each line after the first indented (so grep finds the first).
    from gapstate.words import fit

    say(fit(f"gapstate: warning: {NO_SPEC}, so this {verb} the example bundled with gapstate, not your spec "
            f"({hint}, or configure it: {CONFIGURE})"), err=True)
    for note in unconfigured_tables():
        say(fit(f"gapstate: note: {note}"), err=True)


NO_SPEC = "no spec given and none configured"
CONFIGURE = '`gapstate init`, or spec = "PATH" in gapstate.toml or under [tool.gapstate] in pyproject.toml'


class Documented(click.Command):
    """A command whose --help ends by naming its reference page, as installed (gapstate.pages)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from gapstate import pages

        self.epilog = self.epilog or pages.epilog(self.name)
        super().format_epilog(ctx, formatter)


# Each command and the module of this package that defines it, imported only when the command
# runs (or --help lists it): a process that replays loads no other command's module.
COMMANDS = {
    "check": "check",
    "classify": "classify",
    "fuzz": "fuzz",
    "replay": "replay",
    "diff": "review",
    "witness": "seeing",
    "explain": "seeing",
    "graph": "seeing",
    "coverage": "seeing",
    "vectors": "testing",
    "conform": "testing",
    "init": "init",
    "gen": "gen",
    "mutate": "mutate",
}


class Gapstate(click.Group):
    """click's group, but Ctrl-C exits 130 and a closed stdout 141, both quietly.

    click would print "Aborted!" and exit 1 for both, and 1 means findings here.
    Its commands are `Documented`: their help names their reference page.
    A command's module is imported when the command is looked up (`COMMANDS`).
    """

    command_class = Documented

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in COMMANDS:
            import importlib

            importlib.import_module(f"gapstate.cli.{COMMANDS[name]}")  # registers it with the group
        return super().get_command(ctx, name)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        found = super().resolve_command(ctx, args)
        started()  # the command's modules are imported: it runs with the collector as the process had it
        return found

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from gapstate import pages

        self.epilog = self.epilog or pages.epilog(None)
        super().format_epilog(ctx, formatter)

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        """Run the command and exit with the code it returned: the one place gapstate exits."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click.ClickException as error:
            if isinstance(error, UnusableInput):
                error.show()
            else:
                _show_usage_error(error)
            code = error.exit_code
        except click.Abort:  # click's name for a Ctrl-C outside a command
            code = INTERRUPTED
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; once it has answered, its summary line goes last on stderr (`summarize`)."""
        try:
            try:
                code = super().invoke(ctx)
            finally:
                sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        except BrokenPipeError:
            _silence_stdout()
            return CLOSED_PIPE
        except KeyboardInterrupt:
            return INTERRUPTED
        except Terminated as signal:
            return signal.code
        say_summary(ctx)
        return code


def _show_usage_error(error: click.ClickException) -> None:
    """click's usage error on stderr, its message escaped onto one line (`Error: ...`).

    The message quotes the arguments as given (`Got unexpected extra
    argument (b\n::error::x)`), and an argument may come from anyone: escaped
    whole, line feeds too, no piece of it can start a line of its own, a
    GitHub workflow command among them. The usage and hint lines above it are
    click's, from the command's own names.
    """
    import io

    from gapstate.words import escape

    shown = io.StringIO()
    error.show(file=shown)
    usage, said, message = shown.getvalue().partition("Error: ")
    if not said:  # a message shown some other way: one line, whole
        usage, message = "", usage
    say(usage + said + escape(message.removesuffix("\n")), err=True)


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


def jobs_default() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


JOBS = click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes replaying traces (default: every core).",
)


class Seconds(click.ParamType):
    """A time in seconds, as an option takes it: a finite number above 0 (or 0 itself, with `zero`), at most `most`.

    click's FloatRange lets `nan`, `inf` and `1e309` (read as inf) through, and
    a deadline made of them is a traceback (select refuses NaN and a time
    too large); here each is a usage error, exit 2, naming the option.
    """

    name = "seconds"  # shown in --help as SECONDS

    def __init__(self, most: float | None = None, zero: bool = False):
        self.most = most
        self.zero = zero

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        import math

        try:
            seconds = float(value)
        except (TypeError, ValueError, OverflowError):
            seconds = math.nan  # not a number at all: said as nan is
        wanted = f"give a finite number of seconds, {'0 or more' if self.zero else 'more than 0'}"
        if not math.isfinite(seconds) or seconds < 0 or (seconds == 0 and not self.zero):
            self.fail(f"{value!r}: {wanted}" + (f", at most {self.most:,g}" if self.most is not None else ""), param, ctx)
        if self.most is not None and seconds > self.most:
            self.fail(f"{value!r} is more than {self.most:,g} seconds, the most it may be", param, ctx)
        return seconds


def _split_field(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from gapstate.run.recorded import field_problem  # here, not at import: `classify` loads no msgspec

    problem = field_problem(value)
    if problem is not None:
        raise click.BadParameter(problem)
    return value


SPLIT_BY = click.option(
    "--split-by",
    "split_by",
    metavar="FIELD",
    default=None,
    callback=_split_field,
    help="Each file is a log of many sessions, interleaved, each line naming its session in FIELD "
    "(a string or integer); sessions are named PATH#VALUE.",
)
