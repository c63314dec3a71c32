"""What the table's names mean: events, guards, actions, counters and rules.

This is the one declarative place for section 2 of the contract. The
interpreter reads these tables; nothing else knows what `send_request` or
`busy_end` does. Adding a guard, an action or a rule is an entry here.

A `Config` is the finite part of the configuration: the state, the counters
and the flags. The concrete history a replay keeps besides it (interval ids,
the time of the last commit and of the last unseen loss) only decides the
two guards `dup` and `post_send`; the explorer chooses those two both ways
wherever the history could make them true.

The explorer counts on one property of this vocabulary: a counter that no
event or action sets (only adds to) is compared, by the guards and rules,
with 0 and with its cap and nothing else. It then steps one configuration
per class of those that differ only in such a counter well inside (0, cap)
(see `proof._Packing`); tests/test_explore.py compares it with a plain
search, so a guard that breaks the property fails there.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Callable, Iterable, Mapping, NamedTuple

_NONE: Mapping = MappingProxyType({})


class Config(NamedTuple):
    """Everything a step reads or writes, except the replay's concrete history."""

    state: str
    session_requests: int = 0  # requests committed this session
    episode_attempts: int = 0  # sends started this episode
    busy: bool = False  # the interviewer is speaking, thinking, holding, ...
    candidate_active: bool = False  # the candidate started and has not released
    late_loss: bool = False  # an unseen voiced loss arrived during the send
    in_flight: bool = False  # a send started and its result has not arrived
    standing: bool = False  # a committed request stands (not undelivered, not reopened)
    debt_owed: bool = False  # the interviewer owes the candidate a reply
    seen_any: bool = False  # some interval id was seen this session
    ended: bool = False  # session_end has happened


COUNTERS: tuple[str, ...] = ("session_requests", "episode_attempts")

# The seed's five states. A table may add its own (a name some row starts
# from and some row leads to); these are known even when no row enters one,
# which makes their rows unreachable rather than their name unknown.
STATES: dict[str, str] = {
    "CLEAR": "no gap",
    "OPEN": "a gap waiting for the candidate's next release",
    "DUE": "released but not sendable (busy, or waiting to retry)",
    "SENDING": "one send in flight",
    "REQUESTED": "committed, awaiting evidence",
}


class Event(NamedTuple):
    """What an event does to the configuration around the guards.

    `sets` is applied before the guards are read (the flags the event itself
    reports); `then` right after they are read, before the row's actions
    (what the event's arrival settles, such as a send's result).
    """

    sets: Mapping[str, object] = _NONE
    then: Mapping[str, object] = _NONE


EVENTS: dict[str, Event] = {
    "loss_silent": Event(),
    "sdk_unknown": Event(),
    # A dup notice can only name an id already seen, so marking "some id was
    # seen" on every voiced loss is exact.
    "loss_voiced": Event(then={"seen_any": True}),
    "busy_start": Event(sets={"busy": True}),
    "busy_end": Event(sets={"busy": False}),
    "candidate_start": Event(sets={"candidate_active": True}),
    "floor_released": Event(sets={"candidate_active": False}),
    "send_ok": Event(sets={"in_flight": False}, then={"late_loss": False}),
    "send_failed": Event(sets={"in_flight": False}, then={"late_loss": False}),
    "request_undelivered": Event(then={"standing": False}),
    "evidence_turn": Event(),
    "session_end": Event(then={"ended": True}),
}


class Guard(NamedTuple):
    """How a guard gets its value.

    A derived guard is a function of the configuration (after the event's
    `sets`) and the caps. A chosen guard comes from the event's payload: it
    is false on every other event, and `possible` says when the history
    could make it true.
    """

    derive: Callable[[Config, dict[str, int]], bool] | None = None
    event: str | None = None
    possible: Callable[[Config], bool] | None = None
    meaning: str = ""


GUARDS: dict[str, Guard] = {
    "dup": Guard(
        event="loss_voiced",
        possible=lambda c: c.seen_any,
        meaning="the loss's interval id was already seen this session",
    ),
    "busy": Guard(derive=lambda c, caps: c.busy, meaning="the interviewer is busy"),
    "candidate_active": Guard(
        derive=lambda c, caps: c.candidate_active,
        meaning="the candidate started speaking and has not released the floor",
    ),
    "budget_left": Guard(
        derive=lambda c, caps: c.session_requests < caps["session_requests"],
        meaning="session_requests is below its cap",
    ),
    "attempts_left": Guard(
        derive=lambda c, caps: c.episode_attempts < caps["episode_attempts"],
        meaning="episode_attempts is below its cap",
    ),
    "late_loss": Guard(
        derive=lambda c, caps: c.late_loss,
        meaning="an unseen voiced loss arrived while the send was in flight",
    ),
    # Speech can always be placed after the last commit and loss, so the
    # guard can be true exactly when something was committed this session.
    "post_send": Guard(
        event="evidence_turn",
        possible=lambda c: c.session_requests > 0,
        meaning="the turn's speech began after the last commit and the last unseen loss",
    ),
}

CHOICE_OF: dict[str, str] = {g.event: name for name, g in GUARDS.items() if g.event}


class Action(NamedTuple):
    """What an action does; an action with no effect is a label the replay records."""

    add: Mapping[str, int] = _NONE
    sets: Mapping[str, object] = _NONE
    commits: bool = False  # stamps the commit time, for post_send
    ends_gap: bool = False  # names how a gap ended
    write_off: bool = False  # ends the gap without settling the debt


_NEW_EPISODE = {"episode_attempts": 0, "standing": False}

ACTIONS: dict[str, Action] = {
    "send_request": Action(add={"episode_attempts": 1}, sets={"in_flight": True, "late_loss": False}),
    "commit_request": Action(add={"session_requests": 1}, sets={"standing": True}, commits=True),
    "open_gap": Action(sets=_NEW_EPISODE),
    "reopen_gap": Action(sets=_NEW_EPISODE),
    "mark_late": Action(sets={"late_loss": True}),
    "preserve_debt": Action(sets={"debt_owed": True}),
    "settle": Action(sets={"debt_owed": False, "standing": False}, ends_gap=True),
    "unrepaired_budget": Action(sets={"standing": False}, ends_gap=True, write_off=True),
    "unrepaired_attempts": Action(sets={"standing": False}, ends_gap=True, write_off=True),
    "end_unsettled": Action(sets={"standing": False}, ends_gap=True, write_off=True),
    "merge_gap": Action(),
    "note_trim": Action(),
    "note_unknown": Action(),
    "note_dup": Action(),
    "noop": Action(),
    "supersede": Action(),
    "defer_no_interrupt": Action(),
    "keep_debt": Action(),
    "keep_budget_spent": Action(),  # the spent request is simply not refunded
    "invalid": Action(),  # marks an event that cannot occur; the replay fails on it
}

# An action outside ACTIONS is a label the implementation realizes (the
# contract: "every other action is a label"); the replay records it and it
# changes nothing. Only a near miss of a known name is taken for a typo.
LABEL = Action()


def action(name: str) -> Action:
    """What an action does: its entry in ACTIONS, or nothing for a label."""
    return ACTIONS.get(name, LABEL)


# How alike two names must be (difflib's ratio, ignoring case) for one to be
# a near miss of the other: `defer_no_interupt` of `defer_no_interrupt`
# (0.97), `nop` of `noop` (0.86), but not `log_gap` of `open_gap` (0.67).
NEAR_MISS = 0.8


def closest(name: str, known: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The known name most like `name`, for a "did you mean"; None when nothing is close enough."""
    import difflib

    names = {k.lower(): k for k in known}
    found = difflib.get_close_matches(name.lower(), list(names), n=1, cutoff=cutoff)
    return names[found[0]] if found else None


ENDINGS = frozenset(name for name, a in ACTIONS.items() if a.ends_gap)
WRITE_OFFS = frozenset(name for name, a in ACTIONS.items() if a.write_off)
COMMITS = frozenset(name for name, a in ACTIONS.items() if a.commits)


class Transition(NamedTuple):
    """One step as the rules see it."""

    before: Config
    mid: Config  # after the event's `sets`: what the guards read
    after: Config
    event: str
    guards: dict[str, bool]  # every guard's value, named by the row or not
    actions: tuple[str, ...]
    initial: str
    caps: dict[str, int]


class Rule(NamedTuple):
    """A rule of the seed's prose that every reachable step must keep."""

    id: str
    description: str
    broken: Callable[[Transition], bool]
    # The actions or events without which the rule cannot break; empty means
    # any step. Lets the machine skip rules that cannot apply to a row.
    on: frozenset[str] = frozenset()

    def concerns(self, event: str, actions: tuple[str, ...]) -> bool:
        return not self.on or event in self.on or not self.on.isdisjoint(actions)


COUNTING = frozenset(name for name, a in ACTIONS.items() if a.add)
SEND = frozenset({"send_request"})
# The seed: the request is sent when the candidate releases the floor, and a
# failed send retries "at the next end of busy or the next floor release".
SEND_EVENTS = frozenset({"floor_released", "busy_end"})


def _leaves_gap(t: Transition) -> bool:
    return t.before.state != t.initial and t.after.state == t.initial


RULES: tuple[Rule, ...] = (
    Rule(
        "cap-exceeded",
        "a counter goes past its @cap",
        lambda t: any(getattr(t.after, c) > t.caps[c] for c in COUNTERS),
        COUNTING,
    ),
    Rule(
        "send-while-busy",
        "sends a request while the interviewer is busy",
        lambda t: "send_request" in t.actions and t.guards["busy"],
        SEND,
    ),
    Rule(
        "send-while-candidate-active",
        "sends a request while the candidate holds the floor",
        lambda t: "send_request" in t.actions and t.guards["candidate_active"],
        SEND,
    ),
    Rule(
        "send-without-budget",
        "sends a request with no session budget left",
        lambda t: "send_request" in t.actions and not t.guards["budget_left"],
        SEND,
    ),
    Rule(
        "send-without-attempts",
        "sends a request with no attempt left in the episode",
        lambda t: "send_request" in t.actions and not t.guards["attempts_left"],
        SEND,
    ),
    Rule(
        "send-only-on-release",
        "sends a request on an event other than floor_released or busy_end; "
        "a failed send waits for the next release or end of busy, never loops",
        lambda t: "send_request" in t.actions and t.event not in SEND_EVENTS,
        SEND,
    ),
    Rule(
        "second-send-in-flight",
        "starts a send while another is in flight",
        lambda t: "send_request" in t.actions and t.mid.in_flight,
        SEND,
    ),
    Rule(
        "commit-without-send-result",
        "commits a request other than on the result (send_ok) of a send in flight",
        lambda t: bool(COMMITS.intersection(t.actions))
        and not (t.event == "send_ok" and t.before.in_flight),
        COMMITS,
    ),
    Rule(
        "settle-without-evidence",
        "settles without a standing committed request and post_send evidence",
        lambda t: "settle" in t.actions
        and not (t.event == "evidence_turn" and t.guards["post_send"] and t.before.standing),
        frozenset({"settle"}),
    ),
    Rule(
        "exit-unnamed",
        "leaves the gap without naming exactly one way it ended "
        "(settle, unrepaired_budget, unrepaired_attempts, end_unsettled)",
        lambda t: _leaves_gap(t) and len(ENDINGS.intersection(t.actions)) != 1,
    ),
    Rule(
        "ending-outside-exit",
        "names how a gap ended on a step that does not leave a gap",
        lambda t: bool(ENDINGS.intersection(t.actions)) and not _leaves_gap(t),
        ENDINGS,
    ),
    Rule(
        "write-off-before-cap",
        "writes the gap off as unrepaired_attempts or unrepaired_budget while that allowance is left",
        lambda t: ("unrepaired_attempts" in t.actions and t.guards["attempts_left"])
        or ("unrepaired_budget" in t.actions and t.guards["budget_left"]),
        frozenset({"unrepaired_attempts", "unrepaired_budget"}),
    ),
    Rule(
        "write-off-clears-debt",
        "writes the gap off but leaves no reply owed",
        lambda t: bool(WRITE_OFFS.intersection(t.actions)) and not t.after.debt_owed,
        WRITE_OFFS,
    ),
    Rule(
        "dup-changes-state",
        "a repeated (dup) loss notice changes the configuration",
        lambda t: t.event == "loss_voiced" and t.guards["dup"] and t.after != t.before,
        frozenset({"loss_voiced"}),
    ),
    Rule(
        "session-end-not-clear",
        "session_end does not lead to the initial state",
        lambda t: t.event == "session_end" and t.after.state != t.initial,
        frozenset({"session_end"}),
    ),
)

# What each field of a Config means, set (True) and cleared (False), for
# explanations in words (`gapstate explain`).
FIELD_WORDS: dict[str, tuple[str, str]] = {
    "busy": ("the interviewer is busy", "the interviewer is idle"),
    "candidate_active": ("the candidate holds the floor", "the candidate has released the floor"),
    "late_loss": ("a loss that arrived during the send is remembered", "no late loss is remembered"),
    "in_flight": ("a send is in flight", "no send is in flight"),
    "standing": ("a committed request stands", "no committed request stands"),
    "debt_owed": ("the interviewer's reply is owed (the debt)", "the debt is discharged: no reply is owed"),
    "seen_any": ("the interval id is remembered for the session", "no interval id is remembered"),
    "ended": ("the session has ended: nothing may follow", "the session goes on"),
}

# Guard literals that keep a rule by themselves: a row requiring one of them
# cannot break the rule, whatever the configuration (`gapstate explain` says so).
KEPT_BY: dict[str, frozenset[str]] = {
    "send-while-busy": frozenset({"!busy"}),
    "send-while-candidate-active": frozenset({"!candidate_active"}),
    "send-without-budget": frozenset({"budget_left"}),
    "send-without-attempts": frozenset({"attempts_left"}),
    "settle-without-evidence": frozenset({"post_send"}),
    "write-off-before-cap": frozenset({"!attempts_left", "!budget_left"}),
}

# What each guard means when it is false, for explanations in words.
GUARD_FALSE: dict[str, str] = {
    "dup": "the loss's interval id is new this session",
    "busy": "the interviewer is idle",
    "candidate_active": "the candidate is not holding the floor",
    "budget_left": "session_requests has reached its cap",
    "attempts_left": "episode_attempts has reached its cap",
    "late_loss": "no unseen voiced loss arrived while the send was in flight",
    "post_send": "the turn's speech did not begin after both the last commit and the last unseen loss",
}
