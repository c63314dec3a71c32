"""Which spec a command means when it is not told, and gapstate's other settings: one file, found as ruff finds its own.

After `pip install .` in a clone, `gapstate check` run in that clone must
check the file being edited, not the copy installed with the package; and a
repository without Python (no pyproject.toml) must be able to say so too. So
a command looks, from the working folder up, for the nearest folder holding
`.gapstate.toml`, `gapstate.toml` (their settings at the top level), or a
`pyproject.toml` with a `[tool.gapstate]` table; in one folder the first of
these, in that order, wins (ruff's order for `.ruff.toml`, `ruff.toml`,
`pyproject.toml`); a pyproject.toml without the table is passed over, as ruff
passes over one without `[tool.ruff]`. Its settings:

- `spec`: the spec file, relative to the settings file's folder;
- `max-configurations`: the exploration budget, at most CEILING;
- `generated`: the files generated from the spec (`gapstate gen`), a list of
  paths relative to that folder.

The settings file may come from a pull request, so what it says is bounded:
a path that resolves (links followed) outside the settings file's folder
tree is refused, naming the setting and never reading the file; a budget
past CEILING is refused (only the command line may go past it); a settings
file that is a folder, a FIFO or a link to nothing is an error, not passed
over. Every command that takes `--spec` calls `resolve_spec_path`, so they
all agree; only when nothing names a spec does a command fall back to the
spec bundled with the package, and the command line says so (cli.base).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

import click

from gapstate.errors import GapstateError
from gapstate.files.source import inside_tree

PYPROJECT = "pyproject.toml"
# Where settings may stand, in the order one folder's files are tried.
SETTINGS_FILES = (".gapstate.toml", "gapstate.toml", PYPROJECT)
KEYS = ("spec", "max-configurations", "generated")

# The largest exploration budget a settings file may set: 10,000,000
# configurations, four times the proof's default, about 3 GB at some 330
# bytes a configuration (docs/check.md). A pull request that edits the
# settings file cannot make CI explore until memory runs out; a person who
# means more passes --max-configurations.
CEILING = 10_000_000

GIVEN = "given"  # --spec or a path argument
PROJECT = "project"  # the spec setting of a settings file
BUNDLED = "bundled"  # the copy inside the package


class SpecPath(NamedTuple):
    """A spec file to read, and why it is that one."""

    path: str
    origin: str  # GIVEN, PROJECT or BUNDLED
    setting: str | None = None  # the settings file that named it, for PROJECT, as messages name it

    @property
    def bundled(self) -> bool:
        return self.origin == BUNDLED


class Settings(NamedTuple):
    """What the nearest settings file says, its paths as a person in the working folder would type them."""

    file: str  # the settings file, relative to the working folder
    where: str  # how messages name it: `[tool.gapstate] in ../pyproject.toml` or `../gapstate.toml`
    spec: str | None
    max_configurations: int | None
    generated: tuple[str, ...]


def resolve_spec_path(given: str | None = None, cwd: str | Path | None = None) -> SpecPath:
    """The spec a command should read: `given` if any, else the settings' `spec`, else the bundled spec.

    A settings file that cannot be used raises GapstateError naming it (and
    the line, for bad TOML or a bad setting).
    """
    if given is not None:
        return SpecPath(given, GIVEN)
    found = settings(cwd)
    if found is not None and found.spec is not None:
        return SpecPath(found.spec, PROJECT, found.where)
    from gapstate.table.load import bundled_path

    return SpecPath(bundled_path(), BUNDLED)


def max_configurations(given: int | None, cwd: str | Path | None = None) -> int | None:
    """The exploration budget: `given`, else `max-configurations` of the settings, else None for the proof's default.

    The default is the proof's to give: reading it here would load the
    proof (and networkx) before a spec path could be found missing.
    """
    if given is not None:
        return given
    found = settings(cwd)
    return None if found is None else found.max_configurations


def settings(cwd: str | Path | None = None) -> Settings | None:
    """The settings of the nearest settings file above `cwd` (default: the working folder), or None when there is none.

    Read once a command: inside a click command the answer is kept on its
    context for the command's other questions (the spec, the budget, the
    generated files each ask), and the next command reads the file afresh.
    """
    start = Path.cwd() if cwd is None else Path(cwd)
    context = click.get_current_context(silent=True)
    kept: dict[Path, Settings | None] = context.meta.setdefault("gapstate.settings", {}) if context else {}
    if start not in kept:
        kept[start] = _nearest(start)
    return kept[start]


def _nearest(start: Path) -> Settings | None:
    for folder in (start, *start.parents):
        for name in SETTINGS_FILES:
            candidate = folder / name
            if not os.path.lexists(candidate):
                continue
            shown = shown_path(candidate, start)
            table = _settings_table(candidate, shown, name == PYPROJECT)
            if table is not None:
                return _validated(table, candidate, start, shown, name == PYPROJECT)
            # another tool's pyproject.toml: keep looking, as ruff does
    return None


def _settings_table(path: Path, shown: str, pyproject: bool) -> dict[str, Any] | None:
    """The settings a file holds: a gapstate.toml's top level, a pyproject.toml's `[tool.gapstate]` (None if it has none)."""
    import re
    import tomllib

    from gapstate.files.source import decode_text, read_bytes

    try:
        text = decode_text(read_bytes(path), shown)  # a folder, a FIFO, a link to nothing: an error naming it
    except GapstateError as error:
        raise error.replaced(file=shown) from None
    try:
        document = tomllib.loads(text)
    except RecursionError:
        raise GapstateError("not usable TOML: nested too deeply", file=shown) from None
    except tomllib.TOMLDecodeError as error:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(error)) or "not valid TOML"
        line, column = (int(where[1]), int(where[2])) if where else (None, None)
        raise GapstateError(f"not valid TOML: {message}", file=shown, line=line, column=column) from None
    except ValueError:  # Python's limit on converting digits to an int, past 4,300 of them
        long = re.search(r"\d{4300,}", text)
        line = text.count("\n", 0, long.start()) + 1 if long else None
        raise GapstateError("not usable TOML: a number of 4,300 digits or more", file=shown, line=line) from None
    if not pyproject:
        return document
    tool = document.get("tool")
    table = tool.get("gapstate") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise GapstateError("[tool.gapstate] must be a table", file=shown)
    return table


def _validated(table: dict[str, Any], path: Path, start: Path, shown: str, pyproject: bool) -> Settings:
    """The settings of the file at `path`, each checked; GapstateError naming the first that cannot be used, at its line."""
    prefix = "[tool.gapstate] " if pyproject else ""
    folder = path.parent

    def bad(key: str, why: str) -> GapstateError:
        return GapstateError(f"{prefix}{key} {why}", file=shown, line=_line_of(path, key, pyproject))

    for key in table:
        if key not in KEYS:
            raise bad(key, f"is not a setting of gapstate (it reads {', '.join(KEYS)})")

    def inside(key: str, value: Any) -> str:
        if not isinstance(value, str) or not value:
            raise bad(key, "must be a non-empty string (a path)")
        if not inside_tree(folder / value, folder):
            # Nothing of that file is read: its first line would reach a public CI log in an error.
            raise bad(key, f"names a file outside the folder of {path.name} (links followed); gapstate reads "
                      "only files in the folder tree of the file that names them")
        return shown_path(folder / value, start)

    spec = inside("spec", table["spec"]) if "spec" in table else None
    budget = table.get("max-configurations")
    if budget is not None:
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
            raise bad("max-configurations", "must be a positive integer")
        if budget > CEILING:
            raise bad("max-configurations", f"is {budget:,}, more than {CEILING:,}, the most a settings file may set "
                      "(pass --max-configurations N on the command line to explore more)")
    generated = table.get("generated", [])
    if not isinstance(generated, list):
        raise bad("generated", "must be a list of paths")
    where = f"[tool.gapstate] in {shown}" if pyproject else shown
    return Settings(shown, where, spec, budget, tuple(inside("generated", path) for path in generated))


def _line_of(path: Path, key: str, pyproject: bool) -> int | None:
    """The line of `key` in the settings table of the file at `path`, for messages; None when it cannot be told."""
    import re

    from gapstate.files.source import read_text, text_lines

    wanted = "tool.gapstate" if pyproject else ""
    table = ""
    try:
        lines = text_lines(read_text(path))
    except GapstateError:
        return None
    for number, line in enumerate(lines, start=1):
        header = re.match(r"\s*\[\s*([^\]\[]+?)\s*\]", line)
        if header:
            table = header[1].replace('"', "").replace(" ", "")
        elif table == wanted and re.match(rf'\s*(["\']?){re.escape(key)}\1\s*=', line):
            return number
    return None


def settings_target(top: Path, spec: str, start: Path) -> tuple[Path, bytes, str]:
    """Where `gapstate init` writes the setting naming `spec`, the file's new bytes, and the text it adds.

    A new gapstate.toml at `top`, or `[tool.gapstate]` added to the end of
    the pyproject.toml there when it has none; GapstateError naming a
    settings file that is there already.
    """
    import tomllib

    from gapstate.files.source import read_bytes

    line = f"spec = {toml_string(spec)}\n"
    for name in SETTINGS_FILES[:2]:
        if os.path.lexists(top / name):
            raise GapstateError("is there already; gapstate init never overwrites a file", file=shown_path(top / name, start))
    pyproject = top / PYPROJECT
    if not os.path.lexists(pyproject):
        text = f"# gapstate's settings (docs/cli.md, Settings)\n{line}"
        return top / "gapstate.toml", text.encode(), text
    shown = shown_path(pyproject, start)
    if _settings_table(pyproject, shown, True) is not None:
        raise GapstateError("has a [tool.gapstate] table already; gapstate init never overwrites settings", file=shown)
    old = read_bytes(pyproject)
    added = f"\n[tool.gapstate]\n{line}"
    new = old + (b"" if old.endswith(b"\n") or not old else b"\n") + added.encode()
    try:
        said = tomllib.loads(new.decode("utf-8-sig"))["tool"]["gapstate"]["spec"]
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        said = None
    if said != spec:  # `tool` as an inline table, say: a table cannot be added after it
        raise GapstateError(f"cannot take a [tool.gapstate] table added at its end; add `{line.strip()}` to it by hand", file=shown)
    return pyproject, new, added.lstrip("\n")


def toml_string(text: str) -> str:
    """`text` as a TOML basic string: quotes, backslashes and control characters escaped."""
    escaped = "".join(
        f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else "\\" + c if c in '"\\' else c for c in text
    )
    return f'"{escaped}"'


def shown_path(path: Path, start: Path) -> str:
    """The path as a person in `start` would type it: relative to it."""
    try:
        return os.path.relpath(path, start)
    except ValueError:  # another drive, on Windows
        return str(path)


# Folders never searched for tables: tools' and installs' own (a virtual
# environment holds gapstate's bundled copy), and any hidden one.
_PASSED_OVER = {"node_modules", "site-packages", "dist-packages", "target", "build", "dist", "__pycache__"}
_MOST_ENTRIES = 20_000  # a search from a home folder or / stops here, quietly
_MOST_BYTES = 1 << 20  # a larger markdown file is not a spec anyone edits by hand
_MOST_SHOWN = 3


def repository_top(start: Path) -> Path:
    """The top of the git work tree holding `start` (a `.git` folder or file), else `start` itself."""
    for folder in (start, *start.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return start


def unconfigured_tables(cwd: str | Path | None = None) -> list[str]:
    """For each markdown file of the working folder's repository that holds a gap-state table: where, and the line to add.

    Called only when no setting names a spec, so none of these files is
    configured. The search is bounded (_MOST_ENTRIES, _MOST_BYTES) and shows
    at most _MOST_SHOWN files, then how many more.
    """
    from gapstate.words import shell_word

    start = Path.cwd() if cwd is None else Path(cwd)
    top = repository_top(start)
    found = settings(start)
    # The line goes into the settings file that is there (one without `spec`), else a new gapstate.toml at the top.
    if found is not None:
        target, base = found.where, (start / found.file).parent
    else:
        target, base = shown_path(top / "gapstate.toml", start), top
    tables = tables_below(top)
    notes = []
    for path in tables[:_MOST_SHOWN]:
        line = f"spec = {toml_string(Path(os.path.relpath(path, base)).as_posix())}"
        # A settings file names only files in its own folder tree: for one outside it, --spec.
        how = f"add `{line}` to {target}" if inside_tree(path, base) else f"pass --spec {shell_word(shown_path(path, start))}"
        notes.append(f"{shown_path(path, start)} holds a gap-state table that no setting names; to read it, {how}")
    if len(tables) > _MOST_SHOWN:
        notes.append(f"and {len(tables) - _MOST_SHOWN} more files with a gap-state table")
    return notes


def is_utf8(text: str) -> bool:
    """Whether `text` can be written as UTF-8 (a name read from the disk may not: its bytes decoded as surrogates)."""
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def tables_below(top: Path) -> list[Path]:
    """The markdown files under `top` holding a gap-state table, sorted, within the search bounds."""
    from gapstate.files.source import read_text, text_lines
    from gapstate.table.blocks import find_blocks

    found: list[Path] = []
    seen = 0
    for folder, folders, files in os.walk(top):
        if "pyvenv.cfg" in files:  # a virtual environment
            folders[:] = []
            continue
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in _PASSED_OVER)
        seen += len(folders) + len(files)
        for name in sorted(files):
            if not name.endswith(".md") or not is_utf8(os.path.join(folder, name)):  # a setting could not name it
                continue
            path = Path(folder) / name
            try:
                if not path.is_file() or path.is_symlink() or path.stat().st_size > _MOST_BYTES:
                    continue
                text = read_text(path)
            except (GapstateError, OSError):
                continue
            if "actions" in text and find_blocks(text_lines(text)):
                found.append(path)
        if seen > _MOST_ENTRIES:
            break
    return found
