"""Whether docs/fuzz.md's Hypothesis snippet, at the strategies' defaults, catches a repeated notice that moves the loss time.

    python bench/strategies_defaults.py [SEEDS] [--shrink SEEDS]   # default 1-30, --shrink 1-5

The snippet's test runs against examples/room_loop.py with the bug (a
repeated `loss_voiced` sets the time of the last loss), at Hypothesis'
default 100 examples, generation only: for each seed, whether it failed and
after how many traces, with the default `traces(SPEC, max_size=40)` and
with `goals=False` (walks toward rows alone). `--shrink` runs the whole test
as a user does, Hypothesis' shrinking included, and prints its CPU time and
the length of the trace it ends with. SEEDS is `1-30` or `1,4,7`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "examples")]

from hypothesis import Phase, given, seed, settings  # noqa: E402
from room_loop import RoomLoop  # noqa: E402

import gapstate  # noqa: E402
from gapstate.strategies import traces  # noqa: E402

SPEC = gapstate.load_spec(None)


class DupMovesLossTime(RoomLoop):
    def _on_loss_voiced(self, event):
        if event["id"] in self.seen_ids:
            self.last_loss = event["t"]
            return ["note_dup"]
        return super()._on_loss_voiced(event)


def run(at: int, goals: bool | None, shrink: bool) -> tuple[bool, int, int, float]:
    """(failed, traces drawn, events of the last failing trace, CPU seconds) of one run of the snippet's test."""
    drawn, failing = [0], [0]
    phases = list(Phase) if shrink else [Phase.generate]

    @seed(at)
    @settings(database=None, deadline=None, phases=phases)
    @given(traces(SPEC, max_size=40, goals=goals))
    def test_my_agent_agrees_with_the_table(trace):
        drawn[0] += 1
        expected = gapstate.replay(SPEC, trace)
        agent, t = DupMovesLossTime(), 0
        for step, event in zip(expected["steps"], trace, strict=True):
            t = event.get("t", t)
            answer = agent.step({**event, "t": t})
            if (answer["state"], answer["actions"]) != (step["to"], step["actions"]):
                failing[0] = len(trace)
                raise AssertionError(step)

    start = time.process_time()
    try:
        test_my_agent_agrees_with_the_table()
        failed = False
    except AssertionError:
        failed = True
    return failed, drawn[0], failing[0], time.process_time() - start


def seeds(text: str) -> list[int]:
    if "-" in text:
        low, high = map(int, text.split("-"))
        return list(range(low, high + 1))
    return [int(part) for part in text.split(",")]


def main(argv: list[str]) -> None:
    shrink = seeds(argv[argv.index("--shrink") + 1]) if "--shrink" in argv else seeds("1-5")
    rest = [a for i, a in enumerate(argv) if a != "--shrink" and (i == 0 or argv[i - 1] != "--shrink")]
    chosen = seeds(rest[0]) if rest else seeds("1-30")
    run(0, None, False)  # explores the table once, outside the figures
    for label, goals in (("default", None), ("goals=False", False)):
        found = [(at, run(at, goals, False)) for at in chosen]
        caught = [(at, drawn) for at, (failed, drawn, _, _) in found if failed]
        print(f"{label}: failed for {len(caught)} of {len(chosen)} seeds within 100 examples; traces to the failure:",
              " ".join(f"{at}:{drawn}" for at, drawn in caught))
    for at in shrink:
        failed, drawn, events, cpu = run(at, None, True)
        print(f"seed {at} with shrinking: {'failed' if failed else 'passed'}, {drawn} test calls, "
              f"last failing trace {events} events, {cpu:.1f} s CPU")


if __name__ == "__main__":
    main(sys.argv[1:])
