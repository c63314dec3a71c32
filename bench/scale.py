"""The figures of bench/run.py that grow the input: big tables, huge caps, streaming, many ids, the conform pipe.

Each says what bounds gapstate's cost when the input is large:

- `check` of a generated 10,003-row table (bench/big_table.py 185
  --breaking: 741 states, 29,824 configurations, 9,265 findings; the
  figure's notes give the findings its untimed first run printed);
- `check` of the bundled table with both caps at 1000 (36,021,017
  configurations), which must stop (exit 2) before exploring, against
  `check` of the bundled table;
- `replay TRACE | head -3` on the 1,000,000-event trace: how long until
  gapstate has exited (141) after head took its lines;
- `replay --summary` of 1,000,000 `loss_voiced` events with distinct ids,
  against the json.loads loop over the same file, and its peak memory;
- the conform transport's round trips with a trivial answering process
  (it answers `{}` at once), so the figure is gapstate's side of the pipe;
- `classify` of reports with 200,000 and 20,000 problems
  (bench/classify_problems.py): ten times the problems, about ten times the
  time.

Each is one part of bench/run.py (`--only big-table,head`, ...): `PARTS`.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from big_table import big_table
from timing import GAPSTATE, ROOT, Spread, compare, timed

TRIVIAL = "import sys\nfor line in sys.stdin:\n    sys.stdout.write('{}\\n')\n    sys.stdout.flush()\n"


Show = Callable[..., None]


def big_table_part(folder: str, env: dict[str, str], runs: int, show: Show, figure: Any, **_: Any) -> None:
    big = os.path.join(folder, "big.md")
    with open(big, "w", encoding="utf-8") as handle:
        handle.write(big_table(185, breaking=True))
    command = GAPSTATE + ["check", "--spec", big, "--format", "json"]
    # untimed: it warms the caches, and what it prints says how many findings the timed runs make
    first = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, check=False)
    findings = len(json.loads(first.stdout)["findings"])
    done = [timed(command, env) for _ in range(runs)]
    show(figure("check of a 10,003-row table (CPU seconds)", Spread.of([r.cpu for r in done]), "s",
                "< 15", f"{findings:,} findings; {statistics.median(r.seconds for r in done):.1f} s wall; "
                f"exit {sorted({r.code for r in done})}; python bench/big_table.py 185 --breaking"))
    show(figure("check of a 10,003-row table, peak memory", Spread.of([r.peak_mib for r in done]), "MiB", "< 300"))


def budget_part(folder: str, env: dict[str, str], runs: int, show: Show, figure: Any, spec_text: str, **_: Any) -> None:
    huge = os.path.join(folder, "caps1000.md")
    with open(huge, "w", encoding="utf-8") as handle:
        handle.write(spec_text.replace("@cap session_requests 3\n", "@cap session_requests 1000\n")
                     .replace("@cap episode_attempts 2\n", "@cap episode_attempts 1000\n"))
    done = [timed(GAPSTATE + ["check", "--spec", huge, "--format", "json"], env) for _ in range(runs)]
    c = compare(GAPSTATE + ["check", "--spec", huge, "--format", "json"], GAPSTATE + ["check"], runs, env)
    show(figure("check, both caps 1000 (36,021,017 configurations), to its exit 2 (CPU s)", Spread.of([r.cpu for r in done]), "s",
                "< 1", f"{c.ratio.median:.2f} x the wall time of check bundled; exit {sorted(set(c.codes))}"))


def head_part(env: dict[str, str], runs: int, show: Show, figure: Any, trace: str, events: int, **_: Any) -> None:
    waits, cpus, codes = [], [], set()
    for _ in range(runs):
        start = time.perf_counter()
        process = subprocess.Popen(GAPSTATE + ["replay", trace], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   env=env, cwd=ROOT)
        assert process.stdout is not None
        for _ in range(3):
            process.stdout.readline()
        process.stdout.close()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        codes.add(process.returncode)
        waits.append(time.perf_counter() - start)
        cpus.append(usage.ru_utime + usage.ru_stime)
    show(figure(f"replay TRACE piped to head -3, {events:,} events: until gapstate exits (CPU s)", Spread.of(cpus), "s", "< 1",
                f"{statistics.median(waits):.2f} s wall; exit {sorted(codes)}"))


def ids_part(folder: str, env: dict[str, str], runs: int, show: Show, figure: Any, floor: list[str], **_: Any) -> None:
    ids = os.path.join(folder, "ids.jsonl")
    with open(ids, "w", encoding="utf-8") as handle:
        handle.writelines(f'{{"event":"loss_voiced","t":{n},"id":"interval-{n:012d}"}}\n' for n in range(1_000_000))
    c = compare(GAPSTATE + ["replay", "--summary", ids], [*floor, ids], max(3, runs // 2), env)
    show(figure("replay --summary, 1,000,000 distinct ids / json.loads loop", c.ratio, "x", "",
                f"{c.command.median:.2f} s against {c.baseline.median:.2f} s; exit {sorted(set(c.codes))}"))
    show(figure("replay --summary, 1,000,000 distinct ids, peak memory", c.peak_mib, "MiB", "< 100"))


def transport_part(runs: int, show: Show, figure: Any, **_: Any) -> None:
    sys.path.insert(0, ROOT)
    from gapstate.conformance.protocol import Child

    rates, walls = [], []
    for _ in range(runs):
        with Child([sys.executable, "-c", TRIVIAL]) as child:
            child.reset()
            event = {"event": "loss_silent", "t": 0}
            start, cpu = time.perf_counter(), time.process_time()
            for _ in range(20_000):
                child.step(event)
            rates.append(20_000 / (time.process_time() - cpu))
            walls.append(20_000 / (time.perf_counter() - start))
    show(figure("conform transport, trivial answering process (events per CPU s)", Spread.of(rates), "/s", ">= 25,000",
                f"{statistics.median(walls):,.0f} events/s wall (both processes share the cores); 20,000 round trips"))


def classify_problems_part(runs: int, show: Show, figure: Any, **_: Any) -> None:
    from classify_problems import LARGE, SMALL, measure

    c = measure(runs)
    show(figure(f"classify, {LARGE:,} problems / {SMALL:,} problems (linear: about 10)", c.ratio, "x", "<= 12",
                f"{c.command.median:.2f} s against {c.baseline.median:.2f} s; peak {c.peak_mib.median:.0f} MiB; "
                f"exit {sorted(set(c.codes))}; python bench/classify_problems.py"))


PARTS = {"big-table": big_table_part, "budget": budget_part, "head": head_part, "ids": ids_part,
         "transport": transport_part, "classify-problems": classify_problems_part}
