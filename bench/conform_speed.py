"""How many events per second `gapstate conform` gets through, against examples/room_loop.py.

The protocol round trip is the expected cost of a conform run, so this
measures, in one run:

- the round trip with a trivial answering process (it answers `{}` at
  once): gapstate's own side of the pipe, which should allow 25,000 events/s;
- the bare round trip: one child, events sent and answered one at a time,
  nothing compared (the ceiling for any conform run over a pipe);
- the vectors alone through the protocol, compared with the table;
- a whole run through the protocol: vectors plus N generated traces
  (default 500), the way `gapstate conform --examples N` does it;
- the same whole run in process (`gapstate.conform` on the RoomLoop object),
  which leaves out the pipe and shows what generating traces costs;
- `gapstate conform --examples N -- python examples/room_loop.py` as a whole
  command, start-up and all.

    python bench/conform_speed.py [examples] [round-trip events] [--write]

With --write, the figures also go into bench/RESULTS.md under "## conform speed".
"""

from __future__ import annotations

import datetime
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import gapstate
from gapstate.conformance.conform import conform
from gapstate.conformance.protocol import Child
from gapstate.conformance.vectors import build

WRITE = "--write" in sys.argv
ARGS = [a for a in sys.argv[1:] if a != "--write"]
EXAMPLES = int(ARGS[0]) if ARGS else 500
ROUND_TRIPS = int(ARGS[1]) if len(ARGS) > 1 else 20_000
ROOM_LOOP = Path(__file__).resolve().parent.parent / "examples" / "room_loop.py"
COMMAND = [sys.executable, str(ROOM_LOOP)]


# answers `{}` at once: what is left of a round trip is gapstate's side of the pipe
TRIVIAL = [sys.executable, "-c", "import sys\nfor line in sys.stdin:\n    sys.stdout.write('{}\\n')\n    sys.stdout.flush()\n"]


def round_trips(count: int, command: list[str] = COMMAND) -> float:
    """Events per second for bare sends and answers, nothing compared."""
    with Child(command) as child:
        child.reset()
        event = {"event": "loss_silent", "t": 0}
        start = time.perf_counter()
        for _ in range(count):
            child.step(event)
        return count / (time.perf_counter() - start)


def timed(run) -> tuple[float, int]:
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result.events


def main() -> None:
    spec = gapstate.load_spec()
    suite = [(v.name, v.trace) for v in build(spec).vectors]
    spec_module = importlib.util.spec_from_file_location("room_loop", ROOM_LOOP)
    room_loop = importlib.util.module_from_spec(spec_module)
    spec_module.loader.exec_module(room_loop)

    bare = statistics.median(round_trips(ROUND_TRIPS) for _ in range(3))
    trivial = statistics.median(round_trips(ROUND_TRIPS, TRIVIAL) for _ in range(3))

    def over_pipe(examples: int) -> tuple[float, int]:
        with Child(COMMAND) as child:
            child.reset()  # the child is up: its start-up is not part of the rate
            return timed(lambda: conform(spec, child, suite, examples=examples, seed=0))

    vec_time, vec_events = min(over_pipe(0) for _ in range(3))
    pipe_time, pipe_events = over_pipe(EXAMPLES)
    proc_time, proc_events = timed(lambda: conform(spec, room_loop.RoomLoop(bug=""), suite, examples=EXAMPLES, seed=0))

    command = [sys.executable, "-m", "gapstate", "conform", "--examples", str(EXAMPLES), "--format", "json", "--", *COMMAND]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    whole_time = time.perf_counter() - start
    whole_events = json.loads(done.stdout)["events"] if done.returncode == 0 else 0

    said = [
        f"round trip, trivial answering process (median of 3):  {trivial:10,.0f} events/s  (goal >= 25,000)",
        f"bare protocol round trip ({ROUND_TRIPS:,} events, median of 3): {bare:10,.0f} events/s",
        f"vectors only, over the pipe ({vec_events} events, best of 3):  {vec_events / vec_time:10,.0f} events/s",
        f"vectors + {EXAMPLES} generated traces, over the pipe:   {pipe_events / pipe_time:10,.0f} events/s"
        f"  ({pipe_events:,} events in {pipe_time:.2f} s)",
        f"vectors + {EXAMPLES} generated traces, in process:       {proc_events / proc_time:10,.0f} events/s"
        f"  ({proc_events:,} events in {proc_time:.2f} s)",
        f"gapstate conform --examples {EXAMPLES}, whole command:   {whole_events / whole_time:10,.0f} events/s"
        f"  ({whole_events:,} events in {whole_time:.2f} s)",
    ]
    print("\n".join(said))
    if WRITE:
        from timing import write_section

        stamp = datetime.datetime.now(datetime.UTC)
        load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
        print("wrote " + write_section("## conform speed", [
            "",
            f"Written by `python bench/conform_speed.py {' '.join(ARGS + ['--write'])}` at {stamp:%Y-%m-%d %H:%M} UTC "
            f"(load average {load} after; wall-clock rates, so the load shows in them):",
            "",
            *["    " + line for line in said],
        ]))


if __name__ == "__main__":
    main()
