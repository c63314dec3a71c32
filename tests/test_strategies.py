"""gapstate.strategies, the public Hypothesis strategies, and the `gapstate fuzz` command."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import Phase, find, given, settings

import gapstate
import gapstate.strategies as strategies
from gapstate.cli import main
from gapstate.strategies import any_traces, events, traces

from .support import table, variant

SPEC = gapstate.load_spec()
# Existence, not minimality: generate until found, and skip the costly shrinking.
FIND = settings(phases=[Phase.generate], max_examples=1000, derandomize=True, database=None, deadline=None)
BUSY = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")


def test_the_public_names_are_exactly_all():
    """Every public name the module defines itself is in __all__, and nothing else is."""
    defined = {
        name
        for name, value in vars(strategies).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == strategies.__name__
    }
    assert defined == set(strategies.__all__)


@given(events(SPEC))
def test_a_single_event_is_well_formed(item):
    gapstate.replay(SPEC, [item])  # raises GapstateError if malformed


@given(traces(SPEC, max_size=30))
def test_a_trace_replays_without_error_with_times_that_never_go_back(trace):
    result = gapstate.replay(SPEC, trace)
    assert result.ok, result.error
    times = [item["t"] for item in trace if "t" in item]
    assert times == sorted(times)
    assert all(item["event"] != "session_end" for item in trace[:-1])


@pytest.mark.parametrize(
    "wanted",
    [
        lambda tr: any(a.get("id") == b.get("id") for i, a in enumerate(tr) for b in tr[i + 1 :] if a["event"] == b["event"] == "loss_voiced"),
        lambda tr: len({e.get("id") for e in tr if e["event"] == "loss_voiced"}) >= 3,
        lambda tr: tr and tr[-1]["event"] == "session_end",
        lambda tr: any("t" not in e for e in tr[1:]),
        lambda tr: gapstate.replay(SPEC, tr).final.session_requests == 3,
        lambda tr: any(s.actions == ("settle",) for s in gapstate.replay(SPEC, tr).steps),
        lambda tr: any(s.guards == {"post_send": False} and s.source == "REQUESTED" for s in gapstate.replay(SPEC, tr).steps),
    ],
    ids=["a repeated id", "three fresh ids", "ending with session_end", "a time left out",
         "the session cap spent", "a settlement", "evidence too early in REQUESTED"],
)
def test_the_strategy_reaches(wanted):
    find(traces(SPEC), wanted, settings=FIND)  # raises NoSuchExample if it cannot


def test_evidence_speech_is_drawn_before_at_and_after_the_commit():
    def offsets(tr):
        commit, out, t = None, set(), 0
        for step, item in zip(gapstate.replay(SPEC, tr).steps, tr):
            t = item.get("t", t)
            if step.actions and step.actions[0] == "commit_request":
                commit = t
            if item["event"] == "evidence_turn" and commit is not None:
                out.add((item["speech_start"] > commit) - (item["speech_start"] < commit))
        return out

    for sign in (-1, 0, 1):
        find(traces(SPEC), lambda tr, sign=sign: sign in offsets(tr), settings=FIND)


def test_arbitrary_traces_can_be_ill_formed():
    def ill_formed(trace):
        try:
            gapstate.replay(SPEC, trace)
        except gapstate.GapstateError:
            return True
        return False

    find(any_traces(SPEC), ill_formed, settings=FIND)


@pytest.mark.parametrize("kind", ["invalid_event", "after_session_end"])
def test_arbitrary_traces_reach_each_refusal(kind):
    def refused(trace):
        try:
            error = gapstate.replay(SPEC, trace).error
        except gapstate.GapstateError:
            return False
        return error is not None and error.kind == kind

    find(any_traces(SPEC), refused, settings=FIND)


# gapstate fuzz ---------------------------------------------------------------


def fuzz(*args: str):
    return CliRunner().invoke(main, ["fuzz", *args])


def test_fuzz_passes_on_the_bundled_spec():
    result = fuzz("--examples", "50", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "no rule broken" in result.stdout


def test_fuzz_catches_a_row_that_sends_while_busy_with_a_short_pasteable_trace(tmp_path):
    spec = tmp_path / "busy.md"
    spec.write_text(BUSY, encoding="utf-8")
    result = fuzz("--spec", str(spec), "--examples", "200", "--seed", "3", "--format", "json")
    assert result.exit_code == 1
    found = json.loads(result.stdout)["counterexample"]
    assert found["kind"] == "rule" and "send-while-busy" in found["message"]
    assert len(found["trace"]) == 3  # as short as check's: a loss, busy, a release
    assert found["index"] == 2
    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join(json.dumps(e) for e in found["trace"]) + "\n", encoding="utf-8")
    replayed = CliRunner().invoke(main, ["replay", str(trace), "--spec", str(spec), "--format", "json"])
    assert replayed.exit_code == 1 and json.loads(replayed.stdout)["error"]["kind"] == "rule"


def test_fuzz_text_prints_the_trace_as_json_lines(tmp_path):
    spec = tmp_path / "busy.md"
    spec.write_text(BUSY, encoding="utf-8")
    lines = fuzz("--spec", str(spec), "--examples", "200", "--seed", "3").stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("shrunk trace"))
    events_ = [json.loads(line) for line in lines[start + 1 :] if line.startswith("{")]
    assert events_ and events_[-1]["event"] == "floor_released"


def test_require_coverage_fails_when_reachable_rows_were_never_fired():
    result = fuzz("--examples", "1", "--seed", "1", "--require-coverage")
    assert result.exit_code == 1
    assert "never fired: rows at lines" in result.stdout


@pytest.mark.parametrize("seed", ["1", "2"])
def test_fuzz_shrinks_a_settle_on_session_end_to_a_short_trace(tmp_path, seed):
    spec = tmp_path / "settle.md"
    spec.write_text(variant("OPEN | session_end | - | CLEAR | end_unsettled", "OPEN | session_end | - | CLEAR | settle"), encoding="utf-8")
    found = json.loads(fuzz("--spec", str(spec), "--examples", "100", "--seed", seed, "--format", "json").stdout)["counterexample"]
    events_ = [e["event"] for e in found["trace"]]
    assert events_[0] == "loss_voiced" and events_[-1] == "session_end"
    assert len(events_) <= 5  # the shortest is 2; generated traces run to about 30


def test_require_coverage_passes_when_every_reachable_row_fired(tmp_path):
    rows = [f"CLEAR | {e} | - | = | noop" for e in ("loss_silent", "sdk_unknown", "busy_start", "busy_end", "candidate_start", "floor_released", "evidence_turn", "session_end")]
    rows += ["CLEAR | loss_voiced | - | = | note_dup"] + [f"CLEAR | {e} | - | = | invalid" for e in ("send_ok", "send_failed", "request_undelivered")]
    spec = tmp_path / "tiny.md"
    spec.write_text(table(*rows), encoding="utf-8")
    result = fuzz("--spec", str(spec), "--examples", "50", "--seed", "1", "--require-coverage")
    assert result.exit_code == 0, result.output
    assert "fired 9 of 9 reachable rows" in result.stdout


def test_the_reported_trace_ends_at_the_event_that_broke_the_rule(tmp_path):
    spec = tmp_path / "busy.md"
    spec.write_text(BUSY, encoding="utf-8")
    found = json.loads(fuzz("--spec", str(spec), "--examples", "20", "--seed", "1", "--max-events", "1000", "--format", "json").stdout)["counterexample"]
    assert len(found["trace"]) == found["index"] + 1


def test_a_seeded_fuzz_run_is_reproducible():
    first = fuzz("--examples", "30", "--seed", "9", "--format", "json").stdout
    assert first == fuzz("--examples", "30", "--seed", "9", "--format", "json").stdout
    document = json.loads(first)
    assert set(document) == {"ok", "spec", "seed", "examples", "events", "counterexample", "coverage"}
    assert set(document["coverage"]) == {"reachable", "fired", "missed"}


def test_fuzz_on_an_unusable_spec_exits_2(tmp_path):
    spec = tmp_path / "bad.md"
    spec.write_text(variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | nop"), encoding="utf-8")
    result = fuzz("--spec", str(spec), "--examples", "5")
    assert result.exit_code == 2 and "unknown_name" in result.stderr
