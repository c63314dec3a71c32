"""Property tests across modules: guided traces through the interpreter against the explorer and the rules, and robustness."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import gapstate
from gapstate.findings import KINDS
from gapstate.proof.explore import explore
from gapstate.run.event import Event
from gapstate.run.machine import Status
from gapstate.run.replayer import Session, machine_for
from gapstate.strategies import any_traces, traces
from gapstate.table.load import parse_spec

from .support import SPEC_TEXT

SPEC = gapstate.load_spec()
MACHINE = machine_for(SPEC)
CAPS = {"session_requests": 3, "episode_attempts": 2}
ENDINGS = {"settle", "unrepaired_budget", "unrepaired_attempts", "end_unsettled"}
WRITE_OFFS = ENDINGS - {"settle"}


# Enough guided traces to fire every reachable row under any profile: the
# first tenth Hypothesis draws are tiny, and the median run fires them all
# within about 150, the slowest seeds within 400 (bench/fuzz_depth.py).
COVERING = settings(max_examples=max(settings.default.max_examples, 600))


def event(item: dict) -> Event:
    return Event(**{"t": 0, **item})


class Oracle:
    """The rules of the spec's prose, restated from its text and checked step by step beside the interpreter."""

    def __init__(self) -> None:
        self.busy = self.candidate = self.in_flight = self.standing = False
        self.last_commit: int | None = None
        self.last_loss: int | None = None
        self.seen: set[str] = set()

    def check(self, item: Event, before, outcome) -> None:
        name, actions, after = item.event, outcome.actions, outcome.config
        self.busy = {"busy_start": True, "busy_end": False}.get(name, self.busy)
        self.candidate = {"candidate_start": True, "floor_released": False}.get(name, self.candidate)
        sent_in_flight = self.in_flight
        if name in ("send_ok", "send_failed"):
            self.in_flight = False
        assert after.session_requests <= CAPS["session_requests"]
        assert after.episode_attempts <= CAPS["episode_attempts"]
        if "send_request" in actions:
            assert not self.busy and not self.candidate and not self.in_flight
            assert before.session_requests < CAPS["session_requests"]
            assert before.episode_attempts < CAPS["episode_attempts"]
            self.in_flight = True
        if "commit_request" in actions:
            assert name == "send_ok" and sent_in_flight
        if "settle" in actions:
            assert name == "evidence_turn" and self.standing
            assert item.speech_start > self.last_commit and item.speech_start > (self.last_loss or -1)
        leaving = before.state != "CLEAR" and after.state == "CLEAR"
        assert leaving == bool(ENDINGS & set(actions))
        if leaving:
            assert len(ENDINGS & set(actions)) == 1
        if WRITE_OFFS & set(actions):
            assert after.debt_owed
        if name == "loss_voiced" and item.id in self.seen:
            assert after == before
        if name == "session_end":
            assert after.state == "CLEAR" and after.ended
        # the history the next step's rules need
        if name == "loss_voiced" and item.id not in self.seen:
            self.seen.add(item.id)
            self.last_loss = item.t
        if "commit_request" in actions:
            self.standing, self.last_commit = True, item.t
        if name == "request_undelivered" or ({"open_gap", "reopen_gap"} | ENDINGS) & set(actions):
            self.standing = False


@pytest.mark.slow  # 600 guided traces, six seconds of CPU: exhaustive, so `pytest -m slow`
def test_guided_traces_replay_inside_the_explored_graph_keep_every_rule_and_fire_every_reachable_row():
    """The one property run over guided traces (`gapstate.strategies.traces`), checking at each step:

    - well-formed: times never go back, `session_end` comes last, every event replays;
    - differential: each configuration replay reaches, and each row it fires, the explorer found too;
    - the rules, restated by the Oracle from the spec's prose, hold after every step;

    and, over the run, that the guided traces fired every row the explorer finds reachable
    (so the checks above were made on every row).
    """
    fired: set[int] = set()
    explored = explore(MACHINE)  # here, not at import: the fast suite deselects this test

    @COVERING
    @given(traces(SPEC))
    def replays(trace):
        times = [item["t"] for item in trace if "t" in item]
        assert times == sorted(times)
        assert all(item["event"] != "session_end" for item in trace[:-1])
        session, oracle = Session(MACHINE), Oracle()
        t = 0
        for item in trace:
            t = item.get("t", t)
            current = event({**item, "t": t})
            before = session.config
            outcome = session.feed(current)
            assert outcome.status == Status.OK
            assert outcome.broken == ()
            assert session.config in explored
            assert outcome.row.line in explored.fired
            oracle.check(current, before, outcome)
            fired.add(outcome.row.line)

    replays()
    assert fired == explored.fired


@pytest.mark.slow  # 200 arbitrary traces, each replayed whole
@given(any_traces(SPEC))
def test_an_arbitrary_trace_replays_or_stops_with_a_replay_error(trace):
    try:
        result = gapstate.replay(SPEC, trace)
    except gapstate.GapstateError as error:
        assert error.line is not None and 1 <= error.line <= len(trace)
        return
    if result.error is not None:
        assert result.error.kind in {"invalid_event", "after_session_end"}  # the bundled table breaks no rule
        assert len(result.steps) == result.error.index
        event = trace[result.error.index]["event"]
        if result.error.kind == "after_session_end":
            assert "session_end" in [e["event"] for e in trace[: result.error.index]]
        else:
            assert event in {"send_ok", "send_failed", "request_undelivered"}  # the table's invalid rows


class Interpreter(RuleBasedStateMachine):
    """Drives the interpreter event by event beside a small model of the counters.

    The model knows the counters only from the states the interpreter moves
    between, never from the actions: a send starts when OPEN or DUE goes to
    SENDING, a request is committed by every accepted send_ok, and an episode
    (re)opens when a voiced loss or a send's commit moves the gap into OPEN.
    """

    @initialize()
    def start(self) -> None:
        self.session = Session(MACHINE)
        self.t = 0
        self.requests = self.attempts = 0
        self.ended = False

    def feed(self, item: dict) -> None:
        before = self.session.config
        outcome = self.session.feed(event({**item, "t": self.t}))
        if self.ended:
            assert outcome.status == Status.ENDED
        if outcome.status != Status.OK:
            assert outcome.status in (Status.REFUSED, Status.ENDED)
            assert self.session.config == before
            return
        after = outcome.config
        if before.state in ("OPEN", "DUE") and after.state == "SENDING":
            self.attempts += 1
        if item["event"] == "send_ok":
            self.requests += 1
        if after.state == "OPEN" and item["event"] in ("loss_voiced", "send_ok") and before.state != "OPEN":
            self.attempts = 0
        self.ended = self.ended or item["event"] == "session_end"

    # One rule per kind of event, so that the steps that make progress (a
    # loss, a release, a send's result) come often enough to spend the caps.

    @rule(interval=st.sampled_from(["iv-1", "iv-2", "iv-3", "iv-4", "iv-5", "iv-6"]), gap=st.sampled_from([0, 1, 100]))
    def loss(self, interval: str, gap: int) -> None:
        self.t += gap
        self.feed({"event": "loss_voiced", "id": interval})

    @rule()
    def release(self) -> None:
        self.feed({"event": "floor_released"})

    @rule(name=st.sampled_from(["send_ok", "send_ok", "send_failed", "request_undelivered"]))
    def send_result(self, name: str) -> None:
        self.t += 1
        self.feed({"event": name})

    @rule(name=st.sampled_from(["busy_start", "busy_end", "candidate_start"]))
    def flags(self, name: str) -> None:
        self.feed({"event": name})

    @rule(name=st.sampled_from(["loss_silent", "sdk_unknown"]))
    def notes(self, name: str) -> None:
        self.feed({"event": name})

    @rule(offset=st.integers(-100, 100), gap=st.sampled_from([0, 50, 200]))
    def evidence(self, offset: int, gap: int) -> None:
        self.t += gap
        self.feed({"event": "evidence_turn", "speech_start": max(0, self.t + offset)})

    @rule(roll=st.integers(0, 19))
    def end(self, roll: int) -> None:
        if roll == 0:  # rarely: everything after it only checks that it is refused
            self.feed({"event": "session_end"})

    @invariant()
    def counters_match_the_model(self) -> None:
        config = self.session.config
        assert (config.session_requests, config.episode_attempts) == (self.requests, self.attempts)
        assert config.session_requests <= CAPS["session_requests"]
        assert config.episode_attempts <= CAPS["episode_attempts"]

    @invariant()
    def an_ended_session_is_clear(self) -> None:
        if self.ended:
            assert self.session.config.state == "CLEAR" and self.session.config.ended


TestInterpreter = pytest.mark.slow(Interpreter.TestCase)  # 200 runs of 60 steps: exhaustive, so `pytest -m slow`
TestInterpreter.settings = settings(settings.default, stateful_step_count=60)


# the parser never raises --------------------------------------------------------

LINES = SPEC_TEXT.splitlines()


@given(st.text())
def test_arbitrary_text_gives_findings_never_an_exception(text):
    spec = parse_spec(text, "fuzz.md")
    assert all(f.line >= 1 and f.column >= 1 and f.message for f in spec.findings)


@st.composite
def mutated_specs(draw) -> str:
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["delete", "duplicate", "mutate", "truncate"]))
        if how == "delete":
            del lines[index]
        elif how == "duplicate":
            lines.insert(index, lines[index])
        elif how == "mutate":
            line = lines[index]
            at = draw(st.integers(0, len(line)))
            lines[index] = line[:at] + draw(st.text(max_size=3)) + line[at + draw(st.integers(0, 3)):]
        else:
            lines = lines[: index + 1]
            lines[-1] = lines[-1][: draw(st.integers(0, len(lines[-1])))]
        if not lines:
            lines = [""]
    return "\n".join(lines) + "\n"


@pytest.mark.slow
@settings(max_examples=max(settings.default.max_examples // 4, 1))  # each example runs the whole proof
@given(mutated_specs())
def test_a_mangled_spec_gives_findings_or_a_clean_check_never_an_exception(text):
    result = gapstate.check(parse_spec(text, "fuzz.md"))
    size = len(text.splitlines()) + 1
    for finding in result.findings:
        assert 1 <= finding.line <= size and finding.column >= 1
        assert finding.kind in KINDS
    assert result.ok == (not result.findings)
