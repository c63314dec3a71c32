"""Helpers shared by the tests: the bundled spec, defective variants, finding assertions."""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import gapstate
from gapstate.cli import main
from gapstate.table.diagram import marked_blocks
from gapstate.table.load import parse_spec

ROOT = Path(__file__).resolve().parent.parent
SPEC_PATH = ROOT / "spec" / "gap-state.md"
SPEC_TEXT = SPEC_PATH.read_text(encoding="utf-8")
HEADER = "# state | event | guards | next | actions"
# The bundled table's three rows allowed to be unreachable (a release or retry with both attempts spent).
ALLOWED = (
    "OPEN | floor_released | !busy,budget_left,!attempts_left | CLEAR | unrepaired_attempts",
    "DUE | floor_released | !busy,budget_left,!attempts_left | CLEAR | unrepaired_attempts",
    "DUE | busy_end | budget_left,!attempts_left | CLEAR | unrepaired_attempts",
)


def line_of(text: str, fragment: str) -> int:
    """The 1-based line of the only line containing `fragment`."""
    hits = [n for n, line in enumerate(text.splitlines(), start=1) if fragment in line]
    assert len(hits) == 1, f"{fragment!r} is on lines {hits}"
    return hits[0]


def without_diagram(text: str) -> str:
    """The text minus its marked diagram block (marker, fences and all), which comes after the table.

    A changed table makes the bundled spec's diagram stale; tests that change
    the table and name every finding they expect drop it, so that only
    tests/test_table_diagram.py and tests/test_cli_seeing.py deal in `stale_diagram`.
    """
    lines = text.splitlines(keepends=True)
    for block in reversed(marked_blocks([line.rstrip("\r\n") for line in lines])):
        end = block.closing if block.closing is not None else block.marker
        del lines[block.marker : end + 1]
    return "".join(lines)


def variant(old: str, new: str, text: str = SPEC_TEXT) -> str:
    """The bundled spec with one exact line replaced (or removed, when `new` is empty), minus its diagram."""
    lines = without_diagram(text).splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if line.rstrip("\n") == old]
    assert len(hits) == 1, f"{old!r} is not exactly one line of the spec"
    lines[hits[0]] = new + "\n" if new else ""
    return "".join(lines)


def table(*lines: str, caps: bool = True) -> str:
    """A minimal spec whose block holds the header, the bundled spec's caps and `lines`."""
    head = [HEADER] + (["@cap session_requests 3", "@cap episode_attempts 2"] if caps else [])
    return "Some prose.\n\n```\n" + "\n".join(head + list(lines)) + "\n```\n"


def check_text(text: str):
    return gapstate.check(parse_spec(text, "spec.md"))


def labels(text: str) -> list[str]:
    return sorted(f"{f.kind}@{f.line}" for f in check_text(text).findings)


def assert_findings(text: str, *expected: str) -> None:
    """The spec's findings are exactly `expected`, each written `kind@line`."""
    assert labels(text) == sorted(expected)


def unwrapped(text: str) -> list[str]:
    """`text`'s lines with the lines wrapped to the width of text output joined again: a line that starts
    with four spaces more than the first line of its item continues it (gapstate.words.wrap), unless it
    is an event of a trace (a whole `{...}`: a wrapped JSON value can go on with a piece of one) or a
    quoted spec line (`  12 | ...`)."""
    out: list[str] = []
    for line in text.splitlines():
        lead = len(line) - len(line.lstrip(" "))
        own = _event(line.lstrip()) or line.lstrip().startswith("| ") or _QUOTED_LINE.match(line.lstrip()) is not None
        if out and not own and lead >= 4 and line.startswith(" " * (len(out[-1][1]) + 4)):
            out[-1] = (out[-1][0] + " " + line.strip(), out[-1][1])
        else:
            out.append((line, line[:lead]))
    return [line for line, _ in out]


_QUOTED_LINE = re.compile(r"\d+ \|")  # `174 | @unreachable ...`, the gutter of a quoted spec line


def _event(line: str) -> bool:
    if not line.startswith("{"):
        return False
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def write_trace(tmp_path: Path, *lines: str) -> Path:
    """A JSON Lines trace file of `lines`."""
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(*args: str) -> Result:
    """`gapstate ARGS`, in process."""
    return CliRunner().invoke(main, list(args))


REPORT_EXAMPLE = ROOT / "spec" / "classify-example.json"


def write_report(tmp_path: Path, document: Any, name: str = "report.json") -> str:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document, indent=2), encoding="utf-8")
    return str(path)


def in_root(*args: str, cwd: Path = ROOT) -> Result:
    """`gapstate ARGS`, in process, run in `cwd` (the project root: paths as CI passes them)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        return run(*args)


DATA = ROOT / "tests" / "data"
DEFECTIVE = "tests/data/defective.md"  # relative, as CI passes it: annotations need the path from the checkout


def golden(name: str, actual: str) -> str:
    """The golden file tests/data/NAME; GAPSTATE_GOLDEN=write rewrites it with `actual` first."""
    path = DATA / name
    if os.environ.get("GAPSTATE_GOLDEN") == "write":
        path.write_text(actual, encoding="utf-8")
    return path.read_text(encoding="utf-8")


def replay(path: Path | str, *args: str) -> Result:
    """`gapstate replay PATH ARGS`, in process."""
    return run("replay", str(path), *args)


ROOM_LOOP = ROOT / "examples" / "room_loop.py"


def room_loop_module():
    """examples/room_loop.py, imported as a module (it is a script, not part of the package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("room_loop", ROOM_LOOP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def git(cwd, *args: str) -> None:
    """Run git in `cwd` as a throwaway identity (tests that build a repository)."""
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def slow_but(values, *fast) -> list:
    """`values` for parametrize: those in `fast` run in every `pytest`, the rest only under `pytest -m slow`.

    For exhaustive parametrizations: a representative case keeps the fast suite
    honest and `pytest -m slow` (which CI runs) still tries every one.
    """
    missing = [value for value in fast if value not in values]
    assert not missing, f"{missing} are not among the values"
    return [value if value in fast else pytest.param(value, marks=pytest.mark.slow) for value in values]


PACKAGE = Path(gapstate.__file__).parent


@functools.cache
def package_nodes() -> tuple[tuple[str, tuple[ast.AST, ...]], ...]:
    """Every module of the package (its path below the package, `/`-separated) with every node of its tree,
    parsed and walked once for the tests that look through the code."""
    return tuple(
        (path.relative_to(PACKAGE).as_posix(), tuple(ast.walk(ast.parse(path.read_text(encoding="utf-8")))))
        for path in sorted(PACKAGE.rglob("*.py"))
    )


def classify_repeats(reports: Sequence[tuple[str, Any]]) -> Any:
    """What `gapstate classify` does with several decoded reports, without their text: each validated, each
    checked to repeat the first one's experiment (GapstateError naming the report), then judged and counted."""
    from gapstate.attribution.repeats import differences, judge_repeats
    from gapstate.attribution.validation import unjudgeable, validate

    models = [(name, validate(report, name)) for name, report in reports]
    first_name, first = models[0]
    for name, model in models[1:]:
        found = differences(first, model, first_name)
        if found:
            raise unjudgeable(found, name)
    return judge_repeats(models)
