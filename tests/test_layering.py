"""Data flows one way: nothing below the CLI imports it, and only the CLI prints or exits."""

from __future__ import annotations

import ast

from .support import package_nodes

# `python -m gapstate` is the CLI's own entry point.
CLI = ("cli/", "__main__.py")
OUTPUT = {("sys", "stdout"), ("sys", "stderr"), ("sys", "exit"), ("os", "_exit"), ("click", "echo"), ("click", "secho")}


def _below_the_cli() -> list[tuple[str, tuple[ast.AST, ...]]]:
    return [(name, nodes) for name, nodes in package_nodes() if not name.startswith(CLI)]


def _imports_the_cli(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name == "gapstate.cli" or alias.name.startswith("gapstate.cli.") for alias in node.names)
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        if node.module == "gapstate":
            return any(alias.name == "cli" for alias in node.names)
        return node.module == "gapstate.cli" or node.module.startswith("gapstate.cli.")
    return False


def test_no_module_outside_the_cli_imports_it():
    reaching_up = [
        f"{name}:{node.lineno}" for name, nodes in _below_the_cli() for node in nodes if _imports_the_cli(node)
    ]
    assert reaching_up == []


def _printing(nodes) -> list[str]:
    """Each print call and each use of stdout, stderr, an exit or click's echo, as `LINE: what`."""
    found = []
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            found.append(f"{node.lineno}: print")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (node.value.id, node.attr) in OUTPUT:
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_only_the_cli_prints_or_exits():
    printing = [f"{name}:{place}" for name, nodes in _below_the_cli() for place in _printing(nodes)]
    assert printing == []


def test_the_checks_see_a_reach_into_the_cli_and_a_print():
    """The walks above would pass on an empty package: they must catch what they forbid."""
    tree = ast.parse("from gapstate.cli.render import to_json\nimport sys\nprint(1)\nsys.exit(2)\nfrom gapstate import cli\n")
    assert sum(_imports_the_cli(node) for node in ast.walk(tree)) == 2
    assert _printing(ast.walk(tree)) == ["3: print", "4: sys.exit"]
    assert len(_below_the_cli()) > 40
