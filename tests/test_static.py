"""ruff and mypy, as configured in pyproject.toml, are clean: the README's test command runs them.

Each runs as its own process on the checkout, and a finding fails the test
with the tool's own report. mypy keeps its cache in .mypy_cache (ignored by
git), so after the first run it rechecks only what changed.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from .support import ROOT


@pytest.mark.parametrize("tool", [["ruff", "check", "--no-cache", "."], ["mypy"]], ids=["ruff", "mypy"])
def test_the_code_passes(tool):
    done = subprocess.run([sys.executable, "-m", *tool], cwd=ROOT, capture_output=True, text=True)
    if "No module named" in done.stderr:
        pytest.fail(f"{tool[0]} is not installed: pip install '.[test]' installs it")
    assert done.returncode == 0, f"{' '.join(tool)}:\n{done.stdout}{done.stderr}"
