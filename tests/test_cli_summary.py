"""Every command's text ends with its summary line, `gapstate COMMAND: ...`, as the last line it prints.

The summary goes where the report goes: last on stdout for a report, and
last on stderr where stdout is data for another program (a witness's trace,
a diagram, `fuzz --format jsonl`'s trace).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gapstate.cli import main

from .support import REPORT_EXAMPLE, ROOM_LOOP, SPEC_PATH

SPEC = str(SPEC_PATH)
TRACE = '{"event": "loss_voiced", "t": 100, "id": "iv-1"}\n{"event": "floor_released", "t": 300}\n'


def _commands(folder: Path) -> dict[str, tuple[list[str], str]]:
    """Each command, as a user runs it in text format, and the stream its summary ends."""
    trace = folder / "trace.jsonl"
    return {
        "check": (["check", SPEC], "stdout"),
        "replay": (["replay", str(trace), "--spec", SPEC], "stdout"),
        "classify": (["classify", str(REPORT_EXAMPLE)], "stdout"),
        "fuzz": (["fuzz", "--spec", SPEC, "--examples", "5", "--seed", "1"], "stdout"),
        "fuzz-jsonl": (["fuzz", "--spec", SPEC, "--examples", "5", "--seed", "1", "--format", "jsonl"], "stderr"),
        "witness": (["witness", "195", "--spec", SPEC], "stderr"),
        "witness-unreachable": (["witness", "198", "--spec", SPEC], "stderr"),
        "explain": (["explain", "195", "--spec", SPEC], "stdout"),
        "coverage": (["coverage", str(trace), "--spec", SPEC], "stdout"),
        "graph": (["graph", "--spec", SPEC], "stderr"),
        "vectors": (["vectors", str(folder / "vectors"), "--spec", SPEC], "stdout"),
        "conform": (["conform", "--spec", SPEC, "--examples", "1", "--", sys.executable, str(ROOM_LOOP)], "stdout"),
        "diff": (["diff", SPEC, SPEC], "stdout"),
    }


NAMES = list(_commands(Path("unused")))  # the names only: nothing is written until a test runs


@pytest.mark.parametrize("name", NAMES)
def test_the_summary_line_is_the_last_line_of_the_report_s_stream(tmp_path, name):
    (tmp_path / "trace.jsonl").write_text(TRACE, encoding="utf-8")
    argv, stream = _commands(tmp_path)[name]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code in (0, 1), result.output
    report = result.stdout if stream == "stdout" else result.stderr
    other = result.stderr if stream == "stdout" else result.stdout
    last = report.splitlines()[-1]
    assert last.startswith(f"gapstate {argv[0]}: "), report
    assert not [line for line in other.splitlines() if line.startswith("gapstate ")], other
    assert [line for line in report.splitlines() if line.startswith(f"gapstate {argv[0]}: ")] == [last]
