"""Helpers shared by the tests of `gapstate fuzz` (test_fuzzing_fuzzer, _campaign, _shrinking)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner, Result

from gapstate.cli import main

from .support import variant

# A gap written off behind the session cap without saying how it ended: exit-unnamed at the row.
DEEP = variant(
    "DUE | floor_released | !busy,!budget_left | CLEAR | unrepaired_budget",
    "DUE | floor_released | !busy,!budget_left | CLEAR | noop",
)


@pytest.fixture(autouse=True)
def database(tmp_path, monkeypatch):
    """Each test gets its own example database, so no test replays another's failure."""
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(tmp_path / "hypothesis"))
    return tmp_path / "hypothesis" / "examples"


def fuzz(*args: str) -> Result:
    return CliRunner().invoke(main, ["fuzz", *args])


def write(tmp_path, text: str, name: str = "spec.md") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def replay_document(tmp_path, trace: list[dict], spec: str) -> dict:
    path = tmp_path / "trace.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in trace), encoding="utf-8")
    return json.loads(CliRunner().invoke(main, ["replay", str(path), "--spec", spec, "--format", "json"]).stdout)
