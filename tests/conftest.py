"""Hypothesis profiles: `ci` (the default: derandomized, a few hundred examples), `dev`, `thorough`.

Choose with HYPOTHESIS_PROFILE=dev (random, with the example database) or
HYPOTHESIS_PROFILE=thorough (long runs). The database lives in .hypothesis/
at the project root, which git ignores.
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

DATABASE = DirectoryBasedExampleDatabase(str(Path(__file__).resolve().parent.parent / ".hypothesis" / "examples"))
QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("ci", max_examples=200, derandomize=True, database=None, deadline=None, suppress_health_check=QUIET)
settings.register_profile("dev", max_examples=200, database=DATABASE, deadline=None, suppress_health_check=QUIET)
settings.register_profile("thorough", max_examples=5000, database=DATABASE, deadline=None, suppress_health_check=QUIET)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
