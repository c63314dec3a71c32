"""README.md and docs/*.md: their examples run, their links lead somewhere, and the pages are installed.

Every `console` example prints what it shows and every `python` example runs
(a `python fragment` block needs code of yours, such as `my_agent`, and is
not run). The examples run in a folder laid out like a clone: `spec/` (the
spec and the example report), `pyproject.toml` naming the spec, the files
the page writes in `file=NAME` blocks, and `broken.md` (the spec with a row
that sends while busy). Expected output is what a terminal shows: stdout,
then what the command writes to stderr, which ends with its summary line. In
it `…` stands for any text within a line, and a line of `…` alone for any
lines. The catalogues have their own
tests: tests/test_docs_findings.py and tests/test_docs_diff.py.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import zipfile

import pytest
from click.testing import CliRunner
from hypothesis import settings

from gapstate.cli import main

from .support import ROOT, variant

DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = {path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8") for path in [ROOT / "README.md", *DOCS]}
BLOCK = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```$", flags=re.S | re.M)


def examples(language: str) -> list[tuple[str, str]]:
    """(page, body) of every block of the language, `fragment` blocks left out."""
    return [
        (page, body)
        for page, text in PAGES.items()
        for lang, info, body in BLOCK.findall(text)
        if lang == language and "fragment" not in info.split()
    ]


CONSOLE = examples("console")
PYTHON = examples("python")


def clone(tmp_path, monkeypatch, page: str):
    (tmp_path / "spec").mkdir()
    for name in ("gap-state.md", "classify-example.json"):
        shutil.copy(ROOT / "spec" / name, tmp_path / "spec" / name)
    (tmp_path / "pyproject.toml").write_text('[tool.gapstate]\nspec = "spec/gap-state.md"\n', encoding="utf-8")
    for _, info, body in BLOCK.findall(PAGES[page]):
        if "file=" in info:
            (tmp_path / info.split("file=")[1].strip()).write_text(body, encoding="utf-8")
    broken = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")
    (tmp_path / "broken.md").write_text(broken, encoding="utf-8")
    monkeypatch.chdir(tmp_path)


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
    readme = [(lang, info) for lang, info, _ in BLOCK.findall(PAGES["README.md"])]
    assert sum(lang == "console" for lang, _ in readme) >= 4 and ("python", "") in readme
    assert ("jsonl", " file=trace.jsonl") in readme


# `gapstate mutate` at its default --jobs judges a row's mutants in a pool of worker processes, each
# importing gapstate (about 0.5 s of CPU an example): those examples run under `pytest -m slow`, and
# tests/test_cli_mutate.py runs the same row's mutants in process in every `pytest`.
POOLED = [pytest.param(page, body, marks=pytest.mark.slow) if "$ gapstate mutate " in body else (page, body)
          for page, body in CONSOLE]


@pytest.mark.parametrize("page, body", POOLED, ids=[f"{p}:{b.splitlines()[0][2:40]}" for p, b in CONSOLE])
def test_a_console_example_prints_what_it_shows(tmp_path, monkeypatch, page, body):
    clone(tmp_path, monkeypatch, page)
    for argv, expected in sessions(body):
        assert argv[0] == "gapstate"
        result = CliRunner().invoke(main, argv[1:])
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert pattern(expected).fullmatch(result.output), f"$ {shlex.join(argv)}\n{result.output}"


@pytest.mark.parametrize("page, body", PYTHON, ids=[f"{p}:python-{i}" for i, (p, _) in enumerate(PYTHON)])
def test_a_python_example_runs(tmp_path, monkeypatch, page, body):
    clone(tmp_path, monkeypatch, page)
    namespace: dict = {"__name__": "docs_example"}
    exec(compile(body, page, "exec"), namespace)
    for name, value in namespace.items():
        if name.startswith("test_") and callable(value):
            # A Hypothesis test in the example: run it. That it runs is what the page
            # promises, not a property of gapstate, so a few examples will do.
            settings(max_examples=10)(value)() if getattr(value, "is_hypothesis_test", False) else value()


def test_the_readme_is_a_short_guide_from_which_every_page_can_be_reached():
    """Under 300 lines; every docs page is reached by following links from it (the README links each one,
    but a page added beside another is reachable once that page links it)."""
    assert len(PAGES["README.md"].splitlines()) < 300
    reached, todo = {"README.md"}, ["README.md"]
    while todo:
        page = todo.pop()
        folder = (ROOT / page).parent
        for target in re.findall(r"\]\(([\w./-]+\.md)(?:#[\w-]*)?\)", PAGES[page]):
            name = (folder / target).resolve().relative_to(ROOT).as_posix()
            if name in PAGES and name not in reached:
                reached.add(name)
                todo.append(name)
    assert reached == set(PAGES)


@pytest.mark.parametrize("page", list(PAGES))
def test_a_page_links_only_to_files_that_exist(page):
    folder = (ROOT / page).parent
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[\w-]*)?\)", PAGES[page]):
        if not re.match(r"\w+:", target):  # not https: or mailto:
            assert (folder / target).exists(), f"{page} links to {target}"


@pytest.mark.parametrize("page", list(PAGES))
def test_a_page_says_it_in_the_projects_own_words(page):
    """No page leans on documents that are not in the repository (the spec's prose is: spec/gap-state.md).

    (A "seed" alone is a random seed, which pages do mention.)
    """
    assert not re.search(r"\bcontract\b|\bseed's\b|\bthe seed (describes|says|names)", PAGES[page], flags=re.I)


def test_the_benchmark_table_is_quoted_as_it_stands_in_bench_results():
    """The figures on docs/performance.md are the last run's, not remembered ones: `python bench/run.py` writes both."""
    # bench/run.py's table; the sections after it ("## ...") are other scripts' (bench/conform_gallery.py)
    results = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8").split("\n## ")[0]
    page = PAGES["docs/performance.md"]
    table = [line for line in results.splitlines() if line.startswith("|")]
    assert len(table) > 2 and "\n".join(table) in page
    date = next(line for line in results.splitlines() if line.startswith("- date: "))[len("- date: ") :]
    assert f"Last run ({date}, quoted from bench/RESULTS.md" in page


def test_the_readme_speed_table_is_bench_results_figures_and_goals():
    """Every row of the README's speed table is a row of bench/RESULTS.md, its figure, median and goal; none is left out."""
    results = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8").split("\n## ")[0]
    rows = [line.strip("|").split(" | ")[:3] for line in results.splitlines()
            if line.startswith("| ") and not line.startswith("| figure |")]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("| figure | median (min - max) | goal |\n")
    table = readme[start : readme.index("\n\n", start)].splitlines()
    assert table[2:] == ["| " + " | ".join(cell.strip() for cell in row) + " |" for row in rows] and len(table) > 5


@pytest.mark.slow
def test_the_wheel_installs_every_page(tmp_path):
    """A wheel built from this clone carries docs/*.md as gapstate/docs/*.md, byte for byte."""
    build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp_path), str(ROOT)]
    subprocess.run(build, check=True, capture_output=True)
    [wheel] = tmp_path.glob("gapstate-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        packed = {name: archive.read(name) for name in archive.namelist() if name.startswith("gapstate/docs/")}
    assert packed == {f"gapstate/docs/{path.name}": path.read_bytes() for path in DOCS}


def test_the_cli_page_names_the_bundled_spec_as_output_does():
    from gapstate.table.load import BUNDLED_NAME

    assert f"Output names it `{BUNDLED_NAME}`" in (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
