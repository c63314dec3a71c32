"""Progress: stuck gaps, retry loops and the bounds, each against what replaying its trace does and a plain search."""

from __future__ import annotations

from collections import deque

import pytest

import gapstate
from gapstate.proof.explore import explore
from gapstate.proof.progress import progress
from gapstate.run.concrete import concretize
from gapstate.run.machine import Machine, Status
from gapstate.table.bounds import BOUNDS
from gapstate.table.load import parse_spec
from gapstate.table.vocabulary import EVENTS, INITIAL, Config

from .support import SPEC_TEXT, slow_but, variant

# A failed send that reopens the episode: its attempts start again, so one gap can fail and resend forever.
LOOPING = variant("SENDING | send_failed | attempts_left,!candidate_active | DUE | keep_debt",
                  "SENDING | send_failed | attempts_left,!candidate_active | DUE | reopen_gap")
# With the session budget spent, a release in OPEN no longer writes the gap off, busy or not.
STUCK = variant("OPEN | floor_released | !busy,!budget_left | CLEAR | unrepaired_budget",
                "OPEN | floor_released | !busy,!budget_left | = | noop",
                variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | = | noop"))


def proved(text: str):
    table = parse_spec(text, "spec.md").table
    return table, progress(table, explore(Machine(table)))


def replayed(text: str, events):
    result = gapstate.replay(parse_spec(text, "spec.md"), events)
    assert result.ok, result.error
    return result


def test_the_bundled_table_has_no_stuck_gap_and_no_retry_loop():
    _, found = proved(SPEC_TEXT)
    assert found.stuck == () and found.loops == ()


def test_the_bundled_bounds_are_what_the_caps_allow():
    _, found = proved(SPEC_TEXT)
    assert {b.name: b.value for b in found.bounds} == {
        "sends_per_gap": 6, "commits_per_gap": 3, "commits_per_session": 3, "attempts_per_episode": 2}


def _counted_in_last_gap(steps, actions: frozenset[str]) -> int:
    """How many of `actions` the steps took since the gap they end in (or last ended) opened."""
    count = 0
    for step in steps:
        if step.before.state == INITIAL and step.outcome.config.state != INITIAL:
            count = 0
        count += sum(a in actions for a in step.outcome.actions)
    return count


@pytest.mark.parametrize("text", [SPEC_TEXT, STUCK], ids=["bundled", "stuck"])
def test_each_bound_trace_replays_and_reaches_its_value(text):
    _, found = proved(text)
    for bound in BOUNDS:
        reached = found.bound(bound.name)
        result = replayed(text, reached.to_dict()["trace"])
        if bound.counter:
            assert getattr(result.final, bound.counter) == reached.value
        else:
            assert _counted_in_last_gap(result.steps, bound.counts) == reached.value


def _gap_reference(machine: Machine, counts: frozenset[str], ceiling: int) -> int | None:
    """The most `counts` actions one gap takes, by a plain breadth-first search over (configuration, count so far):
    None when some run passes `ceiling`, which a table with a bound below it never does."""
    start = (Config(INITIAL), 0)
    seen = {start}
    queue = deque([start])
    most = 0
    while queue:
        config, count = queue.popleft()
        if not machine.within_caps(config):
            continue
        for event in EVENTS:
            for choice in machine.choices(config, event):
                outcome = machine.step(config, event, choice)
                if outcome.status is not Status.OK:
                    continue
                after = outcome.config
                in_gap = config.state != INITIAL and not config.ended
                total = (count if in_gap else 0) + sum(a in counts for a in outcome.actions)
                most = max(most, total)
                if total > ceiling:
                    return None
                ends = after.ended or after.state == INITIAL
                node = (after, 0 if ends else total)
                if node not in seen:
                    seen.add(node)
                    queue.append(node)
    return most


CAPS = slow_but([(3, 2), (1, 1), (2, 3), (4, 1), (5, 4)], (3, 2), (1, 1))


@pytest.mark.parametrize("caps", CAPS, ids=str)
@pytest.mark.parametrize("mistake", [SPEC_TEXT, LOOPING], ids=["bundled", "looping"])
def test_gap_bounds_agree_with_a_plain_search_of_every_run(mistake, caps):
    session, episode = caps
    text = mistake.replace("@cap session_requests 3", f"@cap session_requests {session}").replace(
        "@cap episode_attempts 2", f"@cap episode_attempts {episode}")
    table, found = proved(text)
    machine = Machine(table)
    for bound in BOUNDS:
        if bound.counts:
            assert found.bound(bound.name).value == _gap_reference(machine, bound.counts, 4 * (session + 1) * (episode + 1))


def test_a_send_that_reopens_the_episode_is_one_retry_loop_with_a_lasso_that_goes_round():
    _, found = proved(LOOPING)
    assert [loop.line for loop in found.loops] == [SPEC_TEXT.splitlines().index(
        "OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request") + 1]
    loop = found.loops[0]
    rounds = 3
    events = concretize((*loop.steps, *loop.cycle * rounds))  # later times and fresh ids each time round
    # The loop's failed send breaks a rule (a fresh allowance where no episode starts), so a replay stops
    # there; the machine's steps go on past a breach, and they go round.
    machine = Machine(parse_spec(LOOPING, "spec.md").table)
    configs, outcomes = [Config(INITIAL)], []
    for stimulus in (*loop.steps, *loop.cycle * rounds):
        outcome = machine.step(configs[-1], stimulus.event, stimulus.choice)
        assert outcome.status is Status.OK
        outcomes.append(outcome)
        configs.append(outcome.config)
    assert len(events) == len(outcomes)
    starts = [configs[len(loop.steps) + i * len(loop.cycle)] for i in range(rounds + 1)]
    assert starts[0] == starts[1] == starts[2] == starts[3]  # each round comes back to where it began
    sends = sum("send_request" in outcome.actions for outcome in outcomes[len(loop.steps):])
    assert sends >= rounds and all(outcome.config.state != INITIAL for outcome in outcomes[len(loop.steps):])
    assert found.bound("sends_per_gap").value is None


def test_a_loop_that_only_waits_is_no_retry_loop():
    waiting = [{"event": "loss_voiced", "t": 100, "id": "iv-1"}, {"event": "busy_start", "t": 200},
               {"event": "busy_end", "t": 300}, {"event": "busy_start", "t": 400}]
    result = replayed(SPEC_TEXT, waiting)
    assert result.steps[1].before == result.steps[3].before  # a cycle inside the gap
    assert proved(SPEC_TEXT)[1].loops == ()


def _trapped(machine: Machine, config: Config) -> bool:
    """No events but session_end lead from `config` out of its gap: a plain breadth-first search."""
    seen = {config}
    queue = deque([config])
    while queue:
        here = queue.popleft()
        if not machine.within_caps(here):
            return False
        for event in EVENTS:
            if event == "session_end":
                continue
            for choice in machine.choices(here, event):
                outcome = machine.step(here, event, choice)
                if outcome.status is Status.OK:
                    if outcome.config.state == INITIAL:
                        return False
                    if outcome.config not in seen:
                        seen.add(outcome.config)
                        queue.append(outcome.config)
    return True


@pytest.mark.parametrize("text", [SPEC_TEXT, STUCK, LOOPING], ids=["bundled", "stuck", "looping"])
def test_stuck_gaps_are_exactly_the_trapped_configurations_of_a_plain_search(text):
    table, found = proved(text)
    machine = Machine(table)
    exploration = explore(machine)
    trapped = [c for c in exploration.configs() if c.state != INITIAL and not c.ended and _trapped(machine, c)]
    assert bool(trapped) == bool(found.stuck)
    for stuck in found.stuck:
        result = replayed(text, concretize(stuck.steps))
        assert result.final.state == stuck.state and result.final in trapped
        assert result.steps[-1].outcome.row.line == stuck.line
        assert result.steps[-1].before not in trapped


def test_a_trap_is_reported_once_per_region_at_the_first_step_into_it():
    _, found = proved(STUCK)
    lines = SPEC_TEXT.splitlines()
    assert [s.line for s in found.stuck] == [
        lines.index("SENDING | send_ok | late_loss | OPEN | commit_request,reopen_gap") + 1,
        lines.index("REQUESTED | request_undelivered | attempts_left,candidate_active | OPEN | keep_budget_spent,supersede") + 1,
    ]
    assert all(s.state == "OPEN" for s in found.stuck)

