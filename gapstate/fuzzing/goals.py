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
goal reads: which kinds of interval id have been seen. The goals themselves
are a catalogue, `boundaries`: this module names no event, state or guard.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from gapstate.run.concrete import EPISODE, KINDS, SETTLED, WRITTEN_OFF, concretize
from gapstate.run.machine import Machine, Status
from gapstate.run.replayer import Session
from gapstate.table.vocabulary import ENDINGS, PAYLOADS, SEEN, WRITE_OFFS, Config, Stimulus

_GIVES_IDS = frozenset(event for event, payload in PAYLOADS.items() if payload.reads == SEEN)  # loss_voiced


class Way(NamedTuple):
    """One step of a plan: what is sent (the event, and the value of its chosen guard: dup, post_send), and how
    it is realized."""

    sent: Stimulus
    how: str = ""

    @classmethod
    def of(cls, event: str, choice: bool = False, how: str = "") -> Way:
        return cls(Stimulus(event, choice), how)


Story = frozenset[str]  # the kinds of interval id seen so far (KINDS)


def retell(story: Story, way: Way, actions: tuple[str, ...]) -> Story:
    """The story after a step that took `actions`: a fresh id joins the episode, an ending files its ids."""
    return retold(story, way.sent.event, way.sent.choice, actions)


def retold(story: Story, event: str, choice: bool, actions: tuple[str, ...]) -> Story:
    """`retell` for a step given as its event and the value of its chosen guard (a walk's, with no Way built)."""
    if event in _GIVES_IDS and not choice:
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
            outcome = machine.step(config, *way.sent)
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


# Making a plan concrete -----------------------------------------------------------


def realize(machine: Machine, plan: Iterable[Way]) -> list[dict[str, Any]]:
    """A replayable trace for a plan, times, interval ids and speech starts as each Way asks (`run.concrete`).

    The plan is replayed as it is made, and the trace ends at the first
    event the table does not take.
    """
    return concretize(plan, Session(machine))
