"""docs/fuzz.md's Hypothesis snippet, run as a user runs it: against an implementation of their own.

The snippet imports `GapState` from `my_agent`, the user's module; here
that is examples/room_loop.py, once as written and once with a repeated
loss notice that moves the time of the last loss (the bug the page says the
default strategies catch). Only generation runs: that the test fails is the
claim, and Hypothesis' shrinking of a 40-event trace costs seconds
(bench/strategies_defaults.py measures it).
"""

from __future__ import annotations

import re
import sys
import types

import pytest
from hypothesis import Phase, seed, settings

from .support import ROOT

sys.path.insert(0, str(ROOT / "examples"))
from room_loop import RoomLoop  # noqa: E402

sys.path.pop(0)

PAGE = (ROOT / "docs" / "fuzz.md").read_text(encoding="utf-8")
[SNIPPET] = [body for body in re.findall(r"^```python[^\n]*\n(.*?)^```$", PAGE, flags=re.S | re.M)
             if "def test_my_agent_agrees_with_the_table" in body]


class Agent(RoomLoop):
    """The user's implementation, with the `handle` the snippet calls."""

    def handle(self, event):
        return self.step(event)


class DupMovesLossTime(Agent):
    """A repeated notice moves the time of the last loss: speech between the commit and the repeat then does not settle."""

    def _on_loss_voiced(self, event):
        if event["id"] in self.seen_ids:
            self.last_loss = event["t"]
            return ["note_dup"]
        return super()._on_loss_voiced(event)


def snippet_test(monkeypatch, implementation, at: int, examples: int = 100):
    """The snippet's test function, with `my_agent.GapState` the given implementation, seeded; Hypothesis' other defaults kept."""
    monkeypatch.setitem(sys.modules, "my_agent", types.SimpleNamespace(GapState=implementation))
    namespace: dict = {"__name__": "docs_fuzz_snippet"}
    exec(compile(SNIPPET, "docs/fuzz.md", "exec"), namespace)
    test = namespace["test_my_agent_agrees_with_the_table"]
    return seed(at)(settings(max_examples=examples, database=None, phases=[Phase.generate])(test))


def test_the_snippet_passes_an_implementation_of_the_table(monkeypatch):
    snippet_test(monkeypatch, Agent, 1, examples=25)()


@pytest.mark.slow  # up to three runs of 100 generated traces each: about 1.5 s of CPU
def test_the_snippet_at_the_defaults_fails_an_implementation_whose_repeated_notice_moves_the_loss_time(monkeypatch):
    """It fails for about 9 seeds in 10 (bench/strategies_defaults.py, 100 seeds); walks toward rows alone for 4 in 10.

    Which seeds depends on the process (Hypothesis mixes in constants of the
    modules loaded), so the claim is counted over three, not pinned to one
    (all three pass it about once in 600 processes, at 12% each).
    """
    caught = 0
    for at in range(1, 4):
        try:
            snippet_test(monkeypatch, DupMovesLossTime, at)()
        except AssertionError:
            caught += 1
    assert caught >= 1
