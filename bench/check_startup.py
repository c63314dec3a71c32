"""Whole-process cost of `gapstate check` on the bundled spec, against importing its libraries.

The goal is a median ratio of at most 1.3: the check's own work (parsing,
exploring every configuration, rendering) small next to importing lark,
networkx and click.

    python bench/check_startup.py [runs]
"""

from __future__ import annotations

import sys
import tempfile

from timing import GAPSTATE, compare, report

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 21

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        result = compare(GAPSTATE + ["check"], [sys.executable, "-c", "import lark, networkx, click"], RUNS, folder)
    report("gapstate check", "import lark, networkx, click", result)
