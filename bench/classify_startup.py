"""Whole-process cost of `gapstate classify` on a small report, against `python -c "import click"`.

click is the one library `classify` cannot avoid, so its import is the floor.
Both commands run interleaved (so machine noise hits both alike); the script
prints the median of each and the median of the per-pair ratios. A ratio
near 1 means the command's own work and imports are small next to click's.

Both run with a bytecode cache in a temporary folder (PYTHONPYCACHEPREFIX),
as an installed package would, even where PYTHONDONTWRITEBYTECODE is set:
otherwise every run would compile gapstate's sources and measure the compiler.

    python bench/classify_startup.py [runs]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 15
BASELINE = [sys.executable, "-c", "import click"]

# One control and two stall arms over three turns: the shape of spec/classify-example.json.
REPORT = {
    "answer_key": ["q1", "q2", "q3"],
    "arms": [
        {"name": "control", "kind": "control",
         "turns": {"q1": {"status": "present"}, "q2": {"status": "present"}, "q3": {"status": "present"}}},
        {"name": "stall-2s", "kind": "stall",
         "counters": {"ingress_dropped_bytes": 6400},
         "intervals": [{"kind": "drop", "start": 12400, "end": 14400, "voiced": True}],
         "turns": {"q1": {"status": "present"},
                   "q2": {"status": "absent", "transmitted": True, "audio": [11800, 16900]},
                   "q3": {"status": "late"}}},
        {"name": "stall-5s", "kind": "stall", "transcript_received": False,
         "turns": {"q1": {"status": "absent"}, "q2": {"status": "absent"}, "q3": {"status": "repeated"}}},
    ],
}


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "report.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(REPORT, handle)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = os.path.join(folder, "pycache")
        classify = [sys.executable, "-m", "gapstate", "classify", path]
        timed(classify, env), timed(BASELINE, env)  # warm the disk and bytecode caches
        pairs = [(timed(classify, env), timed(BASELINE, env)) for _ in range(RUNS)]
    command = statistics.median(p[0] for p in pairs)
    base = statistics.median(p[1] for p in pairs)
    ratio = statistics.median(p[0] / p[1] for p in pairs)
    print(f"runs: {RUNS}")
    print(f"gapstate classify (median):      {command * 1000:7.1f} ms")
    print(f"python -c 'import click' (median): {base * 1000:7.1f} ms")
    print(f"median ratio classify / click:   {ratio:7.2f}")


if __name__ == "__main__":
    main()
