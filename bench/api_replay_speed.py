"""How fast `gapstate.replay(spec, events)` runs in process, on events already decoded to dicts.

Writes a well-formed trace of N events (default 300,000) with the same
random walk as replay_speed.py, decodes it to dicts, then times the public
call (which keeps every step) and, separately, turning its result into the
JSON document (`to_dict`). Best of R runs, since nothing else varies.

    python bench/api_replay_speed.py [events] [runs]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

from replay_speed import write_trace

import gapstate

EVENTS = int(sys.argv[1]) if len(sys.argv) > 1 else 300_000
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 3


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.jsonl")
        write_trace(path, EVENTS)
        with open(path, "rb") as handle:
            events = [json.loads(line) for line in handle]
    spec = gapstate.load_spec()
    gapstate.replay(spec, events[:1000])  # warm the memo
    replays, documents = [], []
    for _ in range(RUNS):
        start = time.perf_counter()
        result = gapstate.replay(spec, events)
        replays.append(time.perf_counter() - start)
        start = time.perf_counter()
        result.to_dict()
        documents.append(time.perf_counter() - start)
    print(f"{EVENTS:,} decoded events; replay ok: {result.ok}")
    print(f"gapstate.replay events per second (best of {RUNS}):  {EVENTS / min(replays):12,.0f}")
    print(f"replay + to_dict events per second (best of {RUNS}): {EVENTS / (min(replays) + min(documents)):12,.0f}")


if __name__ == "__main__":
    main()
