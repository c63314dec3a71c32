"""gapstate/proof/packing.py: configurations as integers, the classes of those that behave alike, and how many the caps imply."""

from __future__ import annotations

import functools

import pytest

from gapstate.proof.explore import explore, step_classes
from gapstate.proof.packing import Packing
from gapstate.run.machine import Machine, Status
from gapstate.table.load import parse_spec
from gapstate.table.vocabulary import COUNTERS

from .support import SPEC_TEXT, variant


@functools.cache
def machine(session_requests: int = 3) -> Machine:
    """The bundled table, its session cap changed: at 14, configurations that differ only in it share their steps."""
    text = variant("@cap session_requests 3", f"@cap session_requests {session_requests}") if session_requests != 3 else SPEC_TEXT
    return Machine(parse_spec(text, "spec.md").table)


def test_a_node_decodes_to_the_configuration_it_encodes():
    packing = Packing(machine())
    for node in range(0, packing.space, 97):  # every field takes many values over a stride prime to every radix
        config = packing.decode(node)
        assert packing.encode(config) == node
        assert packing.pack(config) == node
        assert all(type(flag) is bool for flag in config[1 + len(COUNTERS):])  # a flag decodes to a bool, not 0 or 1
    assert packing.decode(packing.encode(machine().initial)) == machine().initial


def test_a_counter_outside_the_explored_range_cannot_be_encoded():
    packing = Packing(machine())
    far = machine().initial._replace(session_requests=99)
    with pytest.raises(ValueError, match="session_requests = 99 is outside the explored range"):
        packing.encode(far)


def test_a_configuration_past_a_cap_is_packed_but_not_expanded():
    packing = Packing(machine())
    assert packing.expanded(packing.encode(machine().initial._replace(session_requests=3)))
    assert not packing.expanded(packing.encode(machine().initial._replace(session_requests=4)))


def test_with_small_caps_every_class_is_one_configuration():
    packing = Packing(machine())
    assert not packing.folds
    node = packing.encode(machine().initial._replace(session_requests=2))
    assert packing.fold(node) == node and packing.class_size(node) == 1


def test_with_a_large_cap_the_middle_values_of_a_counter_fold_into_one_class():
    packing = Packing(machine(14))
    assert packing.folds
    at = {v: packing.encode(machine(14).initial._replace(state="OPEN", session_requests=v)) for v in range(16)}
    representative = packing.fold(at[7])
    assert packing.decode(representative) == machine(14).initial._replace(state="OPEN", session_requests=3)
    assert {packing.fold(at[v]) for v in range(3, 12)} == {representative}
    assert packing.class_size(representative) == 9
    for edge in (0, 1, 2, 12, 13, 14):  # 0, the cap and what one step adds near either behave differently
        assert packing.fold(at[edge]) == at[edge] and packing.class_size(at[edge]) == 1


def test_with_small_caps_the_classes_are_the_284_configurations_the_readme_counts():
    packing = Packing(machine())
    classes, breaks, _, implied = step_classes(machine(), packing, packing.encode(machine().initial))
    assert len(classes) == implied == 284
    assert breaks == {}  # the bundled table breaks no rule


def test_with_a_large_cap_the_classes_imply_exactly_the_configurations_the_explorer_reaches():
    packing = Packing(machine(14))
    classes, _, _, implied = step_classes(machine(14), packing, packing.encode(machine(14).initial))
    assert implied == len(explore(machine(14))) > len(classes)


def test_a_class_s_step_leads_every_member_where_the_machine_does():
    """`target` moves a member as its representative moved, and `class_targets` names the class it lands in."""
    m = machine(14)
    packing = Packing(m)
    classes, _, _, _ = step_classes(m, packing, packing.encode(m.initial))
    folded = [rep for rep in classes if packing.class_size(rep) > 1]
    assert folded
    for representative in folded[::7]:
        members = [representative, representative + 8 * 5]  # session_requests at the middle's two ends (stride 5)
        for step in classes[representative]:
            delta, (event, choice), line, _, resets = step
            landing = set(packing.class_targets(representative, step))
            for member in members:
                outcome = m.step(packing.decode(member), event, choice)
                assert outcome.status is Status.OK and outcome.row.line == line
                target = packing.target(member, representative, delta, resets)
                assert target == packing.encode(outcome.config)
                assert packing.fold(target) in landing
