"""Comparing an implementation with the table: the protocol's answers, divergences, shrinking, the Python API."""

from __future__ import annotations

import json
import re
import sys

import pytest
from click.testing import CliRunner

import gapstate
from gapstate.cli import main
from gapstate.conformance import vectors
from gapstate.conformance.answers import differences, protocol_problem, wire

from .support import ROOM_LOOP, ROOT, room_loop_module, slow_but, unwrapped

room_loop = room_loop_module()
STEP = {"state": "OPEN", "actions": ["open_gap", "preserve_debt"], "counters": {"session_requests": 0, "episode_attempts": 0}, "debt_owed": True}


@pytest.mark.parametrize(
    "answer",
    [
        [1],
        "OPEN",
        None,
        {},
        {"actions": []},
        {"state": "OPEN"},
        {"state": 3, "actions": []},
        {"state": "OPEN", "actions": "noop"},
        {"state": "OPEN", "actions": [1]},
        {"state": "OPEN", "actions": [], "counters": {"session_requests": 0}},
        {"state": "OPEN", "actions": [], "counters": {"session_requests": 0, "episode_attempts": True}},
        {"state": "OPEN", "actions": [], "debt_owed": "yes"},
        {"refused": "nope"},
    ],
)
def test_an_answer_outside_the_protocol_is_named(answer):
    assert protocol_problem(answer)


@pytest.mark.parametrize(
    "answer",
    [STEP, {"state": "WHATEVER", "actions": []}, {"refused": "invalid_event"}, {"refused": "after_session_end"}],
)
def test_answers_in_the_protocol_pass_even_with_unknown_names(answer):
    assert protocol_problem(answer) is None


@pytest.mark.parametrize(
    "answer",
    [
        {**STEP, "row": 12, "note": "the adapter's own"},
        {**STEP, "counters": {"session_requests": 0, "episode_attempts": 0, "holds": 3}},
        {"refused": "invalid_event", "state": "OPEN"},
    ],
)
def test_keys_of_the_adapters_own_are_allowed_and_not_compared(answer):
    assert protocol_problem(answer) is None
    expected = {"refused": "invalid_event"} if "refused" in answer else STEP
    assert differences(expected, answer) == ()


def test_counters_and_debt_are_compared_only_when_given():
    assert differences(STEP, {"state": "OPEN", "actions": ["open_gap", "preserve_debt"]}) == ()
    wrong = {**STEP, "counters": {"session_requests": 1, "episode_attempts": 0}, "debt_owed": False}
    assert differences(STEP, wrong) == ("counters", "debt_owed")
    assert differences(STEP, {**STEP, "actions": ["preserve_debt", "open_gap"]}) == ("actions",)


def test_a_refusal_must_match_in_kind():
    assert differences({"refused": "invalid_event"}, {"refused": "invalid_event"}) == ()
    assert differences({"refused": "invalid_event"}, {"refused": "after_session_end"}) == ("refused",)
    assert differences({"refused": "invalid_event"}, STEP) == ("refused",)
    assert differences(STEP, {"refused": "invalid_event"}) == ("refused",)


def test_events_go_out_with_t_always_present():
    trace = [{"event": "loss_voiced", "t": 5, "id": "a"}, {"event": "floor_released"}, {"event": "busy_start", "t": 9}]
    assert wire(trace) == [
        {"event": "loss_voiced", "t": 5, "id": "a"},
        {"event": "floor_released", "t": 5},
        {"event": "busy_start", "t": 9},
    ]


def test_the_room_loop_conforms_in_process():
    result = gapstate.conform(room_loop.RoomLoop(bug=""), examples=30, duration=None)
    assert result.ok, gapstate.conform_report(result)
    assert result.vectors == len(vectors.build(gapstate.load_spec()).vectors)
    assert result.traces == 30 and result.events > 0
    assert result.to_dict()["divergence"] is None


class Sparse:
    """The room loop answering only state and actions."""

    def __init__(self):
        self.loop = room_loop.RoomLoop(bug="")

    def reset(self):
        self.loop.reset()

    def step(self, event):
        answer = self.loop.step(event)
        return {k: v for k, v in answer.items() if k in ("state", "actions", "refused")}


def test_an_implementation_that_gives_no_counters_or_debt_is_judged_on_state_and_actions():
    # the vectors' 1,556 events judge the shape of each answer; generated traces would add only more of the same shape
    result = gapstate.conform(Sparse(), examples=0, duration=None)
    assert result.ok and result.events > 1000


class Tupled(Sparse):
    """The room loop answering its actions as a tuple, as Python code might."""

    def step(self, event):
        answer = self.loop.step(event)
        return {**answer, "actions": tuple(answer["actions"])} if "actions" in answer else answer


def test_actions_may_be_a_tuple_in_process():
    result = gapstate.conform(Tupled(), examples=0, duration=None)
    assert result.ok and result.events > 1000


@pytest.mark.parametrize(
    "bug",  # one in the fast suite (the command finds every bug, below); all under `pytest -m slow`
    [pytest.param(bug, marks=() if bug == "dup_reopens" else pytest.mark.slow) for bug in sorted(room_loop.BUGS)],
)
def test_each_deliberate_bug_is_found_with_a_short_trace_the_table_replays(bug):
    result = gapstate.conform(room_loop.RoomLoop(bug=bug), examples=20, duration=None)
    assert not result.ok
    found = result.divergence
    assert len(found.trace) <= 4, gapstate.conform_report(result)
    assert found.index == len(found.trace) - 1
    # the expected answer is what the table does with that trace
    replayed = gapstate.replay(gapstate.load_spec(), list(found.trace))
    if "refused" in found.expected:
        assert replayed.error.index == found.index and replayed.error.kind == found.expected["refused"]
    else:
        last = replayed.steps[-1].to_dict()
        assert (last["to"], last["actions"], last["counters"]) == (
            found.expected["state"],
            found.expected["actions"],
            found.expected["counters"],
        )
    document = result.to_dict()
    assert set(document) == {"ok", "vectors", "traces", "shrinks", "events", "divergence"}
    assert set(document["divergence"]) == {"trace", "index", "expected", "actual", "differs", "row", "guards"}


def test_with_examples_0_the_counts_name_the_vectors_and_the_shrink_attempts_and_no_generated_trace():
    result = gapstate.conform(room_loop.RoomLoop(bug="dup_reopens"), examples=0, duration=None)
    assert not result.ok and result.divergence.source != "generated"
    assert result.traces == 0 and result.shrinks > 0 and result.vectors >= 1
    summary = gapstate.conform_report(result).splitlines()[-1]
    assert f"{result.vectors} vector" in summary and " trace" not in summary  # no generated trace, so not named
    assert f", {result.shrinks} shrinks, " in summary


def test_the_actual_answer_is_the_implementations_own():
    loop = room_loop.RoomLoop(bug="send_while_busy")
    found = gapstate.conform(loop, examples=0, duration=None).divergence
    loop.reset()
    answers = [loop.step(dict(event)) for event in found.trace]
    assert answers[-1] == found.actual


@pytest.mark.slow  # Hypothesis shrinking a generated trace: seconds of CPU (the fast suite shrinks one beside a vector's)
def test_a_divergence_is_found_by_generated_traces_alone_and_shrunk(tmp_path):
    # a vectors folder holding one harmless trace: only generated traces can find the bug
    (tmp_path / "calm.jsonl").write_text('{"event": "loss_silent", "t": 0}\n', encoding="utf-8")
    result = gapstate.conform(room_loop.RoomLoop(bug="send_while_busy"), vectors=tmp_path, examples=40, duration=None)
    assert result.vectors == 1 and not result.ok
    assert result.divergence.source == "generated"
    # a busy interviewer, an open gap, a release: in either order of the first two
    assert sorted(e["event"] for e in result.divergence.trace) == ["busy_start", "floor_released", "loss_voiced"]
    assert result.divergence.trace[-1]["event"] == "floor_released"


def test_an_answer_that_is_not_a_dict_raises_the_documented_error():
    class Broken:
        def reset(self):
            pass

        def step(self, event):
            return "CLEAR"

    with pytest.raises(gapstate.GapstateError, match="not in the protocol"):
        gapstate.conform(Broken(), examples=1, duration=None)


# the command -----------------------------------------------------------------------

ROOM_LOOP_COMMAND = ["--", sys.executable, str(ROOM_LOOP)]
ANSWERS_STATE_ONLY = "import sys\nfor line in sys.stdin:\n    print('{\"state\": \"CLEAR\"}', flush=True)\n"


def conform_cli(*args: str, env: dict[str, str] | None = None):
    """The command, with no time limit on the generated traces and a minute per answer unless the test sets them:
    on a loaded machine a run must not find fewer traces, or time out, because other processes took the cores."""
    given = args[: args.index("--")] if "--" in args else args
    patient = [option for option, value in (("--duration", "0"), ("--timeout", "60")) if option not in given for option in (option, value)]
    return CliRunner(env=env).invoke(main, ["conform", *patient, *args])


def test_the_command_passes_the_room_loop_and_prints_one_json_document():
    # a few generated traces after the vectors: whether the room loop passes them is for the in-process test above
    result = conform_cli("--examples", "3", "--format", "json", *ROOM_LOOP_COMMAND)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    suite = vectors.build(gapstate.load_spec()).vectors
    assert document == {"ok": True, "vectors": len(suite), "traces": 3, "shrinks": 0, "events": document["events"],
                        "divergence": None, "saved": None}
    assert document["events"] > sum(len(vector.trace) for vector in suite)


@pytest.fixture(scope="module")
def busy_text():
    """`conform` in text against the room loop with send_while_busy on: one run, read by the tests that follow."""
    return conform_cli("--examples", "0", *ROOM_LOOP_COMMAND, env={"ROOM_LOOP_BUG": "send_while_busy"})


def test_the_command_prints_a_shrunk_trace_that_pastes_into_replay(tmp_path, busy_text):
    result = busy_text
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    trace = [line for line in lines if line.startswith("{")]
    assert sorted(json.loads(line)["event"] for line in trace) == ["busy_start", "floor_released", "loss_voiced"]
    assert '  state:    expected "DUE", actual "SENDING"' in lines
    assert "    busy is true: the interviewer is busy" in lines
    path = tmp_path / "found.jsonl"
    path.write_text("\n".join(trace) + "\n", encoding="utf-8")
    replayed = CliRunner().invoke(main, ["replay", "--format", "json", str(path)])
    expected = json.loads(next(line for line in unwrapped(result.stdout) if line.startswith("  expected: "))[12:])
    assert json.loads(replayed.stdout)["steps"][-1]["to"] == expected["state"]


# A conform run with its implementation process per bug: two fast (dup_reopens is found in process above),
# every bug under `pytest -m slow`.
@pytest.mark.parametrize("bug", slow_but(sorted(room_loop.BUGS), "send_while_busy", "late_loss_ignored"))
def test_the_command_finds_each_bug_switched_on_in_the_environment_with_a_short_trace(bug):
    # the vectors alone find every one, and shrink it by deletion; Hypothesis's shrinking is tested in process
    result = conform_cli("--examples", "0", "--format", "json", *ROOM_LOOP_COMMAND, env={"ROOM_LOOP_BUG": bug})
    assert result.exit_code == 1, result.output
    divergence = json.loads(result.stdout)["divergence"]
    assert len(divergence["trace"]) <= 4
    assert divergence["index"] == len(divergence["trace"]) - 1
    assert divergence["expected"] != divergence["actual"]


def test_the_command_runs_a_vectors_folder(tmp_path):
    assert CliRunner().invoke(main, ["vectors", str(tmp_path / "v")]).exit_code == 0
    (tmp_path / "v" / "manifest.json").write_text('{"traces": [{"trace": "tour-01.jsonl"}]}', encoding="utf-8")
    result = conform_cli("--vectors", str(tmp_path / "v"), "--examples", "0", "--format", "json", *ROOM_LOOP_COMMAND)
    assert json.loads(result.stdout)["vectors"] == 1 and result.exit_code == 0


@pytest.mark.parametrize("manifest, place, words", [
    ('{"traces": [{"trace": 5}]}', "1:23", "traces[0].trace: expected a file name"),
    ('{"traces": [{"trace": null}]}', "1:23", "traces[0].trace: expected a file name"),
    ('{"traces": 3}', "1:1", 'expected {"traces"'),
    ("[]", "1:1", 'expected {"traces"'),
    ('{"traces": [\n {"trace": "../up.jsonl"}]}', "2:12", "traces[0].trace: \"../up.jsonl\" is not a file inside"),
    ('{"traces": [{"trace": "/etc/passwd"}]}', "1:23", "is not a file inside the suite's folder"),
])
def test_a_manifest_of_the_wrong_shape_is_unusable_input_naming_it(tmp_path, manifest, place, words):
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "manifest.json").write_text(manifest, encoding="utf-8")
    result = conform_cli("--vectors", str(tmp_path / "v"), "--examples", "0", *ROOM_LOOP_COMMAND)
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'v' / 'manifest.json'}:{place}: " in result.stderr and words in result.stderr


def test_a_manifest_cannot_lead_out_of_its_folder_through_a_link(tmp_path):
    (tmp_path / "v").mkdir()
    (tmp_path / "elsewhere.jsonl").write_text('{"event": "busy_start"}\n', encoding="utf-8")
    (tmp_path / "v" / "out.jsonl").symlink_to(tmp_path / "elsewhere.jsonl")
    (tmp_path / "v" / "manifest.json").write_text('{"traces": [{"trace": "out.jsonl"}]}', encoding="utf-8")
    result = conform_cli("--vectors", str(tmp_path / "v"), "--examples", "0", *ROOM_LOOP_COMMAND)
    assert result.exit_code == 2, result.output
    assert "traces[0].trace: \"out.jsonl\" leads out of the suite's folder" in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--", "/nonexistent/adapter"], "cannot start"),
        (["--timeout", "0.3", "--", sys.executable, "-c", "import time; time.sleep(30)"], "within 0.3 s"),
        (["--vectors", "/nonexistent/folder", *ROOM_LOOP_COMMAND], "no such folder"),
        (["--", sys.executable, "-c", ANSWERS_STATE_ONLY], "is not in the protocol: missing 'actions'"),
    ],
)
def test_what_cannot_be_tested_is_exit_2_with_a_json_error(args, message):
    result = conform_cli("--format", "json", *args)
    assert result.exit_code == 2
    assert message in json.loads(result.stdout)["error"]["message"]
    assert message in result.stderr


def test_the_command_needs_a_command():
    assert conform_cli().exit_code == 2


# docs/conformance.md ------------------------------------------------------------------


def test_the_adapter_on_the_docs_page_conforms_when_it_wraps_the_room_loop(tmp_path):
    page = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    adapter = re.search(r"## A minimal adapter.*?```python[^\n]*\n(.*?)```", page, flags=re.S).group(1)
    (tmp_path / "adapter.py").write_text(adapter, encoding="utf-8")
    (tmp_path / "my_agent.py").write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('room_loop', {str(ROOM_LOOP)!r})\n"
        "room_loop = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(room_loop)\n"
        "class GapState(room_loop.RoomLoop):\n"
        "    def handle(self, event):\n"
        "        return self.step(event)\n",
        encoding="utf-8",
    )
    # the vectors reach every row and boundary through the adapter; two generated traces take that path too
    result = conform_cli("--examples", "2", "--format", "json", "--", sys.executable, str(tmp_path / "adapter.py"))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["traces"] == 2


def test_the_text_output_on_the_docs_page_is_what_the_command_prints(busy_text):
    page = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    shown = re.search(r"Text, for people.*?\n\n(.*?)\n\n", page, flags=re.S).group(1)
    shown = [line[4:] for line in shown.splitlines()]
    result = busy_text
    printed = result.output.splitlines()  # as a terminal shows it: the report, then the summary line from stderr
    # everything but the counts and the spec's path, which depend on the run and the install
    assert printed[1:-1] == shown[1:-1]
    assert result.stderr.splitlines()[-1] == printed[-1] and printed[-1].startswith("gapstate conform: ")
    assert printed[0].split(";")[0] == shown[0].split(";")[0]


class OffProtocolAtTheSecondEvent(room_loop.RoomLoop):
    """The room loop, answering its second event outside the protocol."""

    def reset(self):
        self.answered = 0
        return super().reset()

    def step(self, event):
        self.answered += 1
        if self.answered == 2:
            self.second = event["event"]
            return {"state": 5}
        return super().step(event)


def test_an_answer_outside_the_protocol_names_its_event_counted_from_1():
    loop = OffProtocolAtTheSecondEvent(bug="")
    with pytest.raises(gapstate.GapstateError) as caught:
        gapstate.conform(loop, examples=0, duration=None)
    assert re.search(r"the answer to event 2 of \d+ \(\w+\) is not in the protocol", caught.value.message)
    assert f"({loop.second})" in caught.value.message  # the event answered, not the trace's last


def test_a_suite_whose_times_pass_the_latest_cannot_be_tested(tmp_path):
    suite = tmp_path / "v"
    suite.mkdir()
    (suite / "late.jsonl").write_text('{"event": "busy_start", "t": 9223372036854775808}\n', encoding="utf-8")
    result = conform_cli("--vectors", str(suite), "--examples", "0", *ROOM_LOOP_COMMAND)
    assert result.exit_code == 2, result.output
    assert f"{suite / 'late.jsonl'}:1:" in result.stderr and "past the latest time" in result.stderr


def test_conform_in_process_puts_the_callers_sigterm_handler_back(tmp_path):
    """conform turns SIGTERM into an unwinding exit while it runs; a test runner or program calling it keeps its own after.

    Left installed, the handler would be inherited by every worker process
    the caller forks later, and a pool's terminate() would unwind them.
    """
    import signal

    def mine(signum, frame):  # noqa: ANN001
        raise AssertionError("not delivered in this test")

    before = signal.signal(signal.SIGTERM, mine)
    try:
        # --replay: the one trace given, and no generated traces
        trace = tmp_path / "one.jsonl"
        trace.write_text('{"event": "loss_voiced", "t": 100, "id": "iv-1"}\n{"event": "floor_released", "t": 300}\n', encoding="utf-8")
        ran = CliRunner().invoke(main, ["conform", "--replay", str(trace), "--format", "json", "--timeout", "60", "--", sys.executable, str(ROOM_LOOP)])
        assert ran.exit_code == 0, ran.output
        assert signal.getsignal(signal.SIGTERM) is mine
        document = json.loads(ran.stdout)
        assert (document["vectors"], document["traces"], document["events"]) == (1, 0, 2)
    finally:
        signal.signal(signal.SIGTERM, before)


def _nested(depth: int, inner: object) -> object:
    for _ in range(depth):
        inner = [inner]
    return inner


DEEP = _nested(100_000, [])
LONG = 10**5000
COUNTED = {"state": "CLEAR", "actions": ["noop"], "counters": {"session_requests": LONG, "episode_attempts": 0}}
HOSTILE = [
    (LONG, "must be a JSON object, not a number: <a number of 5001 digits>"),
    ({"refused": LONG}, "not <a number of 5001 digits>"),
    ({"refused": DEEP}, "not [[[[[[[[[[[[[[[[[[[["),
    ({"state": LONG, "actions": []}, '{"state": <a number of 5001 digits>, "actions": []}'),
    ({"state": "OPEN", "actions": DEEP}, "'actions' must be a list of strings"),
    (DEEP, "must be a JSON object, not an array"),
    ({"state": b"\xff", "actions": []}, '{"state": <bytes>, "actions": []}'),
    (COUNTED, '"counters": {"session_requests": <a number of 5001 digits>, "episode_attempts": 0}'),
    ({"state": "OPEN", "actions": [], "mine": LONG}, '"mine": <a number of 5001 digits>'),
    ({"state": "OPEN", "actions": [], "mine": DEEP}, '"mine": [[[[[[[[[[[[[[[[[[[[...]]]]]]]]]]]]]]]]]]]]'),
    ({"state": "OPEN", "actions": [], (1, 2): {3}}, "[1, 2]: <set>"),
    ({"state": "\udcff", "actions": []}, '"state": "\\udcff"'),
]


@pytest.mark.parametrize("answer, words", HOSTILE, ids=[f"hostile-{n}" for n in range(len(HOSTILE))])
def test_whatever_an_implementation_answers_conform_and_its_report_raise_only_the_documented_error(answer, words):
    """A number past 4,300 digits, nesting past the encoder's recursion, a key or type JSON lacks: named, never a crash."""

    class Hostile:
        def reset(self):
            pass

        def step(self, event):
            return answer

    try:
        result = gapstate.conform(Hostile(), examples=0, duration=None)
    except gapstate.GapstateError as error:
        said = error.message
    else:
        assert not result.ok
        said = "\n".join(unwrapped(gapstate.conform_report(result)))  # its long lines joined back
    assert words in said
