"""`gapstate fuzz`: guided traces, defects anywhere in the table, the coverage gate, campaigns, output."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

import gapstate
from gapstate.cli import main
from gapstate.fuzzing.fuzzer import fuzz as run_fuzz

from .defects import DEFECTS
from .fuzzing import DEEP, database, fuzz, replay_document, write  # noqa: F401  (database: an autouse fixture)
from .support import ROOT, line_of, slow_but, table, unwrapped, variant

BUSY = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")


# Defects anywhere in the table ---------------------------------------------------


# The deleted row behind the session cap in the fast suite (the tests below fuzz
# changed rows, that one included); every defect under `pytest -m slow`.
FAST_DEFECTS = {"hole behind the session cap"}


@pytest.mark.parametrize(
    "name, old, new",
    [pytest.param(*d, marks=() if d[0] in FAST_DEFECTS else pytest.mark.slow) for d in DEFECTS],
    ids=[d[0] for d in DEFECTS],
)
def test_default_fuzz_finds_each_defect_with_a_trace_as_short_as_checks(tmp_path, name, old, new):
    """One defective row anywhere, behind the caps included; a deleted row is a hole in totality."""
    spec = write(tmp_path, variant(old, new))
    result = fuzz("--spec", spec, "--seed", "1", "--format", "json")
    assert result.exit_code == 1, result.output
    found = json.loads(result.stdout)["counterexample"]
    assert found["index"] == len(found["trace"]) - 1
    checked = gapstate.check(gapstate.load_spec(spec))
    if new:  # a changed row: check finds the same row breaking the same rule
        line, rules = re.match(r"row at line (\d+) breaks (.*)", found["message"]).groups()
        shortest = [len(f.trace) for f in checked.findings if f.kind == "rule" and f.line == int(line) and f.rule in rules]
        assert shortest and len(found["trace"]) == min(shortest)  # the proof's shortest way to the same breach
    else:  # a deleted row: check says the table is not total there, fuzz walks into the hole
        assert found["kind"] == "invalid_event" and "not total" in found["message"]
        assert any(f.kind == "not_total" for f in checked.findings)
    replayed = replay_document(tmp_path, found["trace"], spec)
    assert replayed["error"] == {"index": found["index"], "kind": found["kind"], "message": found["message"]}


def test_fuzz_catches_a_row_that_sends_while_busy_with_check_s_trace(tmp_path):
    spec = write(tmp_path, BUSY)
    found = json.loads(fuzz("--spec", spec, "--seed", "3", "--format", "json").stdout)["counterexample"]
    assert found["kind"] == "rule" and "send-while-busy" in found["message"]
    assert [e["event"] for e in found["trace"]] == ["loss_voiced", "busy_start", "floor_released"]


# Seed 8 fails after 11 traces, on one of 9 events (seed 2: 63 traces, 22 events; seed 1 draws the
# 2 events at once): the cheap seed that still shrinks runs fast, all three under `pytest -m slow`.
@pytest.mark.parametrize("seed", slow_but(["1", "2", "8"], "8"))
def test_a_settle_on_session_end_shrinks_to_the_two_events_it_needs(tmp_path, seed):
    spec = write(tmp_path, variant("OPEN | session_end | - | CLEAR | end_unsettled", "OPEN | session_end | - | CLEAR | settle"))
    found = json.loads(fuzz("--spec", spec, "--seed", seed, "--format", "json").stdout)["counterexample"]
    assert [e["event"] for e in found["trace"]] == ["loss_voiced", "session_end"]


def test_long_traces_still_end_at_the_event_that_failed(tmp_path):
    spec = write(tmp_path, BUSY)
    found = json.loads(fuzz("--spec", spec, "--examples", "20", "--seed", "1", "--max-events", "1000", "--format", "json").stdout)["counterexample"]
    assert len(found["trace"]) == found["index"] + 1 == 3


# The coverage gate -----------------------------------------------------------------


@pytest.mark.slow  # a whole default-size fuzz campaign per seed
@pytest.mark.parametrize("seed", ["1", "2"])
def test_the_coverage_gate_passes_at_the_default_settings(seed):
    """bench/fuzz_depth.py gate runs ten seeds; two here keep the suite short."""
    result = fuzz("--require-all", "--seed", seed, "--format", "json")
    assert result.exit_code == 0, result.output
    coverage = json.loads(result.stdout)["coverage"]
    assert coverage["missed"] == [] and coverage["required"] and coverage["complete_after"] <= 500
    assert coverage["goals"]["missed"] == []  # every boundary goal a walk can meet, met at the defaults too


def test_fuzz_reports_the_boundary_goals_and_pairs_of_rows_its_traces_met():
    from gapstate.fuzzing.goal_coverage import fuzz_goals
    from gapstate.run.replayer import machine_for

    names = fuzz_goals(machine_for(gapstate.load_spec())).names
    goals = json.loads(fuzz("--examples", "30", "--seed", "1", "--format", "json").stdout)["coverage"]["goals"]
    assert goals["met"] and sorted(goals["met"] + goals["missed"]) == sorted(names)
    assert 0 < goals["pairs"]["covered"] <= goals["pairs"]["possible"]
    text = fuzz("--examples", "30", "--seed", "1").stdout
    assert f"goals: the traces met {len(goals['met'])} of {len(names)} boundary goals" in text
    assert ("never met: " + ", ".join(goals["missed"])) in unwrapped(text)


def test_a_failed_coverage_gate_is_not_ok_and_says_so():
    as_json = fuzz("--examples", "3", "--seed", "1", "--require-all", "--format", "json")
    document = json.loads(as_json.stdout)
    assert as_json.exit_code == 1 and document["ok"] is False and document["counterexample"] is None
    assert document["coverage"]["missed"]
    text = fuzz("--examples", "3", "--seed", "1", "--require-coverage")
    assert text.exit_code == 1
    assert "coverage gate failed" in text.stderr and "never fired: rows at lines" in text.stdout
    without = fuzz("--examples", "3", "--seed", "1", "--format", "json")
    assert without.exit_code == 0 and json.loads(without.stdout)["ok"] is True


def test_require_coverage_passes_when_every_reachable_row_fired(tmp_path):
    rows = ["CLEAR | loss_silent | - | = | note_trim", "CLEAR | sdk_unknown | - | = | note_unknown"]
    rows += [f"CLEAR | {e} | - | = | noop" for e in ("busy_start", "busy_end", "candidate_start", "floor_released", "evidence_turn", "session_end")]
    # a voiced loss must open a gap, which this one-state table has not: it refuses one
    rows += [f"CLEAR | {e} | - | = | invalid" for e in ("loss_voiced", "send_ok", "send_failed", "request_undelivered")]
    # every row has fired after 4 traces at this seed: 20 leave room
    result = fuzz("--spec", write(tmp_path, table(*rows)), "--examples", "20", "--seed", "1", "--require-all")
    assert result.exit_code == 0, result.output
    assert "fired 8 of 8 reachable rows" in result.stdout and "no rule broken" in result.stderr


# Saving, piping, and the example of docs/fuzz.md -------------------------------------------------


def test_save_writes_a_trace_that_replays_to_the_same_failure(tmp_path):
    spec = write(tmp_path, DEEP)
    saved = tmp_path / "found.jsonl"
    result = fuzz("--spec", spec, "--seed", "1", "--save", str(saved))
    assert result.exit_code == 1 and f"saved the shrunk trace to {saved}" in result.stdout
    replayed = CliRunner().invoke(main, ["replay", str(saved), "--spec", spec, "--format", "json"])
    assert replayed.exit_code == 1
    assert json.loads(replayed.stdout)["error"]["message"].startswith(f"row at line {line_of(DEEP, '| CLEAR | noop')} breaks exit-unnamed")


def test_save_writes_nothing_when_nothing_failed(tmp_path):
    saved = tmp_path / "found.jsonl"
    result = fuzz("--examples", "5", "--seed", "1", "--save", str(saved))
    assert result.exit_code == 0 and not saved.exists()


def test_save_to_a_missing_folder_is_unusable_input(tmp_path):
    result = fuzz("--examples", "5", "--save", str(tmp_path / "no" / "such" / "t.jsonl"))
    assert result.exit_code == 2 and "cannot save there" in result.stderr


def test_jsonl_puts_only_the_trace_on_stdout_so_it_pipes_into_replay(tmp_path):
    spec = write(tmp_path, BUSY)
    result = fuzz("--spec", spec, "--seed", "2", "--format", "jsonl")
    assert result.exit_code == 1
    trace = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["event"] for e in trace] == ["loss_voiced", "busy_start", "floor_released"]
    assert "send-while-busy" in result.stderr and "shrunk trace: 3 events, on stdout" in result.stderr
    clean = fuzz("--examples", "5", "--seed", "1", "--format", "jsonl")
    assert clean.exit_code == 0 and clean.stdout == "" and "no rule broken" in clean.stderr


def test_the_fuzz_example_prints_what_docs_fuzz_md_shows(tmp_path, monkeypatch):
    readme = (ROOT / "docs" / "fuzz.md").read_text(encoding="utf-8")
    block = re.search(r"\n    \$ (gapstate fuzz --spec written-off.md [^\n]*)\n((?:    [^\n]*\n)+)", readme)
    command, shown = block.group(1), [line[4:] for line in block.group(2).splitlines()]
    setup = re.search(r"written-off\.md` is the bundled spec with the row\n\n    (.*)\n\nchanged to\n\n    (.*)\n", readme)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "written-off.md").write_text(variant(setup.group(1), setup.group(2)), encoding="utf-8")
    result = CliRunner().invoke(main, command.split()[1:])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == shown
    # the stderr line the page quotes counts events from 1, and says of how many
    said = re.search(r"and on stderr `(.*?) \.\.\.`", readme).group(1)
    assert said == f"rule at event {len(shown)} of {len(shown)}: row at line 201 breaks exit-unnamed:"
    assert said in result.stderr


# Campaigns: workers, duration, the example database -----------------------------------


@pytest.mark.slow  # a whole second of fuzzing by design
def test_duration_runs_traces_and_reports_how_many():
    result = fuzz("--seed", "1", "--duration", "1", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["examples"] > 0


def test_examples_and_duration_are_exclusive():
    result = fuzz("--examples", "5", "--duration", "1")
    assert result.exit_code == 2 and "not both" in result.stderr


def test_a_failure_is_kept_in_the_database_and_replayed_first(tmp_path, database):  # noqa: F811  (the fixture's folder)
    spec = gapstate.load_spec(DEEP)
    first = run_fuzz(spec, 500, 1, database_dir=database)
    again = run_fuzz(spec, 500, 1, database_dir=database)
    assert first.counterexample is not None and again.counterexample is not None
    assert again.counterexample.after < first.counterexample.after
    assert again.counterexample.trace == first.counterexample.trace
    other = run_fuzz(gapstate.load_spec(BUSY), 500, 1, database_dir=database)
    assert "send-while-busy" in other.counterexample.message  # not the other table's failure


def test_a_seeded_fuzz_run_is_reproducible():
    first = fuzz("--examples", "10", "--seed", "9", "--format", "json").stdout
    assert first == fuzz("--examples", "10", "--seed", "9", "--format", "json").stdout
    document = json.loads(first)
    assert set(document) == {"ok", "spec", "seed", "seeds", "examples", "events", "counterexample", "coverage", "saved"}
    assert set(document["coverage"]) == {"reachable", "fired", "missed", "required", "complete_after", "goals"}


def test_fuzz_on_an_unusable_spec_exits_2(tmp_path):
    spec = write(tmp_path, variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | nop"))
    result = fuzz("--spec", spec, "--examples", "5")
    assert result.exit_code == 2 and "unknown_name" in result.stderr


def test_a_timed_run_replays_at_least_one_trace_however_slow_its_start(monkeypatch):
    """On a loaded machine the start can outlast --duration: the run still replays a trace, not none."""
    import time

    import gapstate.fuzzing.fuzzer as fuzzer

    clock = iter(range(0, 10**6, 1000))  # every look at the clock is 1000 s later
    monkeypatch.setattr(time, "monotonic", lambda: float(next(clock)))
    result = fuzzer.fuzz(gapstate.load_spec(), None, 1, duration=1.0)
    assert result.examples >= 1


# Bugs at a boundary: a counter at its cap, a guard computed from the payload ---------------------

BOUNDARY_MUTANTS = {
    "attempts cap: an undelivered request written off says nothing": (
        "REQUESTED | request_undelivered | !attempts_left | CLEAR | unrepaired_attempts",
        "REQUESTED | request_undelivered | !attempts_left | CLEAR | noop",
    ),
    "session cap: a release with the budget spent says nothing": (
        "OPEN | floor_released | !busy,!budget_left | CLEAR | unrepaired_budget",
        "OPEN | floor_released | !busy,!budget_left | CLEAR | noop",
    ),
    "late_loss: a commit after a late loss does not reopen": (
        "SENDING | send_ok | late_loss | OPEN | commit_request,reopen_gap",
        "SENDING | send_ok | late_loss | REQUESTED | commit_request",
    ),
    "dup: a repeated notice while sending marks a late loss": (
        "SENDING | loss_voiced | dup | = | note_dup",
        "SENDING | loss_voiced | dup | = | merge_gap,mark_late",
    ),
}


@pytest.mark.slow  # five default runs per table
@pytest.mark.parametrize("name", sorted(BOUNDARY_MUTANTS))
def test_default_fuzz_finds_each_boundary_bug_for_seeds_1_to_5_with_checks_shortest_trace(name):
    spec = gapstate.load_spec(variant(*BOUNDARY_MUTANTS[name]))
    checked = gapstate.check(spec)
    for seed in range(1, 6):
        found = run_fuzz(spec, 500, seed).counterexample
        assert found is not None and found.kind == "rule", (name, seed)
        line, rules = re.match(r"row at line (\d+) breaks (.*)", found.message).groups()
        shortest = [len(f.trace) for f in checked.findings if f.kind == "rule" and f.line == int(line) and f.rule in rules]
        assert len(found.trace) == min(shortest), (name, seed)
