"""Which spec a command means when it is not told: `--spec`, else the project's, else the bundled one.

After `pip install .` in a clone, `gapstate check` run in that clone must
check the file being edited, not the copy installed with the package. So a
command without `--spec` (or, for `check`, without paths) looks for the
nearest `pyproject.toml` with a `[tool.gapstate]` table, from the working
folder up (as ruff looks for `[tool.ruff]`), and uses its `spec` setting,
relative to that file's folder; only when there is none does it fall back to
the spec bundled with the package. Every command that takes `--spec` calls
`resolve_spec_path`, so they all agree.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from gapstate.errors import GapstateError

PYPROJECT = "pyproject.toml"

GIVEN = "given"  # --spec or a path argument
PROJECT = "pyproject"  # the spec setting of [tool.gapstate]
BUNDLED = "bundled"  # the copy inside the package


class SpecPath(NamedTuple):
    """A spec file to read, and why it is that one."""

    path: str
    origin: str  # GIVEN, PROJECT or BUNDLED
    setting: str | None = None  # the pyproject.toml that named it, for PROJECT

    @property
    def bundled(self) -> bool:
        return self.origin == BUNDLED


def resolve_spec_path(given: str | None = None, cwd: str | Path | None = None) -> SpecPath:
    """The spec a command should read: `given` if any, else the project's setting, else the bundled spec.

    A pyproject.toml that cannot be read, or whose `spec` is not a non-empty
    string, raises GapstateError naming it (and the line, for bad TOML).
    """
    if given is not None:
        return SpecPath(given, GIVEN)
    found = project_setting(Path.cwd() if cwd is None else Path(cwd))
    if found is not None:
        return found
    from gapstate.table.load import bundled_path

    return SpecPath(bundled_path(), BUNDLED)


def project_setting(start: Path) -> SpecPath | None:
    """The `spec` of the nearest pyproject.toml above `start` that has a `[tool.gapstate]` table."""
    found = _project_table(start)
    if found is not None:
        folder, shown, table = found
        spec = table.get("spec")
        if spec is None:
            return None  # gapstate is configured here, without a spec: the bundled one
        if not isinstance(spec, str) or not spec:
            raise GapstateError("[tool.gapstate] spec must be a non-empty string (a path)", file=shown)
        return SpecPath(_shown(folder / spec, start), PROJECT, shown)
    return None


def max_configurations(given: int | None, cwd: str | Path | None = None) -> int | None:
    """The exploration budget: `given`, else `max-configurations` of [tool.gapstate], else None for the proof's default.

    A setting that is not a positive integer raises GapstateError naming the
    file. The default is the proof's to give: reading it here would load the
    proof (and networkx) before a spec path could be found missing.
    """
    if given is not None:
        return given
    found = _project_table(Path.cwd() if cwd is None else Path(cwd))
    if found is None or "max-configurations" not in found[2]:
        return None
    value = found[2]["max-configurations"]
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise GapstateError("[tool.gapstate] max-configurations must be a positive integer", file=found[1])
    return value


def _project_table(start: Path) -> tuple[Path, str, dict] | None:
    """The folder, shown path and `[tool.gapstate]` table of the nearest pyproject.toml above `start` that has one."""
    for folder in (start, *start.parents):
        candidate = folder / PYPROJECT
        if not candidate.is_file():
            continue
        shown = _shown(candidate, start)
        table = _tool_table(candidate, shown)
        if table is not None:
            return folder, shown, table
        # another tool's project file: keep looking, as ruff does
    return None


def _tool_table(path: Path, shown: str) -> dict | None:
    import re
    import tomllib

    from gapstate.files.source import decode_text, read_bytes

    try:
        text = decode_text(read_bytes(path), shown)
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
    tool = document.get("tool")
    table = tool.get("gapstate") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise GapstateError("[tool.gapstate] must be a table", file=shown)
    return table


def _shown(path: Path, start: Path) -> str:
    """The path as a person in `start` would type it: relative to it."""
    try:
        return os.path.relpath(path, start)
    except ValueError:  # another drive, on Windows
        return str(path)
