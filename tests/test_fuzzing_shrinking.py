"""gapstate.fuzzing.shrinking: a failing fuzz trace becomes the shortest way to the same failure."""

from __future__ import annotations

import json
import re

import pytest

import gapstate
from gapstate.fuzzing.fuzzer import fuzz as run_fuzz
from gapstate.fuzzing.shrinking import minimize
from gapstate.run.concrete import concretize

from .fuzzing import DEEP, database, fuzz, replay_document, write  # noqa: F401  (database: an autouse fixture)
from .support import variant


def test_the_shrunk_trace_keeps_no_event_the_failure_does_not_need(tmp_path):
    spec = write(tmp_path, DEEP)
    trace = json.loads(fuzz("--spec", spec, "--seed", "3", "--format", "json").stdout)["counterexample"]["trace"]
    found = json.loads(fuzz("--spec", spec, "--seed", "3", "--format", "json").stdout)["counterexample"]
    assert replay_document(tmp_path, trace, spec)["error"]["message"] == found["message"]
    for index in range(len(trace) - 1):
        shorter = trace[:index] + trace[index + 1 :]
        error = replay_document(tmp_path, shorter, spec)["error"]
        assert not (error and error["message"] == found["message"] and error["index"] == len(shorter) - 1)




# The shortest trace that breaks the same rule at the same row ------------------------

SETTLES = ("REQUESTED | evidence_turn | !post_send | = | noop", "REQUESTED | evidence_turn | !post_send | CLEAR | settle")
# A settlement without evidence reached the long way round: an undelivered request,
# a failed retry, a fresh loss. Dropping any one event loses the failure, so
# deleting events alone keeps all ten; the proof's graph knows a 4-event way.
LONG_WAY = ["loss_voiced", "floor_released", "send_ok", "request_undelivered", "busy_end", "send_failed",
            "loss_voiced", "floor_released", "send_ok", "evidence_turn"]


def shortest_in_check(spec, message: str) -> int:
    """The length of check's counterexample for the rules the message names, at its row."""
    line, broken = re.match(r"row at line (\d+) breaks (.*)", message).groups()
    rules = {part.split(":")[0].strip() for part in broken.split("; ")}
    lengths = [len(f.trace) for f in gapstate.check(spec).findings if f.kind == "rule" and f.line == int(line) and f.rule in rules]
    assert lengths, message
    return min(lengths)


def test_a_trace_no_single_deletion_shortens_becomes_checks_shortest():
    spec = gapstate.load_spec(variant(*SETTLES))
    trace = concretize([(event, False) for event in LONG_WAY])
    error = gapstate.replay(spec, trace).error
    assert error is not None and error.index == 9
    for index in range(len(trace) - 1):  # every event is needed, as deletion sees it
        shorter = trace[:index] + trace[index + 1 :]
        again = gapstate.replay(spec, shorter).error
        assert not (again and again.message == error.message and again.index == len(shorter) - 1)
    shrunk, same = minimize(spec, tuple(trace), error)
    assert same.message == error.message
    assert [e["event"] for e in shrunk] == ["loss_voiced", "floor_released", "send_ok", "evidence_turn"]
    assert len(shrunk) == shortest_in_check(spec, error.message)


MUTANTS = {
    "settle-without-evidence": SETTLES,
    "send-while-busy": ("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request"),
    "exit-unnamed at the attempts cap": (
        "REQUESTED | request_undelivered | !attempts_left | CLEAR | unrepaired_attempts",
        "REQUESTED | request_undelivered | !attempts_left | CLEAR | keep_budget_spent",
    ),
}


@pytest.mark.parametrize(
    "name, seed",
    [pytest.param(name, seed, marks=() if (name, seed) == ("settle-without-evidence", 1) else pytest.mark.slow)
     for name in sorted(MUTANTS) for seed in (1, 2, 3)],
)
def test_fuzz_reports_the_proofs_shortest_counterexample_for_the_rule_and_row(name, seed):
    spec = gapstate.load_spec(variant(*MUTANTS[name]))
    found = run_fuzz(spec, 500, seed).counterexample
    assert found is not None and found.kind == "rule"
    assert len(found.trace) == shortest_in_check(spec, found.message)
    assert f"row at line {found.row} breaks" in found.message
