"""A vectors folder on disk: reading its traces, and telling a suite gapstate wrote from a folder a person keeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gapstate.errors import GapstateError

MANIFEST = "manifest.json"


def load(folder: str | Path) -> list[tuple[str, list[dict[str, Any]]]]:
    """The traces of a vectors folder written by `gapstate vectors` (or any folder of `*.jsonl` traces).

    With a manifest.json, its traces in its order; without one, every
    `NAME.jsonl` in name order. Either way each must be a regular file
    inside the folder, links followed (`_outside`). A missing folder, an unreadable manifest or
    a malformed trace raises GapstateError naming the file (and line).
    """
    from gapstate.files.source import parse_json, read_text

    base = Path(folder)
    if not base.is_dir():
        raise GapstateError("no such folder" if not base.exists() else "is not a folder", file=str(folder))
    manifest = base / MANIFEST
    if manifest.exists() or manifest.is_symlink():
        text = read_text(manifest)
        document = parse_json(text, str(manifest))
        try:
            names = [entry["trace"] for entry in document["traces"]]
        except (KeyError, TypeError):
            raise GapstateError("expected {\"traces\": [{\"trace\": FILE, ...}, ...]}", str(manifest), 1, 1) from None
        for index, name in enumerate(names):
            why = _outside(base, name)
            if why is not None:
                from gapstate.attribution.positions import (  # JSON paths to lines and columns
                    locate,
                    position,
                )

                entry = ("traces", index, "trace")
                line, column = position(text, locate(text, [entry]), entry)
                raise GapstateError(f"traces[{index}].trace: {why}", str(manifest), line, column)
    else:
        names = sorted(path.name for path in base.glob("*.jsonl"))
        for name in names:  # a folder without a manifest is held to the same rule: nothing read from outside it
            why = _outside(base, name)
            if why is not None:
                raise GapstateError(why, file=str(folder))
    if not names:
        raise GapstateError("holds no traces (NAME.jsonl)", file=str(folder))
    return [(name.removesuffix(".jsonl"), load_trace(base / name)) for name in names]


def load_trace(path: str | Path) -> list[dict[str, Any]]:
    """One trace file's events as dicts, `t` filled in; a malformed trace raises GapstateError naming its line."""
    from gapstate.run.event import as_dict
    from gapstate.run.trace import read_trace

    return [as_dict(item) for item in read_trace(path)]


def is_suite(folder: Path) -> bool:
    """True when `folder` holds a suite gapstate wrote: gapstate's manifest, naming everything in the folder.

    `vectors --force` replaces only such a folder, never one a person keeps.
    """
    import json

    from gapstate.files.source import read_text

    try:
        document = json.loads(read_text(folder / MANIFEST))  # a regular file only: a named pipe would block
        traces = [entry["trace"] for entry in document["traces"]]
        named = {MANIFEST, *traces, *(f"{trace.removesuffix('.jsonl')}.expected.json" for trace in traces)}
        return "gapstate" in document and {path.name for path in folder.iterdir()} <= named
    except (GapstateError, OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return False


def _outside(base: Path, name: Any) -> str | None:
    """Why a manifest may not name `name`, or None: only regular files inside its folder, named plainly.

    A manifest comes with the suite, perhaps from someone else: it must not
    lead the reader to a file elsewhere (`..`, an absolute path, a symbolic
    link out of the folder).
    """
    import json
    import os

    from gapstate.files.source import inside_tree

    if not isinstance(name, str) or not name:
        return "expected a file name (a non-empty string)"
    shown = json.dumps(name)
    if os.path.isabs(name) or ".." in Path(name).parts or "\\" in name or "\0" in name:
        return f"{shown} is not a file inside the suite's folder"
    if not inside_tree(base / name, base):
        return f"{shown} leads out of the suite's folder"
    if not (base / name).exists():
        return f"{shown}: no such file in the suite's folder"
    if not (base / name).is_file():
        return f"{shown} is not a regular file"
    return None

