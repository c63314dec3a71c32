"""What the table's names mean: states, events, guards, counters, flags, actions and labels.

The one declarative place for the vocabulary. Every other module asks it,
or a catalogue written in its names (the rules, `gapstate.table.rules`; the
bounds; the parser's known mistakes; the boundary goals,
`gapstate.fuzzing.boundaries`): none names a state, an event, a guard or an
action in code (tests/test_table_vocabulary.py). Adding a guard or an
action is an entry here, with the words `gapstate explain` says about it;
adding a rule, one there.

A `Config` is the finite part of the configuration: the state, the counters
and the flags. The concrete history a replay keeps besides it (the payload
values seen, the time of the last commit and of the last unseen loss) only
decides the guards an event's payload sets (`PAYLOADS`); the explorer
chooses those both ways wherever the history could make them true.

The explorer counts on one property of this vocabulary: a counter that no
event or action sets (only adds to) is compared, by the guards and rules,
with 0 and with its cap and nothing else. It then steps one configuration
per class of those that differ only in such a counter well inside (0, cap)
(see `proof.packing.Packing`); tests/test_proof_explore.py compares it with a
plain search, so a guard that breaks the property fails there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

# A `Config` field's value: the state's name, a count or a flag (the fields differ, so no one type).
Value = Any
_NONE: Mapping[str, Any] = MappingProxyType({})


class Config(NamedTuple):
    """Everything a step reads or writes, except the replay's concrete history.

    The fields are `state`, then the `COUNTERS`, then the `FLAGS`, in their
    order (checked below); their meanings are there.
    """

    state: str
    session_requests: int = 0
    episode_attempts: int = 0
    busy: bool = False
    candidate_active: bool = False
    late_loss: bool = False
    in_flight: bool = False
    standing: bool = False
    debt_owed: bool = False
    seen_any: bool = False
    ended: bool = False


class Counter(NamedTuple):
    """A counter of the configuration, capped by the table's `@cap` line."""

    meaning: str
    reset: str = ""  # what setting it back to 0 means, in words


COUNTERS: dict[str, Counter] = {
    "session_requests": Counter("requests committed this session"),
    "episode_attempts": Counter(
        "sends started this episode", reset="a fresh attempt allowance (episode_attempts back to 0)"
    ),
}


class Flag(NamedTuple):
    """A flag of the configuration: what it means set, and cleared."""

    set: str
    cleared: str


FLAGS: dict[str, Flag] = {
    "busy": Flag("the interviewer is busy", "the interviewer is idle"),
    "candidate_active": Flag("the candidate holds the floor", "the candidate has released the floor"),
    "late_loss": Flag("a loss that arrived during the send is remembered", "no late loss is remembered"),
    "in_flight": Flag("a send is in flight", "no send is in flight"),
    "standing": Flag("a committed request stands", "no committed request stands"),
    "debt_owed": Flag("the interviewer's reply is owed (the debt)", "the debt is discharged: no reply is owed"),
    "seen_any": Flag("the interval id is remembered for the session", "no interval id is remembered"),
    "ended": Flag("the session has ended: nothing may follow", "the session goes on"),
}

assert Config._fields == ("state", *COUNTERS, *FLAGS), "Config's fields are the counters, then the flags"

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

# Where every session starts, whatever order the rows are written in: the
# no-gap state. A table with no such state cannot be run.
INITIAL = "CLEAR"
assert INITIAL in STATES


class EventEffect(NamedTuple):
    """What an event reports, and what it does to the configuration around the guards.

    `meaning` is what the event tells the table, in the prose's words (for
    `replay --help` and docs/replay.md, see `event_list`). `sets` is applied
    before the guards are read (the flags the event itself reports); `then`
    right after they are read, before the row's actions (what the event's
    arrival settles, such as a send's result).
    """

    meaning: str
    sets: Mapping[str, Value] = _NONE
    then: Mapping[str, Value] = _NONE


EVENTS: dict[str, EventEffect] = {
    "loss_silent": EventEffect(
        "audio the voice classifier called silent was dropped or quarantined: trimming, never a gap"
    ),
    "sdk_unknown": EventEffect(
        "a suspected SDK drop, or a transcript that lacks words: recorded as unknown, never a gap"
    ),
    # A dup notice can only name an id already seen, so marking "some id was
    # seen" on every voiced loss is exact.
    "loss_voiced": EventEffect(
        "audio overlapping voiced speech was dropped or quarantined: a gap, named by its interval's id "
        "(dup when that id was seen before: a repeated notice)",
        then={"seen_any": True},
    ),
    "busy_start": EventEffect(
        "the interviewer began speaking, thinking, holding, running a tool or republishing (busy)",
        sets={"busy": True},
    ),
    "busy_end": EventEffect("the interviewer is idle again (busy ends)", sets={"busy": False}),
    "candidate_start": EventEffect(
        "the candidate began speaking (candidate_active)", sets={"candidate_active": True}
    ),
    "floor_released": EventEffect(
        "the candidate released the floor: the moment a repeat request may be sent",
        sets={"candidate_active": False},
    ),
    "send_ok": EventEffect(
        "the repeat request in flight was sent: it is committed",
        sets={"in_flight": False},
        then={"late_loss": False},
    ),
    "send_failed": EventEffect(
        "the repeat request in flight failed to send", sets={"in_flight": False}, then={"late_loss": False}
    ),
    "request_undelivered": EventEffect(
        "a committed request's audio was cancelled before delivery: it stays spent against the session cap",
        then={"standing": False},
    ),
    "evidence_turn": EventEffect(
        "a candidate turn, with when its speech began: it settles a committed request when that speech "
        "began after the request and the newest loss (post_send)"
    ),
    "session_end": EventEffect("the session ended: no event may follow", then={"ended": True}),
}

# The flag that says the session has ended, and the event that ends it: nothing may follow it.
SESSION_ENDED = "ended"
SESSION_END = next(name for name, effect in EVENTS.items() if effect.then.get(SESSION_ENDED))
assert SESSION_ENDED in FLAGS

# How the replay's history reads a payload value (see `Payload.reads`).
SEEN = "seen"  # true when the value was already given this session
AFTER = "after"  # true when the value is after the horizon: the later of the last
# commit's time and the last unseen SEEN payload's time; false before any commit


class Payload(NamedTuple):
    """The event field that sets a chosen guard, and how the replay's history reads it.

    The guard is false on every other event. `possible` says when the
    history could make it true, for the explorer, which chooses it both ways.
    """

    event: str
    field: str  # the trace field, required on `event`
    says: str  # what the field holds, for "EVENT needs a 'FIELD' (SAYS)"
    reads: str  # SEEN or AFTER
    possible: Callable[[Config], bool]


# How a derived guard reads the configuration, for the generators (`gapstate.gen`), which spell it in
# their language: a flag as it stands once the event's `sets` are applied, or a counter below its cap.
FLAG = "flag"
BELOW_CAP = "below_cap"


class Guard(NamedTuple):
    """A guard: its meaning, true and false, and how it gets its value.

    A derived guard is a function of the configuration (after the event's
    `sets`) and the caps, and `form` says the same in words a generator
    spells: (FLAG, a flag) or (BELOW_CAP, a counter); a chosen guard comes
    from its event's `payload`.
    """

    meaning: str
    false: str
    derive: Callable[[Config, dict[str, int]], bool] | None = None
    payload: Payload | None = None
    form: tuple[str, str] | None = None


GUARDS: dict[str, Guard] = {
    "dup": Guard(
        "the loss's interval id was already seen this session",
        "the loss's interval id is new this session",
        payload=Payload("loss_voiced", "id", "the interval id", SEEN, lambda c: c.seen_any),
    ),
    "busy": Guard("the interviewer is busy", "the interviewer is idle", lambda c, caps: c.busy, form=(FLAG, "busy")),
    "candidate_active": Guard(
        "the candidate started speaking and has not released the floor",
        "the candidate is not holding the floor",
        lambda c, caps: c.candidate_active,
        form=(FLAG, "candidate_active"),
    ),
    "budget_left": Guard(
        "session_requests is below its cap",
        "session_requests has reached its cap",
        lambda c, caps: c.session_requests < caps["session_requests"],
        form=(BELOW_CAP, "session_requests"),
    ),
    "attempts_left": Guard(
        "episode_attempts is below its cap",
        "episode_attempts has reached its cap",
        lambda c, caps: c.episode_attempts < caps["episode_attempts"],
        form=(BELOW_CAP, "episode_attempts"),
    ),
    "late_loss": Guard(
        "an unseen voiced loss arrived while the send was in flight",
        "no unseen voiced loss arrived while the send was in flight",
        lambda c, caps: c.late_loss,
        form=(FLAG, "late_loss"),
    ),
    # Speech can always be placed after the last commit and loss, so the
    # guard can be true exactly when something was committed this session.
    "post_send": Guard(
        "the turn's speech began after the last commit and the last unseen loss",
        "the turn's speech did not begin after both the last commit and the last unseen loss",
        payload=Payload("evidence_turn", "speech_start", "integer ms", AFTER, lambda c: c.session_requests > 0),
    ),
}

# The guard each event's payload sets: event -> guard name, and event -> Payload.
CHOICE_OF: dict[str, str] = {g.payload.event: name for name, g in GUARDS.items() if g.payload}
PAYLOADS: dict[str, Payload] = {g.payload.event: g.payload for g in GUARDS.values() if g.payload}


class Stimulus(NamedTuple):
    """What the environment sends at one step: an event, and the value of the guard its payload sets.

    `choice` is the value of `CHOICE_OF[event]` (`dup` for loss_voiced,
    `post_send` for evidence_turn), and False for an event whose payload
    sets none. The explorer, the proof's traces, the shrinker and the walks
    all step on it; how a trace realizes it is `run.concrete`'s.
    """

    event: str
    choice: bool = False


def guard_words(guard: str, value: bool) -> str:
    """What a guard means when it holds (`value`) or not."""
    return GUARDS[guard].meaning if value else GUARDS[guard].false


def field_words(field: str, value: object) -> str:
    """What setting a field of the configuration to `value` means, in words."""
    if field in FLAGS and isinstance(value, bool):
        return FLAGS[field].set if value else FLAGS[field].cleared
    if field in COUNTERS and value == 0 and COUNTERS[field].reset:
        return COUNTERS[field].reset
    return f"{field} becomes {value}"


class Action(NamedTuple):
    """What an action does; an action with no effect is a label the replay records."""

    add: Mapping[str, int] = _NONE
    sets: Mapping[str, Value] = _NONE
    commits: bool = False  # stamps the commit time, for the AFTER payloads' horizon
    ends_gap: bool = False  # names how a gap ended
    write_off: bool = False  # ends the gap without settling the debt
    refuses: bool = False  # marks an event that cannot occur; the replay fails on it


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
    "invalid": Action(refuses=True),
}

# The action that marks a row's event as one that cannot occur there.
INVALID = next(name for name, a in ACTIONS.items() if a.refuses)

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


def near_action(name: str, actions: Iterable[str]) -> str | None:
    """The action `name` is probably a typo of: a near spelling, or the same words reordered or one changed."""
    found = closest(name, actions, NEAR_MISS)
    if found is not None:
        return found
    words = name.lower().split("_")
    for known in actions:
        other = known.lower().split("_")
        # Same number of words (two or more), all but at most one shared, in any order.
        if len(other) == len(words) > 1 and len(set(other) - set(words)) <= 1 and len(set(words) - set(other)) <= 1:
            return known
    return None


ENDINGS = frozenset(name for name, a in ACTIONS.items() if a.ends_gap)
WRITE_OFFS = frozenset(name for name, a in ACTIONS.items() if a.write_off)
COMMITS = frozenset(name for name, a in ACTIONS.items() if a.commits)
