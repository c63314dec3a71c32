"""gapstate/cli/render/fuzz.py: a fuzz run's failure with its shrunk trace, the row and goal coverage, and the summary line."""

from __future__ import annotations

import dataclasses
import functools
import json

import gapstate
from gapstate.cli.render.fuzz import fuzz_summary, fuzz_text
from gapstate.fuzzing.fuzzer import fuzz

from .support import unwrapped, variant

BUSY = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")


@functools.cache
def _failed():
    """A real run on a table that sends while busy: it fails, and the failure is shrunk to 3 events."""
    return fuzz(gapstate.load_spec(BUSY), 20, 1)


def test_a_failure_comes_first_with_its_shrunk_trace_ready_for_replay():
    result = _failed()
    lines = unwrapped(fuzz_text(result))
    assert lines[0] == ("rule at event 3 of 3: row at line 195 breaks send-while-busy: "
                        "sends a request while the interviewer is busy; busy-release-not-due: keeps a gap on a release "
                        "while the interviewer is busy without waiting in DUE (defer_no_interrupt)")
    assert lines[1] == "shrunk trace (3 events), for `gapstate replay`:"
    assert [json.loads(line) for line in lines[2:5]] == list(result.counterexample.trace)
    assert lines[5].startswith("coverage: the traces fired ") and lines[5].endswith(f" of {len(result.reachable)} reachable rows")
    assert lines[6].startswith("never fired: rows at lines ")


def test_with_the_trace_on_stdout_the_report_only_says_so_and_where_it_was_saved():
    text = fuzz_text(_failed(), saved="found\n.jsonl", with_trace=False)
    assert "shrunk trace: 3 events, on stdout" in text and "{" not in text
    assert "saved the shrunk trace to found\\n.jsonl" in text


def test_a_campaign_s_failure_names_the_seed_that_found_it():
    result = dataclasses.replace(_failed(), seeds=(1, 2, 3))
    assert f"found by seed 1 after {result.counterexample.after} traces: re-run it alone with --seed 1" in fuzz_text(result)
    assert fuzz_summary(result).startswith("gapstate fuzz: <text>: seeds 1 to 3: ")


def test_every_row_fired_says_how_soon_and_lists_no_row_never_fired():
    result = _failed()
    complete = dataclasses.replace(result, counterexample=None, fired=result.reachable, complete_after=7)
    text = fuzz_text(complete).split("\n")
    assert text[0] == f"coverage: the traces fired {len(result.reachable)} of {len(result.reachable)} reachable rows (all of them within 7 traces)"
    assert not any(line.startswith("never fired") for line in text)


def test_the_goals_met_and_missed_are_named():
    goals = [line for line in unwrapped(fuzz_text(_failed())) if "goals" in line or line.startswith("never met")]
    met = _failed().goal_coverage
    assert goals[0].startswith(f"goals: the traces met {len(met['met'])} of {len(_failed().goals)} boundary goals and ")
    assert goals[1] == "never met: " + ", ".join(met["missed"])


def test_the_summary_gives_the_verdict_a_failure_a_failed_gate_or_none_broken():
    result = _failed()
    assert fuzz_summary(result) == f"gapstate fuzz: <text>: seed 1: {result.examples} traces, {result.events} events: rule at event 3 of 3"
    clean = dataclasses.replace(result, counterexample=None)
    assert fuzz_summary(clean).endswith(": no rule broken")
    gated = dataclasses.replace(clean, require_coverage=True)
    assert fuzz_summary(gated).endswith(f"{result.events} events: coverage gate failed")
