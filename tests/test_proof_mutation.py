"""gapstate/proof/mutation.py: the one-row mutants, which change behaviour, which the proof kills, and the baseline.

The kill counts change whenever a rule is added, so nothing here counts
them: the tests hold the invariants (killed and surviving add up to the
behaviour-changing mutants; a survivor's trace replays alike on both tables
up to its last event, and differently there; a check alone kills only
mutants nothing else kills) on a few rows, and on the whole set under
`pytest -m slow`.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gapstate.errors import GapstateError
from gapstate.proof import mutation
from gapstate.proof.mutation import KINDS, mutants, mutate, read_baseline, row_mutations, without_diagram
from gapstate.run.event import Event
from gapstate.run.machine import Machine
from gapstate.run.replayer import Session
from gapstate.table.load import parse_spec
from gapstate.table.vocabulary import ACTIONS, STATES

from .support import SPEC_TEXT, line_of, variant

SPEC = parse_spec(SPEC_TEXT, "spec/gap-state.md")
BASE = without_diagram(SPEC_TEXT)
# A row one of whose mistakes the prose leaves open: `open_gap` and `reopen_gap` start the same fresh allowance.
REOPEN = "REQUESTED | loss_voiced | !dup | OPEN | reopen_gap"
REOPEN_LINE = line_of(SPEC_TEXT, REOPEN)


@pytest.fixture(scope="module")
def reopened():
    """The mutants of the `reopen_gap` row that replace an action, judged once for the module."""
    return mutate(SPEC, lines=[REOPEN_LINE], kinds=["action_replaced"])


def test_a_row_has_every_kind_of_mistake_once_per_place():
    row = next(r for r in SPEC.table.rows if str(r) == "OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request")
    made = list(row_mutations(row, tuple(dict.fromkeys((*SPEC.table.states, *STATES)))))
    kinds = [kind for kind, _ in made]
    assert kinds.count("deleted") == kinds.count("duplicated") == 1
    assert kinds.count("guard_negated") == kinds.count("guard_dropped") == len(row.guards) == 3
    assert kinds.count("next_changed") == len(STATES)  # `=` and every state but the one it names
    assert kinds.count("action_replaced") == len(ACTIONS) - 1
    assert "OPEN | floor_released | busy,budget_left,attempts_left | SENDING | send_request" in [b for _, b in made]
    assert "OPEN | floor_released | !busy,attempts_left | SENDING | send_request" in [b for _, b in made]
    assert sorted(set(kinds)) == sorted(KINDS)


def test_a_mutant_changes_its_row_and_no_other_line():
    lines = BASE.splitlines()
    for mutant in mutants(SPEC_TEXT, lines=[REOPEN_LINE]):
        changed = mutant.text.splitlines()
        index = REOPEN_LINE - 1
        if mutant.kind == "deleted":
            assert changed == lines[:index] + lines[index + 1 :]
        elif mutant.kind == "duplicated":
            assert changed == lines[: index + 1] + [REOPEN] + lines[index + 1 :]
        else:
            assert changed == lines[:index] + [mutant.became] + lines[index + 1 :] and mutant.became != REOPEN
        assert mutant.name.startswith(REOPEN + " -> ") and mutant.line == REOPEN_LINE


def test_the_diagram_is_blanked_so_every_line_keeps_its_number():
    assert len(BASE.splitlines()) == len(SPEC_TEXT.splitlines()) and "```mermaid" not in BASE
    assert BASE.splitlines()[REOPEN_LINE - 1] == REOPEN


def test_killed_and_surviving_mutants_add_up_to_the_behaviour_changing_ones(reopened):
    assert reopened.behaviour_changing == reopened.killed + len(reopened.survivors)
    assert reopened.killed == sum(v.killed for v in reopened.verdicts) and reopened.killed
    assert all(v.changes for v in reopened.verdicts if v.killed)


def _replayed(table, trace):
    session = Session(Machine(table))
    return [mutation.observable(session.feed(Event(**item))) for item in trace]


def test_a_survivors_trace_steps_alike_on_both_tables_until_its_last_event(reopened):
    """Replayed from its concrete events (ids and times), as an implementation would see it."""
    assert reopened.survivors, "the open_gap mistake of the reopen_gap row is one the prose leaves open"
    assert f"{REOPEN} -> REQUESTED | loss_voiced | !dup | OPEN | open_gap" in {s.name for s in reopened.survivors}
    for survivor in reopened.survivors:
        mutant = next(m for m in mutants(SPEC_TEXT, lines=[survivor.line]) if m.name == survivor.name)
        table, changed = _replayed(SPEC.table, survivor.trace), _replayed(parse_spec(mutant.text, "m").table, survivor.trace)
        assert table[:-1] == changed[:-1] and table[-1] != changed[-1]
        assert (table[-1], changed[-1]) == (survivor.table, survivor.mutant)


def test_a_shorter_trace_steps_alike_everywhere():
    """The trace is the shortest: no configuration nearer the start steps differently (breadth-first)."""
    reference = mutation.Reference(parse_spec(BASE, "b").table)
    mutant = next(m for m in mutants(SPEC_TEXT, lines=[REOPEN_LINE]) if m.became.endswith("| open_gap"))
    _, difference = reference.compare(parse_spec(mutant.text, "m").table, REOPEN_LINE)
    distances = reference.exploration.distances()
    machine = Machine(parse_spec(mutant.text, "m").table)
    nearer = [c for c, d in distances.items() if d < len(difference.steps) - 1 and not c.ended]
    assert nearer
    for config in nearer:
        for choice in reference.machine.choices(config, "loss_voiced"):
            assert mutation.observable(reference.machine.step(config, "loss_voiced", choice)) == \
                mutation.observable(machine.step(config, "loss_voiced", choice))


def test_a_duplicated_row_never_changes_behaviour_and_is_never_checked():
    result = mutate(SPEC, kinds=["duplicated"])
    assert len(result.verdicts) == len(SPEC.table.rows)
    assert result.behaviour_changing == result.killed == 0 and not result.survivors and result.ok


def test_a_check_alone_kills_only_what_no_other_check_kills(reopened):
    rules = {r.rule: r for r in reopened.rules}
    assert set(mutation.CHECKS) <= set(rules)  # every check is listed, killing or not
    for rule in rules.values():
        assert rule.alone <= rule.kills <= reopened.killed
        assert rule.kills == sum(rule.rule in v.killers for v in reopened.verdicts if v.killed)
        assert rule.alone == sum(v.killers == {rule.rule} for v in reopened.verdicts if v.killed)
    assert reopened.idle() == [r.rule for r in reopened.rules if not r.kills]


def test_the_baseline_accepts_the_survivors_it_lists(reopened):
    names = [s.name for s in reopened.survivors]
    assert not reopened.ok and reopened.new == reopened.survivors  # without a baseline every survivor counts
    listed = reopened.against(names)
    assert listed.ok and not listed.new and listed.unused == ()
    assert not reopened.against(names[1:]).ok  # one left out: a new survivor
    stale = reopened.against([*names, GONE])
    assert stale.ok and stale.unused == (GONE,)


# a name of no mutant of the bundled table (it has no `CLEAR | busy_end` row to DUE), and one of a mutant of
# another row than the reopen_gap row, which a run of that row alone does not make
GONE = "CLEAR | busy_end | - | DUE | noop -> (deleted)"
OTHER_ROW = "CLEAR | busy_end | - | = | noop -> (deleted)"


def test_a_run_of_some_rows_neither_reports_nor_drops_the_names_of_mutants_it_did_not_make(reopened):
    from gapstate.proof.mutation import baseline_text

    names = [s.name for s in reopened.survivors]
    result = reopened.against({**dict.fromkeys(names, ""), OTHER_ROW: "accepted in a whole run", GONE: ""})
    assert result.ok and result.unused == (GONE,)  # the other row's name was not judged: not stale
    assert result.kept() == (OTHER_ROW,)
    saved = read_baseline(baseline_text(result.survivors, result.baseline, result.kept()), "b.txt")
    assert saved == {**dict.fromkeys(names, ""), OTHER_ROW: "accepted in a whole run"}
    whole = mutate(SPEC, kinds=["duplicated"]).against([OTHER_ROW])  # every row's duplicate made, no deletion
    assert whole.kept() == (OTHER_ROW,) and whole.unused == ()


def test_the_document_has_the_documented_keys(reopened):
    document = reopened.to_dict()
    assert {"ok", "mutants", "behaviour_changing", "killed", "rules", "survivors"} <= set(document)
    assert document["mutants"] == len(reopened.verdicts) and document["ok"] is False
    [survivor] = [s for s in document["survivors"] if s["mutant"].endswith("| open_gap")]
    assert survivor["line"] == REOPEN_LINE and survivor["trace"][-1]["event"] == "loss_voiced"


def test_a_table_with_findings_is_refused_at_its_first_finding():
    broken = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")
    with pytest.raises(GapstateError, match="must pass `gapstate check`") as caught:
        mutate(parse_spec(broken, "broken.md"))
    assert caught.value.file == "broken.md" and caught.value.line is not None


def test_a_line_that_holds_no_row_is_refused():
    with pytest.raises(GapstateError, match="no row of the table is at this line") as caught:
        mutate(SPEC, lines=[1])
    assert (caught.value.file, caught.value.line) == ("spec/gap-state.md", 1)


# the baseline file ----------------------------------------------------------------------------


def test_a_baseline_reads_names_in_any_spacing_and_skips_comments_and_blank_lines():
    text = "# accepted\n\n  REQUESTED|loss_voiced|!dup|OPEN|reopen_gap  ->  REQUESTED | loss_voiced |!dup| OPEN |open_gap\n" \
           "CLEAR | busy_end | - | = | noop -> (deleted)  #  the same fresh allowance, either way \n"
    assert read_baseline(text, "b.txt") == {
        "REQUESTED | loss_voiced | !dup | OPEN | reopen_gap -> REQUESTED | loss_voiced | !dup | OPEN | open_gap": "",
        "CLEAR | busy_end | - | = | noop -> (deleted)": "the same fresh allowance, either way",
    }


def test_a_baseline_saved_keeps_the_reasons_of_the_one_read_and_reads_back_as_it(reopened):
    from gapstate.proof.mutation import baseline_text

    result = reopened
    assert result.survivors
    name = result.survivors[0].name
    text = baseline_text(result.survivors, {name: "open_gap and reopen_gap start the same fresh allowance"})
    assert f"{name}  # open_gap and reopen_gap start the same fresh allowance\n" in text
    again = result.against(read_baseline(text, "b.txt"))
    assert again.ok and again.survivors[0].reason == "open_gap and reopen_gap start the same fresh allowance"
    assert again.to_dict()["survivors"][0]["reason"] == "open_gap and reopen_gap start the same fresh allowance"
    assert baseline_text(again.survivors) == text  # the reasons ride on the survivors too


@pytest.mark.parametrize("line, column, words", [
    ("CLEAR | busy_end | - | = | noop", 1, "expected a mutant, `ROW -> CHANGE`"),
    ("  CLEAR | busy_end -> (deleted)", 3, "five fields), not 2 fields"),
    ("CLEAR | busy_end | - | = | noop -> CLEAR | busy_end", 36, "not 2 fields"),
    ("CLEAR | busy_end | | = | noop -> (deleted)", 1, "no field empty"),
])
def test_a_line_of_a_baseline_that_names_no_mutant_is_refused_at_its_line_and_column(line, column, words):
    with pytest.raises(GapstateError) as caught:
        read_baseline(f"# fine\n{line}\n", "b.txt")
    assert (caught.value.file, caught.value.line, caught.value.column) == ("b.txt", 2, column)
    assert words in caught.value.message


@given(st.lists(st.sampled_from([m.name for m in mutants(SPEC_TEXT, lines=[REOPEN_LINE])]), unique=True))
def test_every_mutant_name_reads_back_as_itself(names):
    assert read_baseline("\n".join(names), "b.txt").keys() == set(names)


# the whole set --------------------------------------------------------------------------------


@pytest.mark.slow
def test_every_mutant_of_the_bundled_table_in_two_workers_holds_the_invariants():
    result = mutate(SPEC, jobs=2)
    assert len(result.verdicts) == sum(1 for _ in mutants(SPEC_TEXT))
    assert result.behaviour_changing == result.killed + len(result.survivors) and result.killed
    assert not [v for v in result.verdicts if v.kind == "deleted" and v.changes and "not_total" not in v.killers]
    by_name = {m.name: m for m in mutants(SPEC_TEXT)}
    for survivor in result.survivors:
        mutant = by_name[survivor.name]
        table, changed = _replayed(SPEC.table, survivor.trace), _replayed(parse_spec(mutant.text, "m").table, survivor.trace)
        assert table[:-1] == changed[:-1] and table[-1] != changed[-1], survivor.name
