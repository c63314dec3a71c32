"""Python's cyclic garbage collector, paused while a large proof and its report are made.

The proof and the text of its findings make hundreds of thousands of small
tuples, dicts and records and free them by reference count: they form no
cycles. The collector still walks every object alive each time allocations
pass its threshold, and on a large table that was a sixth of check's CPU
(the 10,003-row table in process: 13.8 s of CPU, 11.6 s with it paused,
measured back to back).
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
