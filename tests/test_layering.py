"""Data flows one way, floor by floor, up to the CLI; and only the CLI prints or exits.

The floors are data (`FLOORS`): a module may import its own floor and those
below, never one above. Every import statement counts, wherever it stands (a
function's deferred import, a TYPE_CHECKING block), and a module the floors
do not place fails the test, so a new package is given its floor.
"""

from __future__ import annotations

import ast

from gapstate.cli.base import COMMANDS

from .support import PACKAGE, package_nodes

# Lowest first; each entry a folder (`name/`) or a module of the package.
FLOORS = (
    ("ground", ("errors.py", "collector.py", "findings/", "files/", "words.py", "results.py", "pages.py", "version.py")),
    ("the table language", ("table/",)),
    ("run", ("run/",)),
    ("proof", ("proof/",)),
    ("seeing, fuzzing, conformance, review, attribution", (
        "seeing/", "fuzzing/", "conformance/", "review/", "attribution/", "gen/",
    )),
    ("the public API", ("__init__.py", "strategies.py")),
    ("the CLI", ("cli/", "__main__.py")),
)


def floor_of(place: str) -> int | None:
    """The floor of a module (its path below the package), or None when no floor holds it."""
    for number, (_, places) in enumerate(FLOORS):
        if any(place.startswith(p) if p.endswith("/") else place == p for p in places):
            return number
    return None


def _module_place(module: str) -> str:
    """`gapstate.x.y` as the floors name its place: `x/` for a package, `x.py` for a module, `__init__.py` for the face."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__.py"
    return f"{parts[1]}/" if (PACKAGE / parts[1]).is_dir() else f"{parts[1]}.py"


def imported(place: str, node: ast.AST) -> list[str]:
    """The gapstate modules an import statement in the module at `place` reads (`from gapstate import x`:
    the module x, or the package face when x is a name it defines)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = ["gapstate", *place.split("/")[:-1]][: len(place.split("/")) - node.level + 1]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        if module == "gapstate":
            names = [f"gapstate.{a.name}" if (PACKAGE / a.name).is_dir() or (PACKAGE / f"{a.name}.py").exists()
                     else "gapstate" for a in node.names]
        else:
            names = [module]
    else:
        return []
    return [name for name in names if name == "gapstate" or name.startswith("gapstate.")]


def climbing(modules) -> list[str]:
    """Each import that reads a floor above its module's, as `module:line imports what (floor -> floor)`."""
    found = []
    for place, nodes in modules:
        here = floor_of(place)
        for node in nodes:
            for name in imported(place, node):
                there = floor_of(_module_place(name))
                if here is None or there is None or there > here:
                    names = [FLOORS[n][0] if n is not None else "no floor" for n in (here, there)]
                    found.append((place, node.lineno, f"{place}:{node.lineno} imports {name} ({names[0]} -> {names[1]})"))
    return [said for _, _, said in sorted(found)]


def test_no_import_climbs_a_floor():
    assert climbing(package_nodes()) == []


def test_every_module_has_a_floor():
    assert [place for place, _ in package_nodes() if floor_of(place) is None] == []


def test_no_command_module_imports_another():
    """Each command group's module (base.COMMANDS) builds on the CLI's shared modules, never on another command's."""
    commands = {f"cli/{module}.py" for module in COMMANDS.values()}
    crossing = [
        f"{place}:{node.lineno} imports {name}"
        for place, nodes in package_nodes() if place in commands
        for node in nodes
        for name in imported(place, node)
        if f"{name.replace('.', '/')}.py".removeprefix("gapstate/") in commands - {place}
    ]
    assert crossing == []


def test_the_floors_see_every_kind_of_import():
    """A climb at the top, in a function, behind TYPE_CHECKING, relative or through the face is named."""
    tree = ast.parse(
        "from gapstate.proof.check import check\n"
        "def f():\n    import gapstate.seeing.witness\n"
        "if TYPE_CHECKING:\n    from gapstate.cli.base import main\n"
        "from ..conformance import vectors\n"
        "from gapstate import __version__, errors\n"
    )
    found = climbing([("table/model.py", tuple(ast.walk(tree)))])
    assert [line.split(" (")[0] for line in found] == [
        "table/model.py:1 imports gapstate.proof.check",
        "table/model.py:3 imports gapstate.seeing.witness",
        "table/model.py:5 imports gapstate.cli.base",
        "table/model.py:6 imports gapstate.conformance",
        "table/model.py:7 imports gapstate",
    ]
    assert found[0].endswith("(the table language -> proof)")
    assert climbing([("proof/check.py", tuple(ast.walk(ast.parse("from gapstate.table import model\n"))))]) == []

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
