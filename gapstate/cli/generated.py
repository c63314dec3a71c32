"""Writing generated deciders and telling stale ones: for `gen` and for `check` (its `stale_generated` findings, `--fix`).

Shared by the two commands, so neither command module imports the other.
The `generated` setting lists what `gapstate gen` wrote from the configured
spec; a listed file whose stamp names another sha256 than the spec's, or
none, or that is missing, is a finding, and `check --fix` writes it again
(never over a file without a stamp).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from gapstate.errors import GapstateError
from gapstate.version import __version__


def unsound_result(spec: Any) -> Any:
    """The check result holding the findings that make the table unsound, or None when it checks clean.

    A stale diagram says nothing of the table's behaviour, so it does not stop generation.
    """
    import dataclasses

    from gapstate.cli.config import max_configurations
    from gapstate.findings import StaleDiagram
    from gapstate.proof.check import check as prove
    from gapstate.proof.explore import MAX_CONFIGURATIONS

    spec.require_steppable("generated")
    limit = max_configurations(None)
    result = prove(spec, None, MAX_CONFIGURATIONS if limit is None else limit)
    findings = tuple(f for f in result.findings if not isinstance(f, StaleDiagram))
    return dataclasses.replace(result, findings=findings) if findings else None


def write_generated(target: str, out: str, spec: Any, data: bytes, spec_file: str, bundled: bool,
                    named: str | None = None) -> int:
    """Write `target`'s files at `out`, each atomically; the rows written. Refuses to overwrite what gapstate did not write."""
    import hashlib

    from gapstate.files.writer import write_atomically
    from gapstate.gen.targets import PYTHON, generate
    from gapstate.table.load import BUNDLED_NAME

    folder = Path(out) if target != PYTHON else Path(out).parent
    name = BUNDLED_NAME if bundled else spec_file if spec_file == "-" else os.path.relpath(os.path.abspath(spec_file), os.path.abspath(folder))
    files = generate(target, spec, name.replace(os.sep, "/"), hashlib.sha256(data).hexdigest(), __version__, out, named)
    _refuse_foreign(target, out)
    for relative, text in files.items():
        path = Path(out) / relative if relative else Path(out)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, text.encode("utf-8"), follow_links=False)
    return len(spec.table.rows)


def _refuse_foreign(target: str, out: str) -> None:
    """GapstateError when `out` holds something gapstate did not generate: it is never overwritten."""
    from gapstate.gen.targets import CRATE_STAMP, PYTHON

    path = Path(out)
    if target == PYTHON:
        if path.exists() and (not path.is_file() or read_stamp(path) is None):
            raise GapstateError("not a file gapstate generated: refusing to overwrite it (remove it, or choose another path)", file=out)
        return
    if path.exists() and not path.is_dir():
        raise GapstateError("not a folder: a crate is written into a folder", file=out)
    if path.is_dir() and any(path.iterdir()) and read_stamp(path / CRATE_STAMP) is None:
        raise GapstateError(f"a folder that holds files but no crate gapstate generated ({CRATE_STAMP}): refusing to write into it", file=out)


def read_stamp(path: Path) -> Any:
    """The stamp of a generated file (its first few KiB are read), or None when it has none or cannot be read.

    Read as every input is (`files.source`): only a regular file, so a FIFO
    or a device listed in the settings is never opened and cannot block.
    """
    from gapstate.files.source import open_binary
    from gapstate.gen.targets import STAMP_BYTES, stamp

    try:
        with open_binary(path if str(path) != "-" else "./-") as handle:  # "-" here names a file, not stdin
            head = handle.read(STAMP_BYTES)
    except (OSError, GapstateError):
        return None
    return stamp(head.decode("utf-8", "replace"))


def generated_findings(choice: Any, spec: Any, data: bytes) -> list[Any]:
    """The `stale_generated` findings of the files the settings list, when `choice` is the spec the settings name."""
    from gapstate.cli.config import settings
    found = settings()
    if found is None or not found.generated or found.spec is None or spec.table is None or choice.path == "-":
        return []
    from gapstate.findings import GeneratedProblem, StaleGenerated
    from gapstate.gen.targets import CRATE_STAMP, RUST, target_of  # the generators, only when files are listed
    try:
        if not os.path.samefile(found.spec, choice.path):
            return []  # the setting lists what was generated from another spec
    except OSError:
        return []
    sha = hashlib.sha256(data).hexdigest()
    findings = []
    for listed in found.generated:
        place = Path(listed)
        target = target_of(listed, place.is_dir())
        stamp = read_stamp(place / CRATE_STAMP if target == RUST else place)
        if not os.path.lexists(place):
            reason, recorded = GeneratedProblem.MISSING, ""
        elif stamp is None:
            reason, recorded = GeneratedProblem.FOREIGN, ""
        elif stamp.sha256 != sha:
            reason, recorded, target = GeneratedProblem.CHANGED, stamp.sha256, stamp.target
        else:
            continue
        findings.append(StaleGenerated(spec.table.header_line, 1, reason, listed, target, choice.path, recorded, sha))
    return findings


def regenerate(choice: Any, spec: Any, data: bytes, stale: list[Any]) -> list[str]:
    """Write again each stale file gapstate generated (or that is missing); the paths written."""
    from gapstate.findings import GeneratedProblem

    written = []
    for finding in stale:
        if finding.reason is GeneratedProblem.FOREIGN:
            continue  # never over a file gapstate did not write
        write_generated(finding.target, finding.path, spec, data, choice.path, choice.bundled)
        written.append(finding.path)
    return written
