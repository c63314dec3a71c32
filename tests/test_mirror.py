"""The tests mirror the package: every module of gapstate has a test module of its own.

`gapstate/<package>/<module>.py` is tested in `tests/test_<package>_<module>.py`,
`gapstate/<module>.py` in `tests/test_<module>.py`, and a module a folder
deeper in `tests/test_<package>_<folder>_<module>.py` (see docs/architecture.md,
"Tests"). A package's `__init__.py` is not a module of its own here: what it
holds is tested with the package.
"""

from __future__ import annotations

from .support import PACKAGE, ROOT

TESTS = ROOT / "tests"

# Modules tested where a test module of their own could not test them better, and why.
ELSEWHERE = {
    # `python -m gapstate` is run as a whole process beside the console script it starts.
    "__main__.py": "test_cli_base.py",
}


def _test_module(module: str) -> str:
    """The test module that mirrors `module`, a path below the package (`cli/render/check.py`)."""
    return ELSEWHERE.get(module) or "test_" + module.removesuffix(".py").replace("/", "_") + ".py"


def _modules() -> list[str]:
    return sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py") if path.name != "__init__.py")


def test_every_module_of_the_package_has_its_test_module():
    missing = [f"{module} -> tests/{_test_module(module)}" for module in _modules() if not (TESTS / _test_module(module)).exists()]
    assert missing == []


def test_a_module_tested_elsewhere_is_really_tested_there():
    assert '"-m", "gapstate"' in (TESTS / ELSEWHERE["__main__.py"]).read_text(encoding="utf-8")


def test_the_mirror_is_drawn_as_the_convention_says():
    """The check above would pass on an empty package or a wrong mapping: it must see what it asks for."""
    assert _test_module("words.py") == "test_words.py"
    assert _test_module("table/model.py") == "test_table_model.py"
    assert _test_module("cli/render/check.py") == "test_cli_render_check.py"
    assert len(_modules()) > 80
    assert not (TESTS / _test_module("spec/no_such_module.py")).exists()
