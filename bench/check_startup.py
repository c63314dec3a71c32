"""Whole-process cost of `gapstate check` on the bundled spec, against importing its libraries.

Runs both commands interleaved (so machine noise hits both alike) and prints
the median of each and the median of the per-pair ratios. The goal is a
ratio of at most 1.3: the check's own work small next to the imports.

    python bench/check_startup.py [runs]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 21
CHECK = [sys.executable, "-m", "gapstate", "check"]
BASELINE = [sys.executable, "-c", "import lark, networkx, click"]


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    timed(CHECK), timed(BASELINE)  # warm the disk cache and lark's grammar cache
    pairs = [(timed(CHECK), timed(BASELINE)) for _ in range(RUNS)]
    check = statistics.median(p[0] for p in pairs)
    base = statistics.median(p[1] for p in pairs)
    ratio = statistics.median(p[0] / p[1] for p in pairs)
    print(f"runs: {RUNS}")
    print(f"gapstate check (median):             {check * 1000:7.1f} ms")
    print(f"import lark, networkx, click (median): {base * 1000:7.1f} ms")
    print(f"median ratio check / imports:        {ratio:7.2f}")


if __name__ == "__main__":
    main()
