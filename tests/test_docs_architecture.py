"""docs/architecture.md: every module it names exists, and its table of names names what the code defines."""

from __future__ import annotations

import importlib
import re

from .support import ROOT

PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _names() -> list[tuple[str, str]]:
    section = PAGE.split("## Names", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `(\w+)` \| `([\w.]+)` \|", section, flags=re.MULTILINE)


def test_each_name_in_the_table_is_defined_where_the_page_says():
    names = _names()
    assert len(names) >= 10
    for name, module in names:
        assert hasattr(importlib.import_module(module), name), f"{module}.{name}"


def test_a_name_means_one_idea_its_old_second_meanings_are_gone():
    """The words the table gives one meaning are not kept for another where they were."""
    for module, old in (("gapstate.seeing.coverage", "Stop"), ("gapstate.review.diff", "Outcome"),
                        ("gapstate.proof.totality", "coverage"), ("gapstate.table.diagram", "Edge")):
        assert not hasattr(importlib.import_module(module), old), f"{module}.{old}"


def test_every_module_the_page_names_exists():
    for path in re.findall(r"^\| `(gapstate/[\w/.]+)` \|", PAGE, flags=re.MULTILINE):
        assert (ROOT / path).exists(), path
