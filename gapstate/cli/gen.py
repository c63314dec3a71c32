"""`gapstate gen`: write a decider that is the table (a Rust crate, a Python module), and prove one is (`--verify`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from gapstate.cli.base import (
    FORMAT,
    SPEC,
    Documented,
    main,
    read_spec_bytes,
    reports_errors,
)
from gapstate.cli.generated import read_stamp, unsound_result, write_generated
from gapstate.cli.output import say, summarize
from gapstate.errors import GapstateError
from gapstate.words import plural

VERIFY_TIMEOUT = 120.0  # seconds the decider may take to answer every case
BUILD_TIMEOUT = 600.0  # seconds cargo may take to build the crate


class GenGroup(click.Group):
    """`gen` and its two targets; `gen --verify PATH` runs without one. Help names docs/gen.md."""

    command_class = Documented

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from gapstate import pages

        self.epilog = self.epilog or pages.epilog("gen")
        super().format_epilog(ctx, formatter)


@main.group(cls=GenGroup, invoke_without_command=True)
@click.option("--verify", "verify_path", metavar="PATH", default=None,
              help="Prove the decider at PATH (a generated crate folder or Python module) is the table: exit 0 "
              "when it answers as the table on every reachable configuration, event and payload valuation, 1 "
              "with the first difference as a trace.")
@SPEC
@FORMAT
@click.pass_context
@reports_errors
def gen(ctx: click.Context, verify_path: str | None, spec_path: str | None, fmt: str) -> int | None:
    """Generate a decider that is the table, or prove a generated one still is (--verify).

    `gapstate gen python OUTFILE` writes one standard-library module;
    `gapstate gen rust OUTDIR` a Cargo crate with no dependencies. Both carry
    the spec's path and sha256, and run as `gapstate conform` adapters. A
    table that does not check clean is refused (exit 1, its findings shown).
    """
    if ctx.invoked_subcommand is not None:
        if verify_path is not None:
            raise GapstateError("use --verify PATH alone, or a target (python, rust), not both")
        return None
    if verify_path is None:
        say(ctx.get_help())
        return 2
    return _verify(verify_path, spec_path, fmt)


def _target_command(target: str) -> Any:
    @gen.command(name=target, cls=Documented, epilog=None)
    @click.argument("out", metavar="OUTFILE" if target == "python" else "OUTDIR")
    @SPEC
    @click.pass_context
    @reports_errors
    def write(ctx: click.Context, out: str, spec_path: str | None) -> int:
        spec_path = spec_path if spec_path is not None else ctx.parent.params.get("spec_path") if ctx.parent else None
        return generate_target(target, out, spec_path)

    write.__doc__ = (
        "Write the table as one Python module (standard library only) to OUTFILE."
        if target == "python"
        else "Write the table as a Cargo crate (standard library only) into OUTDIR."
    ) + "\n\n    See `gapstate gen --help` and docs/gen.md."
    write.help = write.__doc__
    from gapstate import pages

    write.epilog = pages.epilog("gen")
    return write


def generate_target(target: str, out: str, spec_path: str | None) -> int:
    """Check the spec, then write `target` at `out`; 1 (nothing written) when the table does not check clean."""
    from gapstate.cli.base import choose_spec

    choice = choose_spec(spec_path, "generates from")
    spec, data = read_spec_bytes(choice)
    unsound = unsound_result(spec)
    if unsound is not None:
        from gapstate.cli.render.check import check_text

        say(check_text(unsound))
        summarize(f"gapstate gen: {spec.path}: the table does not check clean "
                  f"({plural(len(unsound.findings), 'finding')}); no {target} decider written")
        return 1
    rows = write_generated(target, out, spec, data, choice.path, choice.bundled, spec_path)
    import hashlib

    summarize(f"gapstate gen: {spec.path} -> {out}: {target} decider, {rows} rows "
              f"(spec sha256 {hashlib.sha256(data).hexdigest()[:12]})")
    return 0


for _name in ("python", "rust"):
    _target_command(_name)


# --verify ------------------------------------------------------------------------


def _verify(path: str, spec_path: str | None, fmt: str) -> int:
    import time

    from gapstate.cli.base import choose_spec
    from gapstate.cli.render import to_json, trace_lines
    from gapstate.gen import verify
    from gapstate.gen.targets import CRATE_STAMP, PYTHON, RUST, target_of
    from gapstate.words import escape, fit

    started = time.perf_counter()
    place = Path(path)
    if not place.exists():
        raise GapstateError("no such file or folder", file=path)
    target = target_of(path, place.is_dir())
    stamped = read_stamp(place / CRATE_STAMP if target == RUST else place)
    if stamped is None:
        raise GapstateError(f"not a decider gapstate generated (no stamp in {CRATE_STAMP if target == RUST else 'its header'})", file=path)
    spec, data = read_spec_bytes(choose_spec(spec_path, "verifies against"))
    spec.require_steppable("verified against")
    import hashlib

    if stamped.sha256 != hashlib.sha256(data).hexdigest():
        say(f"gapstate: note: {escape(path)} was generated from another version of the spec than {escape(spec.path)}", err=True)
    if target == PYTHON:
        command = [sys.executable, str(place)]
    else:
        built = _build(place)
        if isinstance(built, str):
            say(f"{escape(path)}: the crate does not build:\n{escape_block(built)}")
            summarize(f"gapstate gen: {spec.path}: {path} does not compile, so it is not the table")
            return 1
        command = built
    planned, configurations = verify.cases(spec)
    output, stopped = verify.run(command, verify.messages(planned), VERIFY_TIMEOUT)
    verdict = verify.compare(planned, output, configurations, stopped)
    took = time.perf_counter() - started
    if fmt == "json":
        say(to_json({**verdict.to_dict(), "decider": path, "target": target, "spec": spec.path}))
    elif verdict.disagreement is not None:
        found = verdict.disagreement
        say(f"disagrees at event {len(found.trace)} of this trace (for `gapstate replay`):")
        say("\n".join(trace_lines(found.trace)))
        say(fit(f"  differs:  {', '.join(found.fields)}\n  expected: {escape(verify_shown(found.expected))}\n"
                f"  actual:   {escape(verify_shown(found.actual))}"))  # wrapped; whole in --format json
    if verdict.ok:
        # the configurations and what a case is go on a line of their own: the summary fits 100 columns
        say(fit(f"compared: {configurations} configurations, {verdict.cases} cases (configuration, event, "
                "payload valuation)"), err=True)
        summarize(f"gapstate gen: {spec.path}: {path} agrees with the table: {verdict.answers} answers in {took:.1f} s")
        return 0
    summarize(f"gapstate gen: {spec.path}: {path} disagrees with the table after {verdict.answers} agreeing answers")
    return 1


def verify_shown(value: Any) -> str:
    from gapstate.conformance.answers import shown

    return shown(value) if len(str(value)) < 400 else str(value)[:400]


def escape_block(text: str) -> str:
    from gapstate.words import escape_lines

    lines = text.strip().splitlines()
    return escape_lines("\n".join("  " + line for line in lines[:40]))


def _build(crate: Path) -> list[str] | str:
    """Build the crate's binary (`cargo build --release --offline`): the command to run it, or cargo's errors."""
    import shutil
    import subprocess
    import tomllib

    cargo = shutil.which("cargo")
    if cargo is None:
        raise GapstateError("cargo is not on the PATH: the crate cannot be built to verify it", file=str(crate))
    from gapstate.files.source import read_text

    try:
        name = tomllib.loads(read_text(crate / "Cargo.toml"))["package"]["name"]  # a regular file only, as all input
    except (GapstateError, OSError, ValueError, KeyError, TypeError):
        raise GapstateError("no usable Cargo.toml with a [package] name", file=str(crate)) from None
    try:
        done = subprocess.run([cargo, "build", "--release", "--offline", "--quiet"], cwd=crate,
                              capture_output=True, timeout=BUILD_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise GapstateError(f"cargo build did not finish within {BUILD_TIMEOUT:g} s", file=str(crate)) from None
    if done.returncode != 0:
        return done.stderr.decode("utf-8", "replace")
    return [str(crate / "target" / "release" / str(name))]
