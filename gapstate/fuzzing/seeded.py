"""A seeded Hypothesis run that still keeps its failures: the one use of a Hypothesis internal.

`hypothesis.seed` turns the example database off (a seed is meant to
reproduce a run on its own); `gapstate fuzz` wants both: the seed for a
reproducible run, the database so that a failure found once is replayed
first next time. Hypothesis offers no public way to have both (a second
`@settings` on a test is refused), so the settings the seed left are
replaced here, through the attribute `@settings` itself writes.
tests/test_fuzzing_seeded.py fails the day that attribute stops working.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import seed as with_seed
from hypothesis import settings
from hypothesis.database import ExampleDatabase

_SETTINGS = "_hypothesis_internal_use_settings"  # where @settings and @seed keep a test's settings


def seeded(test: Callable[..., None], seed: int, database: ExampleDatabase | None) -> Callable[..., None]:
    """`test` (a @given test) run with `seed`, keeping its failures in `database`."""
    run: Any = with_seed(seed)(test)
    setattr(run, _SETTINGS, settings(getattr(run, _SETTINGS), database=database))
    return run
