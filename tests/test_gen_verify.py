"""`gen --verify`'s proof: every reachable configuration, event and payload valuation, compared answer by answer."""

from __future__ import annotations

import sys

import pytest

from gapstate import replay
from gapstate.gen import verify
from gapstate.run.event import Event

from .gen_support import SPEC, written


@pytest.fixture(scope="module")
def planned():
    return verify.cases(SPEC)


@pytest.fixture(scope="module")
def decider(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify") / "decider.py"
    written("python", path)
    return path


def _verdict(planned, path):
    cases, configurations = planned
    output, stopped = verify.run([sys.executable, str(path)], verify.messages(cases), 120)
    return verify.compare(cases, output, configurations, stopped)


def test_the_cases_cover_every_configuration_event_and_valuation(planned):
    cases, configurations = planned
    assert configurations == 284
    assert {case.config for case in cases} and len({case.config for case in cases}) == configurations
    events = {(case.config, case.trace[-1]["event"]) for case in cases}
    assert len(events) == configurations * 12
    lasts = {(case.config, tuple(sorted(case.trace[-1].items()))) for case in cases}
    assert len(lasts) == len(cases)  # no case is planned twice
    # evidence before, at and after the commit: all three valuations of post_send asked where one was committed
    requested = [c for c in cases if c.config.state == "REQUESTED" and c.trace[-1]["event"] == "evidence_turn"]
    assert {c.expected[-1]["actions"][0] for c in requested} == {"settle", "noop"}


def test_each_case_expects_what_replay_says(planned):
    cases, _ = planned
    case = cases[len(cases) // 2]
    result = replay(SPEC, [Event(**item) for item in case.trace])
    last = case.expected[-1]
    if result.error is not None:
        assert last == {"refused": result.error.kind}
    else:
        assert (last["state"], last["row"]) == (result.final.state, result.steps[-1].row)


@pytest.mark.slow
def test_the_generated_module_agrees_on_every_case(planned, decider):
    verdict = _verdict(planned, decider)
    assert verdict.ok, verdict.disagreement
    assert verdict.answers == sum(len(case.trace) for case in planned[0])


@pytest.mark.slow  # a generated decider answers all 5,060 cases as a process: about 1.4 s of CPU
def test_a_guard_dropped_by_hand_is_the_first_disagreement_as_a_trace(planned, decider, tmp_path):
    edited = tmp_path / "edited.py"
    text = decider.read_text(encoding="utf-8")
    assert text.count("e.id in s.seen") == 5
    edited.write_text(text.replace("e.id in s.seen", "False", 1), encoding="utf-8")  # CLEAR forgets the ids seen
    found = _verdict(planned, edited).disagreement
    assert found is not None
    assert found.trace[-1]["event"] == "loss_voiced" and found.fields[:2] == ("state", "actions")
    assert found.expected["actions"] == ["note_dup"]
    result = replay(SPEC, [Event(**item) for item in found.trace])  # the trace replays: the table notes a dup
    assert result.steps[-1].actions == ("note_dup",)


@pytest.mark.slow
def test_a_flag_left_wrong_is_caught_though_no_protocol_field_shows_it(planned, decider, tmp_path):
    edited = tmp_path / "edited.py"
    text = decider.read_text(encoding="utf-8")
    edited.write_text(text.replace("        s.late_loss = True\n", "        s.late_loss = False\n"), encoding="utf-8")
    found = _verdict(planned, edited).disagreement
    assert found.fields == ("flags",) and found.trace[-1]["event"] == "loss_voiced"


def test_a_decider_that_stops_is_a_disagreement_saying_how(planned, tmp_path):
    quits = tmp_path / "quits.py"
    quits.write_text("import sys\nsys.stderr.write('boom')\nsys.exit(3)\n", encoding="utf-8")
    verdict = _verdict(planned, quits)
    found = verdict.disagreement
    assert found.fields == ("protocol",) and verdict.answers == 0  # nothing agreed
    assert "status 3" in found.actual["stopped"] and "boom" in found.actual["stopped"]

