"""How fast replay runs, in process and as a whole command, and how much memory it holds.

Generates a well-formed trace of N events (default 1,000,000) by walking the
bundled table at random, then measures in one run:

- interpreter steps per second in process (events already decoded);
- `gapstate replay --summary TRACE` as a whole process, against a plain
  Python process that only `json.loads` the same file line by line (goal: at
  most 0.6 of it), as medians of interleaved runs;
- the peak resident memory of the replay process (goal: under 80 MiB).

    python bench/replay_speed.py [events] [runs]
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time

from timing import GAPSTATE, compare

from gapstate.machine import Status, Machine
from gapstate.replayer import replay
from gapstate.spec import load_spec
from gapstate.trace import read_trace

EVENTS = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
JSON_LOADS = "import json, sys\nfor line in open(sys.argv[1], 'rb'):\n    json.loads(line)\n"


def write_trace(path: str, count: int, seed: int = 7) -> None:
    """A random walk over events the table allows, with plausible payloads, and no session_end."""
    rng = random.Random(seed)
    machine = Machine(load_spec().table)
    names = [e for e in ("loss_silent", "sdk_unknown", "loss_voiced", "busy_start", "busy_end", "candidate_start",
                         "floor_released", "send_ok", "send_failed", "request_undelivered", "evidence_turn")]
    config, t, fresh = machine.initial, 0, 0
    with open(path, "w", encoding="utf-8") as out:
        written = 0
        while written < count:
            name = rng.choice(names)
            t += rng.randint(0, 40)
            item: dict = {"event": name, "t": t}
            choice = False
            if name == "loss_voiced":
                choice = fresh > 0 and rng.random() < 0.3
                if not choice:
                    fresh += 1
                item["id"] = f"iv-{rng.randint(1, fresh) if choice else fresh}"
            elif name == "evidence_turn":
                item["speech_start"] = max(0, t - rng.randint(0, 200))
            outcome = machine.step(config, name, choice)
            if outcome.status != Status.OK:
                if name == "loss_voiced" and not choice:
                    fresh -= 1
                continue
            # let replay decide post_send itself: the walk only needs valid events
            config = outcome.config
            out.write(json.dumps(item) + "\n")
            written += 1


def main() -> None:
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "trace.jsonl")
    write_trace(path, EVENTS)
    size = os.path.getsize(path)

    events = list(read_trace(path))
    spec = load_spec()
    replay(spec, events[:1000], keep_steps=False)  # warm the memo
    start = time.perf_counter()
    result = replay(spec, events, keep_steps=False)
    in_process = time.perf_counter() - start
    del events

    command = GAPSTATE + ["replay", "--summary", path]
    whole = compare(command, [sys.executable, "-c", JSON_LOADS, path], RUNS, folder)
    # peak memory: one more replay, alone in a fresh parent so its maxrss is the replay's own
    probe = subprocess.run(
        [sys.executable, "-c",
         "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL);"
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)", *command],
        capture_output=True, text=True, check=True,
    )
    peak_kib = int(probe.stdout.strip())

    print(f"trace: {EVENTS:,} events, {size / 2**20:.1f} MiB; replay ok: {result.ok}, final {result.final.state}")
    print(f"in-process steps per second:            {EVENTS / in_process:12,.0f}")
    print(f"gapstate replay --summary (median of {RUNS}): {whole.command:8.2f} s")
    print(f"json.loads line by line (median of {RUNS}):   {whole.baseline:8.2f} s")
    print(f"median ratio replay / json.loads:       {whole.ratio:8.2f}   (goal <= 0.6)")
    print(f"peak memory of gapstate replay:         {peak_kib / 1024:8.1f} MiB (goal < 80)")


if __name__ == "__main__":
    main()
