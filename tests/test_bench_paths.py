"""The benchmarks name files of the repository by literal paths under its root; each must exist.

A file moved in the package (the bundled table left `gapstate/spec/` for `gapstate/table/`)
otherwise breaks `python bench/run.py` only when a reader next measures, after the move landed.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _root_paths(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, path) of every `os.path.join(ROOT, "a", ...)` and `ROOT / "a" / ...` written with literals only."""
    found = []
    inner = {id(node.left) for node in ast.walk(tree) if isinstance(node, ast.BinOp)}  # ROOT / "a" inside ROOT / "a" / "b"
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "os.path.join" and node.args:
            head, *rest = node.args
            if isinstance(head, ast.Name) and head.id == "ROOT" and rest and all(
                    isinstance(part, ast.Constant) and isinstance(part.value, str) for part in rest):
                found.append((node.lineno, "/".join(part.value for part in rest)))  # type: ignore[attr-defined]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and id(node) not in inner:
            parts: list[str] = []
            left: ast.expr = node
            while isinstance(left, ast.BinOp) and isinstance(left.op, ast.Div) and isinstance(left.right, ast.Constant):
                parts.insert(0, str(left.right.value))
                left = left.left
            if isinstance(left, ast.Name) and left.id == "ROOT" and parts:
                found.append((node.lineno, "/".join(parts)))
    return found


def test_root_paths_found_in_a_script_are_read():
    """The scan sees both spellings (so the test below cannot pass by seeing nothing)."""
    tree = ast.parse('a = os.path.join(ROOT, "spec", "x.md")\nb = ROOT / "bench" / "y.md"\nc = ROOT / name\n')
    assert sorted(path for _, path in _root_paths(tree)) == ["bench/y.md", "spec/x.md"]


def test_every_literal_path_a_benchmark_names_exists():
    missing, seen = [], 0
    for script in sorted((ROOT / "bench").glob("*.py")):
        for line, path in _root_paths(ast.parse(script.read_text(encoding="utf-8"))):
            seen += 1
            if not (ROOT / path).exists():
                missing.append(f"bench/{script.name}:{line}: {path}")
    assert seen >= 5
    assert not missing, missing
