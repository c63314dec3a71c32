"""The rules of the spec's prose that every reachable step must keep, and what keeps each.

The catalogue the proof checks on every reachable configuration and the
replay on every step. Like the vocabulary (`gapstate.table.vocabulary`), it
names guards and actions in code; no other module does. A rule is an entry
here, with its id, its description, the actions or events without which it
cannot break, and the guard literals that keep it by themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from gapstate.table.vocabulary import ACTIONS, COMMITS, COUNTERS, ENDINGS, INVALID, SESSION_END, WRITE_OFFS, Config


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
    # Guard literals (`busy`, `!busy`) that keep the rule by themselves: a row
    # requiring one cannot break it, whatever the configuration (explain says so).
    kept_by: frozenset[str] = frozenset()

    def concerns(self, event: str, actions: tuple[str, ...]) -> bool:
        """True when the rule is checked on a step of a row with this event and these actions.

        A refused step (an `invalid` row) changes nothing: only the rules
        about refusals (`on` naming `invalid`) are checked on it.
        """
        if INVALID in actions:
            return INVALID in self.on
        return not self.on or event in self.on or not self.on.isdisjoint(actions)


FRESH = frozenset(name for name, a in ACTIONS.items() if a.sets.get("episode_attempts") == 0)
COUNTING = frozenset(name for name, a in ACTIONS.items() if a.add)
SEND = frozenset({"send_request"})
# The seed: the request is sent when the candidate releases the floor, and a
# failed send retries "at the next end of busy or the next floor release".
SEND_EVENTS = frozenset({"floor_released", "busy_end"})
SEND_RESULTS = frozenset({"send_ok", "send_failed"})
# An attempt ends without a commit: the send fails, or the committed request goes undelivered.
ATTEMPT_FAILURES = frozenset({"send_failed", "request_undelivered"})


# The events a refusal (`invalid`) may mark, and what must be missing for them to be unable to occur:
# a send's result with no send in flight, an undelivered request with none standing. Every other
# event is one the room produces, so refusing it would refuse a recorded session.
REFUSABLE = {"send_ok": "in_flight", "send_failed": "in_flight", "request_undelivered": "standing"}
# The Evidence table's notices and the label each is recorded as (a repeated voiced notice: note_dup).
NOTICES = {"loss_silent": "note_trim", "sdk_unknown": "note_unknown"}
DUP_NOTE = "note_dup"
NOTES = frozenset({*NOTICES.values(), DUP_NOTE})
# The events on which candidate speech supersedes a pending request (the prose: speech before the
# send, and a send that fails or a request that goes undelivered while the candidate is talking).
SUPERSEDING = frozenset({"candidate_start", "send_failed", "request_undelivered"})
# The states of a released gap: waiting to send, sending, or committed.
RELEASED = frozenset({"DUE", "SENDING", "REQUESTED"})
# The states in which a release is what the gap waits for.
WAITING = frozenset({"OPEN", "DUE"})


def _fresh_loss(t: Transition) -> bool:
    return t.event == "loss_voiced" and not t.guards["dup"]


def _joins_episode(t: Transition) -> bool:
    """A voiced loss with an unseen id arriving in an open episode (a gap, no committed request standing)."""
    return _fresh_loss(t) and t.before.state != t.initial and not t.before.standing


def _episode_starts_here(t: Transition) -> bool:
    """The step is one where an episode starts: a fresh loss with no gap or past a commit, or a late loss's commit."""
    fresh = _fresh_loss(t) and (t.before.state == t.initial or t.before.standing)
    return fresh or (t.event == "send_ok" and t.guards["late_loss"])


def _refused_wrongly(t: Transition) -> bool:
    if INVALID not in t.actions:
        return False
    missing = REFUSABLE.get(t.event)
    return missing is None or bool(getattr(t.before, missing))


def _mislabelled(t: Transition) -> bool:
    """An Evidence-table notice recorded as other than its label, or one of those labels on another event."""
    dup_loss = t.event == "loss_voiced" and t.guards["dup"]
    due = NOTICES.get(t.event) or (DUP_NOTE if dup_loss else None)
    if due is not None and due not in t.actions:
        return True
    return any(note != due for note in NOTES.intersection(t.actions))


def _leaves_gap(t: Transition) -> bool:
    return t.before.state != t.initial and t.after.state == t.initial


def _starts_episode(t: Transition) -> bool:
    """The step opens an episode (a gap out of the initial state) or reopens one (a fresh loss past a commit)."""
    if t.after.ended or t.after.state == t.initial or t.after.standing or t.after.in_flight:
        return False
    fresh_loss = t.event == "loss_voiced" and not t.guards["dup"] and t.before.standing
    late_commit = t.event == "send_ok" and t.guards["late_loss"]
    return t.before.state == t.initial or fresh_loss or late_commit


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
        frozenset({"!busy"}),
    ),
    Rule(
        "send-while-candidate-active",
        "sends a request while the candidate holds the floor",
        lambda t: "send_request" in t.actions and t.guards["candidate_active"],
        SEND,
        frozenset({"!candidate_active"}),
    ),
    Rule(
        "send-without-budget",
        "sends a request with no session budget left",
        lambda t: "send_request" in t.actions and not t.guards["budget_left"],
        SEND,
        frozenset({"budget_left"}),
    ),
    Rule(
        "send-without-attempts",
        "sends a request with no attempt left in the episode",
        lambda t: "send_request" in t.actions and not t.guards["attempts_left"],
        SEND,
        frozenset({"attempts_left"}),
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
        frozenset({"post_send"}),
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
        frozenset({"!attempts_left", "!budget_left"}),
    ),
    Rule(
        "write-off-clears-debt",
        "writes the gap off but leaves no reply owed",
        lambda t: bool(WRITE_OFFS.intersection(t.actions)) and not t.after.debt_owed,
        WRITE_OFFS,
    ),
    Rule(
        "last-attempt-not-written-off",
        "fails the episode's last attempt (send_failed, request_undelivered with no attempt left) without writing the gap "
        "off as unrepaired_attempts; when a cap is reached, the gap is written off",
        lambda t: t.event in ATTEMPT_FAILURES and not t.guards["attempts_left"] and "unrepaired_attempts" not in t.actions,
        ATTEMPT_FAILURES,
        frozenset({"attempts_left"}),
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
    # What the states mean, and what a fresh loss and a send's result must do
    # (docs/findings.md quotes the sentence of the prose each comes from).
    Rule(
        "result-without-send",
        "accepts a send's result (send_ok, send_failed) with no send in flight; it cannot occur there: mark it invalid",
        lambda t: t.event in SEND_RESULTS and not t.before.in_flight,
        SEND_RESULTS,
    ),
    Rule(
        "undelivered-without-request",
        "accepts request_undelivered with no committed request standing; it cannot occur there: mark it invalid",
        lambda t: t.event == "request_undelivered" and not t.before.standing,
        frozenset({"request_undelivered"}),
    ),
    Rule(
        "sending-without-send",
        "is in SENDING with no send in flight, or has a send in flight outside SENDING",
        lambda t: not t.after.ended and (t.after.state == "SENDING") != t.after.in_flight,
    ),
    Rule(
        "requested-without-request",
        "is in REQUESTED with no committed request standing, or keeps one standing outside REQUESTED",
        lambda t: not t.after.ended and (t.after.state == "REQUESTED") != t.after.standing,
    ),
    Rule(
        "due-while-candidate-speaks",
        "waits in DUE (released) while the candidate holds the floor; the gap waits in OPEN for the next release",
        lambda t: not t.after.ended and t.after.state == "DUE" and t.after.candidate_active,
    ),
    Rule(
        "gap-without-debt",
        "is in a gap with no reply owed; a gap preserves the debt until it is settled",
        lambda t: not t.after.ended and t.after.state != t.initial and not t.after.debt_owed,
    ),
    Rule(
        "fresh-loss-ignored",
        "leaves no gap after a voiced loss with an unseen id; it opens, merges into or reopens one",
        lambda t: t.event == "loss_voiced" and not t.guards["dup"] and t.after.state == t.initial,
        frozenset({"loss_voiced"}),
    ),
    Rule(
        "late-loss-forgotten",
        "does not remember (mark_late) a voiced loss with an unseen id that arrives while a send is in flight",
        lambda t: t.event == "loss_voiced" and not t.guards["dup"] and t.mid.in_flight and not t.after.late_loss,
        frozenset({"loss_voiced"}),
    ),
    Rule(
        "episode-starts-spent",
        "opens or reopens an episode with attempts already spent; "
        "a new or reopened episode gets a fresh allowance of attempts (open_gap, reopen_gap)",
        lambda t: _starts_episode(t) and t.after.episode_attempts > 0,
    ),
    Rule(
        "send-ok-without-commit",
        "accepts a send's success (send_ok) without committing the request",
        lambda t: t.event == "send_ok" and not COMMITS.intersection(t.actions),
        frozenset({"send_ok"}),
    ),
    Rule(
        "late-loss-commit-awaits",
        "leaves the request committed after a late loss standing, awaiting evidence; it reopens the episode",
        lambda t: t.event == "send_ok" and t.guards["late_loss"] and t.after.standing,
        frozenset({"send_ok"}),
    ),
    Rule(
        "commit-does-not-await",
        "commits a send with no late loss and does not await evidence with the request standing",
        lambda t: t.event == "send_ok" and not t.guards["late_loss"] and not t.after.standing,
        frozenset({"send_ok"}),
    ),
    # What can be refused (checked on refused steps only: `on` names INVALID).
    Rule(
        "possible-event-refused",
        "refuses (invalid) an event that can happen here; only a send's result with no send in flight "
        "and request_undelivered with no committed request standing cannot occur",
        _refused_wrongly,
        frozenset({INVALID}),
    ),
    # The Evidence table's meanings.
    Rule(
        "evidence-mislabelled",
        "records an Evidence-table notice as other than what it means (loss_silent: note_trim, "
        "sdk_unknown: note_unknown, a repeated loss_voiced: note_dup), or one of those labels on another event",
        _mislabelled,
        frozenset({"loss_silent", "sdk_unknown", "loss_voiced", *NOTES}),
    ),
    # What each action label means, and where it may stand.
    Rule(
        "noop-moves",
        "changes state on a step it calls noop; noop means nothing happens",
        lambda t: "noop" in t.actions and t.after.state != t.before.state,
        frozenset({"noop"}),
    ),
    Rule(
        "supersede-without-speech",
        "supersedes a pending request other than on candidate speech taking a released gap back to OPEN",
        lambda t: "supersede" in t.actions
        and not (t.mid.candidate_active and t.before.state in RELEASED and t.after.state == "OPEN"),
        frozenset({"supersede"}),
    ),
    Rule(
        "speech-not-superseding",
        "takes a released gap back to OPEN on candidate speech (or a failed send or undelivered request "
        "while the candidate talks) without supersede",
        lambda t: t.event in SUPERSEDING and t.mid.candidate_active and t.before.state in RELEASED
        and t.after.state == "OPEN" and "supersede" not in t.actions,
        SUPERSEDING,
    ),
    Rule(
        "released-gap-back-to-open",
        "takes a released gap (DUE, SENDING, REQUESTED) back to OPEN, waiting for a release, with no candidate "
        "speech, no fresh loss and no commit of a send with a late loss",
        lambda t: t.before.state in RELEASED and t.after.state == "OPEN" and not t.mid.candidate_active
        and not _fresh_loss(t) and not _episode_starts_here(t),
    ),
    Rule(
        "defer-while-idle",
        "defers (defer_no_interrupt) other than on a release while the interviewer is busy",
        lambda t: "defer_no_interrupt" in t.actions and not (t.event == "floor_released" and t.mid.busy),
        frozenset({"defer_no_interrupt"}),
        frozenset({"busy"}),
    ),
    Rule(
        "busy-release-not-due",
        "keeps a gap on a release while the interviewer is busy without waiting in DUE (defer_no_interrupt)",
        lambda t: t.event == "floor_released" and t.mid.busy and t.before.state in WAITING
        and t.after.state != t.initial and (t.after.state != "DUE" or "defer_no_interrupt" not in t.actions),
        frozenset({"floor_released"}),
        frozenset({"!busy"}),
    ),
    Rule(
        "mark-late-outside-send",
        "marks a loss late (mark_late) other than a voiced loss with an unseen id while a send is in flight",
        lambda t: "mark_late" in t.actions and not (_fresh_loss(t) and t.mid.in_flight),
        frozenset({"mark_late"}),
    ),
    Rule(
        "merge-outside-episode",
        "merges (merge_gap) other than a voiced loss with an unseen id into an open episode with no request standing",
        lambda t: "merge_gap" in t.actions
        and not _joins_episode(t),
        frozenset({"merge_gap"}),
    ),
    Rule(
        "fresh-loss-not-merged",
        "does not merge (merge_gap) a voiced loss with an unseen id into the open episode",
        lambda t: _joins_episode(t) and "merge_gap" not in t.actions,
        frozenset({"loss_voiced"}),
    ),
    Rule(
        "allowance-outside-episode-start",
        "starts a fresh allowance (open_gap, reopen_gap) where no episode opens or reopens",
        lambda t: bool(FRESH.intersection(t.actions)) and not _episode_starts_here(t),
        FRESH,
    ),
    Rule(
        "preserve-debt-outside-opening",
        "preserves the debt (preserve_debt) other than where a gap opens",
        lambda t: "preserve_debt" in t.actions and not (_fresh_loss(t) and t.before.state == t.initial),
        frozenset({"preserve_debt"}),
    ),
    Rule(
        "keep-debt-off-failed-send",
        "keeps the debt (keep_debt) other than on a failed send that keeps the gap",
        lambda t: "keep_debt" in t.actions and not (t.event == "send_failed" and t.after.state != t.initial),
        frozenset({"keep_debt"}),
    ),
    Rule(
        "keep-budget-spent-off-undelivered",
        "keeps the budget spent (keep_budget_spent) other than on an undelivered request that keeps the gap",
        lambda t: "keep_budget_spent" in t.actions
        and not (t.event == "request_undelivered" and t.after.state != t.initial),
        frozenset({"keep_budget_spent"}),
    ),
    Rule(
        "undelivered-budget-unnamed",
        "returns an undelivered request's gap without naming its spent request (keep_budget_spent)",
        lambda t: t.event == "request_undelivered" and t.after.state != t.initial and not t.after.ended
        and "keep_budget_spent" not in t.actions,
        frozenset({"request_undelivered"}),
    ),
    Rule(
        "unsettled-before-end",
        "names a gap end_unsettled other than at session_end",
        lambda t: "end_unsettled" in t.actions and t.event != SESSION_END,
        frozenset({"end_unsettled"}),
    ),
)

# The rules of what a state means. Each reads only the configuration a step ends in, so a step that stays
# in its state from a configuration where the meaning does not hold breaks it, whatever its row does.
STATE_MEANINGS = frozenset({"sending-without-send", "requested-without-request", "due-while-candidate-speaks", "gap-without-debt"})
