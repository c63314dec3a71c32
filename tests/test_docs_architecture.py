"""docs/architecture.md: its module table lists every module of the tree and no other, and its table of names names what the code defines."""

from __future__ import annotations

import ast
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
                        ("gapstate.proof.totality", "coverage"), ("gapstate.table.diagram", "Edge"),
                        ("gapstate.run.machine", "Node"), ("gapstate.conformance.vectors", "Node"),
                        ("gapstate.review.sessions", "Divergence"), ("gapstate.attribution.validation", "Problem"),
                        ("gapstate.proof.packing", "Step"), ("gapstate.proof.progress", "Move"),
                        ("gapstate.proof.progress", "Step"), ("gapstate.fuzzing.walk", "Walk"),
                        ("gapstate.fuzzing.goal_coverage", "coverage")):
        assert not hasattr(importlib.import_module(module), old), f"{module}.{old}"


def test_every_module_the_page_names_exists():
    for path in re.findall(r"^\| `(gapstate/[\w/.]+)` \|", PAGE, flags=re.MULTILINE):
        assert (ROOT / path).exists(), path


def _listed() -> tuple[set[str], list[str]]:
    """The modules the module table lists, and the `x.py` a package's row names that the package does not hold.

    A row lists the paths of its first column; a package's row (its first
    column ends in `/`) also lists the modules it names as `x.py`.
    """
    listed: set[str] = set()
    gone: list[str] = []
    table = PAGE.split("\n## ", 1)[0]
    for first, owns in re.findall(r"^\| (`gapstate/[^|]*`) \| (.*) \|$", table, flags=re.MULTILINE):
        for path in re.findall(r"`([\w/.-]+)`", first):
            if not path.endswith("/"):
                listed.add(path)
                continue
            for name in re.findall(r"`(\w+\.py)`", owns):
                if (ROOT / path / name).is_file():
                    listed.add(path + name)
                else:
                    gone.append(path + name)
    return listed, gone


def _defines_something(path) -> bool:
    """Whether a module does more than document, import and export (a package's face is listed by its modules)."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    face = (ast.Import, ast.ImportFrom)
    return not all(isinstance(node, face) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
                   or (isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"])
                   for node in body)


def _tree() -> set[str]:
    """Every module of the package and its grammar, but a package's `__init__.py` that defines nothing."""
    found = set()
    for path in (ROOT / "gapstate").rglob("*"):
        if path.suffix not in (".py", ".lark") or "docs" in path.relative_to(ROOT / "gapstate").parts:
            continue
        if path.name == "__init__.py" and path.parent.name != "gapstate" and not _defines_something(path):
            continue
        found.add(path.relative_to(ROOT).as_posix())
    return found


def test_the_module_table_lists_every_module_of_the_tree_and_no_other():
    listed, gone = _listed()
    tree = _tree()
    assert len(tree) > 90
    assert not gone, f"a package's row names modules it does not hold: {gone}"
    assert not sorted(listed - tree), f"listed but not in the tree: {sorted(listed - tree)}"
    assert not sorted(tree - listed), f"in the tree but not listed: {sorted(tree - listed)}"
