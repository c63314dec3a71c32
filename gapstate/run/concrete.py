"""Abstract steps made into events: the one concretizer.

An abstract step is an event, the value of the guard its payload sets (its
`choice`: `dup`, `post_send`), and how the payload or the clock realizes it
(`how`). The proof's witness traces, the conformance vectors, a shrunk fuzz
run and the strategies' guided walks all become events here, so one place
decides their times and ids: events are STEP_MS apart (SAME_MS: at the
previous event's millisecond); a SEEN value (an interval id) is fresh, or
repeats the newest id of the kind asked for (by default the newest of all);
an AFTER value (speech_start) is placed against the horizon, the later of
the last commit and the last unseen loss, 1 ms before, at or 1 ms after it
as asked (by default at it when the guard is false and 1 ms after when
true), AT_DUP at the time of the last repeated notice, and with nothing
committed at 0. Without a session to say where the horizon is (a trace read
off the proof's graph), a true AFTER guard is placed STEP_MS / 2 before its
own event, after every earlier one, and a false one at 0, after nothing.

The strategies draw their own values (a gap between events, which seen id
repeats, where speech starts) and hand them in: the concretizer keeps what
the goals and the walks read of the history, whoever chose the values.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gapstate.run.event import Event, fresh_id
from gapstate.run.machine import Outcome, Status
from gapstate.run.replayer import Session
from gapstate.table.vocabulary import ENDINGS, PAYLOADS, SEEN, WRITE_OFFS, Stimulus

STEP_MS = 100  # the time between two events, unless SAME_MS
# How a step is realized (its `how`); "" is the default.
SAME_MS = "same_ms"  # at the very millisecond of the previous event
BEFORE, AT, AFTER, AT_DUP = "before", "at", "after", "at_dup"  # an AFTER value against the horizon
EPISODE, SETTLED, WRITTEN_OFF = "episode", "settled", "written_off"  # which seen id a repeated SEEN value names
KINDS = (EPISODE, SETTLED, WRITTEN_OFF)
_OFFSET = {BEFORE: -1, AT: 0, AFTER: 1}
_ID_FIELD = {event: payload.field for event, payload in PAYLOADS.items() if payload.reads == SEEN}  # where an event names an id


class Concretizer:
    """A trace being made, event by event: the time, the ids given and their kinds, the last repeat.

    With a `session`, each event is replayed as it is fed, so the horizon
    is known and an id is filed as settled or written off when its episode
    ends; without one, nothing is replayed.
    """

    __slots__ = ("dup_at", "fed", "kinds", "session", "t")

    def __init__(self, session: Session | None = None):
        self.session = session
        self.t = 0  # the time of the last event fed
        self.fed = 0  # events fed so far
        self.kinds: dict[str, str] = {}  # every SEEN value given -> its kind (KINDS)
        self.dup_at: int | None = None  # the time of the last repeated SEEN value

    def item(self, event: str, choice: bool = False, how: str = "", *, t: int | None = None,
             seen: str | None = None, after: int | None = None) -> dict[str, Any]:
        """The next event as a trace line holds it: its time and payload as the step asks, unless given.

        `t` is the event's time, `seen` the value of a SEEN payload field,
        `after` that of an AFTER one. Nothing is noted until `feed`.
        """
        if t is None:
            t = self.t if how == SAME_MS and self.fed else self.t + STEP_MS
        payload = PAYLOADS.get(event)
        if payload is None:
            return {"event": event, "t": t}
        value: Any
        if payload.reads == SEEN:
            value = seen if seen is not None else self.repeated(how) if choice else fresh_id(len(self.kinds) + 1)
        else:
            value = after if after is not None else self._speech(choice, how, t)
        return {"event": event, "t": t, payload.field: value}

    def repeated(self, how: str = "") -> str:
        """The id a repeated SEEN value names: the newest of the kind `how` names, else the newest of all."""
        wanted = [i for i, kind in self.kinds.items() if how not in KINDS or kind == how]
        return (wanted or list(self.kinds) or [fresh_id(1)])[-1]

    def repeats(self, item: dict[str, Any]) -> bool:
        """Whether the event's SEEN value was given before (ask before `feed`)."""
        field = _ID_FIELD.get(item["event"])
        return field is not None and item.get(field) in self.kinds

    def _speech(self, choice: bool, how: str, t: int) -> int:
        if self.session is None:
            return t - STEP_MS // 2 if choice else 0
        horizon = self.session.horizon()
        if horizon is None:
            return 0
        if how == AT_DUP:
            return self.dup_at or 0
        return horizon + _OFFSET[how or (AFTER if choice else AT)]

    def feed(self, item: dict[str, Any]) -> Outcome | None:
        """Note the event (its time, the id it gives) and, with a session, replay it: its Outcome.

        An event without `t` is at the time of the one before. When a step
        ends its gap, the ids of the episode are filed as written off or
        settled, as its actions say.
        """
        self.fed += 1
        self.t = t = item.get("t", self.t)
        field = _ID_FIELD.get(item["event"])
        if field is not None:
            if item.get(field) in self.kinds:  # it repeats
                self.dup_at = t
            else:
                self.kinds[item[field]] = EPISODE
        if self.session is None:
            return None
        outcome = self.session.feed(Event(**item) if "t" in item else Event(**item, t=t))
        if outcome.status is Status.OK and ENDINGS.intersection(outcome.actions):
            kind = WRITTEN_OFF if WRITE_OFFS.intersection(outcome.actions) else SETTLED
            self.kinds.update((i, kind) for i, k in self.kinds.items() if k == EPISODE)
        return outcome


def concretize(steps: Iterable[Stimulus | tuple[Stimulus, str]], session: Session | None = None
               ) -> list[dict[str, Any]]:
    """A replayable trace for abstract steps: stimuli, or (stimulus, how) as a goal's `Way` is.

    With a session the steps are replayed as they are made, and the trace
    ends at the first event the table does not take.
    """
    made = Concretizer(session)
    make, feed = made.item, made.feed
    trace: list[dict[str, Any]] = []
    for step in steps:
        if isinstance(step[0], str):  # a stimulus starts with its event's name
            item = make(step[0], step[1])
        else:
            item = make(step[0][0], step[0][1], step[1])
        trace.append(item)
        outcome = feed(item)
        if outcome is not None and outcome.status is not Status.OK:
            break
    return trace
