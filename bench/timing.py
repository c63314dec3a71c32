"""Timing whole processes the same way for every figure of bench/run.py.

A command and its floor run alternately, pair after pair, so that machine
noise (these machines are shared) hits both alike; a figure is the median
of the per-pair ratios, with their min and max beside it. Every process
gets a bytecode cache in a temporary folder (PYTHONPYCACHEPREFIX), as an
installed package would, even where PYTHONDONTWRITEBYTECODE is set:
otherwise each run would compile gapstate's sources and measure the
compiler. Processes are started by a small launcher process, and their peak
resident memory comes from `wait4` there: a child forked from the big runner
would start its high-water mark at the runner's size.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from typing import NamedTuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAPSTATE = [sys.executable, "-m", "gapstate"]


class Run(NamedTuple):
    seconds: float
    peak_mib: float
    code: int
    cpu: float  # user + system seconds: on a loaded machine, closer to what the work costs than wall time


class Spread(NamedTuple):
    """Median, min and max of a series of numbers."""

    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: list[float]) -> Spread:
        return cls(statistics.median(values), min(values), max(values))


class Comparison(NamedTuple):
    runs: int
    command: Spread  # seconds
    baseline: Spread  # seconds
    ratio: Spread  # command / baseline, pair by pair
    peak_mib: Spread  # the command's peak resident memory
    codes: tuple[int, ...]  # the command's exit codes


def environment(folder: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.path.join(folder, "pycache")
    env["PYTHONPATH"] = ROOT + os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ROOT
    return env


_LAUNCHER = """
import json, os, subprocess, sys, time
for line in sys.stdin:
    command, env, folder = json.loads(line)
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=env, cwd=folder)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    print(json.dumps([seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status),
                      usage.ru_utime + usage.ru_stime]), flush=True)
"""
_launcher: subprocess.Popen | None = None


def start_launcher() -> None:
    """Start the launcher now, while this process is still small."""
    global _launcher
    if _launcher is None:
        _launcher = subprocess.Popen([sys.executable, "-c", _LAUNCHER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)


def timed(command: list[str], env: dict[str, str]) -> Run:
    """One whole process: wall time, peak resident memory (MiB) and exit code."""
    start_launcher()
    assert _launcher.stdin is not None and _launcher.stdout is not None
    # from the project's root: `python -m gapstate` looks in the current folder first
    _launcher.stdin.write(json.dumps([command, env, ROOT]) + "\n")
    _launcher.stdin.flush()
    return Run(*json.loads(_launcher.stdout.readline()))


def compare(command: list[str], baseline: list[str], runs: int, env: dict[str, str]) -> Comparison:
    """`runs` alternated pairs, after one warm-up pair (disk, bytecode and grammar caches)."""
    timed(command, env), timed(baseline, env)
    pairs = []
    for index in range(runs):
        # alternate which goes first, so neither always runs on a warmer machine
        if index % 2:
            base = timed(baseline, env)
            own = timed(command, env)
        else:
            own = timed(command, env)
            base = timed(baseline, env)
        pairs.append((own, base))
    return Comparison(
        runs,
        Spread.of([p[0].seconds for p in pairs]),
        Spread.of([p[1].seconds for p in pairs]),
        Spread.of([p[0].seconds / p[1].seconds for p in pairs]),
        Spread.of([p[0].peak_mib for p in pairs]),
        tuple(p[0].code for p in pairs),
    )


def rates(function, count: int, runs: int) -> Spread:
    """Items per CPU second of `function()` (which handles `count` items), over `runs` calls in process.

    CPU time, not wall time: on a machine shared by many, the wall time of
    in-process work measures the neighbours (a fifth of the rate at a load
    of 12 on 2 cores), its CPU time the work.
    """
    values = []
    for _ in range(runs):
        start = time.process_time()
        function()
        values.append(count / (time.process_time() - start))
    return Spread.of(values)


def write_section(heading: str, lines: list[str]) -> str:
    """Put `heading` and `lines` into bench/RESULTS.md in place of that section (or at its end); the path written."""
    path = os.path.join(ROOT, "bench", "RESULTS.md")
    with open(path, encoding="utf-8") as handle:
        parts = handle.read().rstrip("\n").split("\n## ")
    title = heading.removeprefix("## ")
    body = "\n".join([title, *lines])
    found = [i for i, part in enumerate(parts) if i and part.split("\n", 1)[0] == title]
    if found:
        parts[found[0]] = body
    else:
        parts.append(body)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        handle.write("\n## ".join(parts) + "\n")
    os.replace(path + ".tmp", path)
    return os.path.relpath(path, ROOT)
