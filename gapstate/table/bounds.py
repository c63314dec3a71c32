"""The bounds `check` computes: how much one gap, episode or session can cost the candidate at most.

The prose promises progress in numbers ("two attempts per episode; three
committed requests per session") and in words (a failed send retries
"never in a loop"). Each bound here is the most a run of the table can
reach; `proof.progress` computes it from the explored graph. Like the rules,
this catalogue names actions and counters in code.
"""

from __future__ import annotations

from typing import NamedTuple

from gapstate.table.rules import SEND
from gapstate.table.vocabulary import ACTIONS, COMMITS, COUNTERS


class Bound(NamedTuple):
    """A quantity every run of the table keeps finite, and how it is counted.

    Either `counts`, the actions counted along one gap, from the step that
    opens it to the step that ends it (reopens included), or `counter`, a
    counter of the configuration whose largest reachable value is the bound.
    """

    name: str
    scope: str  # what one run of it is, as the sentence starts: "a gap"
    what: str  # what is counted, plural: "sends"
    counts: frozenset[str] = frozenset()
    counter: str | None = None

    def says(self, value: int | None) -> str:
        """The bound in a reviewer's words."""
        if value is None:
            return f"{self.scope} can take {self.what} without bound"
        return f"{self.scope} can take at most {value} {self.what}"

    def change(self, old: int | None, new: int | None) -> str:
        """A change of the bound, as `diff` reports it."""
        was = "without bound" if old is None else str(old)
        if new is None:
            return f"{self.scope} can now take {self.what} without bound, was {was}"
        return f"{self.scope} can now take {'at most ' if old is None else ''}{new} {self.what}, was {was}"


BOUNDS: tuple[Bound, ...] = (
    Bound("sends_per_gap", "a gap", "sends", counts=SEND),
    Bound("commits_per_gap", "a gap", "committed requests", counts=COMMITS),
    Bound("commits_per_session", "a session", "committed requests", counter="session_requests"),
    Bound("attempts_per_episode", "an episode", "attempts", counter="episode_attempts"),
)
BOUND_NAMES: tuple[str, ...] = tuple(bound.name for bound in BOUNDS)

# A counter bound counts what its counter counts only when the actions that add
# to it are the ones counted: the commits for the session's requests, the
# sends for the episode's attempts (open_gap and reopen_gap set it back).
assert {name for name, a in ACTIONS.items() if a.add.get("session_requests")} == COMMITS
assert {name for name, a in ACTIONS.items() if a.add.get("episode_attempts")} == SEND
assert all(bound.counter in (None, *COUNTERS) for bound in BOUNDS)
