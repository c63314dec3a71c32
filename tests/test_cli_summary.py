"""Every command, in every format, prints its summary line, `gapstate COMMAND: ...`, once, as the last line on stderr.

Stdout carries only the report or document (text, JSON, SARIF, workflow
commands, a trace, a diagram), so it can be piped or redirected whole; the
summary reaches the person at the terminal after any warning or error text.
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
FUZZ = ["fuzz", "--spec", SPEC, "--examples", "5", "--seed", "1"]


def _commands(folder: Path) -> dict[str, list[str]]:
    """Each command as a user runs it, in each format it has."""
    trace = str(folder / "trace.jsonl")
    return {
        "check": ["check", SPEC],
        "check-json": ["check", SPEC, "--format", "json"],
        "check-github": ["check", SPEC, "--format", "github"],
        "check-sarif": ["check", SPEC, "--format", "sarif"],
        "check-several": ["check", SPEC, str(folder / "broken.md")],
        "check-several-unusable": ["check", SPEC, str(folder / "missing.md"), "--format", "sarif"],
        "replay": ["replay", trace, "--spec", SPEC],
        "replay-json": ["replay", trace, "--spec", SPEC, "--format", "json"],
        "replay-summary": ["replay", trace, "--spec", SPEC, "--summary"],
        "classify": ["classify", str(REPORT_EXAMPLE)],
        "classify-json": ["classify", str(REPORT_EXAMPLE), "--format", "json"],
        "classify-repeats": ["classify", str(REPORT_EXAMPLE), str(REPORT_EXAMPLE)],
        "fuzz": FUZZ,
        "fuzz-json": [*FUZZ, "--format", "json"],
        "fuzz-jsonl": [*FUZZ, "--format", "jsonl"],
        "fuzz-github": [*FUZZ, "--format", "github"],
        "fuzz-failing": ["fuzz", "--spec", str(folder / "broken.md"), "--examples", "50", "--seed", "1"],
        "witness": ["witness", "195", "--spec", SPEC],
        "witness-json": ["witness", "195", "--spec", SPEC, "--format", "json"],
        "witness-unreachable": ["witness", "198", "--spec", SPEC],
        "explain": ["explain", "195", "--spec", SPEC],
        "explain-json": ["explain", "195", "--spec", SPEC, "--format", "json"],
        "coverage": ["coverage", trace, "--spec", SPEC],
        "coverage-json": ["coverage", trace, "--spec", SPEC, "--format", "json"],
        "graph": ["graph", "--spec", SPEC],
        "graph-dot": ["graph", "--spec", SPEC, "--format", "dot"],
        "graph-update": ["graph", "--update", "--spec", str(folder / "copy.md")],
        "vectors": ["vectors", str(folder / "vectors"), "--spec", SPEC],
        # one trace (--replay), not the vectors and generated traces: the summary is printed the same way
        "conform": ["conform", "--spec", SPEC, "--replay", trace, "--", sys.executable, str(ROOM_LOOP)],
        "conform-json": ["conform", "--spec", SPEC, "--replay", trace, "--format", "json", "--", sys.executable, str(ROOM_LOOP)],
        "diff": ["diff", SPEC, str(folder / "broken.md")],
        "diff-same": ["diff", SPEC, SPEC],
        "diff-json": ["diff", SPEC, str(folder / "broken.md"), "--format", "json"],
        "diff-github": ["diff", SPEC, str(folder / "broken.md"), "--format", "github"],
        # --jobs 1: the summary is the same, and no pool of worker processes starts (0.2 s of CPU each run)
        "mutate": ["mutate", SPEC, "--kind", "duplicated", "--jobs", "1"],
        "mutate-json": ["mutate", SPEC, "--kind", "duplicated", "--jobs", "1", "--format", "json"],
        "diff-traces": ["diff", SPEC, str(folder / "broken.md"), "--traces", trace],
    }


NAMES = list(_commands(Path("unused")))  # the names only: nothing is written until a test runs


@pytest.mark.parametrize("name", NAMES)
def test_the_summary_line_is_the_last_line_on_stderr_and_never_on_stdout(tmp_path, name):
    from .support import SPEC_TEXT, variant

    (tmp_path / "trace.jsonl").write_text(TRACE, encoding="utf-8")
    (tmp_path / "copy.md").write_text(SPEC_TEXT, encoding="utf-8")
    broken = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")
    (tmp_path / "broken.md").write_text(broken, encoding="utf-8")
    argv = _commands(tmp_path)[name]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code in ((2,) if name.endswith("unusable") else (0, 1)), result.output
    summary = f"gapstate {argv[0]}: "
    last = result.stderr.splitlines()[-1]
    assert last.startswith(summary), result.stderr
    assert [line for line in result.stderr.splitlines() if line.startswith(summary)] == [last]
    assert not [line for line in result.stdout.splitlines() if line.startswith("gapstate ")], result.stdout
    assert result.output.endswith(last + "\n")  # what a terminal shows ends with it too


def test_after_error_text_on_stderr_the_summary_line_still_comes_last(tmp_path, monkeypatch):
    """fuzz --save that fails at the end (exit 2): the trace is printed, the error said, and the summary follows it."""
    from gapstate.errors import GapstateError

    from .support import variant

    broken = tmp_path / "broken.md"
    broken.write_text(variant("OPEN | floor_released | busy | DUE | defer_no_interrupt",
                              "OPEN | floor_released | busy | SENDING | send_request"), encoding="utf-8")

    def full(path, *args, **kwargs):
        raise GapstateError("no space left on device", file=str(path))

    monkeypatch.setattr("gapstate.files.writer.write_atomically", full)
    argv = ["fuzz", "--spec", str(broken), "--examples", "50", "--seed", "1", "--save", str(tmp_path / "t.jsonl")]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 2, result.output
    *before, last = result.stderr.splitlines()
    assert "no space left on device" in before[-1] and last.startswith("gapstate fuzz: ") and "rule" in last
    assert '{"event": ' in result.stdout


def test_unusable_input_prints_its_error_and_no_summary_line(tmp_path):
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "missing.jsonl"), "--spec", SPEC])
    assert result.exit_code == 2
    assert result.stderr.startswith("gapstate: error: ") and "gapstate replay: " not in result.output
