"""Python's cyclic garbage collector, paused while a large proof and its report are made.

The proof and the text of its findings make hundreds of thousands of small
tuples, dicts and records and free them by reference count: they form no
cycles. The collector still walks every object alive each time allocations
pass its threshold, and on a large table that was a sixth of check's CPU
(the 10,003-row table in process: 13.8 s of CPU, 11.6 s with it paused,
measured back to back).

The command-line process also starts with it paused (`starting`, from
`python -m gapstate` and the console script), until its command is found
(`started`): importing lark, networkx and click makes tens of thousands of
objects that live as long as the process, and the collector walked them
again at every threshold (about 20 ms of the bundled table's check, a
tenth of its whole process, measured with bench/run.py --only startup).
The command itself then runs with the collector as it was.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector off inside, then as it was (also as a decorator: `@paused()`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_before_start: list[bool] = []  # whether the collector was on when `starting` paused it (empty: not paused)


def starting() -> None:
    """The collector off until `started`: for a process whose next work is importing its modules."""
    if not _before_start:
        _before_start.append(gc.isenabled())
        gc.disable()


def started() -> None:
    """The collector as it was before `starting` (nothing, when `starting` did not pause it)."""
    if _before_start and _before_start.pop():
        gc.enable()
