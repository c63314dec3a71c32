"""gapstate/proof/totality.py: contradictory rows, valuations no row covers (as the fewest rows to add), and ambiguity."""

from __future__ import annotations

import pytest

from gapstate.table.vocabulary import EVENTS

from .support import ALLOWED, SPEC_TEXT, assert_findings, check_text, labels, line_of, variant


def test_a_row_whose_guards_contradict_is_found_and_not_also_called_unreachable():
    text = variant(
        "CLEAR | busy_end | - | = | noop",
        "CLEAR | busy_end | - | = | noop\nCLEAR | busy_end | busy,!busy | = | noop",
    )
    assert_findings(text, f"contradiction@{line_of(text, 'busy,!busy')}")


def test_a_missing_valuation_is_not_total_with_the_row_to_add():
    text = variant(ALLOWED[0], "")
    result = check_text(text)
    [gap] = [f for f in result.findings if f.kind == "not_total"]
    assert (gap.state, gap.event) == ("OPEN", "floor_released")
    assert gap.to_dict()["valuation"] == {"busy": False, "budget_left": True, "attempts_left": False}
    assert "OPEN | floor_released | !busy,budget_left,!attempts_left | ? | ?" in gap.message
    assert gap.line == line_of(text, "OPEN | floor_released | busy | DUE")
    # its allowance now names no row
    assert [f.kind for f in result.findings] == ["stale_allowance", "not_total"]


def test_the_suggested_row_is_as_wide_as_the_gap():
    text = variant("DUE | busy_end | !budget_left | CLEAR | unrepaired_budget", "")
    [gap] = [f for f in check_text(text).findings if f.kind == "not_total"]
    assert "`DUE | busy_end | !budget_left | ? | ?`" in gap.message


def test_a_state_and_event_with_no_row_at_all_is_not_total_at_the_header():
    text = variant("CLEAR | busy_end | - | = | noop", "")
    [gap] = check_text(text).findings
    assert (gap.kind, gap.state, gap.event, gap.line) == ("not_total", "CLEAR", "busy_end", line_of(text, "# state |"))
    assert gap.to_dict()["valuation"] == {}


def test_a_duplicated_row_is_ambiguous_naming_both_lines():
    text = variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | noop\nCLEAR | busy_end | - | = | noop")
    lines = [n for n, line in enumerate(text.splitlines(), 1) if line == "CLEAR | busy_end | - | = | noop"]
    assert_findings(text, f"ambiguous@{lines[1]}")
    [finding] = check_text(text).findings
    assert finding.to_dict()["rows"] == lines
    assert finding.to_dict()["valuation"] == {}


def test_overlapping_guards_are_ambiguous_with_a_shared_valuation():
    text = variant(
        "DUE | busy_end | !budget_left | CLEAR | unrepaired_budget",
        "DUE | busy_end | !budget_left | CLEAR | unrepaired_budget\nDUE | busy_end | !attempts_left | CLEAR | unrepaired_attempts",
    )
    result = check_text(text)
    found = [f for f in result.findings if f.kind == "ambiguous"]
    assert found, labels(text)
    valuation = found[0].to_dict()["valuation"]
    assert valuation["attempts_left"] is False
    added = line_of(text, "DUE | busy_end | !attempts_left")
    # the row that overlaps both neighbours is the one to narrow: every overlap is reported at it,
    # and the second follows from the first
    assert all(added in f.to_dict()["rows"] and f.line == added for f in found)
    assert [result.root_of(f) for f in found] == [None] + [found[0]] * (len(found) - 1)


def test_a_wildcard_row_overlapping_a_state_row_is_ambiguous_once():
    text = variant("CLEAR | busy_end | - | = | noop", "* | busy_end | busy | = | noop")
    wildcard = line_of(text, "* | busy_end | busy")
    pairs = [tuple(f.to_dict()["rows"]) for f in check_text(text).findings if f.kind == "ambiguous"]
    assert pairs, labels(text)  # the wildcard overlaps the busy_end rows of the other states
    assert all(pair[0] == wildcard for pair in pairs)
    assert len(set(pairs)) == len(pairs)


def test_a_seed_state_entered_but_without_rows_is_not_total_not_unknown():
    text = SPEC_TEXT
    for line in SPEC_TEXT.splitlines():
        if line.startswith("REQUESTED |"):
            text = variant(line, "", text)
    findings = check_text(text).findings
    assert not [f for f in findings if f.kind == "unknown_name"]
    gaps = {f.event for f in findings if f.kind == "not_total" and f.state == "REQUESTED"}
    wildcard = {line.split(" | ")[1] for line in SPEC_TEXT.splitlines() if line.startswith("* |")}
    assert gaps == set(EVENTS) - wildcard


def test_every_uncovered_valuation_is_reported_as_the_fewest_rows_to_add():
    text = variant("OPEN | floor_released | !busy,!budget_left | CLEAR | unrepaired_budget", "")
    text = variant("OPEN | floor_released | !busy,budget_left,!attempts_left | CLEAR | unrepaired_attempts", "", text)
    gaps = [f for f in check_text(text).findings if f.kind == "not_total"]
    assert sorted(f.suggestion for f in gaps) == [
        "OPEN | floor_released | !busy,!budget_left | ? | ?",
        "OPEN | floor_released | !busy,budget_left,!attempts_left | ? | ?",
    ]
    for gap in gaps:  # each example valuation is one the suggested row covers
        assert all(gap.to_dict()["valuation"][g] == v for g, v in gap.cube)


def _members(cube, width):
    from itertools import product

    return {v for v in product((False, True), repeat=width) if all(v[i] == b for i, b in cube)}


def test_the_rows_suggested_cover_exactly_the_uncovered_valuations_without_overlapping():
    from itertools import product

    from gapstate.proof.totality import minimal_cover

    for bits in range(1, 256):  # every non-empty set of valuations of three guards
        valuations = [v for i, v in enumerate(product((False, True), repeat=3)) if bits >> i & 1]
        cubes = [_members(c, 3) for c in minimal_cover(valuations)]
        assert set().union(*cubes) == set(valuations)
        assert sum(len(c) for c in cubes) == len(valuations)  # disjoint: no two suggested rows overlap


@pytest.mark.parametrize("valuations, fewest", [
    ([(False, False, True), (False, True, False), (False, True, True), (True, False, False), (True, False, True), (True, True, False)], 3),
    ([(False, False, False), (True, True, True)], 2),
    ([(a, b) for a in (False, True) for b in (False, True)], 1),
    ([(False, b, c) for b in (False, True) for c in (False, True) if not (b and c)], 2),
])
def test_minimal_cover_finds_the_fewest_rows(valuations, fewest):
    from gapstate.proof.totality import minimal_cover

    assert len(minimal_cover(valuations)) == fewest


def test_copies_of_a_row_are_each_reported_once_against_the_first():
    row = "CLEAR | busy_end | - | = | noop"
    text = variant(row, "\n".join([row] * 300))
    first = text.splitlines().index(row) + 1
    findings = check_text(text).findings
    assert len(findings) == 299
    assert all(f.kind == "ambiguous" and f.to_dict()["rows"] == [first, f.line] for f in findings)
    assert findings[0].message == f"row at line {first + 1} repeats the state, event and guards of the row at line {first}; keep one"


def test_a_copy_with_another_outcome_is_still_one_finding_against_the_first():
    row = "CLEAR | busy_end | - | = | noop"
    text = variant(row, row + "\nCLEAR | busy_end | - | OPEN | open_gap\nCLEAR | busy_end | - | = | note_trim")
    first = text.splitlines().index(row) + 1
    assert [f.to_dict()["rows"] for f in check_text(text).findings if f.kind == "ambiguous"] == [[first, first + 1], [first, first + 2]]
