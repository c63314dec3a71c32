"""README.md: every `console` example prints what it shows, every `python` example runs.

The examples run in a folder laid out like a clone: `spec/` (the spec and
the example report), `pyproject.toml` naming the spec, the files the README
writes in `file=NAME` blocks, and `broken.md` (the spec with a row that
sends while busy, as the fuzz example says). In expected output `…` stands
for any text within a line, and a line of `…` alone for any lines.
"""

from __future__ import annotations

import re
import shlex
import shutil

import pytest
from click.testing import CliRunner

from gapstate.cli import main

from .support import ROOT, variant

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```(\w+)([^\n]*)\n(.*?)^```$", README, flags=re.S | re.M)
FILES = {info.split("file=")[1].strip(): body for _, info, body in BLOCKS if "file=" in info}
CONSOLE = [body for language, _, body in BLOCKS if language == "console"]
PYTHON = [body for language, _, body in BLOCKS if language == "python"]


@pytest.fixture
def clone(tmp_path, monkeypatch):
    (tmp_path / "spec").mkdir()
    for name in ("gap-state.md", "classify-example.json"):
        shutil.copy(ROOT / "spec" / name, tmp_path / "spec" / name)
    (tmp_path / "pyproject.toml").write_text('[tool.gapstate]\nspec = "spec/gap-state.md"\n', encoding="utf-8")
    for name, body in FILES.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    broken = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")
    (tmp_path / "broken.md").write_text(broken, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def pattern(expected: list[str]) -> re.Pattern[str]:
    parts = [r"(?:[^\n]*\n)*?" if line == "…" else ".*".join(map(re.escape, line.split("…"))) + r"\n" for line in expected]
    return re.compile("".join(parts))


def sessions(body: str) -> list[tuple[list[str], list[str]]]:
    """(argv, expected output lines) for each `$ ` command of a console block."""
    out: list[tuple[list[str], list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            out.append((shlex.split(line[2:], comments=True), []))
        else:
            out[-1][1].append(line)
    return out


def test_the_readme_has_examples_of_each_kind():
    assert len(CONSOLE) >= 4 and len(PYTHON) >= 2 and "trace.jsonl" in FILES


@pytest.mark.parametrize("body", CONSOLE, ids=[b.splitlines()[0][2:40] for b in CONSOLE])
def test_a_console_example_prints_what_it_shows(clone, body):
    for argv, expected in sessions(body):
        assert argv[0] == "gapstate"
        result = CliRunner().invoke(main, argv[1:])
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert pattern(expected).fullmatch(result.stdout), f"$ {shlex.join(argv)}\n{result.stdout}"


@pytest.mark.parametrize("body", PYTHON, ids=[f"python-{i}" for i in range(len(PYTHON))])
def test_a_python_example_runs(clone, body):
    namespace: dict = {"__name__": "readme_example"}
    exec(compile(body, "README.md", "exec"), namespace)
    for name, value in namespace.items():
        if name.startswith("test_") and callable(value):
            value()  # a Hypothesis test in the example: run it
