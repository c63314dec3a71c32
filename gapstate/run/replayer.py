"""Replaying a trace: the concrete history around the machine's pure step.

The machine knows only whether the guard an event's payload sets holds. This
module keeps what decides it (`vocabulary.Payload.reads`): the values seen
this session (SEEN), and the times of the last commit and of the last unseen
value (AFTER's horizon). It consumes events as an iterator, so a long trace
streams.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import msgspec

from gapstate.results import Result
from gapstate.run.ids import SHORT, Ids
from gapstate.run.machine import Machine, Outcome, Status, compiled
from gapstate.table.load import Spec
from gapstate.table.rules import RULES
from gapstate.table.vocabulary import AFTER, CHOICE_OF, COUNTERS, PAYLOADS, SEEN, Config

if TYPE_CHECKING:
    from gapstate.run.event import Event, Settled

_DESCRIPTIONS = {rule.id: rule.description for rule in RULES}


@dataclass(frozen=True)
class ReplayError:
    """Why a replay stopped: `invalid_event`, `after_session_end` or `rule`."""

    index: int
    kind: str
    message: str
    line: int  # the trace line of the event

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "kind": self.kind, "message": self.message}


class Step(msgspec.Struct, frozen=True, gc=False):
    """One replayed event: where it stood, and the machine's Outcome (which holds the row and the after).

    One small object a step, built in C and not tracked by the garbage
    collector (it holds only strings, numbers and shared tuples), so keeping
    a million steps costs no collection passes; the JSON shape is built only
    when `to_dict` is asked for.
    """

    index: int
    event: str
    before: Config
    outcome: Outcome
    line: int = 0  # the trace line of the event, as people count (the index counts from 0)
    item: Settled | None = None  # the event as read (and settled): its t, id and speech_start
    horizon: int | None = None  # for an AFTER payload: the time its value had to follow

    @property
    def source(self) -> str:
        return self.before.state

    @property
    def target(self) -> str:
        return self.outcome.config.state

    @property
    def row(self) -> int:
        return self.outcome.row.line  # type: ignore[union-attr]  # a Step is only made for a fired row

    @property
    def guards(self) -> dict[str, bool]:
        return dict(self.outcome.guards)

    @property
    def actions(self) -> tuple[str, ...]:
        return self.outcome.actions

    @property
    def counters(self) -> dict[str, int]:
        return counters(self.outcome.config)

    def to_dict(self) -> dict[str, Any]:
        outcome = self.outcome
        return {
            "index": self.index,
            "event": self.event,
            "from": self.before.state,
            "to": outcome.config.state,
            "row": outcome.row.line,  # type: ignore[union-attr]
            "guards": dict(outcome.guards),
            "actions": list(outcome.actions),
            "counters": counters(outcome.config),
        }


@dataclass(frozen=True)
class ReplayResult(Result):
    """The outcome of `replay`, shaped like its JSON output."""

    steps: tuple[Step, ...] | None  # None when only the summary was asked for
    final: Config
    error: ReplayError | None
    events: int  # how many events were replayed or refused

    @property
    def ok(self) -> bool:
        return self.error is None

    def final_dict(self) -> dict[str, Any]:
        return {
            "state": self.final.state,
            "counters": counters(self.final),
            "debt_owed": self.final.debt_owed,
            "ended": self.final.ended,
        }

    def to_dict(self, with_steps: bool = True) -> dict[str, Any]:
        """The replay document; `with_steps=False` leaves the steps out (the CLI streams them)."""
        out: dict[str, Any] = {"ok": self.ok}
        if with_steps and self.steps is not None:
            out["steps"] = [step.to_dict() for step in self.steps]
        out["final"] = self.final_dict()
        out["error"] = self.error.to_dict() if self.error else None
        return out

    def __getitem__(self, key: str) -> Any:
        """`result["steps"]` builds every step's dict once; the other keys build no step."""
        if key == "steps":
            return super().__getitem__(key)
        return self.to_dict(with_steps=False)[key]


def counters(config: Config) -> dict[str, int]:
    return {name: getattr(config, name) for name in COUNTERS}


def machine_for(spec: Spec) -> Machine:
    """The spec's table compiled for stepping (once per table), or GapstateError when it cannot be stepped."""
    return compiled(spec.require_steppable())


def _payload(reads: str) -> tuple[str, str, str]:
    """The event whose payload the history reads as `reads`, and its Memo keys when its guard is false and true.

    Never the bare event name, which the loop looks up first.
    """
    (event,) = [event for event, payload in PAYLOADS.items() if payload.reads == reads]
    return event, f"{event} not_{CHOICE_OF[event]}", f"{event} {CHOICE_OF[event]}"


# The replay loop reads the two payloads inline, by their fields' names: a
# vocabulary with other payloads needs its loop taught them.
_SEEN_EVENT, _SEEN_NO, _SEEN_YES = _payload(SEEN)
_AFTER_EVENT, _AFTER_NO, _AFTER_YES = _payload(AFTER)
assert len(PAYLOADS) == 2 and (PAYLOADS[_SEEN_EVENT].field, PAYLOADS[_AFTER_EVENT].field) == ("id", "speech_start")


@dataclass(frozen=True, slots=True)
class Stop:
    """Where `Session.run` stopped: the event (index, name), its Outcome (refused or breaking a rule), the configuration before."""

    index: int
    event: str
    outcome: Outcome
    before: Config


class Session:
    """The interpreter: a configuration and the history around it, fed events in order.

    `run` feeds events until one is refused or breaks a rule; `feed` is
    `run` for one event. The history (ids seen, the last commit's and the
    last unseen loss's times) decides the payload guards here and nowhere
    else; an event the machine refuses changes nothing.

    The configuration is held as a `machine.Memo`, whose dict memoises the
    steps already taken from it: after warm-up a step is one lookup.
    """

    __slots__ = ("machine", "memo", "seen", "last_commit", "last_loss", "read")

    def __init__(self, machine: Machine):
        self.machine = machine
        self.memo = machine.memo(machine.initial)
        self.seen = Ids()  # SEEN payload values (interval ids) given this session
        self.last_commit: int | None = None  # t of the send_ok that last committed
        self.last_loss: int | None = None  # t of the last unseen voiced loss
        self.read = 0  # the index after the last event `run` read

    @property
    def config(self) -> Config:
        return self.memo.config

    def horizon(self) -> int | None:
        """The time an AFTER payload's value must be strictly after for its guard; None before any commit.

        After the last commit, and after the last unseen voiced loss (times are never negative).
        """
        commit, loss = self.last_commit, self.last_loss
        if commit is None or loss is None or loss < commit:
            return commit
        return loss

    def feed(self, item: Event) -> Outcome:
        """One event: the machine's Outcome (a refused one changes nothing)."""
        move = self.memo.get(item.event)  # as `run` takes an event whose payload sets no guard, taken from here before
        if move is not None:
            self.memo = move[0]
            self.read = 1
            return move[1]
        taken: list[Step] = []
        stop = self.run((item,), taken.append)
        return taken[0].outcome if taken else stop.outcome  # type: ignore[union-attr]

    def run(
        self,
        events: Iterable[Event],
        record: Callable[[Step], None] | None = None,
        start: int = 0,
        line_of: Callable[[int], int] | None = None,
    ) -> Stop | None:
        """Feed events in order until one is refused or breaks a rule; None when every one replayed.

        Each step taken goes to `record` as a `Step` (indexed from `start`,
        its trace line from `line_of(index)`, else index + 1), the
        rule-breaking one included. This loop is replay's hot path: it
        decides the payload's guard inline (SEEN from the values seen, AFTER
        as `horizon` says), and a step already taken from this configuration
        is one dict lookup.
        """
        machine = self.machine
        memo = self.memo
        seen = self.seen
        plain = seen.plain()  # while not None, the ids are tested and added in C (see Ids.plain)
        short, room = SHORT, seen.limit - len(seen)
        seen_event, seen_no, seen_yes = _SEEN_EVENT, _SEEN_NO, _SEEN_YES
        after_event, after_no, after_yes = _AFTER_EVENT, _AFTER_NO, _AFTER_YES
        commit, loss = self.last_commit, self.last_loss
        ok = Status.OK
        stop = None
        index = start - 1
        make = Step
        for index, item in enumerate(cast("Iterable[Settled]", events), start):  # the reader settled them
            name = item.event
            move = memo.get(name)  # an event whose payload sets no guard, taken from here before
            horizon = None  # for an AFTER payload: the time its value must follow
            if move is None:
                fresh = None  # a SEEN payload's value given for the first time
                if name == seen_event:
                    value = item.id
                    choice = value in plain if plain is not None else value in seen
                    if choice:
                        key = seen_yes
                    else:
                        key = seen_no
                        fresh = value
                elif name == after_event:
                    if commit is None:
                        choice = False
                        key = after_no
                    else:
                        horizon = commit if loss is None or commit > loss else loss
                        choice = item.speech_start > horizon
                        key = after_yes if choice else after_no
                else:
                    choice = False
                    key = name
                move = memo.get(key)
                if move is None:
                    # not taken from here before, or not to be memoised: step the machine
                    outcome = machine.step(memo.config, name, choice)
                    if outcome.status is not ok:
                        stop = Stop(index, name, outcome, memo.config)
                        break
                    move = (machine.memo(outcome.config), outcome)
                    if outcome.broken:  # taken, and the last: the history moves as for any step
                        stop = Stop(index, name, outcome, memo.config)
                        if record is not None:
                            line = index + 1 if line_of is None else line_of(index)
                            record(make(index, name, memo.config, outcome, line, item, horizon))
                        if fresh is not None:
                            seen.add(fresh)
                            loss = item.t
                        if outcome.commits:
                            commit = item.t
                        memo = move[0]
                        break
                    if outcome.commits:
                        commit = item.t
                    else:
                        memo[key] = move
                if fresh is not None:
                    if plain is not None and room > 0 and len(fresh) <= short:
                        plain.add(fresh)
                        room -= 1
                    else:
                        seen.add(fresh)
                        plain, room = seen.plain(), seen.limit - len(seen)
                    loss = item.t
            if record is not None:
                record(make(index, name, memo.config, move[1], index + 1 if line_of is None else line_of(index), item, horizon))
            memo = move[0]
        self.memo = memo
        self.last_commit, self.last_loss = commit, loss
        self.read = index + 1
        return stop


def replay(
    spec: Spec,
    events: Iterable[Event],
    keep_steps: bool = True,
    on_step: Callable[[Step], None] | None = None,
) -> ReplayResult:
    """Run checked events (see `trace.Events`) through the table until the first error.

    Steps are kept in the result, or handed to `on_step` as they happen (the
    CLI spools them, so a long trace is never held in memory), or both.
    After an error the remaining events are still read, so that a malformed
    line anywhere in the trace is reported (as GapstateError) rather than
    silently skipped. An error's `line` is `events.line_of(index)`: the trace
    file's line, or the event's 1-based number for events given as dicts.
    """
    session = Session(machine_for(spec))
    steps: list[Step] | None = [] if keep_steps else None
    record = steps.append if steps is not None else None
    if on_step is not None and record is not None:
        keep, also = record, on_step

        def record(step: Step) -> None:
            keep(step)
            also(step)
    elif on_step is not None:
        record = on_step
    iterator = iter(events)
    # a trace file's events say their line; a list's line is its position + 1
    positional = getattr(events, "positional", False) or not hasattr(events, "line_of")
    line_of = None if positional else events.line_of  # type: ignore[attr-defined]
    stop = session.run(iterator, record, line_of=line_of)
    error: ReplayError | None = None
    if stop is not None:
        error = stop_error(stop, line_of(stop.index) if line_of is not None else stop.index + 1)
    total = session.read + sum(1 for _ in iterator)  # reading the rest validates it
    return ReplayResult(tuple(steps) if steps is not None else None, session.config, error, total)


def stop_error(stop: Stop, line: int) -> ReplayError:
    """Why `Session.run` stopped, as replay reports it; `line` is the trace line of the event."""
    outcome = stop.outcome
    if outcome.status is not Status.OK:
        return _refusal(stop.index, stop.event, line, stop.before, outcome)
    broken = "; ".join(f"{rid}: {_DESCRIPTIONS[rid]}" for rid in outcome.broken)
    return ReplayError(stop.index, "rule", f"row at line {outcome.row.line} breaks {broken}", line)  # type: ignore[union-attr]


def _refusal(index: int, event: str, line: int, config: Config, outcome: Outcome) -> ReplayError:
    if outcome.status == Status.ENDED:
        return ReplayError(index, "after_session_end", f"{event} after session_end: nothing follows the end of the session", line)
    if outcome.status == Status.REFUSED:
        assert outcome.row is not None, "a refused step names the row that marks it invalid"
        return ReplayError(
            index,
            "invalid_event",
            f"{event} cannot occur in {config.state} (row at line {outcome.row.line} marks it invalid)",
            line,
        )
    return ReplayError(
        index,
        "invalid_event",
        f"no row matches {event} in {config.state}: the table is not total here (run `gapstate check`)",
        line,
    )
