"""ruff and mypy, as configured in pyproject.toml, are clean (the README's test command runs them), and no name is unused.

Each runs as its own process on the checkout, and a finding fails the test
with the tool's own report. ruff runs in every `pytest` (about 0.1 s); mypy
under `pytest -m slow`, the second half of the README's test command: on a
fresh checkout it costs about 7 s of CPU, a sixth of the fast suite's, and
after that it keeps its cache in .mypy_cache (ignored by git) and rechecks
only what changed.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from .support import ROOT, package_nodes


@pytest.mark.parametrize("tool", [["ruff", "check", "--no-cache", "."], pytest.param(["mypy"], marks=pytest.mark.slow)],
                         ids=["ruff", "mypy"])
def test_the_code_passes(tool):
    done = subprocess.run([sys.executable, "-m", *tool], cwd=ROOT, capture_output=True, text=True)
    if "No module named" in done.stderr:
        pytest.fail(f"{tool[0]} is not installed: pip install '.[test]' installs it")
    assert done.returncode == 0, f"{' '.join(tool)}:\n{done.stdout}{done.stderr}"


# Names the package defines that only a framework or the grammar calls, or that a module offers for
# its tests to hold it to: where each is, and who calls it.
HOOKS = {
    "cli/base.py:list_commands": "click, to list the group's commands in --help",
    "table/parser.py:allow": "lark's transformer, for the grammar's `allow` rule (table/table.lark)",
    "proof/graph.py:predecessors": "the explored graph's interface beside moves and walk",
}


def _module_name(path: str) -> str:
    return "gapstate." + path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def _defined(nodes):
    """What a module defines: (name, line, whether it is the module's own undecorated top-level function or class)."""
    module = nodes[0]
    top = {id(node) for node in module.body}
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if id(node) in top and node.decorator_list:
                continue  # registered where it is defined (a click command)
            yield node.name, node.lineno, id(node) in top
    for node in module.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            yield from ((name.id, node.lineno, False) for name in ast.walk(target) if isinstance(name, ast.Name))


def test_every_name_the_package_defines_is_used_by_the_package():
    """No unused names, and no code only the tests call (the benchmarks in bench/ count as callers).

    A module's own function or class is used when its module reads it (or
    names it in a string, as `__all__` does), the package imports it from
    there, or reads it as an attribute (a decorated one, a click command, is
    registered where it is defined); any other name
    when the package reads it anywhere (as a name, an attribute, an import,
    a keyword, or a string such as `__all__` holds).
    """
    modules = package_nodes()
    bench = tuple(tuple(ast.walk(ast.parse(path.read_text(encoding="utf-8")))) for path in sorted((ROOT / "bench").glob("*.py")))
    anywhere: set[str] = set()
    imported: set[tuple[str, str]] = set()
    attributes: set[str] = set()
    for nodes in (*(nodes for _, nodes in modules), *bench):  # bench/ measures what the package offers
        for node in nodes:
            if isinstance(node, ast.Name):
                anywhere.add(node.id)
            elif isinstance(node, ast.Attribute):
                anywhere.add(node.attr)
                attributes.add(node.attr)
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.update((node.module, alias.name) for alias in node.names)
                anywhere.update(alias.name for alias in node.names)
            elif isinstance(node, ast.keyword) and node.arg:
                anywhere.add(node.arg)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                anywhere.add(node.value)
    unused, hooks = [], set()
    for module, nodes in modules:
        own = {node.id if isinstance(node, ast.Name) else node.value for node in nodes  # a string: `__all__`
               if isinstance(node, ast.Name) or (isinstance(node, ast.Constant) and isinstance(node.value, str))}
        for name, line, top in _defined(nodes):
            if name.startswith("__") and name.endswith("__"):
                continue
            used = (name in own or (_module_name(module), name) in imported or name in attributes) if top else name in anywhere
            if f"{module}:{name}" in HOOKS:
                hooks.add(f"{module}:{name}")
                assert not used, f"{module}:{name} is used by the package now: remove it from HOOKS"
            elif not used:
                unused.append(f"{module}:{line}: {name}")
    assert unused == []
    assert hooks == set(HOOKS), f"defined no more: remove {sorted(set(HOOKS) - hooks)} from HOOKS"
