"""Boundary goals: what a conformance suite must exercise besides firing each row once.

Bugs in an implementation sit between the table's rows, not on them: a
comparison that is not strict, a counter one off its cap, an id set that
forgets an ended episode, a clock moved by a repeated notice. A goal is a
short gadget of steps, sent from a configuration where it fits, whose
answers differ between the table and such a bug. Vectors (`vectors.py`)
walk to the nearest goal not yet met, again and again; `fuzz` and the
generated traces of `conform` head for the same places.

A step is a `Way`: an event, the value of its chosen guard, and how the
payload or the clock realizes it (`realize`). By default evidence speaks
exactly at the time post_send must be strictly after (post_send false) or
one millisecond later (true), so every evidence turn of a vector sits on
the boundary. A `Story` is what the history holds beyond the `Config` that a
goal reads: which kinds of interval id have been seen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from gapstate.run.concrete import AFTER, AT, AT_DUP, BEFORE, EPISODE, KINDS, SAME_MS, SETTLED, WRITTEN_OFF, concretize
from gapstate.run.machine import Machine, Status
from gapstate.run.replayer import Session
from gapstate.table.vocabulary import ENDINGS, WRITE_OFFS, Config

_KIND_WORDS = {
    EPISODE: "seen in this episode",
    SETTLED: "seen in an earlier episode that was settled",
    WRITTEN_OFF: "seen in an earlier episode that was written off",
}


class Way(NamedTuple):
    """One step of a plan: the event, the value of its chosen guard (dup, post_send), how it is realized."""

    event: str
    choice: bool = False
    how: str = ""


Story = frozenset[str]  # the kinds of interval id seen so far (KINDS)


def retell(story: Story, way: Way, actions: tuple[str, ...]) -> Story:
    """The story after a step that took `actions`: a fresh id joins the episode, an ending files its ids."""
    if way.event == "loss_voiced" and not way.choice:
        story = story | {EPISODE}
    if EPISODE in story and ENDINGS.intersection(actions):
        kind = WRITTEN_OFF if WRITE_OFFS.intersection(actions) else SETTLED
        story = (story - {EPISODE}) | {kind}
    return story


REFUSED = "refused"  # in Goal.expect: the step is refused


@dataclass(frozen=True)
class Goal:
    """A boundary to exercise: a gadget of steps, where it fits, and the state each step must lead to there."""

    name: str  # a stable key: the manifest lists it
    covers: str  # what it exercises, in words
    steps: tuple[Way, ...]
    when: Callable[[Config, Story], bool]
    expect: tuple[str | None, ...] = ()  # each step's next state (None: any), or REFUSED
    ends: bool = False  # the gadget ends the trace: a refusal, or the end of the session

    def fit(self, machine: Machine, config: Config, story: Story, strict: bool = True) -> tuple[Config, Story] | None:
        """Where the gadget leaves a walk standing at (config, story), or None when it does not fit there.

        Not `strict`, for a table under test (`fuzz`): the gadget fits
        wherever its steps are accepted, whatever states they lead to, and
        a step that breaks a rule ends it there (the walk has found a bug).
        """
        if not self.when(config, story):
            return None
        for index, way in enumerate(self.steps):
            if way.how in KINDS and way.how not in story:
                return None
            outcome = machine.step(config, way.event, way.choice)
            wanted = self.expect[index] if index < len(self.expect) else None
            if wanted == REFUSED:
                return (config, story) if outcome.status in (Status.REFUSED, Status.ENDED) else None
            if outcome.status is not Status.OK or (outcome.broken and strict):
                return None
            if outcome.broken:
                return outcome.config, retell(story, way, outcome.actions)
            if strict and wanted is not None and outcome.config.state != wanted:
                return None
            if outcome.config.ended and not self.ends:
                return None
            story = retell(story, way, outcome.actions)
            config = outcome.config
        return config, story


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
             (Way(ev, False, BEFORE),), _in(requested), (requested,)),
        Goal("post_send:at", "evidence whose speech starts at the very ms of the last commit: post_send is false",
             (Way(ev, False, AT),), _in(requested), (requested,)),
        Goal("post_send:after", "evidence whose speech starts 1 ms after the last commit: post_send is true",
             (Way(ev, True, AFTER),), _in(requested), (clear,)),
        Goal("post_send:between-commits", "speech after an earlier commit but before the last one: post_send is false",
             (Way(ev, False, BEFORE),), lambda c, s: c.state == requested and c.session_requests >= 2, (requested,)),
        Goal("post_send:loss-at-commit",
             "a loss, the release and the commit at one ms; speech at that ms (post_send false), then 1 ms later (true)",
             (Way(lo), Way(rel, False, SAME_MS), Way(ok, False, SAME_MS), Way(ev, False, AT), Way(ev, True, AFTER)),
             _in(opened), (opened, sending, requested, requested, clear)),
        Goal("post_send:after-dup",
             "a repeated notice after the commit, then speech at its ms: post_send is true (a dup moves no time)",
             (Way(lo, True, EPISODE), Way(ev, True, AT_DUP)), _in(requested), (requested, clear)),
        Goal("late_loss:same-ms-as-send", "a loss at the ms the send started, its result at the same ms: it reopens",
             (Way(rel), Way(lo, False, SAME_MS), Way(ok, False, SAME_MS)), _in(opened), (sending, sending, opened)),
        Goal("late_loss:cleared-by-failure", "a late loss, the send fails, the retry commits: it no longer reopens",
             (Way(rel), Way(lo), Way(failed), Way(rel), Way(ok)), _in(opened, episode_attempts=0),
             (sending, sending, due, sending, requested)),
        Goal("late_loss:dup-is-not-late", "a repeated notice during the send is not a late loss",
             (Way(lo, True, EPISODE), Way(ok)), lambda c, s: c.state == sending and not c.late_loss, (sending, requested)),
        Goal("busy:twice-then-once", "busy_start twice, busy_end once: busy is a flag, so the release sends",
             (Way("busy_start"), Way("busy_start"), Way("busy_end"), Way(rel)), _in(opened),
             (opened, opened, opened, sending)),
        Goal("candidate_active:cleared-by-release", "speech during the send, a release, then the send fails: it retries",
             (Way("candidate_start"), Way(rel), Way(failed)), _in(sending), (sending, sending, due)),
        Goal("session_requests:last-send", f"a send with session_requests at {budget - 1}, one below its cap",
             (Way(rel),), _in(opened, session_requests=budget - 1), (sending,)),
        Goal("session_requests:last-commit", f"the commit that brings session_requests to its cap, {budget}",
             (Way(ok),), _in(sending, session_requests=budget - 1), (requested,)),
        Goal("session_requests:at-cap", f"a release with session_requests at its cap, {budget}: written off",
             (Way(rel),), _in(opened, session_requests=budget), (clear,)),
        Goal("session_requests:at-cap-after-reopen", "a reopened episode at the session cap: no fresh budget",
             (Way(lo), Way(rel)), _in(requested, session_requests=budget), (opened, clear)),
        Goal("episode_attempts:last-send", f"a retry with episode_attempts at {attempts - 1}, one below its cap",
             (Way(rel),), _in(due, episode_attempts=attempts - 1), (sending,)),
        Goal("episode_attempts:at-cap-failed", f"a send fails with episode_attempts at its cap, {attempts}: written off",
             (Way(failed),), _in(sending, episode_attempts=attempts), (clear,)),
        Goal("episode_attempts:at-cap-undelivered",
             f"a request undelivered with episode_attempts at its cap, {attempts}: written off",
             (Way("request_undelivered"),), _in(requested, episode_attempts=attempts), (clear,)),
    ]
    for spent in range(1, attempts + 1):
        for state, words in ((requested, "a reopened episode"), (clear, "a new episode")):
            goals.append(Goal(
                f"episode_attempts:fresh-from-{state}-after-{spent}",
                f"{words} after {spent} attempts were spent: a fresh allowance of {attempts} sends",
                (Way(lo), Way(rel), Way(failed), Way(rel)), _in(state, episode_attempts=spent),
                (opened, sending, due, sending),
            ))
    for kind in KINDS:
        for state in machine.table.states:
            if kind == EPISODE and state == machine.initial_state:
                continue  # no episode is open in the initial state
            goals.append(Goal(
                f"id:{kind}:{state}", f"a repeated notice in {state} for an id {_KIND_WORDS[kind]}: nothing changes",
                (Way(lo, True, kind),), _in(state), (state,)))
    goals += [
        Goal("after_end:send_ok", "a late send result after session_end: refused as after_session_end",
             (Way(ok),), lambda c, s: c.ended, (REFUSED,), ends=True),
        Goal("after_end:session_end", "a second session_end: refused as after_session_end",
             (Way("session_end"),), lambda c, s: c.ended, (REFUSED,), ends=True),
    ]
    return tuple(goals)


# Making a plan concrete -----------------------------------------------------------


def realize(machine: Machine, plan: Iterable[Way]) -> list[dict[str, Any]]:
    """A replayable trace for a plan, times, interval ids and speech starts as each Way asks (`run.concrete`).

    The plan is replayed as it is made, and the trace ends at the first
    event the table does not take.
    """
    return concretize(plan, Session(machine))
