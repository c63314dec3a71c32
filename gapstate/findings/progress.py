"""The findings of the progress checks: a gap that can no longer end, and a loop that sends forever."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Any

from gapstate.findings.record import Cause, Finding, own_events, record
from gapstate.words import plural


@record
class StuckGap(Finding):
    """A step enters a configuration in a gap from which no events but `session_end` end the gap.

    `trace` replays the way there, this row's step last.
    """

    kind = "stuck_gap"
    template = "enters {state} where no events but session_end can end the gap (shortest trace: {events})"
    exported = ("state", "trace")

    state: str
    trace: Sequence[dict[str, Any]] = field()  # no default: the base's () is for the other kinds

    def parts(self) -> dict[str, Any]:
        return {"state": self.state, "events": plural(len(self.trace), "event")}

    def export(self) -> dict[str, Any]:
        return {"state": self.state, "trace": own_events(self.trace)}

    def as_cause(self) -> Cause:
        return Cause(self.kind, self.line, state=self.state)


@record
class RetryLoop(Finding):
    """A row sends on a cycle of steps inside one gap: the room can fail and resend forever.

    A lasso: `trace` reaches the cycle, `cycle` goes round it once and
    returns to where it started; repeated (with later times and fresh
    interval ids each time round), it sends without end.
    """

    kind = "retry_loop"
    template = ("sends on a cycle inside one gap, which can send forever ({events}, then {cycle} that repeat, "
                "through {rows})")
    exported = ("trace", "cycle", "rows")

    trace: Sequence[dict[str, Any]] = field()
    cycle: Sequence[dict[str, Any]] = field()
    rows: tuple[int, ...] = field()  # the lines of the rows whose steps make the cycle: the mistake is one of them

    def parts(self) -> dict[str, Any]:
        return {"events": plural(len(self.trace), "event"), "cycle": len(self.cycle),
                "rows": ("line " if len(self.rows) == 1 else "lines ") + ", ".join(map(str, self.rows))}

    def export(self) -> dict[str, Any]:
        return {"trace": own_events(self.trace), "cycle": own_events(self.cycle), "rows": list(self.rows)}
