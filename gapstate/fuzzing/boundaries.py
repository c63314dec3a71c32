"""The boundary goals of the seed's table, as data: the gadgets `vectors` plans and `fuzz` heads for.

A catalogue, as the rules (`table.rules`) and the bounds (`table.bounds`)
are: besides the vocabulary, the catalogues alone name events, states and
guards, and this one because each gadget is written for the seed's events
and the states they lead through. What a goal is, where it fits and what a
step tells the story are `goals`'s, which names none of them.
"""

from __future__ import annotations

from collections.abc import Callable

from gapstate.fuzzing.goals import REFUSED, Goal, Story, Way
from gapstate.run.concrete import AFTER, AT, AT_DUP, BEFORE, EPISODE, KINDS, SAME_MS, SETTLED, WRITTEN_OFF
from gapstate.run.machine import Machine
from gapstate.table.vocabulary import SESSION_END, Config

_KIND_WORDS = {
    EPISODE: "seen in this episode",
    SETTLED: "seen in an earlier episode that was settled",
    WRITTEN_OFF: "seen in an earlier episode that was written off",
}


def _in(state: str, **counters: int) -> Callable[[Config, Story], bool]:
    return lambda c, s: c.state == state and all(getattr(c, k) == v for k, v in counters.items())


def catalogue(machine: Machine) -> tuple[Goal, ...]:
    """The boundary goals for a table, in the order vectors take them on a tie.

    Written for the seed's events and states; each gadget must also lead
    through the states it expects, so on another table a goal whose gadget
    does not fit anywhere is simply not met (the manifest lists it).
    """
    caps = machine.caps
    budget, attempts = caps.get("session_requests", 0), caps.get("episode_attempts", 0)
    lo, ev, rel, ok, failed = "loss_voiced", "evidence_turn", "floor_released", "send_ok", "send_failed"
    clear, opened, due, sending, requested = "CLEAR", "OPEN", "DUE", "SENDING", "REQUESTED"
    goals = [
        Goal("post_send:before", "evidence whose speech starts 1 ms before the last commit: post_send is false",
             (Way.of(ev, False, BEFORE),), _in(requested), (requested,)),
        Goal("post_send:at", "evidence whose speech starts at the very ms of the last commit: post_send is false",
             (Way.of(ev, False, AT),), _in(requested), (requested,)),
        Goal("post_send:after", "evidence whose speech starts 1 ms after the last commit: post_send is true",
             (Way.of(ev, True, AFTER),), _in(requested), (clear,)),
        Goal("post_send:between-commits", "speech after an earlier commit but before the last one: post_send is false",
             (Way.of(ev, False, BEFORE),), lambda c, s: c.state == requested and c.session_requests >= 2, (requested,)),
        Goal("post_send:loss-at-commit",
             "a loss, the release and the commit at one ms; speech at that ms (post_send false), then 1 ms later (true)",
             (Way.of(lo), Way.of(rel, False, SAME_MS), Way.of(ok, False, SAME_MS), Way.of(ev, False, AT), Way.of(ev, True, AFTER)),
             _in(opened), (opened, sending, requested, requested, clear)),
        Goal("post_send:after-dup",
             "a repeated notice after the commit, then speech at its ms: post_send is true (a dup moves no time)",
             (Way.of(lo, True, EPISODE), Way.of(ev, True, AT_DUP)), _in(requested), (requested, clear)),
        Goal("late_loss:same-ms-as-send", "a loss at the ms the send started, its result at the same ms: it reopens",
             (Way.of(rel), Way.of(lo, False, SAME_MS), Way.of(ok, False, SAME_MS)), _in(opened), (sending, sending, opened)),
        Goal("late_loss:cleared-by-failure", "a late loss, the send fails, the retry commits: it no longer reopens",
             (Way.of(rel), Way.of(lo), Way.of(failed), Way.of(rel), Way.of(ok)), _in(opened, episode_attempts=0),
             (sending, sending, due, sending, requested)),
        Goal("late_loss:dup-is-not-late", "a repeated notice during the send is not a late loss",
             (Way.of(lo, True, EPISODE), Way.of(ok)), lambda c, s: c.state == sending and not c.late_loss, (sending, requested)),
        Goal("busy:twice-then-once", "busy_start twice, busy_end once: busy is a flag, so the release sends",
             (Way.of("busy_start"), Way.of("busy_start"), Way.of("busy_end"), Way.of(rel)), _in(opened),
             (opened, opened, opened, sending)),
        Goal("candidate_active:cleared-by-release", "speech during the send, a release, then the send fails: it retries",
             (Way.of("candidate_start"), Way.of(rel), Way.of(failed)), _in(sending), (sending, sending, due)),
        Goal("session_requests:last-send", f"a send with session_requests at {budget - 1}, one below its cap",
             (Way.of(rel),), _in(opened, session_requests=budget - 1), (sending,)),
        Goal("session_requests:last-commit", f"the commit that brings session_requests to its cap, {budget}",
             (Way.of(ok),), _in(sending, session_requests=budget - 1), (requested,)),
        Goal("session_requests:at-cap", f"a release with session_requests at its cap, {budget}: written off",
             (Way.of(rel),), _in(opened, session_requests=budget), (clear,)),
        Goal("session_requests:at-cap-after-reopen", "a reopened episode at the session cap: no fresh budget",
             (Way.of(lo), Way.of(rel)), _in(requested, session_requests=budget), (opened, clear)),
        Goal("episode_attempts:last-send", f"a retry with episode_attempts at {attempts - 1}, one below its cap",
             (Way.of(rel),), _in(due, episode_attempts=attempts - 1), (sending,)),
        Goal("episode_attempts:at-cap-failed", f"a send fails with episode_attempts at its cap, {attempts}: written off",
             (Way.of(failed),), _in(sending, episode_attempts=attempts), (clear,)),
        Goal("episode_attempts:at-cap-undelivered",
             f"a request undelivered with episode_attempts at its cap, {attempts}: written off",
             (Way.of("request_undelivered"),), _in(requested, episode_attempts=attempts), (clear,)),
    ]
    for spent in range(1, attempts + 1):
        for state, words in ((requested, "a reopened episode"), (clear, "a new episode")):
            goals.append(Goal(
                f"episode_attempts:fresh-from-{state}-after-{spent}",
                f"{words} after {spent} attempts were spent: a fresh allowance of {attempts} sends",
                (Way.of(lo), Way.of(rel), Way.of(failed), Way.of(rel)), _in(state, episode_attempts=spent),
                (opened, sending, due, sending),
            ))
    for kind in KINDS:
        for state in machine.table.states:
            if kind == EPISODE and state == machine.initial_state:
                continue  # no episode is open in the initial state
            goals.append(Goal(
                f"id:{kind}:{state}", f"a repeated notice in {state} for an id {_KIND_WORDS[kind]}: nothing changes",
                (Way.of(lo, True, kind),), _in(state), (state,)))
    goals += [
        Goal("after_end:send_ok", "a late send result after session_end: refused as after_session_end",
             (Way.of(ok),), lambda c, s: c.ended, (REFUSED,), ends=True),
        Goal("after_end:session_end", "a second session_end: refused as after_session_end",
             (Way.of(SESSION_END),), lambda c, s: c.ended, (REFUSED,), ends=True),
    ]
    return tuple(goals)
