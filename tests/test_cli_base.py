"""gapstate/cli/base.py and the console script: what every command shares: unusable input, lazy imports, Ctrl-C, closed pipes, whole processes."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from .support import REPORT_EXAMPLE, ROOT, run, write_report, write_trace


def test_a_bad_option_exits_2():
    assert run("check", "--format", "yaml").exit_code == 2
    assert run("check", "--no-such-option").exit_code == 2


@pytest.mark.slow  # whole processes, at the end of this file, run `python -m gapstate` fast
def test_python_dash_m_runs_the_same_command():
    result = subprocess.run([sys.executable, "-m", "gapstate", "check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and ": ok (" in result.stderr  # nothing found: only the summary line, on stderr


# One process, three stages, each followed by the modules loaded so far: importing the
# package and its CLI, then classify through the CLI, then a replay. A later stage only
# adds modules, so what an earlier one must not load it has not loaded either.
STAGES = {
    "import": "import gapstate, gapstate.cli",
    "classify": (
        "from gapstate.cli import main\n"
        "try:\n"
        f"    main(['classify', {str(REPORT_EXAMPLE)!r}, '--format', 'json'])\n"
        "except SystemExit as exit:\n"
        "    assert exit.code == 0, exit.code\n"
        "import gapstate.attribution.conditions, gapstate.attribution.repeats, gapstate.attribution.positions"
    ),
    "replay": "gapstate.replay(gapstate.load_spec(), [{'event': 'loss_voiced', 'id': 'a'}])",
}


@pytest.fixture(scope="module")
def loaded() -> dict[str, set[str]]:
    """The modules loaded after each stage, in a fresh interpreter."""
    code = "import sys\n" + "".join(
        f"{stage}\nprint('STAGE {name}', ' '.join(sorted(sys.modules)), file=sys.stderr)\n" for name, stage in STAGES.items()
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert '"verdict": "attributable"' in done.stdout  # classify ran, and answered
    stages = [line.split()[1:] for line in done.stderr.splitlines() if line.startswith("STAGE ")]
    return {name: set(modules) for name, *modules in stages}


def test_importing_gapstate_loads_neither_lark_nor_networkx(loaded):
    assert "lark" not in loaded["import"] and "networkx" not in loaded["import"]


def test_replaying_does_not_load_networkx(loaded):
    assert "networkx" not in loaded["replay"]
    assert "lark" in loaded["replay"]  # the spec was parsed


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


# what each command imports ------------------------------------------------------


def test_classify_never_loads_lark_or_networkx(loaded):
    heavy = sorted(m for m in loaded["classify"] if m.split(".")[0] in ("lark", "networkx", "jsonschema", "pydantic", "matplotlib"))
    assert heavy == []


def test_a_command_loads_its_own_module_of_the_cli_and_no_other_commands(loaded):
    from gapstate.cli.base import COMMANDS

    commands = {f"gapstate.cli.{module}" for module in COMMANDS.values()}
    assert commands & loaded["import"] == set()
    assert commands & loaded["classify"] == {"gapstate.cli.classify"}


def test_each_command_is_defined_by_the_module_the_group_loads_for_it():
    import click

    from gapstate.cli import main
    from gapstate.cli.base import COMMANDS

    for name, module in COMMANDS.items():
        assert main.get_command(click.Context(main), name).callback.__module__ == f"gapstate.cli.{module}"
    assert sorted(main.commands) == sorted(COMMANDS)  # and those modules define no command it does not name


@pytest.mark.slow  # what `python -m gapstate` and whole processes below show fast, for classify
def test_the_installed_command_runs_as_a_process(tmp_path):
    done = subprocess.run([sys.executable, "-m", "gapstate", "classify", str(REPORT_EXAMPLE)],
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


# Ctrl-C and a closed pipe ------------------------------------------------------

# Each is a whole process; `replay` in the fast suite, every command under `pytest -m slow`.
COMMANDS = {
    "check": lambda path: ["check", "--spec", path],
    "replay": lambda path: ["replay", path, "--spec", str(ROOT / "spec" / "gap-state.md")],  # a spec named: no fallback warning
    "classify": lambda path: ["classify", path],
    "fuzz": lambda path: ["fuzz", "--spec", path, "--examples", "1", "--seed", "1"],
}


def _reads_stdin(pid: int) -> bool:
    """True when the process is blocked in read(0, ...) (Linux: /proc/PID/syscall)."""
    try:
        with open(f"/proc/{pid}/syscall") as status:
            return status.read().startswith("0 0x0 ")
    except OSError:
        pytest.skip("no /proc/PID/syscall to see the command wait on its input")


EVERY_COMMAND = [pytest.param(name, marks=() if name == "replay" else pytest.mark.slow) for name in sorted(COMMANDS)]


def _ctrl_c_as_at_a_terminal() -> None:
    """In the child before exec: SIGINT at its default, as a shell starts a command in the foreground.

    A shell without job control starts a background job (`pytest &`, as CI
    runners and scripts do) with SIGINT ignored, every child inherits that,
    and a command that never sees Ctrl-C cannot be tested on it.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("command", EVERY_COMMAND)
def test_ctrl_c_exits_130_quietly(tmp_path, command):
    import signal

    child = subprocess.Popen(
        [sys.executable, "-m", "gapstate", *COMMANDS[command]("-")],
        cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=_ctrl_c_as_at_a_terminal,
    )
    deadline = time.monotonic() + 120  # a loaded machine may take long to start the interpreter
    while not _reads_stdin(child.pid):  # it reads its input from the pipe and waits on it; a child that died never does
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the command never waited on its input"
        time.sleep(0.01)
    # Should a SIGINT land before the read after all, a second one, as a user
    # presses Ctrl-C again, interrupts it.
    deadline = time.monotonic() + 120
    while True:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=1)  # not communicate(): it would close stdin, and an end of input races the signal
            break
        except subprocess.TimeoutExpired:
            if time.monotonic() > deadline:
                child.kill()
                break
    out, err = child.communicate()
    assert child.returncode == 130
    assert (out, err) == (b"", b"")


@pytest.mark.parametrize("command", EVERY_COMMAND)
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
    report = ["--format", "json"] if command == "check" else []  # a spec without findings prints no text report
    try:
        child = subprocess.run(
            [sys.executable, "-m", "gapstate", *COMMANDS[command](str(inputs[command])), *report],
            cwd=tmp_path, stdout=write_end, stderr=subprocess.PIPE,
        )
    finally:
        os.close(write_end)
    assert child.returncode == 141
    assert child.stderr == b""


# whole processes -------------------------------------------------------------


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


def test_the_console_entry_runs_the_atexit_hooks_before_it_ends():
    """`entry` ends with os._exit, after running the atexit hooks itself (through a private CPython call)."""
    script = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('hook ran', file=sys.stderr, flush=True))\n"
        "sys.argv = ['gapstate', '--version']\n"
        "from gapstate.cli import entry\n"
        "entry()\n"
    )
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert child.returncode == 0 and "gapstate" in child.stdout
    assert child.stderr == "hook ran\n"


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "1e309", "-1", "0", "abc", "", "86401"])
def test_conform_timeout_takes_only_a_finite_positive_number_of_seconds_up_to_a_day(value):
    result = run("conform", "--timeout", value, "--", sys.executable, "-c", "pass")
    assert result.exit_code == 2, result.output
    assert "Error: Invalid value for '--timeout': " in result.stderr and "Traceback" not in result.output
    assert ("at most 86,400" if value != "86401" else "more than 86,400 seconds, the most it may be") in result.stderr


@pytest.mark.parametrize(("command", "value"), [("conform", "nan"), ("conform", "inf"), ("conform", "1e309"),
                                                ("conform", "-0.5"), ("fuzz", "nan"), ("fuzz", "inf"),
                                                ("fuzz", "1e309"), ("fuzz", "0")])
def test_a_duration_that_is_not_a_finite_number_of_seconds_is_a_usage_error(command, value):
    args = ["--", sys.executable, "-c", "pass"] if command == "conform" else []
    result = run(command, "--duration", value, *args)
    assert result.exit_code == 2, result.output
    assert f"Error: Invalid value for '--duration': '{value}': give a finite number of seconds" in result.stderr


def test_seconds_converts_what_it_takes_and_says_what_it_wants():
    import click

    from gapstate.cli.base import Seconds

    assert Seconds().convert("2.5", None, None) == 2.5
    assert Seconds(zero=True).convert("0", None, None) == 0.0
    assert Seconds(most=86_400).convert(86_400, None, None) == 86_400.0
    with pytest.raises(click.BadParameter, match="'0': give a finite number of seconds, more than 0$"):
        Seconds().convert("0", None, None)
    with pytest.raises(click.BadParameter, match="0 or more"):
        Seconds(zero=True).convert("-1", None, None)


HOSTILE = "b\n::error::pwned\r\n::add-mask::x"


@pytest.mark.parametrize("args", [
    ["replay", "a.jsonl", HOSTILE],  # click quotes an extra argument as given
    ["check", "--format", HOSTILE],
    ["conform", "--timeout", HOSTILE, "--", "true"],
    [HOSTILE],
    ["check", "--" + HOSTILE],
])
def test_a_usage_error_quoting_a_hostile_argument_is_one_line_and_starts_no_workflow_command(args):
    result = run(*args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert not [line for line in lines if line.startswith("::")], result.stderr
    assert lines[-1].startswith("Error: ") and "::error::pwned" in lines[-1], result.stderr
