"""One source for every figure the README and the reference pages both give: a page that drifts from it fails here.

A measured figure comes from bench/RESULTS.md (the README's speed table and
docs/performance.md quote it whole: tests/test_docs.py); a figure of the
tool itself (a default, a bound, the bundled table's size) comes from the
code. Each pattern must still be found on its page, so rewording a figure
means updating its line here, not losing the check.
"""

from __future__ import annotations

import re

import click
import pytest

import gapstate
from gapstate.cli import fuzz, main, testing
from gapstate.files.source import MAX_LINE

from .support import ROOT

RESULTS = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8").split("\n## ")[0]
MEDIANS = {
    cells[0].strip(): cells[1].split(" (")[0].strip()
    for cells in (line.strip("|").split(" | ") for line in RESULTS.splitlines() if line.startswith("| "))
}


def option_default(command: str, name: str):
    with click.Context(main) as ctx:
        found = main.get_command(ctx, command)
    return next(param.default for param in found.params if param.name == name)


def configurations() -> int:
    return gapstate.check(None).stats["configurations"]


BIG_TABLE = "check of a 10,003-row table (CPU seconds)"
BIG_TABLE_MEMORY = "check of a 10,003-row table, peak memory"

# (page, a pattern whose groups are figures, where each figure comes from)
FIGURES = [
    ("docs/check.md", r"10,003-row table[^;]*? ([\d.]+) s of CPU", lambda: MEDIANS[BIG_TABLE]),
    ("docs/check.md", r"10,003-row table[^;]*? s of CPU and ([\d.]+) MiB", lambda: MEDIANS[BIG_TABLE_MEMORY]),
    ("README.md", r"every reachable configuration \((\d+)\s+for the bundled table", configurations),
    ("docs/check.md", r"The bundled table's (\d+) configurations", configurations),
    ("docs/check.md", r"the bundled table has (\d+) reachable configurations", configurations),
    ("docs/findings.md", r"the bundled table's (\d+) configurations", configurations),
    ("README.md", r"`--duration` seconds \(default (\d+)\)", lambda: option_default("conform", "duration")),
    ("docs/conformance.md", r"`--duration S` seconds \(default (\d+)", lambda: option_default("conform", "duration")),
    ("docs/conformance.md", r"`--examples N` \(default (\d+)\)", lambda: option_default("conform", "examples")),
    ("docs/conformance.md", r"within `--timeout` seconds \(default (\d+)\)", lambda: option_default("conform", "timeout")),
    ("docs/conformance.md", r"`--timeout` is more than 0 and at most ([\d,]+) seconds", lambda: testing.MOST_TIMEOUT),
    ("docs/security.md", r"a finite number of seconds, at most ([\d,]+)", lambda: testing.MOST_TIMEOUT),
    ("README.md", r"lines of at most (\d+) MiB", lambda: MAX_LINE >> 20),
    ("docs/security.md", r"No line may be longer than (\d+) MiB", lambda: MAX_LINE >> 20),
    ("docs/fuzz.md", r"generates `N` traces \(default (\d+)\)", lambda: fuzz.EXAMPLES),
]


def same(written: str, source) -> bool:
    value = source()
    if isinstance(value, float) and not isinstance(written, float):
        return float(written.replace(",", "")) == value
    return written.replace(",", "") == str(value).replace(",", "")


@pytest.mark.parametrize("page, pattern, source", FIGURES, ids=[f"{page}:{pattern[:30]}" for page, pattern, _ in FIGURES])
def test_a_figure_on_a_page_is_its_sources(page, pattern, source):
    text = " ".join((ROOT / page).read_text(encoding="utf-8").split())  # a figure may be wrapped onto the next line
    found = re.findall(" ".join(pattern.split()), text)
    assert found, f"{page} no longer says {pattern!r}: update the figure's line here"
    for written in found:
        assert same(written, source), f"{page}: {written} where the source gives {source()}"


def test_the_big_tables_figures_are_rows_of_bench_results():
    assert BIG_TABLE in MEDIANS and BIG_TABLE_MEMORY in MEDIANS


# What the pages say bench/big_table.py's table holds (185 copies, --breaking, as bench/scale.py times it):
# every page the same figures here, and those check's own under `pytest -m slow` (the check takes some 15 s).
BIG_TABLE_PAGES = ("docs/check.md", "docs/performance.md", "bench/scale.py", "bench/big_table.py")
BIG_TABLE_SIZE = r"([\d,]+) configurations,? (?:and )?([\d,]+) findings"


def big_table_sizes() -> dict[str, set[tuple[str, str]]]:
    return {page: set(re.findall(BIG_TABLE_SIZE, " ".join((ROOT / page).read_text(encoding="utf-8").split())))
            for page in BIG_TABLE_PAGES}


def test_every_page_gives_the_big_table_the_same_configurations_and_findings():
    sizes = big_table_sizes()
    assert all(sizes.values()), f"a page no longer gives the big table's size: {sizes}; update BIG_TABLE_SIZE"
    assert len(set().union(*sizes.values())) == 1, sizes


@pytest.mark.slow
def test_the_big_table_s_size_on_the_pages_is_what_check_finds():
    from bench.big_table import big_table
    from gapstate.table.load import parse_spec

    result = gapstate.check(parse_spec(big_table(185, breaking=True), "big.md"))
    assert result.stats["rows"] == 10_003 and "10,003-row" in BIG_TABLE
    found = (f"{result.stats['configurations']:,}", f"{len(result.findings):,}")
    for page, sizes in big_table_sizes().items():
        assert sizes == {found}, f"{page} gives {sizes} (configurations, findings); check finds {found}"


def test_the_plot_extra_is_installed_alike_in_the_readme_the_page_the_help_and_the_error():
    import tomllib

    from gapstate.cli.classify import PLOT_INSTALL

    clone = "pip install '.[plot]'"
    assert clone in PLOT_INSTALL
    help_text = " ".join(main.get_command(click.Context(main), "classify").get_help(click.Context(main)).split())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    page = " ".join((ROOT / "docs" / "classify.md").read_text(encoding="utf-8").split())
    assert clone in help_text and clone in readme and clone in page
    for text in (help_text, readme, page, PLOT_INSTALL):
        assert "install 'gapstate[plot]'" not in text  # no package index holds that name
    [matplotlib] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]["plot"]
    assert f"pip install '{matplotlib}'" in page
