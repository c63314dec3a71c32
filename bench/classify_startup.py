"""Whole-process cost of `gapstate classify` on a small report, against `python -c "import click"`.

click is the one library `classify` cannot avoid, so its import is the floor.
A ratio near 1 means the command's own work and imports are small next to
click's. Timing is shared with the other scripts (bench/timing.py).

    python bench/classify_startup.py [runs]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

from timing import GAPSTATE, compare, report

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


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "report.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(REPORT, handle)
        result = compare(GAPSTATE + ["classify", path], BASELINE, RUNS, folder)
    report("gapstate classify", "python -c 'import click'", result)


if __name__ == "__main__":
    main()
