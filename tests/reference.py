"""The plain reference: stepping, replaying and reading a trace, written to be read, not to be fast.

`machine`, `replayer` and `trace` are fast: compiled lookups, memoised
steps and nodes, the payload's guard decided inline, chunks of lines decoded
in one call. This module says the same things the obvious way, straight
from the table and the vocabulary, with no cache, and the property tests
check that the fast paths agree with it (tests/test_run_reference.py).
It lives with the tests: the package never calls it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from gapstate.files.source import as_lf
from gapstate.run.event import FIELDS, LATEST, TEXTS, TIMES
from gapstate.run.machine import Outcome, Status
from gapstate.table.model import Table
from gapstate.table.rules import RULES, Transition
from gapstate.table.vocabulary import (
    COMMITS,
    EVENTS,
    GUARDS,
    INVALID,
    PAYLOADS,
    SEEN,
    Config,
    action,
)


def step(table: Table, before: Config, event: str, choice: bool = False) -> Outcome:
    """One event from `before`: the first row, in table order, that the event and every guard match."""
    if before.ended:
        return Outcome(Status.ENDED, before, None, (), (), (), False)
    caps = table.cap_limits()
    mid = before._replace(**EVENTS[event].sets)
    guards = {}
    for name, guard in GUARDS.items():
        if guard.derive is not None:
            guards[name] = guard.derive(mid, caps)
        else:
            assert guard.payload is not None, "a guard not derived is chosen by its event's payload"
            guards[name] = choice if guard.payload.event == event else False
    matching = [
        row for row in table.rows
        if row.event == event and row.applies_to(mid.state) and all(guards[lit.guard] == lit.positive for lit in row.guards)
    ]
    if not matching:
        return Outcome(Status.UNMATCHED, before, None, (), (), (), False)
    row = matching[0]
    named = tuple((name, guards[name]) for name in dict.fromkeys(lit.guard for lit in row.guards))  # as the row writes them
    assert table.initial is not None, "a table with no initial state is refused when it is loaded"
    if row.invalid:  # only the rules about refusals read a refused step, which changes nothing
        refusal = Transition(before, mid, before, event, guards, row.actions, table.initial, caps)
        refused = tuple(rule.id for rule in RULES if INVALID in rule.on and rule.broken(refusal))
        return Outcome(Status.REFUSED, before, row, named, row.actions, refused, False)
    after = mid._replace(**EVENTS[event].then)
    for name in row.actions:
        does = action(name)
        after = after._replace(**{counter: getattr(after, counter) + delta for counter, delta in does.add.items()})
        after = after._replace(**does.sets)
    after = after._replace(state=row.target(mid.state))
    assert table.initial is not None, "a table with no initial state is refused when it is loaded"
    transition = Transition(before, mid, after, event, guards, row.actions, table.initial, caps)
    broken = tuple(rule.id for rule in RULES if rule.broken(transition))  # every rule, on every step
    return Outcome(Status.OK, after, row, named, row.actions, broken, any(a in COMMITS for a in row.actions))


def replay(table: Table, events: Iterable[Any]) -> Iterator[tuple[Outcome, Config]]:
    """(outcome, configuration before) per event, until one is refused, falls through the table or breaks a rule."""
    assert table.initial is not None, "a table with no initial state is refused when it is loaded"
    config = Config(state=table.initial)
    seen: set[str] = set()  # SEEN payload values given so far
    last_commit = last_unseen = None  # times: of the last commit, of the last new SEEN value
    for item in events:
        payload = PAYLOADS.get(item.event)
        choice = False
        if payload is not None:
            value = getattr(item, payload.field)
            if payload.reads == SEEN:
                choice = value in seen
            elif last_commit is not None:
                horizon = last_commit if last_unseen is None else max(last_commit, last_unseen)
                choice = value > horizon
        outcome = step(table, config, item.event, choice)
        yield outcome, config
        if outcome.status is not Status.OK:
            return
        if payload is not None and payload.reads == SEEN and not choice:
            seen.add(value)
            last_unseen = item.t
        if outcome.commits:
            last_commit = item.t
        config = outcome.config
        if outcome.broken:
            return


_WHOLE = range(0, LATEST + 1)  # a time is a whole number of milliseconds that fits a signed 64-bit integer


def _unicode(text: str) -> bool:
    """No lone surrogate (`\\ud800` in JSON): text that UTF-8 can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _event(text: str, last: int) -> dict[str, Any] | None:
    """The event a trace line holds, `t` filled in from `last`; None when the line is malformed."""
    pairs: list[tuple[str, Any]] = []

    def keep(items: list[tuple[str, Any]]) -> dict[str, Any]:
        pairs.extend(items)
        return dict(items)

    try:
        value = json.loads(text, object_pairs_hook=keep)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or len(pairs) != len({key for key, _ in pairs}):
        return None  # not an object, or a field named twice (anywhere in the line)
    if not set(value) <= set(FIELDS) or value.get("event") not in EVENTS:
        return None
    for key in TIMES:
        if key in value and not (type(value[key]) is int and value[key] in _WHOLE):
            return None
    for key in TEXTS:
        if key in value and not (isinstance(value[key], str) and value[key] and _unicode(value[key])):
            return None
    payload = PAYLOADS.get(value["event"])
    if payload is not None and payload.field not in value:
        return None
    value.setdefault("t", last)
    return value if value["t"] >= last else None


def read(data: bytes) -> tuple[list[dict[str, Any]], list[int]]:
    """A trace file's events, and the lines (from 1) that are malformed; blank lines are skipped.

    After a malformed line the events stop, but every later line is still
    judged, against the time of the last good one.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    data = as_lf(data)  # a file with classic Mac OS line ends (CR) is read as one with LF
    events: list[dict[str, Any]] = []
    bad: list[int] = []
    last = 0
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if not line.strip(b" \t\r\n\x0b\x0c"):
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            bad.append(number)
            continue
        event = _event(text, last)
        if event is None:
            bad.append(number)
            continue
        last = event["t"]
        if not bad:
            events.append(event)
    return events, bad
