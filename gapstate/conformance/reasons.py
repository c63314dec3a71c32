"""Why the table answered an event as it did, in words a person can fix an implementation from.

A divergence names the row that should have fired and each guard that row
reads, with the payload and history the table computed it from, e.g.
"post_send is false: speech_start 1200 is not strictly after the commit at
1200". The words come from the vocabulary (each guard's meaning, true and
false; how its payload is read); this module adds the values. It reads the
replay's `Session` as it stood before the event; it decides nothing and
prints nothing.
"""

from __future__ import annotations

from typing import Any

from gapstate.run.machine import Outcome, Status
from gapstate.run.replayer import Session
from gapstate.table.vocabulary import AFTER, COUNTERS, GUARDS, PAYLOADS, SEEN, guard_words


def guard_reasons(session: Session, event: dict[str, Any], outcome: Outcome) -> tuple[str, ...]:
    """One sentence per guard the deciding row names, from `session` as it stood before `event`."""
    if outcome.status is Status.ENDED:
        return ("the session already ended: nothing follows session_end",)
    out = [f"{name} is {'true' if value else 'false'}: {_why(name, value, session, event)}" for name, value in outcome.guards]
    if outcome.status is Status.REFUSED:
        out.append(f"{event['event']} cannot occur in {session.config.state}: the row marks it as refused")
    return tuple(out)


def _why(name: str, value: bool, session: Session, event: dict[str, Any]) -> str:
    payload = GUARDS[name].payload
    if payload is not None and payload.reads == SEEN:
        given = event.get(payload.field)
        return f"{payload.field} {given!r} was {'already' if value else 'not yet'} seen this session"
    if payload is not None and payload.reads == AFTER:
        return _after(session, payload.field, event.get(payload.field), value)
    words = guard_words(name, value)
    caps = session.machine.caps
    counted = [c for c in COUNTERS if c in GUARDS[name].meaning]  # a guard that compares a counter with its cap
    for counter in counted:
        words += f" ({counter} is {getattr(session.config, counter)}, its cap {caps.get(counter)})"
    return words


def _after(session: Session, field: str, given: Any, value: bool) -> str:
    """Why an AFTER payload is (not) after the horizon: the last commit, and the last unseen SEEN payload."""
    commit, loss = session.last_commit, session.last_loss
    if commit is None:
        return "nothing has been committed this session"
    seen = next((p.event for p in PAYLOADS.values() if p.reads == SEEN), "loss")
    against = f"the commit at {commit}" + (f" and the last unseen {seen} at {loss}" if loss is not None else "")
    return f"{field} {given} is {'' if value else 'not '}strictly after {against}"
