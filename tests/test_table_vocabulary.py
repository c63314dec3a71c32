"""The vocabulary (with the catalogues written in it) is the one place that names states, events, guards and actions, and its records are whole."""

from __future__ import annotations

import ast

from gapstate.run.event import Event
from gapstate.table.vocabulary import (
    ACTIONS,
    CHOICE_OF,
    COUNTERS,
    EVENTS,
    FLAGS,
    GUARDS,
    INVALID,
    PAYLOADS,
    STATES,
    Config,
    field_words,
    guard_words,
)

from .support import package_nodes

# The names, and the catalogues written in them: the rules, the bounds, the parser's known mistakes
# (example lines of a table) and the boundary goals (gadgets of the seed's events and states).
VOCABULARY = {"table/vocabulary.py", "table/rules.py", "table/bounds.py", "table/mistakes.py", "fuzzing/boundaries.py"}

# Strings elsewhere that spell a name of the vocabulary but name something else.
NOT_THE_NAME = {
    ("run/replayer.py", "debt_owed"): "a key of the replay document's final configuration",
    ("run/replayer.py", "ended"): "a key of the replay document's final configuration",
    ("cli/render/replay.py", "debt_owed"): "reading that key back",
    ("cli/render/replay.py", "ended"): "reading that key back",
    ("conformance/answers.py", "debt_owed"): "the line protocol's answer field",
    ("run/machine.py", "ended"): "Status.ENDED's value: what became of a step, not the flag",
}


def test_no_module_but_the_vocabulary_and_its_catalogues_names_a_state_event_guard_counter_flag_or_action():
    """A name spelt as a whole string literal is code that knows the vocabulary; a name inside a sentence is words."""
    names = {*STATES, *EVENTS, *GUARDS, *COUNTERS, *FLAGS, *ACTIONS}
    named, excused = [], set()
    for module, nodes in package_nodes():
        if module in VOCABULARY:
            continue
        for node in nodes:
            if isinstance(node, ast.Constant) and node.value in names:
                if (module, node.value) in NOT_THE_NAME:
                    excused.add((module, node.value))
                else:
                    named.append(f"{module}:{node.lineno}: {node.value!r}")
    assert named == []
    assert excused == set(NOT_THE_NAME), "an excuse no longer needed: remove it"


def test_every_guard_says_what_it_means_both_ways_and_gets_its_value_one_way():
    for name, guard in GUARDS.items():
        assert guard.meaning and guard.false and guard.meaning != guard.false, name
        assert (guard.derive is None) != (guard.payload is None), name
        assert guard_words(name, True) == guard.meaning and guard_words(name, False) == guard.false


def test_a_payload_names_a_trace_field_of_its_event_and_one_guard():
    assert set(PAYLOADS) == set(CHOICE_OF)
    for event, payload in PAYLOADS.items():
        assert payload.event == event
        assert payload.field in Event.__struct_fields__
        assert GUARDS[CHOICE_OF[event]].payload is payload


def test_the_configuration_is_the_state_the_counters_and_the_flags():
    assert Config._fields == ("state", *COUNTERS, *FLAGS)
    assert field_words("busy", True) == FLAGS["busy"].set
    assert field_words("busy", False) == FLAGS["busy"].cleared
    assert field_words("episode_attempts", 0) == COUNTERS["episode_attempts"].reset
    assert field_words("session_requests", 2) == "session_requests becomes 2"


def test_one_action_refuses_its_event():
    assert [name for name, action in ACTIONS.items() if action.refuses] == [INVALID]


def test_a_derived_guards_form_says_what_its_function_computes():
    """The generators spell `form`, the interpreter calls `derive`: on every flag and counter value they agree."""
    from itertools import product

    from gapstate.table.vocabulary import BELOW_CAP, FLAG

    caps = {"session_requests": 2, "episode_attempts": 1}
    for flags in product((False, True), repeat=len(FLAGS)):
        for counts in product(range(3), repeat=len(COUNTERS)):
            config = Config("CLEAR", *counts, *flags)
            for name, guard in GUARDS.items():
                if guard.derive is None:
                    assert guard.form is None, name
                    continue
                how, what = guard.form
                expected = getattr(config, what) if how == FLAG else getattr(config, what) < caps[what]
                assert how in (FLAG, BELOW_CAP) and guard.derive(config, caps) == expected, name
