"""What the tests of `gapstate gen` share: the bundled table's decider written out, and a generated module imported."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from gapstate import __version__
from gapstate.gen.targets import generate
from gapstate.table.load import parse_spec

from .support import SPEC_PATH, variant

DATA = SPEC_PATH.read_bytes()
SPEC = parse_spec(DATA.decode("utf-8"), "spec/gap-state.md")
SHA = hashlib.sha256(DATA).hexdigest()
# The bundled table with a smaller request budget: it still checks clean, and a decider made before answers otherwise.
FEWER_REQUESTS = variant("@cap session_requests 3", "@cap session_requests 2")


def written(target: str, out: Path, spec=SPEC, sha: str = SHA) -> dict[str, str]:
    """The files `gapstate gen TARGET OUT` writes for `spec`, written under `out`."""
    files = generate(target, spec, "spec/gap-state.md", sha, __version__, str(out))
    for relative, text in files.items():
        path = out / relative if relative else out
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return files


def imported(path: Path):
    """A generated Python module, imported from its file."""
    found = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module
