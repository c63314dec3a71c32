"""The vocabulary (with its rules catalogue) is the one place that names guards and actions, and its records are whole."""

from __future__ import annotations

import ast

from gapstate.run.event import Event
from gapstate.table.vocabulary import (
    ACTIONS,
    CHOICE_OF,
    COUNTERS,
    FLAGS,
    GUARDS,
    INVALID,
    PAYLOADS,
    Config,
    field_words,
    guard_words,
)

from .support import package_nodes

VOCABULARY = {"table/vocabulary.py", "table/rules.py"}  # the names, and the rules written in them


def test_no_module_but_the_vocabulary_names_a_guard_or_an_action_in_code():
    names = set(GUARDS) | set(ACTIONS)
    named = []
    for name, nodes in package_nodes():
        if name in VOCABULARY:
            continue
        for node in nodes:
            if isinstance(node, ast.Constant) and node.value in names:
                named.append(f"{name}:{node.lineno}: {node.value!r}")
    assert named == []


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
