"""Shrinking a failing fuzz trace: the shortest way to the same failure, in `check`'s canonical form."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gapstate.run.machine import Status
from gapstate.run.replayer import ReplayError, Session, machine_for, replay
from gapstate.run.trace import from_dicts
from gapstate.table.load import Spec
from gapstate.table.vocabulary import Stimulus


def failing_row(spec: Spec, trace: tuple[dict[str, Any], ...]) -> int | None:
    """The spec line of the row whose step broke a rule: the replay stops after that step, so it is the last."""
    steps = replay(spec, from_dicts(trace)).steps
    return steps[-1].row if steps else None


def minimize(spec: Spec, trace: tuple[dict[str, Any], ...], error: ReplayError) -> tuple[tuple[dict[str, Any], ...], ReplayError]:
    """The failing trace cut down to the events the failure needs, in `check`'s canonical form.

    What fails is the last event: a row that breaks a rule, or an event no
    row matches, sent from the configuration the trace reached. Any trace
    to a configuration where the same event fails the same way (the same
    row breaks one of the same rules, or the same hole) shows the same
    defect, so the trace becomes the proof's shortest such way, along steps
    that break nothing (`check` picks its counterexamples the same way).
    Then each event is dropped in turn while the failure stays, until no
    single event can go. Events are written as `concretize` writes them
    (times 100 ms apart, ids iv-1, iv-2, ...), so the result does not depend
    on the draws that found it. Falls back to the trace as given if its
    canonical form does not fail alike (it always should).
    """
    from gapstate.proof.paths import roadmap
    from gapstate.run.concrete import concretize

    machine = machine_for(spec)
    steps, before = _abstract(spec, trace)
    last = machine.step(before, *steps[-1])
    same = _same_failure(last)

    def failure(candidate: list[Stimulus]) -> ReplayError | None:
        result = replay(spec, from_dicts(concretize(candidate)))
        found = result.error
        if found is None or found.index != len(candidate) - 1:
            return None
        session = Session(machine)
        for item in from_dicts(concretize(candidate[:-1])):
            session.feed(item)
        return found if same(machine.step(session.config, *candidate[-1])) else None

    found = failure(steps)
    if found is None:
        return trace, error
    road = roadmap(machine)
    hits = road.hits.get(last.row.line if last.row is not None and last.status is Status.OK else (before.state, steps[-1][0]), [])
    nearest = sorted(
        ((road.depth[way.config], n, way.config, way.sent) for n, way in enumerate(hits)
         if way.config in road.depth and same(machine.step(way.config, *way.sent))),
        key=lambda item: item[:2],
    )
    if nearest and nearest[0][0] + 1 < len(steps):
        _, _, source, final = nearest[0]
        shortest = road.exploration.steps_to(source) + [final]
        again = failure(shortest)
        if again is not None:
            steps, found = shortest, again
    changed = True
    while changed:
        changed = False
        index = 0
        while index < len(steps) - 1:  # the last event is the one that fails
            trial = steps[:index] + steps[index + 1 :]
            shorter = failure(trial)
            if shorter is not None:
                steps, found, changed = trial, shorter, True
            else:
                index += 1
    return tuple(concretize(steps)), found


def _same_failure(outcome: Any) -> Callable[[Any], bool]:
    """Whether another step's outcome fails like this one: the same hole, or the same row breaking one of the same rules."""
    if outcome.status is not Status.OK:
        return lambda other: other.status == outcome.status
    rules = set(outcome.broken)
    return lambda other: other.status is Status.OK and other.row.line == outcome.row.line and bool(rules.intersection(other.broken))


def _abstract(spec: Spec, trace: tuple[dict[str, Any], ...]) -> tuple[list[Stimulus], Any]:
    """Each event of a trace with the value of its chosen guard, and the configuration before the last.

    The value is read off the step: the one the machine, from the same
    configuration, answers alike to (when both do, the table cannot tell
    them apart, and either will do).
    """
    session = Session(machine_for(spec))
    machine = session.machine
    steps = []
    before = session.config
    for item in from_dicts(trace):
        before = session.config
        outcome = session.feed(item)
        choice = next(c for c in machine.choices(before, item.event) if machine.step(before, item.event, c) == outcome)
        steps.append(Stimulus(item.event, choice))
        if outcome.status is not Status.OK:
            break
    return steps, before
