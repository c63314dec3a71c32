"""gapstate/proof/mending.py: the walks that decide causes, each against its plain definition."""

from __future__ import annotations

import pytest

from .support import check_text, line_of, variant

COMMIT = "SENDING | send_ok | !late_loss | REQUESTED | commit_request"


def _walker(text):
    from gapstate.proof.explore import explore
    from gapstate.proof.mending import Walker
    from gapstate.run.machine import Machine
    from gapstate.table.load import parse_spec

    spec = parse_spec(text, "spec.md")
    machine = Machine(spec.table)
    exploration = explore(machine)
    return spec, machine, exploration, Walker(machine, spec.table, exploration)


def _suspects(text, machine, table):
    from gapstate.proof.mending import suspect

    return [s for f in check_text(text).roots() if (s := suspect(f, table, machine)) is not None]


def _plain_walk(machine, table, suspects, opened):
    """The rows that fire and the (rule, row) pairs broken, stepping every configuration, suspect steps
    opened (leading to any state, with the actions of any row) or else left out."""
    from collections import deque

    from gapstate.run.machine import Status
    from gapstate.table.vocabulary import ACTIONS, EVENTS

    actions = {r.actions for r in table.rows if not r.invalid} | {(n,) for n, a in ACTIONS.items() if a.add or a.sets}
    seen, queue, fired, broken = {machine.initial}, deque([machine.initial]), set(), set()
    while queue:
        config = queue.popleft()
        if config.ended or not machine.within_caps(config):
            continue
        for event in EVENTS:
            for choice in machine.choices(config, event):
                outcome = machine.step(config, event, choice)
                line = outcome.row.line if outcome.row is not None else None
                suspect = any(
                    (s.rows is None) == (line is None) and (line is None or line in s.rows)
                    and s.test(config, event, choice, bool(outcome.broken))
                    for s in suspects
                )
                targets = []
                if outcome.status is Status.OK and not (suspect and not opened):
                    fired.add(line)
                    broken.update((rule, line) for rule in outcome.broken)
                    targets.append(outcome.config)
                if suspect and opened:
                    for state in table.states:
                        for acts in ((), *actions):  # where a row to `state` doing `acts` would land, rules unchecked
                            targets.append(machine.landing(machine.after_event(config, event), machine.effects(acts), state))
                for target in targets:
                    if target not in seen:
                        seen.add(target)
                        queue.append(target)
    return fired, broken


# Small caps keep the plain opened walk, which may reach every configuration the caps allow, cheap.
SMALL_CAPS = "@cap session_requests 1\n@cap episode_attempts 1"


def _small(old, new):
    text = variant("@cap session_requests 3", SMALL_CAPS)
    return variant("@cap episode_attempts 2", "", variant(old, new, text))


@pytest.mark.parametrize(
    "old, new",
    [
        (COMMIT, ""),
        ("OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request",
         "OPEN | floor_released | busy,budget_left,attempts_left | SENDING | send_request"),
        ("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request"),
    ],
    ids=["hole", "overlap", "breach"],
)
def test_an_opened_walk_fires_the_rows_the_plain_definition_fires(old, new):
    text = _small(old, new)
    spec, machine, _, walk = _walker(text)
    suspects = _suspects(text, machine, spec.table)
    assert suspects
    every = {row.line for row in spec.table.rows}
    fired = _plain_walk(machine, spec.table, suspects, opened=True)[0]
    assert walk.opened(suspects, every) == fired & every


@pytest.mark.parametrize(
    "old, new",
    [
        ("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request"),
        ("OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request",
         "OPEN | floor_released | busy,budget_left,attempts_left | SENDING | send_request"),
    ],
    ids=["breach", "overlap"],
)
def test_a_blocked_walk_along_the_explored_graph_fires_and_breaks_what_stepping_would(old, new):
    text = variant(old, new)
    spec, machine, _, walk = _walker(text)
    suspects = _suspects(text, machine, spec.table)
    assert suspects
    assert walk.blocked(suspects) == _plain_walk(machine, spec.table, suspects, opened=False)


def test_an_opened_walk_stops_once_every_wanted_row_has_fired():
    text = variant("* | busy_start | - | = | noop", "")
    spec, machine, exploration, walk = _walker(text)
    suspects = _suspects(text, machine, spec.table)
    cut_off = {line_of(text, "OPEN | floor_released | busy |"), line_of(text, "DUE | floor_released | busy |")}
    assert walk.opened(suspects, cut_off) == cut_off
    assert walk.visited < len(exploration)  # the way in is short; the opened configurations are thousands


def test_a_row_no_configuration_within_the_caps_fires_is_settled_without_a_walk():
    # busy_end clears busy before the guards are read: `busy` never holds on it, anywhere
    text = variant("CLEAR | busy_end | - | = | noop", "* | busy_end | busy | = | noop")
    spec, machine, _, walk = _walker(text)
    suspects = _suspects(text, machine, spec.table)
    assert suspects
    assert walk.opened(suspects, {line_of(text, "* | busy_end | busy")}) == set()
    assert walk.visited == 0
