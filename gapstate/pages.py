"""The reference pages installed with gapstate: which page documents which command, and where it is.

The pages are written in the repository's `docs/` folder; `gapstate/docs` is
a symbolic link to it, so a wheel carries them as package data. Help texts
and SARIF's `helpUri` point here, so a reader with only the installed
package still has the page.
"""

from __future__ import annotations

import os

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "docs")

# The page of each command, by command name; `cli` is what every command shares.
PAGES = {
    "check": "check",
    "replay": "replay",
    "classify": "classify",
    "fuzz": "fuzz",
    "witness": "seeing",
    "explain": "seeing",
    "graph": "seeing",
    "coverage": "seeing",
    "vectors": "conformance",
    "conform": "conformance",
    "diff": "diff",
    "init": "ci",
    "gen": "gen",
    "mutate": "mutate",
}
SHARED = "cli"
FINDINGS = "findings"


def name(page: str) -> str:
    """The page as the repository names it: `docs/check.md`."""
    return f"docs/{page}.md"


def path(page: str) -> str:
    """The page in this installation."""
    return os.path.join(FOLDER, f"{page}.md")


def uri(page: str, anchor: str | None = None) -> str:
    """The page in this installation as an absolute `file:` URI (SARIF wants absolute URIs), with an anchor."""
    from pathlib import Path  # here: classify starts without pathlib

    return Path(path(page)).as_uri() + (f"#{anchor}" if anchor else "")


def epilog(command: str | None) -> str:
    """The last paragraph of --help: where the command's reference page is (the group's: every command's).

    It starts with click's no-rewrap marker, so a long path is never broken.
    """
    page = PAGES.get(command or "", SHARED)
    lines = [f"Reference: {name(page)}, installed at", f"  {path(page)}"]
    if page != SHARED:
        lines.append(f"What every command shares: {name(SHARED)}")
    return "\b\n" + "\n".join(lines)
