"""`gapstate diff --traces`: which recorded sessions a change to the table makes behave differently, and how.

Both tables step each recorded session together, through one replay
`Session` whose machine is a `Pair`. While the tables agree, the session's
configuration is the same under both (the same events and the same actions
from the same start make the same configuration), so one history (the ids
seen, the last commit and loss times) serves both, and a step already taken
is one memoised lookup, as in `replay`. At the first event where they
disagree (state, actions, counters, debt, a refusal or a stop) the Pair
hands the Session a `Disagreement`, which it takes for a refusal and stops
on. So every session is read once and replayed once per table, for about
the cost of one `coverage` replay.

A behaviour change (a state, event and guard valuation whose outcome the
diff says changed) is reached when a session arrives at it while both
tables still agree: that is the first differing step, or a change only the
refusal message tells apart (no row against an `invalid` one). A session
that arrives there only after an earlier difference says nothing about it,
since under the new table it is elsewhere by then.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from gapstate.review.diff import BehaviourChanged, Change
from gapstate.run.machine import Machine, Outcome, Status, guard_names
from gapstate.run.recorded import UnusableTrace
from gapstate.table.load import Spec
from gapstate.table.vocabulary import Config

Key = tuple[str, str, tuple[bool, ...]]  # (state, event, the values of the guards either table names there)

# What a replay reports when it stops without a step.
_STOPS = {Status.REFUSED: "invalid_event", Status.UNMATCHED: "invalid_event", Status.ENDED: "after_session_end"}


class Disagreement(NamedTuple):
    """The first step where the tables disagree: `Session` stops on it, as on a refusal (its status is not OK)."""

    status: str  # "differs"
    choice: bool  # the event's chosen guard (dup, post_send), for the valuation
    old: Outcome
    new: Outcome
    before: Config  # where both tables stood


def _shown(outcome: Outcome) -> tuple[Any, ...]:
    """What a replay shows of a step: a stop's kind, or the configuration after it, the actions and the rules broken."""
    if outcome.status is not Status.OK:
        return (_STOPS[outcome.status],)
    return outcome.config, outcome.actions, outcome.broken


class Pair:
    """Two compiled tables stepped as one, while they agree: the machine `Session` steps for a diff.

    `watched` holds, per (state, event), the guards either table names there
    and the valuations of them whose outcome changed; `reached` gathers those
    that a step arrived at.
    """

    memo = Machine.memo  # a Memo per configuration, memoising the steps taken from it

    def __init__(self, old: Machine, new: Machine, watched: dict[tuple[str, str], tuple[tuple[str, ...], frozenset[tuple[bool, ...]]]]):
        self.old, self.new = old, new
        self.initial = old.initial  # every table starts in the same state (vocabulary.INITIAL)
        self.watched = watched
        self.reached: set[Key] = set()
        self._memos: dict[Config, Any] = {}
        self._outcomes: dict[tuple[Config, str, bool], Outcome | Disagreement] = {}

    def step(self, config: Config, event: str, choice: bool = False) -> Outcome | Disagreement:
        key = (config, event, choice)
        outcome = self._outcomes.get(key)
        if outcome is None:
            old, new = self.old.step(config, event, choice), self.new.step(config, event, choice)
            self._watch(config, event, choice)
            same = _shown(old) == _shown(new)
            outcome = self._outcomes[key] = old if same else Disagreement("differs", choice, old, new, config)
        return outcome

    def _watch(self, config: Config, event: str, choice: bool) -> None:
        watched = self.watched.get((config.state, event))
        if watched is None or config.ended:
            return
        names, changed = watched
        for machine in (self.old, self.new):  # their caps may differ, and with them the guards
            values = machine.guard_values(config, event, choice)[1]
            valuation = tuple(values[name] for name in names)
            if valuation in changed:
                self.reached.add((config.state, event, valuation))

    def drain(self) -> set[Key]:
        """The changes reached since the last call (a worker reports them with each file)."""
        reached, self.reached = self.reached, set()
        return reached


def watched_changes(changes: tuple[Change, ...]) -> dict[tuple[str, str], tuple[tuple[str, ...], frozenset[tuple[bool, ...]]]]:
    """Per (state, event) a behaviour change concerns: the guards valued and the valuations that changed."""
    watched = {}
    for change in changes:
        if isinstance(change, BehaviourChanged):
            names = tuple(name for name, _ in change.cases[0].valuations[0])
            values = frozenset(tuple(v for _, v in valuation) for case in change.cases for valuation in case.valuations)
            watched[(change.state, change.event)] = (names, values)
    return watched


@dataclass(frozen=True)
class Affected:
    """A session that behaves differently: its first differing step, under each table, and where it stood."""

    trace: str
    index: int
    state: str
    event: str
    guards: tuple[str, ...]  # the valuation under the old table, as literals (`busy`, `!budget_left`)
    old_row: int | None
    new_row: int | None
    old: dict[str, Any]  # a replay step, or {"stopped": KIND}
    new: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"trace": self.trace, "index": self.index, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class Group:
    """The sessions whose first differing step stands at one (state, event, guard valuation) under the old table."""

    state: str
    event: str
    guards: tuple[str, ...]
    old_row: int | None
    new_row: int | None
    traces: int
    example: Affected  # the first such session, in the order of the input

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "event": self.event,
            "guards": list(self.guards),
            "old_row": self.old_row,
            "new_row": self.new_row,
            "traces": self.traces,
            "example": {"trace": self.example.trace, "index": self.example.index},
        }


@dataclass(frozen=True)
class Unreached:
    """A changed behaviour (state, event, guard valuation) that no recorded session arrives at."""

    state: str
    event: str
    valuation: tuple[tuple[str, bool], ...]
    old_row: int | None
    new_row: int | None

    @property
    def guards(self) -> tuple[str, ...]:
        return _literals(self.valuation)

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "event": self.event, "guards": list(self.guards), "old_row": self.old_row, "new_row": self.new_row}


# Affected sessions listed one by one (in `affected_traces`), the first in the order of the input;
# past them each counts in its group, which keeps its first as the example, so a million sessions
# that behave differently cost the groups' memory, not the sessions'.
LISTED = 1000


@dataclass(frozen=True)
class SessionsResult:
    """The recorded sessions under both tables, shaped like the `traces` part of the diff document."""

    read: int
    events: int
    groups: tuple[Group, ...]
    affected: tuple[Affected, ...]  # the first LISTED of them
    unreached: tuple[Unreached, ...]
    differing: int  # how many sessions behave differently, listed or not

    def to_dict(self) -> dict[str, Any]:
        return {
            "read": self.read,
            "events": self.events,
            "affected": self.differing,
            "groups": [group.to_dict() for group in self.groups],
            "affected_traces": [one.to_dict() for one in self.affected],
            "unreached": [change.to_dict() for change in self.unreached],
        }


def _literals(valuation: tuple[tuple[str, bool], ...]) -> tuple[str, ...]:
    return tuple(name if value else f"!{name}" for name, value in valuation)


def _step(index: int, event: str, before: Config, outcome: Outcome) -> dict[str, Any]:
    """A replay step, or {"stopped": KIND}; a step that breaks a rule is both (the replay stops after it)."""
    from gapstate.run.replayer import Step

    if outcome.status is not Status.OK:
        return {"stopped": _STOPS[outcome.status]}
    step = Step(index, event, before, outcome).to_dict()
    return {**step, "stopped": "rule"} if outcome.broken else step


def _affected(pair: Pair, trace: str, index: int, event: str, split: Disagreement) -> Affected:
    old, new = split.old, split.new
    before = split.before
    names = guard_names(pair.old.table.rows_for(before.state, event) + pair.new.table.rows_for(before.state, event))
    values = pair.old.guard_values(before, event, split.choice)[1]
    return Affected(
        trace,
        index,
        before.state,
        event,
        _literals(tuple((name, values[name]) for name in names)),
        old.row.line if old.row is not None else None,
        new.row.line if new.row is not None else None,
        _step(index, event, before, old),
        _step(index, event, before, new),
    )


GroupKey = tuple[str, str, tuple[str, ...]]  # where sessions first differ: state, event, guards as literals


class _Done(NamedTuple):
    """The sessions of one trace file under both tables (it crosses a pipe): counted, grouped, the first few listed.

    `unusable` is the first session that could not be replayed; the file's
    sessions after it are not read (the diff stops there).
    """

    read: int
    events: int
    groups: dict[GroupKey, tuple[int, Affected]]  # how many sessions, and the first
    listed: list[Affected]
    unusable: UnusableTrace | None


def _context(old_text: str, old_name: str, new_text: str, new_name: str, split_by: str | None) -> tuple[Pair, str | None]:
    """What a worker replays with, built from the two tables' text."""
    from gapstate.review.diff import behaviour_changes
    from gapstate.table.load import parse_spec

    old, new = parse_spec(old_text, old_name), parse_spec(new_text, new_name)
    assert old.table is not None and new.table is not None, "the tables loaded before the workers started"
    return _pair(old, new, tuple(behaviour_changes(old.table, new.table))), split_by


def _pair(old: Spec, new: Spec, changes: tuple[Change, ...]) -> Pair:
    from gapstate.run.replayer import machine_for

    return Pair(machine_for(old), machine_for(new), watched_changes(changes))


def _no_tally() -> tuple[None, None]:
    return None, None


def _replay_path(context: tuple[Pair, str | None], path: str) -> tuple[_Done, set[Key]]:
    """The sessions of a trace file under both tables, and the changes they reached."""
    from gapstate.run.recorded import replay_path

    pair, split_by = context
    read = events = 0
    groups: dict[GroupKey, tuple[int, Affected]] = {}
    listed: list[Affected] = []
    for item in replay_path(pair, path, split_by, _no_tally, keep_going=False):
        if isinstance(item, UnusableTrace):
            return _Done(read, events, groups, listed, item), pair.drain()
        read += 1
        events += item.events
        stop = item.stop
        outcome: object = None if stop is None else stop.outcome  # the Pair's machine stops on a Disagreement
        if stop is not None and isinstance(outcome, Disagreement):
            one = _affected(pair, item.trace, stop.index, stop.event, outcome)
            key = (one.state, one.event, one.guards)
            count, first = groups.get(key, (0, one))
            groups[key] = (count + 1, first)
            if len(listed) < LISTED:
                listed.append(one)
    return _Done(read, events, groups, listed, None), pair.drain()


def replay_sessions(
    old: Spec,
    new: Spec,
    changes: tuple[Change, ...],
    paths: list[str],
    jobs: int,
    split_by: str | None = None,
    progress: Callable[[], None] | None = None,
) -> SessionsResult:
    """Replay every session in `paths` under both tables; group those that behave differently.

    `changes` are the diff's; its behaviour changes are those `unreached`
    names when no session arrives at them. Raises GapstateError for the
    first unusable trace, in the order of `paths`.
    """
    from gapstate.run.recorded import in_order

    context = (_pair(old, new, changes), split_by)
    args = (old.text, old.path, new.text, new.path, split_by)
    read = events = 0
    found: dict[GroupKey, tuple[int, Affected]] = {}  # in the order first met, across the files in order
    listed: list[Affected] = []
    reached: set[Key] = set()
    for done, arrived in in_order(_replay_path, context, paths, jobs, _context, args):
        reached |= arrived
        if done.unusable is not None:
            raise done.unusable.error()
        read += done.read
        events += done.events
        for key, (count, first) in done.groups.items():
            before, example = found.get(key, (0, first))
            found[key] = (before + count, example)
        listed.extend(done.listed[: LISTED - len(listed)])
        if progress is not None:
            progress()
    groups = [Group(*key, first.old_row, first.new_row, count, first) for key, (count, first) in found.items()]
    groups.sort(key=lambda group: -group.traces)  # the largest first; ties: first met first
    return SessionsResult(read, events, tuple(groups), tuple(listed), _unreached(changes, reached),
                          sum(group.traces for group in groups))


def _unreached(changes: tuple[Change, ...], reached: set[Key]) -> tuple[Unreached, ...]:
    """Every changed (state, event, valuation) no session arrived at, in the diff's order."""
    out = []
    for change in changes:
        if not isinstance(change, BehaviourChanged):
            continue
        for case in change.cases:
            for valuation in case.valuations:
                if (change.state, change.event, tuple(v for _, v in valuation)) not in reached:
                    old_row = case.old.line if case.old else None
                    new_row = case.new.line if case.new else None
                    out.append(Unreached(change.state, change.event, valuation, old_row, new_row))
    return tuple(out)
