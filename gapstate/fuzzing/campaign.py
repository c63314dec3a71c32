"""`gapstate fuzz --jobs N`: several runs in as many processes, their coverage merged, all stopped at the first failure."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gapstate.fuzzing.fuzzer import FuzzResult, fuzz
from gapstate.run.replayer import machine_for
from gapstate.table.load import Spec


def campaign(
    spec: Spec,
    workers: int,
    examples: int | None,
    seed: int,
    max_size: int = 60,
    progress: Callable[[int], None] | None = None,
    require_coverage: bool = False,
    duration: float | None = None,
    database_dir: str | Path | None = None,
) -> FuzzResult:
    """`workers` runs in as many processes, seeds `seed`, `seed + 1`, ...: coverage merged, all stopped at the first failure.

    `progress` is called with the number of traces replayed so far, every
    tenth of a second. With one worker, the run happens in this process.
    """
    if workers == 1:
        count = [0]

        def tick() -> None:
            count[0] += 1
            if progress is not None:
                progress(count[0])

        return fuzz(spec, examples, seed, max_size, tick, require_coverage, duration, database_dir)
    import multiprocessing
    import queue

    from gapstate.fuzzing.guide import guide_for

    guide_for(machine_for(spec))  # explored once here, inherited by forked workers
    context = multiprocessing.get_context()
    stop, done, counter = context.Event(), context.Queue(), context.Value("q", 0)
    processes = [
        context.Process(
            target=_worker,
            args=(done, stop, counter, spec, examples, seed + i, max_size, duration, database_dir),
            daemon=True,
        )
        for i in range(workers)
    ]
    for process in processes:
        process.start()
    results: list[tuple[float, FuzzResult]] = []
    try:
        while len(results) < workers:
            try:
                outcome = done.get(timeout=0.1)
            except queue.Empty:
                if not any(p.is_alive() for p in processes) and done.empty():
                    raise RuntimeError("a fuzz worker died without reporting") from None
            else:
                if isinstance(outcome, BaseException):
                    raise outcome
                results.append(outcome)
            if progress is not None:
                progress(counter.value)
    finally:
        stop.set()
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
    return merge([result for _, result in results], require_coverage, first=min(results, key=_found_at)[1])


def _found_at(item: tuple[float, FuzzResult]) -> float:
    at, result = item
    return at if result.counterexample is not None else float("inf")


def _worker(done: Any, stop: Any, counter: Any, spec: Spec, examples: int | None, seed: int, max_size: int, duration: float | None, database_dir: Any) -> None:
    """One worker process: a run, and its result (with when it failed) put on `done`.

    Ctrl-C reaches every process of the group: the workers ignore it and
    the parent, which handles it, stops them. SIGTERM ends a worker as
    Python's default does, whatever handler the forking process had.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)

    def tick() -> None:
        with counter.get_lock():
            counter.value += 1

    try:
        result = fuzz(spec, examples, seed, max_size, tick, False, duration, database_dir, stop)
        done.put((time.monotonic() if result.counterexample else float("inf"), result))
    except Exception as error:  # a bug: hand it to the parent to raise
        done.put(error)


def merge(results: list[FuzzResult], require_coverage: bool, first: FuzzResult) -> FuzzResult:
    """Several runs as one: seeds in order, counts added, coverage united, the first failure."""
    results = sorted(results, key=lambda r: r.seed)
    fired = set().union(*(r.fired for r in results))
    complete = [r.complete_after for r in results if r.complete_after is not None]
    return FuzzResult(
        spec=first.spec,
        seeds=tuple(r.seed for r in results),
        examples=sum(r.examples for r in results),
        events=sum(r.events for r in results),
        counterexample=first.counterexample,
        reachable=first.reachable,
        fired=tuple(sorted(fired)),
        require_coverage=require_coverage,
        complete_after=min(complete) if complete else None,
        goals=first.goals,
        met=tuple(sorted(set().union(*(r.met for r in results)))),
        pairs=first.pairs,
    )
