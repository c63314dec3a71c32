"""The rules catalogue: every rule is whole, and what keeps one is a guard of the vocabulary."""

from __future__ import annotations

from gapstate.table.rules import RULES
from gapstate.table.vocabulary import ACTIONS, EVENTS, GUARDS


def test_what_keeps_a_rule_is_a_literal_of_a_known_guard():
    for rule in RULES:
        for literal in rule.kept_by:
            assert literal.lstrip("!") in GUARDS, (rule.id, literal)


def test_rule_ids_are_unique_kebab_case_and_described():
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    for rule in RULES:
        assert rule.id == rule.id.lower() and " " not in rule.id and rule.description, rule.id


def test_a_rule_is_concerned_only_by_the_events_and_actions_it_names():
    for rule in RULES:
        assert rule.on <= set(ACTIONS) | set(EVENTS), rule.id
        if rule.on:
            outside = next(e for e in EVENTS if e not in rule.on)
            assert not rule.concerns(outside, ())
            assert rule.concerns(outside, tuple(rule.on))
        else:
            assert rule.concerns("session_end", ())
