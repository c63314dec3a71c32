"""The command line, every command: exit codes, output formats, and clear errors instead of tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import gapstate
from gapstate.cli import main

from .support import ROOT, SPEC_TEXT, line_of, replay, run, variant, write_trace
from .test_attribution_conditions import control, report, silent, stall, turn, verdicts  # the report builders

EXAMPLE = ROOT / "spec" / "classify-example.json"


@pytest.fixture
def broken_spec(tmp_path):
    path = tmp_path / "broken.md"
    path.write_text(
        variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request"),
        encoding="utf-8",
    )
    return path


def test_check_passes_on_the_bundled_spec():
    result = run("check")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1].startswith("gapstate check: ")
    assert ": ok (5 states, 12 events, 67 rows," in result.stdout


def test_check_json_is_one_document_with_the_contract_keys():
    result = run("check", "--format", "json")
    document = json.loads(result.stdout)
    assert set(document) == {"ok", "spec", "stats", "findings"}
    assert set(document["stats"]) == {"states", "events", "rows", "configurations", "unreachable_allowed"}
    assert document["ok"] is True and document["findings"] == []


def test_check_reports_findings_as_path_line_column_kind(broken_spec):
    result = run("check", "--spec", str(broken_spec))
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    line = SPEC_TEXT.splitlines().index("OPEN | floor_released | busy | DUE | defer_no_interrupt") + 1
    assert first.startswith(f"{broken_spec}:{line}:1: rule: send-while-busy: ")


def test_a_trace_printed_by_check_pastes_into_replay(broken_spec, tmp_path):
    text = run("check", "--spec", str(broken_spec)).stdout.splitlines()
    start = next(i for i, line in enumerate(text) if "send-while-busy" in line)
    assert text[start + 1].startswith("  ") and " | " in text[start + 1]  # the row, quoted, then a caret
    trace = []
    for line in text[start + 3 :]:
        if not line.startswith("    "):
            break
        trace.append(line.strip())
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(trace) + "\n", encoding="utf-8")
    replayed = run("replay", str(path), "--spec", str(broken_spec), "--format", "json")
    assert replayed.exit_code == 1
    error = json.loads(replayed.stdout)["error"]
    assert error["kind"] == "rule" and "send-while-busy" in error["message"]


def test_check_output_is_byte_identical_between_runs(broken_spec):
    first = run("check", "--spec", str(broken_spec), "--format", "json").stdout
    assert first == run("check", "--spec", str(broken_spec), "--format", "json").stdout
    assert run("check", "--spec", str(broken_spec)).stdout == run("check", "--spec", str(broken_spec)).stdout


def test_a_spec_without_a_table_exits_1_with_a_parse_error(tmp_path):
    path = tmp_path / "empty.md"
    path.write_text("# Nothing here\n", encoding="utf-8")
    result = run("check", "--spec", str(path), "--format", "json")
    assert result.exit_code == 1
    [finding] = json.loads(result.stdout)["findings"]
    assert (finding["kind"], finding["line"], finding["column"]) == ("parse_error", 1, 1)


@pytest.mark.parametrize("make, words", [
    (lambda p: p / "missing.md", "no such file"),
    (lambda p: p, "is a directory"),
])
def test_an_unreadable_spec_exits_2_naming_it(tmp_path, make, words):
    path = make(tmp_path)
    result = run("check", "--spec", str(path))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert str(path) in result.stderr and words in result.stderr
    assert "Traceback" not in result.stderr


def test_a_spec_that_is_not_utf8_exits_2_with_its_line(tmp_path):
    path = tmp_path / "latin.md"
    path.write_bytes(b"line one\nline two \xe9\n")
    result = run("check", "--spec", str(path))
    assert result.exit_code == 2
    assert f"{path}:2:10: not UTF-8" in result.stderr


def test_a_bad_option_exits_2():
    assert run("check", "--format", "yaml").exit_code == 2
    assert run("check", "--no-such-option").exit_code == 2


def test_python_dash_m_runs_the_same_command():
    result = subprocess.run([sys.executable, "-m", "gapstate", "check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert ": ok (" in result.stdout


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print(' '.join(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True,
    ).stdout
    return set(out.split())


def test_importing_gapstate_loads_neither_lark_nor_networkx():
    loaded = _modules_after("import gapstate, gapstate.cli")
    assert "lark" not in loaded and "networkx" not in loaded


def test_replaying_does_not_load_networkx():
    loaded = _modules_after(
        "import gapstate\n"
        "gapstate.replay(gapstate.load_spec(), [{'event': 'loss_voiced', 'id': 'a'}])"
    )
    assert "networkx" not in loaded
    assert "lark" in loaded  # the spec was parsed


@pytest.mark.parametrize("command", [["check", "--spec"], ["replay", "trace.jsonl", "--spec"], ["fuzz", "--spec"]])
def test_with_json_format_unusable_input_still_prints_one_json_document(tmp_path, command):
    (tmp_path / "trace.jsonl").write_text('{"event": "busy_start"}\n', encoding="utf-8")
    args = [str(tmp_path / a) if a == "trace.jsonl" else a for a in command]
    result = run(*args, str(tmp_path / "missing.md"), "--format", "json")
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    assert document["ok"] is False
    assert document["error"]["file"] == str(tmp_path / "missing.md")
    assert document["error"]["message"] == "no such file"


def test_an_empty_spec_path_says_so():
    result = run("check", "--spec", "")
    assert result.exit_code == 2 and "an empty path names no file" in result.stderr


def test_load_spec_refuses_what_is_neither_a_path_nor_text():
    import gapstate

    with pytest.raises(gapstate.GapstateError):
        gapstate.load_spec(5)


# gapstate replay ---------------------------------------------------------

GOOD = '{"event": "loss_voiced", "t": 120, "id": "iv-1"}'


def test_replay_json_has_the_contract_shape(tmp_path):
    path = write_trace(tmp_path, GOOD, '{"event": "floor_released", "t": 300}', '{"event": "evidence_turn", "t": 900, "speech_start": 650}')
    result = replay(path, "--format", "json")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert set(document) == {"ok", "steps", "final", "error"}
    assert set(document["steps"][0]) == {"index", "event", "from", "to", "row", "guards", "actions", "counters"}
    assert set(document["final"]) == {"state", "counters", "debt_owed", "ended"}
    assert document["error"] is None


def test_replay_summary_prints_only_the_final_configuration_and_the_error(tmp_path):
    path = write_trace(tmp_path, GOOD, '{"event": "send_ok", "t": 300}')
    text = replay(path, "--summary")
    assert text.exit_code == 1
    assert "loss_voiced" not in text.stdout
    assert "invalid_event" in text.stdout and text.stdout.count("\n") == 3
    document = json.loads(replay(path, "--summary", "--format", "json").stdout)
    assert "steps" not in document and document["error"]["kind"] == "invalid_event"


def test_replay_text_reads_like_a_transcript_with_the_failing_step_marked(tmp_path):
    path = write_trace(tmp_path, GOOD, '{"event": "send_ok", "t": 300}')
    lines = replay(path).stdout.splitlines()
    assert "loss_voiced" in lines[0] and "CLEAR" in lines[0] and "OPEN" in lines[0]
    assert lines[1].startswith("!")
    assert "send_ok cannot occur in OPEN" in lines[1]


def test_replay_against_a_spec_with_a_syntax_error_is_unusable(tmp_path):
    spec = tmp_path / "spec.md"
    spec.write_text("```\n# state | event | guards | next | actions\nCLEAR | busy_end\n```\n", encoding="utf-8")
    result = replay(write_trace(tmp_path, GOOD), "--spec", str(spec))
    assert result.exit_code == 2
    assert f"{spec}:3:" in result.stderr and "parse_error" in result.stderr


def test_a_trace_can_come_from_standard_input():
    result = CliRunner().invoke(main, ["replay", "-", "--format", "json"], input=GOOD + "\n")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["final"]["state"] == "OPEN"


def test_a_byte_order_mark_on_the_first_line_is_accepted(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode() + b"\n")
    assert replay(path).exit_code == 0


def test_a_line_that_is_not_utf8_says_so_with_its_column(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_bytes(GOOD.encode() + b'\n{"event": "busy_start\xff"}\n')
    assert f"{path}:2:22: not UTF-8" in replay(path).stderr


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_streamed_output_is_what_the_result_renders(tmp_path, fmt):
    from gapstate.cli.render.replay import replay_json, replay_step_line, replay_tail

    lines = [GOOD, '{"event": "floor_released", "t": 300}', '{"event": "send_ok", "t": 400}', '{"event": "send_ok", "t": 500}']
    path = write_trace(tmp_path, *lines)
    api = gapstate.replay(gapstate.load_spec(), [json.loads(line) for line in lines])
    cli = replay(path, "--format", fmt).stdout
    if fmt == "json":
        assert cli == "".join(replay_json(api)) + "\n"
        assert json.loads(cli) == api.to_dict()
    else:
        caps = {"session_requests": 3, "episode_attempts": 2}
        assert cli == "".join(replay_step_line(step, caps) + "\n" for step in api.steps) + replay_tail(api, caps, str(path)) + "\n"


def test_a_long_trace_streams_every_step_through_the_spool(tmp_path):
    # 80,000 transcript lines pass the spool's 8 MiB in memory, so it moves to a file.
    path = write_trace(tmp_path, *(['{"event": "loss_silent"}'] * 80000))
    result = replay(path)
    assert result.exit_code == 0
    assert result.stdout.count("\n") == 80000 + 2


# gapstate classify ------------------------------------------------------------------


def run_classify(*args: str) -> Any:
    return CliRunner().invoke(main, ["classify", *args])


def write_report(tmp_path: Path, document: Any, name: str = "report.json") -> str:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document, indent=2), encoding="utf-8")
    return str(path)


def test_the_command_prints_the_json_result_and_exits_0():
    outcome = run_classify(str(EXAMPLE), "--format", "json")
    assert outcome.exit_code == 0, outcome.output
    document = json.loads(outcome.stdout)
    assert list(document) == ["descriptive", "verdict", "arms", "note"]
    assert document == gapstate.classify(json.loads(EXAMPLE.read_text())).to_dict()


def test_the_example_report_shows_every_kind_of_assessed_turn():
    document = json.loads(run_classify(str(EXAMPLE), "--format", "json").stdout)
    assert document["verdict"] == "attributable"
    assert verdicts(document)["stall-2s"][1] == ("q2-last-role", "attributable", [])
    assert verdicts(document)["stall-5s"][1] == ("q2-last-role", "inconclusive", ["interval_recorded", "interval_overlaps"])


def test_the_text_table_has_a_row_per_arm_and_turn_then_arms_overall_and_note():
    outcome = run_classify(str(EXAMPLE))
    assert outcome.exit_code == 0
    rows = [line.split() for line in outcome.stdout.splitlines()]
    assert ["stall-2s", "q2-last-role", "attributable", "-"] in rows
    assert ["stall-5s", "q3-why-leave", "inconclusive", "transmitted,", "interval_recorded,", "interval_overlaps"] in rows
    assert ["control", "q1-name", "intact", "-"] in rows
    assert sum(1 for row in rows if len(row) >= 3 and row[0] in ("control", "stall-2s", "stall-5s")) == 9
    assert ["arm", "stall-5s:", "assessed"] in rows
    assert ["arm", "control:", "control"] in rows
    assert "overall: attributable" in outcome.stdout
    assert "not a rate" in outcome.stdout
    assert outcome.stdout == run_classify(str(EXAMPLE)).stdout  # deterministic


@pytest.mark.parametrize("data, verdict", [
    (report(control(), stall(intervals=[])), "inconclusive"),
    (report(control(), stall(turn("present"))), "no_change"),
    (report(control("present", "present"), silent(), turns=2), "unexplained_silence"),
])
def test_the_command_exits_0_whatever_the_verdict(tmp_path, data, verdict):
    outcome = run_classify(write_report(tmp_path, data), "--format", "json")
    assert (outcome.exit_code, json.loads(outcome.stdout)["verdict"]) == (0, verdict)


def test_a_malformed_report_exits_2_listing_every_problem_with_file_line_and_path(tmp_path):
    text = (
        '{"answer_key": ["q1"],\n'
        ' "arms": [{"name": "c", "kind": "control", "turns": {"q1": {"status": "gone"}}},\n'
        '          {"name": "s", "kind": "stall", "intervals": [{"kind": "drop", "start": 5, "end": 1}],\n'
        '           "turns": {}}]}\n'
    )
    path = write_report(tmp_path, text)
    outcome = run_classify(path)
    assert outcome.exit_code == 2
    assert outcome.stdout == ""
    assert "3 problems" in outcome.stderr
    assert f"{path}:2:" in outcome.stderr and "arms[0].turns.q1.status: expected one of" in outcome.stderr
    assert f"{path}:3:" in outcome.stderr and "arms[1].intervals[0]: expected start < end" in outcome.stderr
    assert f"{path}:4:" in outcome.stderr and "arms[1].turns.q1: missing" in outcome.stderr
    assert "Traceback" not in outcome.output


def test_malformed_json_exits_2_naming_the_file_line_and_column(tmp_path):
    path = write_report(tmp_path, '{"answer_key": ["q1"],\n "arms": [1,}\n')
    outcome = run_classify(path)
    assert (outcome.exit_code, outcome.stdout) == (2, "")
    assert f"{path}:2:" in outcome.stderr and "not valid JSON" in outcome.stderr


def test_an_empty_file_is_malformed_json(tmp_path):
    outcome = run_classify(write_report(tmp_path, ""))
    assert outcome.exit_code == 2 and ":1:1: not valid JSON" in outcome.stderr


def test_a_file_that_is_not_utf8_exits_2_naming_the_line(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"answer_key": ["q1"],\n "arms": ["caf\xe9"]}'.encode("latin-1"))
    outcome = run_classify(str(path))
    assert (outcome.exit_code, outcome.stdout) == (2, "")
    assert f"{path}:2:" in outcome.stderr and "not UTF-8" in outcome.stderr


def test_a_missing_file_exits_2_naming_it(tmp_path):
    path = str(tmp_path / "absent.json")
    outcome = run_classify(path)
    assert (outcome.exit_code, outcome.stdout) == (2, "")
    assert path in outcome.stderr and "no such file" in outcome.stderr


def test_an_unknown_format_is_a_usage_error_exit_2():
    assert run_classify(str(EXAMPLE), "--format", "yaml").exit_code == 2


def test_classify_never_loads_lark_or_networkx():
    code = (
        "import sys\n"
        "from gapstate.cli import main\n"
        "try:\n"
        f"    main(['classify', {str(EXAMPLE)!r}, '--format', 'json'])\n"
        "except SystemExit as exit:\n"
        "    assert exit.code == 0, exit.code\n"
        "import gapstate.attribution.conditions, gapstate.attribution.repeats, gapstate.attribution.positions\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('lark', 'networkx', 'jsonschema', 'pydantic', 'matplotlib'))\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert '"verdict": "attributable"' in done.stdout
    assert "HEAVY []" in done.stderr


def test_the_installed_command_runs_as_a_process(tmp_path):
    done = subprocess.run([sys.executable, "-m", "gapstate", "classify", str(EXAMPLE)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "overall: attributable" in done.stdout
    bad = write_report(tmp_path, {"answer_key": ["q1"], "arms": []})
    done = subprocess.run([sys.executable, "-m", "gapstate", "classify", bad], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert "arms: expected exactly one arm of kind control" in done.stderr


# the console script ----------------------------------------------------------


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path):
    """`gapstate replay t.jsonl | head -1`: exit 141 (the reader went away), and no traceback on stderr."""
    path = write_trace(tmp_path, *(['{"event": "loss_silent"}'] * 5000))  # far more than a pipe buffers
    script = "import sys\nfrom gapstate.cli import entry\nsys.argv[0] = 'gapstate'\nentry()"
    process = subprocess.Popen(
        [sys.executable, "-c", script, "replay", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()
    error = process.stderr.read()
    assert process.wait() == 141
    assert b"loss_silent" in first
    assert error == b""


def test_a_pipe_closed_before_an_error_document_is_written_ends_quietly(tmp_path):
    """click handles a closed pipe inside a command; `entry` handles one while click shows an error."""
    script = "import sys\nfrom gapstate.cli import entry\nsys.argv[0] = 'gapstate'\nentry()"
    process = subprocess.Popen(
        [sys.executable, "-c", script, "replay", str(tmp_path / "missing.jsonl"), "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # long before the interpreter has started: the document meets a closed pipe
    error = process.stderr.read().decode()
    assert process.wait() == 141
    assert error == f"gapstate: error: {tmp_path / 'missing.jsonl'}: no such file\n"


def test_a_spec_that_also_shows_a_shell_snippet_checks_and_replays(tmp_path):
    spec = tmp_path / "spec.md"
    spec.write_text(SPEC_TEXT + "\n```sh\n# replay | count\ngapstate replay t.jsonl | wc -l\n```\n", encoding="utf-8")
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"event": "busy_start"}\n', encoding="utf-8")
    assert run("check", "--spec", str(spec)).exit_code == 0
    result = run("replay", str(trace), "--spec", str(spec))
    assert result.exit_code == 0, result.output


# Ctrl-C and a closed pipe ------------------------------------------------------

COMMANDS = {
    "check": lambda path: ["check", "--spec", path],
    "replay": lambda path: ["replay", path],
    "classify": lambda path: ["classify", path],
    "fuzz": lambda path: ["fuzz", "--spec", path, "--examples", "1", "--seed", "1"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ctrl_c_exits_130_quietly(tmp_path, command):
    import os
    import signal

    fifo = tmp_path / "input"
    os.mkfifo(fifo)
    child = subprocess.Popen(
        [sys.executable, "-m", "gapstate", *COMMANDS[command](str(fifo))],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    writer = None
    for _ in range(3000):  # the command opens its input and waits on it; a child that died never does
        try:
            writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError:  # ENXIO: no reader yet
            assert child.poll() is None, child.communicate()
            time.sleep(0.01)
    assert writer is not None, "the command never opened its input"
    # A SIGINT that lands between the open and the read is only noted until the
    # read returns; a second one, as a user presses Ctrl-C again, interrupts it.
    for _ in range(20):
        child.send_signal(signal.SIGINT)
        try:
            out, err = child.communicate(timeout=1)
            break
        except subprocess.TimeoutExpired:
            continue
    else:
        child.kill()
        out, err = child.communicate()
    os.close(writer)
    assert child.returncode == 130
    assert (out, err) == (b"", b"")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_closed_stdout_exits_141_quietly(tmp_path, command):
    import os

    inputs = {
        "check": ROOT / "spec" / "gap-state.md",
        "replay": tmp_path / "t.jsonl",
        "classify": ROOT / "spec" / "classify-example.json",
        "fuzz": ROOT / "spec" / "gap-state.md",
    }
    (tmp_path / "t.jsonl").write_text('{"event": "busy_start"}\n' * 2000, encoding="utf-8")
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will ever read: the first write fails
    try:
        child = subprocess.run(
            [sys.executable, "-m", "gapstate", *COMMANDS[command](str(inputs[command]))],
            cwd=tmp_path, stdout=write_end, stderr=subprocess.PIPE,
        )
    finally:
        os.close(write_end)
    assert child.returncode == 141
    assert child.stderr == b""


def test_classify_text_ends_with_a_summary_line_like_the_other_commands():
    last = run("classify", str(EXAMPLE)).stdout.splitlines()[-1]
    assert last == f"gapstate classify: {EXAMPLE}: 3 arms, 9 turns: attributable (descriptive)"


def test_classify_help_speaks_of_the_attribution_conditions_not_of_a_seed():
    text = " ".join(run("classify", "--help").stdout.split())
    assert "five attribution conditions" in text and "seed" not in text.lower()


@pytest.mark.parametrize("old, new", [
    ("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | ="),
    ("OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request",
     "OPNE | floor_released | !busy,budget_left,attempts_left | SENDING | send_request"),
])
def test_after_a_syntax_or_name_finding_the_summary_says_what_was_read_and_that_the_proof_did_not_run(tmp_path, old, new):
    path = tmp_path / "spec.md"
    path.write_text(variant(old, new), encoding="utf-8")
    result = run("check", str(path))
    rows = 67 if new.count("|") == 4 else 66
    assert result.stdout.splitlines()[-1] == (
        f"gapstate check: {path}: 1 finding (read {rows} rows, 2 caps, 3 allowances; "
        "the proof did not run: fix the findings above first)"
    )
    assert json.loads(run("check", str(path), "--format", "json").stdout)["stats"]["rows"] == rows


# replay's transcript, for people ---------------------------------------------


def test_replay_text_names_trace_lines_not_indexes_and_json_keeps_the_index(tmp_path):
    path = write_trace(tmp_path, GOOD, "", '{"event": "loss_voiced", "t": 130, "id": "iv-1"}', '{"event": "send_ok", "t": 300}')
    lines = replay(path).stdout.splitlines()
    assert lines[0].startswith("line 1 ") and lines[1].startswith("line 3 ")
    assert lines[2] == f"! {path}:4: invalid_event: send_ok cannot occur in OPEN (row at line {line_of(SPEC_TEXT, 'OPEN | send_ok')} marks it invalid)"
    assert lines[-1] == f"gapstate replay: {path}: 3 events: stopped at line 4 (invalid_event)"
    document = json.loads(replay(path, "--format", "json").stdout)
    assert [step["index"] for step in document["steps"]] == [0, 1] and document["error"]["index"] == 2


def test_replay_text_shows_the_fields_that_decide_a_guard(tmp_path):
    path = write_trace(
        tmp_path,
        GOOD,
        '{"event": "loss_voiced", "t": 130, "id": "iv-1"}',
        '{"event": "floor_released", "t": 300}',
        '{"event": "send_ok", "t": 420}',
        '{"event": "evidence_turn", "t": 500, "speech_start": 400}',
        '{"event": "evidence_turn", "t": 900, "speech_start": 650}',
    )
    lines = replay(path).stdout.splitlines()
    assert "t=120" in lines[0] and "!dup (id iv-1 new)" in lines[0]
    assert "dup (id iv-1 seen before)" in lines[1]
    assert "!post_send (speech_start=400 <= 420)" in lines[4]
    assert "post_send (speech_start=650 > 420)" in lines[5]


def test_replay_says_one_event_not_one_events(tmp_path):
    path = write_trace(tmp_path, '{"event": "busy_start"}')
    assert replay(path).stdout.splitlines()[-1] == f"gapstate replay: {path}: 1 event: ok"


def test_whole_processes_keep_their_exit_codes_and_flush_their_output(tmp_path):
    """The console entry ends the process quickly (os._exit) but only after everything is written."""
    missing = subprocess.run([sys.executable, "-m", "gapstate", "check", "--spec", str(tmp_path / "no.md")],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "no such file" in missing.stderr and "Traceback" not in missing.stderr
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"event": "candidate_start"}\n' * 3000, encoding="utf-8")
    full = subprocess.run([sys.executable, "-m", "gapstate", "replay", "--format", "json", str(trace)],
                          capture_output=True, text=True)
    assert full.returncode == 0 and len(json.loads(full.stdout)["steps"]) == 3000


def test_the_exploring_bar_shows_only_once_the_work_passed_its_delay(capsys):
    from gapstate.cli.base import LateBar

    quick = LateBar("exploring", delay=3600)
    quick(5, 10)
    quick.close()
    assert capsys.readouterr().err == ""
    slow = LateBar("exploring", delay=0)
    slow(5, 10)
    slow(10, 10)
    slow.close()
    assert "exploring" in capsys.readouterr().err
