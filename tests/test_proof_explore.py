"""gapstate/proof/explore.py: the search against a plain breadth-first one over `Config`s, its budget, and the explorations it keeps."""

from __future__ import annotations

from collections import deque

import pytest

import gapstate
from gapstate.proof.explore import TooManyConfigurations, explore
from gapstate.run.machine import Machine, Status
from gapstate.table.load import parse_spec

from .support import SPEC_TEXT, slow_but, variant

SENDS_WHILE_BUSY = ("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")


def plain(machine: Machine) -> dict:
    """Every reachable Config and its steps, stepping each one: the oracle, with no packing or classes."""
    steps: dict = {}
    seen = {machine.initial}
    queue = deque([machine.initial])
    while queue:
        config = queue.popleft()
        out = steps[config] = set()
        if not machine.within_caps(config):
            continue
        for event in gapstate.table.vocabulary.EVENTS:
            for choice in machine.choices(config, event):
                outcome = machine.step(config, event, choice)
                if outcome.status is not Status.OK:
                    continue
                out.add((event, choice, outcome.config, outcome.row.line, not outcome.broken))
                if outcome.config not in seen:
                    seen.add(outcome.config)
                    queue.append(outcome.config)
    return steps


# (14, 2) with the row that sends while busy in the fast suite: a cap well above 2 is where
# configurations that differ only in a counter share their steps (session_requests only added
# to), and the defect gives rule-breaking steps to compare as well as clean ones; (5, 11) does
# the same for episode_attempts, also set back to 0 by open_gap. Every pair of caps, with and
# without the defect, under `pytest -m slow`.
CASES = [
    pytest.param(caps, defect, id=f"{caps[0]}-{caps[1]}-{'busy' if defect else 'bundled'}",
                 marks=() if (caps, defect) == ((14, 2), SENDS_WHILE_BUSY) else pytest.mark.slow)
    for defect in (None, SENDS_WHILE_BUSY) for caps in [(3, 2), (14, 2), (9, 3), (5, 11)]
]


@pytest.mark.parametrize("caps, defect", CASES)
def test_the_exploration_is_exactly_the_plain_search(caps, defect):
    """Same configurations, same steps from each (event, choice, target, row, clean), same broken rules."""
    text = variant("@cap session_requests 3", f"@cap session_requests {caps[0]}")
    text = variant("@cap episode_attempts 2", f"@cap episode_attempts {caps[1]}", text)
    if defect:
        text = variant(*defect, text)
    machine = Machine(parse_spec(text, "spec.md").table)
    oracle = plain(machine)
    exploration = explore(machine)
    assert len(exploration) == len(oracle)
    config = exploration.config
    got = {config(node): {(*m.sent, config(m.target), m.row, not m.breaks) for m in exploration.moves(node)}
           for node in exploration.nodes()}
    assert got == oracle
    broken = {(rule, line, source, event, choice)
              for (rule, line), sources in exploration.broken.items() for source, (event, choice), _ in sources}
    expected = {(rule, line, config, event, choice) for config in oracle for event, choice, _, line, clean in oracle[config]
                if not clean for rule in machine.step(config, event, choice).broken}
    assert broken == expected
    graph = exploration.digraph()
    assert {config(node) for node in graph.nodes} == set(oracle)
    assert {(config(u), config(v)) for u, v in graph.edges} == {(c, target) for c in oracle for _, _, target, _, _ in oracle[c]}
    assert bool(broken) == bool(defect)


@pytest.mark.slow  # a scaling test: three explorations of 100 to 300 requests, about 0.3 s of CPU
def test_large_caps_keep_the_configuration_count_linear():
    """With a session cap well past the episode's, each extra request adds the same configurations."""
    counts = [
        len(explore(Machine(parse_spec(variant("@cap session_requests 3", f"@cap session_requests {n}"), "s.md").table)))
        for n in (100, 200, 300)
    ]
    assert counts[2] - counts[1] == counts[1] - counts[0] > 0


def test_progress_is_reported_up_to_its_total():
    calls = []
    spec = parse_spec(variant("@cap session_requests 3", "@cap session_requests 300"), "spec.md")
    explore(Machine(spec.table), lambda done, total: calls.append((done, total)))
    assert calls[-1][0] == calls[-1][1] > 0
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert len(calls) > 1


@pytest.mark.parametrize("caps", slow_but([(3, 2), (40, 2), (3, 30), (25, 25)], (3, 2), (40, 2), (3, 30)))
def test_the_classes_count_the_configurations_before_any_is_visited(caps):
    """The sizes of the reachable classes add up to the configurations the search then visits."""
    text = variant("@cap session_requests 3", f"@cap session_requests {caps[0]}")
    text = variant("@cap episode_attempts 2", f"@cap episode_attempts {caps[1]}", text)
    exploration = explore(Machine(parse_spec(text, "spec.md").table))
    assert exploration.implied == len(exploration)


def test_past_the_budget_the_search_stops_before_visiting_and_says_what_the_caps_imply():
    text = variant("@cap session_requests 3", "@cap session_requests 1000")
    machine = Machine(parse_spec(variant("@cap episode_attempts 2", "@cap episode_attempts 1000", text), "spec.md").table)
    with pytest.raises(TooManyConfigurations) as raised:
        explore(machine, budget=1_000_000)
    assert raised.value.implied == 36_021_017 and raised.value.budget == 1_000_000
    assert "--max-configurations" in str(raised.value)
    small = Machine(parse_spec(variant("@cap session_requests 3", "@cap session_requests 30"), "spec.md").table)
    assert len(explore(small, budget=len(explore(small)))) == len(explore(small, budget=None))
    with pytest.raises(TooManyConfigurations):
        explore(small, budget=len(explore(small)) - 1)


def test_an_equal_table_is_explored_once_and_its_budget_still_holds():
    text = variant("@cap session_requests 3", "@cap session_requests 7")
    first = explore(Machine(parse_spec(text, "a.md").table))
    again = explore(Machine(parse_spec(text, "b.md").table))
    assert again is first
    assert isinstance(first.fired, frozenset)  # shared, so nobody can change it under another
    with pytest.raises(TooManyConfigurations):
        explore(Machine(parse_spec(text, "c.md").table), budget=len(first) - 1)
    calls = []
    afresh = explore(Machine(parse_spec(text, "d.md").table), lambda done, total: calls.append((done, total)))
    assert calls and calls[-1][0] == calls[-1][1]  # progress is reported as the work happens, never skipped
    assert len(afresh) == len(first) and afresh.fired == first.fired


def test_the_kept_explorations_hold_at_most_the_bound_together_and_the_one_used_longest_ago_goes_first(monkeypatch):
    from gapstate.proof import explore as module

    monkeypatch.setattr(module, "_kept", {})
    one, two, three = (Machine(parse_spec(variant("@cap session_requests 3", f"@cap session_requests {n}",
                                                  variant("@cap episode_attempts 2", "@cap episode_attempts 1")), "s.md").table)
                       for n in (1, 2, 3))
    first, second = explore(one), explore(two)
    assert explore(one) is first  # now used last, though explored first
    third = explore(three)
    assert list(module._kept.values()) == [second, first, third]
    module._kept.clear()
    monkeypatch.setattr(module, "KEPT_CONFIGURATIONS", len(first) + len(third))
    explore(one), explore(two), explore(one)
    explore(three)  # past the bound: `two` goes, used longest ago
    assert [len(kept) for kept in module._kept.values()] == [len(first), len(third)]
    assert [table for table in module._kept] == [one.table, three.table]


@pytest.mark.slow  # explores 20 mutants twice each: about 1 s of CPU
def test_a_mutant_explored_from_the_table_s_classes_is_explored_as_afresh():
    """A one-row mutant's explorer takes over the table's class steps where its states step alike, and finds
    the same nodes, class steps, rows fired and breaches as exploring it from nothing."""
    from gapstate.proof import explore as explorer
    from gapstate.proof import mutation

    text = mutation.without_diagram(SPEC_TEXT)
    reference = mutation.Reference(parse_spec(text, "t").table)
    taken = 0
    for mutant in list(mutation.mutants(text))[::97]:
        table = parse_spec(mutant.text, "m").table
        machine, _ = reference.compare(table, mutant.line)
        inherited = explorer._inherited(machine, explorer.Packing(machine))
        taken += inherited is not None and bool(inherited[3])
        shared, fresh = explorer._explore(machine, None, None), explorer._explore(Machine(table), None, None)
        assert shared.class_steps()[1:] == fresh.class_steps()[1:], mutant.name
        assert (list(shared.nodes()), shared.fired, shared.broken, shared.implied) == \
            (list(fresh.nodes()), fresh.fired, fresh.broken, fresh.implied), mutant.name
    assert taken >= 10
