"""Timing whole processes the same way in every benchmark script.

Commands run interleaved with their baseline, so machine noise hits both
alike, and the scripts print medians and the median of per-pair ratios:
these machines are too noisy for single times. Every run gets a bytecode
cache in a temporary folder (PYTHONPYCACHEPREFIX), as an installed package
would, even where PYTHONDONTWRITEBYTECODE is set: otherwise each run would
compile gapstate's sources and measure the compiler.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from typing import NamedTuple

GAPSTATE = [sys.executable, "-m", "gapstate"]


class Comparison(NamedTuple):
    runs: int
    command: float  # median seconds
    baseline: float  # median seconds
    ratio: float  # median of command / baseline over the pairs


def environment(folder: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.path.join(folder, "pycache")
    return env


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def compare(command: list[str], baseline: list[str], runs: int, folder: str) -> Comparison:
    env = environment(folder)
    timed(command, env), timed(baseline, env)  # warm the disk, bytecode and grammar caches
    pairs = [(timed(command, env), timed(baseline, env)) for _ in range(runs)]
    return Comparison(
        runs,
        statistics.median(p[0] for p in pairs),
        statistics.median(p[1] for p in pairs),
        statistics.median(p[0] / p[1] for p in pairs),
    )


def report(name: str, baseline_name: str, result: Comparison, unit: float = 1000, suffix: str = "ms") -> None:
    width = max(len(name), len(baseline_name)) + 12
    print(f"runs: {result.runs}")
    print(f"{name + ' (median):':<{width}} {result.command * unit:8.1f} {suffix}")
    print(f"{baseline_name + ' (median):':<{width}} {result.baseline * unit:8.1f} {suffix}")
    print(f"{'median ratio:':<{width}} {result.ratio:8.2f}")
