"""An implementation's answers, beside the table's: what the protocol allows, and where the two part.

`conformance.py` runs traces and shrinks what diverges; this module is the
comparison it makes at each event, pure data in and out, shared by the
Python API and the line protocol.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from gapstate.run.event import PAYLOAD_FIELDS, Event
from gapstate.run.machine import Outcome, Status
from gapstate.run.replayer import Session, counters
from gapstate.table.vocabulary import COUNTERS
from gapstate.words import as_json

REFUSALS = ("invalid_event", "after_session_end")
_COUNTER_NAMES = frozenset(COUNTERS)


# The table's side ------------------------------------------------------------


def wire(trace: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events as the protocol sends them: the trace format with `t` always present."""
    out = []
    t = 0
    for item in trace:
        t = item.get("t", t)
        event: dict[str, Any] = {"event": item["event"], "t": t}
        for key in PAYLOAD_FIELDS:
            if key in item:
                event[key] = item[key]
        out.append(event)
    return out


def table_answer(session: Session, event: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
    """The table's answer to `event`, in the protocol's shape, and the line of the row that decided it.

    Feeds the event to `session`; a refused event leaves it as it was.
    """
    return _shaped(session.feed(Event(**event)))


def table_answers(session: Session, events: Sequence[dict[str, Any]]) -> list[tuple[dict[str, Any], int | None]]:
    """`table_answer` for each event in turn, up to and including the first the table refuses.

    The same answers, from one `Session.run` over the trace (a stretch per
    rule broken, after which `run` stops and the next stretch goes on)
    rather than a `Session.feed` per event: the loop's set-up is paid once.
    """
    items = [Event(**event) for event in events]
    out: list[tuple[dict[str, Any], int | None]] = []
    keep = out.append
    start = 0
    while start < len(items):
        stop = session.run(items[start:] if start else items, lambda step: keep(_shaped(step.outcome)), start)
        if stop is None:
            break
        if stop.outcome.status is not Status.OK:  # refused: the trace ends here
            keep(_shaped(stop.outcome))
            break
        start = stop.index + 1  # it broke a rule, taken and kept: the rest goes on
    return out


_KNOWN = 4096  # Outcomes an Answers keeps the shape of, at most: it starts afresh past them


class Answers:
    """`table_answer`'s shape for an Outcome already stepped, built once per Outcome.

    The interpreter hands back the same Outcome for every step it memoised
    (most of a trace's), so its answer is built once and looked up by the
    Outcome's identity after (the Outcome is kept with it, so its identity
    is never another's). Treat the answers as read only: they are shared.
    """

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: dict[int, tuple[Outcome, tuple[dict[str, Any], int | None]]] = {}

    def __call__(self, outcome: Outcome) -> tuple[dict[str, Any], int | None]:
        known = self._known.get(id(outcome))
        if known is None:
            if len(self._known) >= _KNOWN:
                self._known.clear()
            known = self._known[id(outcome)] = (outcome, _shaped(outcome))
        return known[1]


def _shaped(outcome: Outcome) -> tuple[dict[str, Any], int | None]:
    row = outcome.row.line if outcome.row is not None else None
    if outcome.status is Status.OK:
        config = outcome.config
        answer = {
            "state": config.state,
            "actions": list(outcome.actions),
            "counters": counters(config),
            "debt_owed": config.debt_owed,
        }
        return answer, row
    return {"refused": "after_session_end" if outcome.status is Status.ENDED else "invalid_event"}, row


# The implementation's side -----------------------------------------------------


def protocol_problem(answer: Any) -> str | None:
    """Why an answer to an event is not one the protocol allows, or None when it is."""
    if not isinstance(answer, dict):
        return f"an answer must be a JSON object, not {_kind(answer)}"
    if "refused" in answer:
        if answer["refused"] not in REFUSALS:
            return f"'refused' must be one of {', '.join(map(repr, REFUSALS))}, not {shown(answer['refused'])}"
        return None
    if not isinstance(answer.get("state"), str):
        return "'state' must be a string" if "state" in answer else "missing 'state' (or 'refused')"
    actions = answer.get("actions")
    if not isinstance(actions, (list, tuple)) or not all(map(str.__instancecheck__, actions)):  # each isinstance(a, str)
        return "'actions' must be a list of strings" if "actions" in answer else "missing 'actions'"
    if "counters" in answer:
        given = answer["counters"]
        if not isinstance(given, dict) or not given.keys() >= _COUNTER_NAMES:
            return f"'counters' must be an object with {' and '.join(COUNTERS)}"
        if not all([type(given[name]) is int for name in COUNTERS]):
            return "'counters' values must be integers"
    if "debt_owed" in answer and not isinstance(answer["debt_owed"], bool):
        return "'debt_owed' must be true or false"
    return None


def shown(value: Any) -> str:
    """An answer as the message shows it: its JSON (a sketch, when it holds what JSON cannot: `words.as_json`), cut short."""
    text = as_json(value)
    return text if len(text) <= 200 else text[:200] + "..."


def _kind(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def agrees(expected: dict[str, Any], actual: Any) -> bool:
    """Whether an answer is in the protocol and agrees with the table's, for the answer most give, in a third of the time.

    True only where `protocol_problem` finds nothing and `differences` none:
    a state and its actions, counters of ints and debt as the table's. Any
    other answer is False, for those two to judge.
    """
    if type(actual) is not dict or "refused" in actual or "refused" in expected:
        return False
    state, actions, counters = actual.get("state"), actual.get("actions"), actual.get("counters")
    return (
        isinstance(state, str)
        and state == expected["state"]
        and type(actions) is list
        and actions == expected["actions"]
        and all(map(str.__instancecheck__, actions))
        and type(counters) is dict
        and counters == expected["counters"]
        and all([type(value) is int for value in counters.values()])
        and actual.get("debt_owed") is expected["debt_owed"]
    )


def differences(expected: dict[str, Any], actual: dict[str, Any]) -> tuple[str, ...]:
    """The fields in which a protocol answer parts from the table's; empty when they agree.

    Counters and debt are compared only when the answer gives them; other
    keys an answer carries are not the protocol's and are not compared.
    """
    if "refused" in expected or "refused" in actual:
        return () if expected.get("refused") == actual.get("refused") else ("refused",)
    fields = ["state"] if expected["state"] != actual["state"] else []
    fields += ["actions"] if expected["actions"] != list(actual["actions"]) else []  # a tuple, in process
    if "counters" in actual and any(expected["counters"][n] != actual["counters"][n] for n in COUNTERS):
        fields.append("counters")
    fields += ["debt_owed"] if "debt_owed" in actual and expected["debt_owed"] != actual["debt_owed"] else []
    return tuple(fields)
