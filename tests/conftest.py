"""Hypothesis profiles, and two guards that make a broken run end soon, saying why.

Profiles: `ci` (the default: derandomized, a few hundred examples), `dev`,
`thorough`. Choose with HYPOTHESIS_PROFILE=dev (random, with the example
database) or HYPOTHESIS_PROFILE=thorough (long runs). The database lives in
.hypothesis/ at the project root, which git ignores.

Guards: a test that runs longer than TEST_LIMIT seconds fails with the stack
of every thread (where it hung), instead of holding CI until its own
timeout; and a run whose checkout disappears under it (every later test
would fail for that alone) stops at once, naming the last test that saw it.

And what collection built is frozen out of the garbage collector's
generations, so its full passes during the tests do not walk it again;
those full passes come ten times less often than by default; and what
the tests leave is collected once at the end, then frozen too.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

DATABASE = DirectoryBasedExampleDatabase(str(Path(__file__).resolve().parent.parent / ".hypothesis" / "examples"))
QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("ci", max_examples=200, derandomize=True, database=None, deadline=None, suppress_health_check=QUIET)
settings.register_profile("dev", max_examples=200, database=DATABASE, deadline=None, suppress_health_check=QUIET)
settings.register_profile("thorough", max_examples=5000, database=DATABASE, deadline=None, suppress_health_check=QUIET)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


ROOT = Path(__file__).resolve().parent.parent
TEST_LIMIT = 600  # seconds; the slowest test takes about 30 on a quiet machine


class TooLong(Exception):
    """A test ran past TEST_LIMIT."""


def _too_long(signum, frame):  # noqa: ANN001
    faulthandler.dump_traceback(file=sys.__stderr__, all_threads=True)
    raise TooLong(f"the test ran for more than {TEST_LIMIT} s (the stacks above show where)")


@pytest.fixture(autouse=True)
def _time_limit():
    if not hasattr(signal, "setitimer"):  # not on Windows
        yield
        return
    previous = signal.signal(signal.SIGALRM, _too_long)
    signal.setitimer(signal.ITIMER_REAL, TEST_LIMIT)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def pytest_collection_finish(session):  # noqa: ANN001
    """Out of the garbage collector's sight: what collection built, which lives to the end of the run anyway.

    The modules, test items and strategies collected would otherwise be
    traversed again by every full collection while the tests run (a third
    of the collector's time in a fast run).

    And a full collection comes after 100 of the middle generation's, not
    10: the explorations, parsers and Hypothesis' caches the tests keep make
    the old generation large, and at 10 the fast suite made some 22 full
    passes costing 4.2 s of CPU; at 100 it makes 5 (1.5 s), with the same
    peak memory (301 MB).
    """
    import gc

    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 100)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):  # noqa: ANN001
    """One full collection when the tests are done, then what is left out of the collector's sight.

    pytest collects twice more as it stops (so that a finalizer's
    exception is reported, while its hook still listens), each pass walking
    the 1.1 million objects the run left alive: 1.2 s of CPU. This pass
    finalizes the same garbage while the hook still listens; after it,
    those two walk only what is made since.
    """
    import gc

    gc.collect()
    gc.freeze()


def pytest_runtest_teardown(item, nextitem):  # noqa: ANN001
    if not (ROOT / "pyproject.toml").exists():
        pytest.exit(f"the checkout at {ROOT} is gone (seen after {item.nodeid}): the tests need it; stopping", returncode=3)
