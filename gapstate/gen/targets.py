"""What `gapstate gen` writes for each target, and the stamp that says which spec a generated file came from.

Every generated file opens with a header (`decider.header`) holding one
machine-readable line, `gapstate-generated: target=T spec-sha256=H`, and the
spec's path; `stamp` reads them back, so `check` can tell a generated file
whose spec has changed since (`stale_generated`) and `--fix` can regenerate it.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import NamedTuple

from gapstate.gen import python, rust
from gapstate.gen.decider import plan
from gapstate.table.load import Spec

PYTHON = python.TARGET
RUST = rust.TARGET
TARGETS = (PYTHON, RUST)

# The file of a crate that carries its stamp.
CRATE_STAMP = "src/lib.rs"
# How far into a file the stamp is looked for: it is on the header's second line.
STAMP_BYTES = 4096

_STAMP = re.compile(r"gapstate-generated: target=(\w+) spec-sha256=([0-9a-f]{64})")
_SPEC = re.compile(r"^\W*spec: (.*)$", re.MULTILINE)


class Stamp(NamedTuple):
    """What a generated file says of itself."""

    target: str
    sha256: str
    spec: str  # as the header writes it (escaped), relative to the generated file's folder


def stamp(head: str) -> Stamp | None:
    """The stamp in the first lines of a generated file, or None when gapstate did not write it."""
    found = _STAMP.search(head)
    if found is None or found[1] not in TARGETS:
        return None
    spec = _SPEC.search(head)
    return Stamp(found[1], found[2], spec[1].strip() if spec else "")


def target_of(path: str, is_dir: bool) -> str:
    """The target a path in `generated` (or given to --verify) stands for: a crate folder, else a Python file."""
    return RUST if is_dir or not path.endswith(".py") else PYTHON


def command(target: str, out: str, spec: str | None = None) -> str:
    """The command that regenerates `out` (from `spec` when one was named), as its header names it."""
    from gapstate.words import shell_word

    return f"gapstate gen {target} {shell_word(out)}" + (f" --spec {shell_word(spec)}" if spec else "")


def generate(target: str, spec: Spec, spec_name: str, sha256: str, version: str, out: str,
             named: str | None = None) -> dict[str, str]:
    """The files of `target` for a spec that checks clean, by path relative to `out` ("" for the file itself).

    `spec_name` is the spec as the files name it (relative to their folder);
    `named`, the spec as the command line named it, if it did.
    """
    assert spec.table is not None
    decider = plan(spec.table, spec_name, sha256, version)
    regenerate = command(target, out, named)
    if target == PYTHON:
        return {"": python.generate(decider, regenerate)}
    from gapstate.conformance.vectors import build

    name = rust.crate_name(PurePosixPath(out.replace("\\", "/")).name or "gap_state")
    return rust.files(decider, name, regenerate, build(spec).vectors)
