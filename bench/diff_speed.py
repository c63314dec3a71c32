"""How long `diff --traces` takes against `coverage` on the same recorded sessions.

A folder of sessions (random walks over the bundled table, bench/walks.py)
is replayed by `gapstate coverage FOLDER` and by `gapstate diff OLD NEW
--traces FOLDER`, where NEW splits the row of a busy release so that a
release without budget left ends the gap: sessions that spent their budget
and then release while busy behave differently. The two commands run
alternately, pair after pair (bench/timing.py), each with the same --jobs,
and the figure is the median of the per-pair ratios of their times. The
issue set "about as long as two `coverage` runs" as the goal: at most 2 x.

    python bench/diff_speed.py [--sessions N] [--events N] [--runs N] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from timing import GAPSTATE, ROOT, Comparison, compare, environment  # noqa: E402
from walks import write_sessions  # noqa: E402

OLD_ROW = "OPEN | floor_released | busy | DUE | defer_no_interrupt\n"
NEW_ROWS = ("OPEN | floor_released | busy,budget_left | DUE | defer_no_interrupt\n"
            "OPEN | floor_released | busy,!budget_left | CLEAR | unrepaired_budget\n")


def prepare(folder: str, sessions: int, events: int) -> tuple[list[str], list[str], dict]:
    """The two commands over the same freshly written sessions, and what the diff found (its `traces`)."""
    traces = os.path.join(folder, "sessions")
    os.mkdir(traces)
    write_sessions(traces, sessions, events)
    spec = os.path.join(ROOT, "spec", "gap-state.md")
    with open(spec, encoding="utf-8") as handle:
        text = handle.read()
    assert OLD_ROW in text
    old, new = os.path.join(folder, "old.md"), os.path.join(folder, "new.md")
    with open(old, "w", encoding="utf-8") as handle:
        handle.write(text)
    with open(new, "w", encoding="utf-8") as handle:
        handle.write(text.replace(OLD_ROW, NEW_ROWS, 1))
    coverage = GAPSTATE + ["coverage", "--spec", old, "--format", "json", traces]
    diff = GAPSTATE + ["diff", old, new, "--traces", traces, "--format", "json"]
    done = subprocess.run(diff, capture_output=True, text=True, env=environment(folder), cwd=ROOT)
    assert done.returncode == 1, done.stderr
    return coverage, diff, json.loads(done.stdout)["traces"]


def measure(folder: str, sessions: int, events: int, runs: int, jobs: int | None = None) -> tuple[Comparison, dict]:
    coverage, diff, found = prepare(folder, sessions, events)
    if jobs is not None:
        coverage, diff = coverage + ["--jobs", str(jobs)], diff + ["--jobs", str(jobs)]
    return compare(diff, coverage, runs, environment(folder)), found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--events", type=int, default=200, help="events a session (default 200)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=None, help="worker processes for both (default: every core)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        c, found = measure(folder, args.sessions, args.events, args.runs, args.jobs)
    assert set(c.codes) == {1}, c.codes
    total = found["events"]
    print(f"{found['read']:,} sessions, {total:,} events; {found['affected']:,} behave differently under the new table")
    print(f"coverage:       {c.baseline.median:.2f} s ({total / c.baseline.median:,.0f} events/s)")
    print(f"diff --traces:  {c.command.median:.2f} s ({total / c.command.median:,.0f} events/s)")
    print(f"diff --traces / coverage: {c.ratio.median:.2f} x (min {c.ratio.low:.2f}, max {c.ratio.high:.2f}, {c.runs} pairs)")


if __name__ == "__main__":
    main()
