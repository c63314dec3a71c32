"""Replaying a trace: the concrete history around the machine's pure step.

The machine knows only whether an event's chosen guard holds. This module
keeps what decides it: the interval ids seen this session (for `dup`) and the
times of the last commit and of the last unseen voiced loss (for
`post_send`). It consumes events as an iterator, so a long trace streams.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .machine import Machine, Outcome, Status, compiled
from .semantics import COUNTERS, RULES, Config
from .spec import Spec

if TYPE_CHECKING:
    from .trace import Event

_DESCRIPTIONS = {rule.id: rule.description for rule in RULES}
_OK = Status.OK  # a module global: the replay loop compares with it once or twice an event


@dataclass(frozen=True)
class ReplayError:
    """Why a replay stopped: `invalid_event`, `after_session_end` or `rule`."""

    index: int
    kind: str
    message: str
    line: int  # the trace line of the event

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "kind": self.kind, "message": self.message}


class Step(NamedTuple):
    """One replayed event: where it stood, and the machine's Outcome (which holds the row and the after).

    Holding the memoised Outcome costs one tuple a step; the JSON shape is
    built only when `to_dict` is asked for.
    """

    index: int
    event: str
    before: Config
    outcome: Outcome
    line: int = 0  # the trace line of the event, as people count (the index counts from 0)
    item: Event | None = None  # the event as read: its t, id and speech_start
    horizon: int | None = None  # for evidence_turn: what speech had to follow for post_send

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
class ReplayResult:
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
        return self.to_dict()[key]


def counters(config: Config) -> dict[str, int]:
    return {name: getattr(config, name) for name in COUNTERS}


def machine_for(spec: Spec) -> Machine:
    """The spec's table compiled for stepping (once per table), or GapstateError when it cannot be stepped."""
    return compiled(spec.require_steppable())


class Session:
    """The interpreter, one event at a time: a configuration and the history around it.

    `feed` takes a checked `trace.Event` and returns the machine's Outcome;
    an event the machine refuses (status other than OK) changes nothing.
    `feed` is the one place the history decides `dup`, and `horizon` `post_send`.
    """

    __slots__ = ("machine", "config", "seen", "last_commit", "last_loss")

    def __init__(self, machine: Machine):
        self.machine = machine
        self.config = machine.initial
        self.seen: set[str] = set()  # interval ids seen this session
        self.last_commit: int | None = None  # t of the send_ok that last committed
        self.last_loss: int | None = None  # t of the last unseen voiced loss

    def horizon(self) -> int | None:
        """The time evidence speech must be strictly after for `post_send`; None before any commit.

        After the last commit, and after the last unseen voiced loss (times are never negative).
        """
        commit, loss = self.last_commit, self.last_loss
        if commit is None or loss is None or loss < commit:
            return commit
        return loss

    def feed(self, item: Event) -> Outcome:
        # The value of the event's chosen guard: `dup` for loss_voiced, `post_send` for evidence_turn.
        name = item.event
        if name == "loss_voiced":
            choice = item.id in self.seen
        elif name == "evidence_turn":
            horizon = self.horizon()
            choice = horizon is not None and item.speech_start > horizon  # type: ignore[operator]  # checked present
        else:
            choice = False
        outcome = self.machine.step(self.config, name, choice)
        if outcome.status is _OK:
            if name == "loss_voiced" and not choice:
                self.seen.add(item.id)
                self.last_loss = item.t
            if outcome.commits:
                self.last_commit = item.t
            self.config = outcome.config
        return outcome


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
    silently skipped. An error's `line` is the events' `line` when they have
    one (a trace file), else the position + 1.
    """
    session = Session(machine_for(spec))
    feed = session.feed
    steps: list[Step] | None = [] if keep_steps else None
    record = steps.append if steps is not None else None
    if on_step is not None:
        record = on_step if record is None else (lambda step, keep=record: (keep(step), on_step(step)))
    make_step = tuple.__new__  # Step(...) without its keyword handling: a third of the cost, on the hot path
    error: ReplayError | None = None
    index = -1
    iterator = iter(events)
    numbered = hasattr(events, "line")  # a trace file's events say their line; a list's line is its position + 1
    horizon = None
    for index, item in enumerate(iterator):
        before = session.config
        if record is not None:  # what the transcript shows post_send was decided against
            horizon = session.horizon() if item.event == "evidence_turn" else None
        outcome = feed(item)
        if outcome.status is not _OK:
            error = _refusal(index, item.event, events.line if numbered else index + 1, before, outcome)  # type: ignore[attr-defined]
            break
        if record is not None:
            line = events.line if numbered else index + 1  # type: ignore[attr-defined]
            record(make_step(Step, (index, item.event, before, outcome, line, item, horizon)))
        if outcome.broken:
            broken = "; ".join(f"{rid}: {_DESCRIPTIONS[rid]}" for rid in outcome.broken)
            line = events.line if numbered else index + 1  # type: ignore[attr-defined]
            error = ReplayError(index, "rule", f"row at line {outcome.row.line} breaks {broken}", line)
            break
    total = index + 1 + sum(1 for _ in iterator)  # reading the rest validates it
    return ReplayResult(tuple(steps) if steps is not None else None, session.config, error, total)


def _refusal(index: int, event: str, line: int, config: Config, outcome: Outcome) -> ReplayError:
    if outcome.status == Status.ENDED:
        return ReplayError(index, "after_session_end", f"{event} after session_end: nothing follows the end of the session", line)
    if outcome.status == Status.REFUSED:
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
