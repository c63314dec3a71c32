"""The line protocol's transport: a child process that is always ended and can never hang gapstate."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import gapstate
from gapstate.conformance.conform import Untestable, conform
from gapstate.conformance.protocol import Child, _encoding, _line
from gapstate.conformance.reaper import Reaper

from .support import ROOM_LOOP

PY = sys.executable


def script(source: str) -> list[str]:
    return [PY, "-c", source]


ECHO_OBJECT = 'import sys\nfor line in sys.stdin:\n    print("{}", flush=True)\n'


def test_the_room_loop_conforms_over_the_protocol():
    # the vectors' 1,556 events, then a few generated traces, over the pipe: that the loop passes
    # generated traces is tests/test_conformance_conform.py's to show, in process
    with Child([PY, str(ROOM_LOOP)], timeout=60) as child:
        result = conform(gapstate.load_spec(), child, examples=5, duration=None)
    assert result.ok, gapstate.conform_report(result)
    assert result.traces == 5
    assert child.process.returncode is not None


def test_a_bug_switched_on_in_the_environment_is_found_over_the_protocol(monkeypatch):
    monkeypatch.setenv("ROOM_LOOP_BUG", "settle_without_post_send")
    with Child([PY, str(ROOM_LOOP)], timeout=60) as child:
        result = conform(gapstate.load_spec(), child, examples=10, duration=None)
    assert not result.ok
    assert result.divergence.actual["actions"] == ["settle"]
    assert len(result.divergence.trace) == 4


@pytest.mark.parametrize(
    "command, message, timeout",
    [
        (["/nonexistent/adapter"], "cannot start", 10),
        (script("import sys\nfor line in sys.stdin:\n    print('hello', flush=True)\n"), "is not JSON", 10),
        (script("import sys\nfor line in sys.stdin:\n    print('[1, 2]', flush=True)\n"), "must be a JSON object", 10),
        (script("import sys\nfor line in sys.stdin:\n    print('[' * 100000 + ']' * 100000, flush=True)\n"), "is nested too deeply", 10),
        (script("import sys\nsys.stderr.write('adapter broke: no config\\n')\nsys.exit(3)\n"), "adapter broke: no config", 10),
        (script("import time\ntime.sleep(60)\n"), "no answer to {\"reset\": true} within 0.5 s", 0.5),
        (script("import sys\nsys.stdin.readline()\nprint('{}', flush=True)\nimport time\ntime.sleep(60)\n"), "no answer to {\"event\"", (60, 0.5)),
    ],
    ids=["cannot-start", "not-json", "not-an-object", "nested", "exits-early", "silent", "stops-answering"],
)
def test_an_untestable_implementation_says_why_and_is_ended(command, message, timeout):
    # A generous deadline where the answer comes (the child's start-up counts
    # against it on a loaded machine); a short one only where none ever does.
    with pytest.raises(Untestable) as caught:
        with _impatient_after_reset(command, timeout) as child:
            conform(gapstate.load_spec(), child, examples=1, duration=None)
    assert message in str(caught.value)
    if command[0] != "/nonexistent/adapter":
        assert child.process.returncode is not None


def _impatient_after_reset(command: list[str], timeout: float | tuple[float, float]) -> Child:
    """A Child with `timeout`, or (a deadline for the reset, which start-up delays on a loaded machine, one after it)."""
    first, later = timeout if isinstance(timeout, tuple) else (timeout, timeout)
    child = Child(command, timeout=first)
    answer = child._answer  # every answer is read here, the reset's first (a trace is written whole, reset and all)

    def then_impatient(sent: str) -> Any:
        got = answer(sent)
        child.timeout = later
        return got

    child._answer = then_impatient  # type: ignore[method-assign]
    return child


def test_an_early_exit_reports_its_status_and_stderr_tail():
    command = script("import sys\nsys.stdin.readline()\nprint('{}', flush=True)\nsys.stderr.write('x' * 9000 + 'END')\nsys.exit(4)\n")
    with pytest.raises(Untestable) as caught:
        with Child(command, timeout=60) as child:
            conform(gapstate.load_spec(), child, examples=1, duration=None)
    text = str(caught.value)
    assert "exited (status 4)" in text and text.endswith("END") and len(text) < 4500


def test_an_adapters_traceback_is_kept_line_by_line():
    command = script("import sys\nsys.stdin.readline()\nprint('{}', flush=True)\nsys.stdin.readline()\nraise RuntimeError('boom')\n")
    with pytest.raises(Untestable) as caught:
        with Child(command, timeout=60) as child:
            conform(gapstate.load_spec(), child, examples=1, duration=None)
    output = caught.value.record.output
    assert output[0] == "Traceback (most recent call last):" and output[-1] == "RuntimeError: boom"
    assert caught.value.message.endswith("the end of its stderr:") and "\n" not in caught.value.message


def test_a_failure_is_sticky_and_costs_no_more_waiting():
    child = Child(script("import time\ntime.sleep(60)\n"), timeout=0.3)
    with pytest.raises(Untestable):
        child.reset()
    with pytest.raises(Untestable, match=r'no answer to \{"reset": true\}'):  # the first failure, not a new wait
        child.step({"event": "loss_silent", "t": 0})
    child.close()


def test_the_whole_process_group_is_ended(tmp_path):
    pidfile = tmp_path / "pid"
    command = ["sh", "-c", f"sleep 60 & echo $! > {pidfile}; exec {PY} -c '{ECHO_OBJECT}'"]
    with Child(command, timeout=60) as child:
        child.reset()
    assert _gone(int(pidfile.read_text()))


def _daemon(pidfile) -> str:
    """A child that double-forks a `setsid` daemon (its pid written to `pidfile` before it answers), then echoes."""
    return (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        for fd in (0, 1, 2):\n"
        "            os.close(fd)\n"
        "        time.sleep(120)\n"
        "        os._exit(0)\n"
        f"    open({str(pidfile)!r}, 'w').write(str(pid))\n"
        "    os._exit(0)\n"
        "os.wait()\n"
        "for line in sys.stdin:\n"
        "    print('{}', flush=True)\n"
    )


def _gone(pid: int) -> bool:
    """Whether `pid` has ended (SIGKILL is delivered at once; the kernel may take a moment to end it)."""
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    return not _alive(pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="descendants that leave the group are tracked on Linux")
def test_a_daemon_that_left_the_process_group_is_ended_too(tmp_path):
    """A double fork and setsid leave the group; as subreaper gapstate adopts the daemon and kills it."""
    pidfile = tmp_path / "pid"
    with Child(script(_daemon(pidfile)), timeout=30) as child:
        child.reset()
        daemon = int(pidfile.read_text())
        assert _alive(daemon)
        assert _session(daemon) != _session(child.process.pid)  # it really left the group's session
    assert _gone(daemon)


def test_the_subreaper_flag_is_as_it_was_after_the_child_is_ended():
    """A test runner calling conform is not left adopting every orphan of its other children."""
    import ctypes

    if not sys.platform.startswith("linux"):
        pytest.skip("prctl is Linux's")
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    flag = ctypes.c_int(-1)
    with Child(script(ECHO_OBJECT), timeout=30) as child:
        child.reset()
        assert prctl(37, ctypes.byref(flag), 0, 0, 0) == 0 and flag.value == 1  # PR_GET_CHILD_SUBREAPER
    assert prctl(37, ctypes.byref(flag), 0, 0, 0) == 0 and flag.value == 0


def _session(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        return int(stat.read().rsplit(b")", 1)[1].split()[3])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="descendants that leave the group are tracked on Linux")
def test_a_child_of_ours_older_than_the_reaper_is_never_taken_for_the_implementation_s():
    """Only what started after conform began can be the implementation's: an older child of the caller is left alone."""
    import subprocess

    older = subprocess.Popen(["sleep", "60"])
    try:
        time.sleep(0.05)  # a clock tick (1/100 s) or more: the reaper's start is after the sleep's
        reaper = Reaper.start()
        assert reaper is not None
        reaper._before.discard(older.pid)  # as if it were not known to be ours: its age alone must save it
        reaper.end()
        assert older.poll() is None
    finally:
        older.kill()
        older.wait()


def test_a_child_that_never_reads_its_input_cannot_block_the_writer():
    # it answers the reset, then neither reads nor answers: the pipe fills, the deadline still holds
    child = _impatient_after_reset(script("import sys, time\nsys.stdin.readline()\nprint('{}', flush=True)\ntime.sleep(60)\n"), (60, 0.5))
    child.reset()
    with pytest.raises(Untestable, match="within 0.5 s"):
        child.step({"event": "loss_voiced", "t": 0, "id": "x" * 200_000})
    child.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purpose; reading its state tells them apart
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def test_an_answer_that_never_ends_its_line_is_refused_without_filling_memory():
    child = Child(script("import sys\nsys.stdin.readline()\nsys.stdout.write('x' * 3_000_000)\nsys.stdout.flush()\nimport time\ntime.sleep(30)\n"), timeout=60)
    with pytest.raises(Untestable, match="without a line end"):
        child.reset()
    child.close()


SILENT = "import sys, time\nsys.stdin.readline()\ntime.sleep(120)\n"  # reads the reset and never answers


@pytest.mark.slow  # a whole conform process and its adapter, a second and a half of CPU
@pytest.mark.parametrize("daemon", [False, True], ids=["in the group", "setsid daemon"])
def test_sigterm_to_conform_ends_the_implementation_too(tmp_path, daemon):
    """A cancelled CI job sends SIGTERM: the adapter (and what it started, in its group or not) must not outlive gapstate."""
    import signal
    import subprocess

    if daemon and not sys.platform.startswith("linux"):
        pytest.skip("descendants that leave the group are tracked on Linux")
    pidfile = tmp_path / "pid"
    if daemon:
        adapter = script(_daemon(pidfile).replace("for line in sys.stdin:\n    print('{}', flush=True)\n", SILENT))
    else:
        adapter = ["sh", "-c", f"sleep 60 & echo $! > {pidfile}; exec sleep 60"]  # never answers
    process = subprocess.Popen(
        [PY, "-m", "gapstate", "conform", "--timeout", "60", "--", *adapter],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120  # a loaded machine starts two interpreters slowly
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        time.sleep(0.02)
    grandchild = int(pidfile.read_text())
    for _ in range(5):  # again if the first lands before gapstate blocks waiting; later ones must not hurt
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=2)
            break
        except subprocess.TimeoutExpired:
            continue
    assert process.wait(timeout=120) == 128 + signal.SIGTERM
    assert _gone(grandchild)


def test_a_child_that_diverges_and_then_exits_keeps_its_divergence():
    """It answers the first event wrongly and ends: the divergence stands, not "exited before answering"."""
    wrong = (
        "import sys\n"
        "sys.stdin.readline()\nprint('{}', flush=True)\n"
        "sys.stdin.readline()\nprint('{\"state\": \"NOWHERE\", \"actions\": []}', flush=True)\n"
    )
    with Child(script(wrong), timeout=60) as child:
        result = conform(gapstate.load_spec(), child, examples=5, duration=None)
    assert not result.ok
    assert result.divergence.actual["state"] == "NOWHERE" and result.divergence.index == 0


def test_a_child_that_diverges_then_exits_leaving_its_stdout_open_keeps_its_divergence():
    """A process it forked holds the pipe open: later runs wait out --timeout, and the divergence still stands."""
    wrong = (
        "import os, subprocess, sys\n"
        "sys.stdin.readline()\nprint('{}', flush=True)\n"
        "sys.stdin.readline()\nprint('{\"state\": \"NOWHERE\", \"actions\": []}', flush=True)\n"
        "subprocess.Popen(['sleep', '120'])\n"  # inherits stdout, outlives us
        "os._exit(0)\n"
    )
    with _impatient_after_reset(script(wrong), (60, 5)) as child:
        result = conform(gapstate.load_spec(), child, examples=5, duration=None)
    assert not result.ok
    assert result.divergence.actual["state"] == "NOWHERE" and result.divergence.index == 0


@pytest.mark.parametrize(
    "answer, words",
    [
        ('{"refused": 1' + "0" * 5000 + "}", "is not usable JSON: it holds a number of more than 4,300 digits"),
        ('{"state": "OPEN", "actions": [], "counters": {"session_requests": 1e400, "episode_attempts": 0}}',
         "is not usable JSON: 1e400 is past what a float holds"),
        ('{"state": "OPEN", "actions": [], "x": NaN}', "is not usable JSON: NaN is not JSON"),
        ("-Infinity", "is not usable JSON: -Infinity is not JSON"),
        ('{"state": "\\377", "actions": []}', "is not UTF-8 text"),
    ],
    ids=["long-number", "past-a-float", "nan", "infinity", "not-utf8"],
)
def test_an_answer_json_cannot_hold_is_named_for_what_it_holds(answer, words):
    # NaN and 1e400 (read as infinity) would be written back into `--format json` as no JSON parser reads it
    command = ["sh", "-c", 'read l; echo "{}"; read l; printf "%b\\n" "$1"; sleep 60', "sh", answer]
    with pytest.raises(Untestable) as caught:
        with Child(command, timeout=60) as child:
            conform(gapstate.load_spec(), child, examples=1, duration=None)
    assert f'the answer to {{"event": "loss_silent", "t": 100}} {words}: ' in caught.value.message


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "polled"])
def test_an_adapter_that_exits_while_its_child_holds_the_pipes_is_seen_to_exit_and_the_child_ended(tmp_path, monkeypatch, pidfd):
    """The pipes never reach their end while the child it forked lives: the exit itself must be seen, not the deadline.

    `polled`: where the system has no pidfd, gapstate looks at the child's status between short waits.
    """
    from gapstate.conformance import protocol

    if not pidfd:
        monkeypatch.setattr(protocol, "_pidfd", lambda pid: None)
    pidfile = tmp_path / "pid"
    command = ["sh", "-c", f'read l; echo "{{}}"; sleep 120 & echo $! > {pidfile}; echo leaving >&2; exit 3']
    with pytest.raises(Untestable) as caught:
        with Child(command, timeout=60) as child:  # before: "no answer ... within 60 s", a minute later
            conform(gapstate.load_spec(), child, examples=1, duration=None)
    assert caught.value.message.startswith('the implementation exited (status 3) before answering {"event": ')
    assert "leaving a process it started holding its output open (ended with it)" in caught.value.message
    assert caught.value.record.output == ("leaving",)
    assert _gone(int(pidfile.read_text()))


@pytest.mark.parametrize("line", [b"{", b"{}", b'{"state": "CLEAR"}', b"{\x00", b"{\x00\x00\x00", b"{\x00a\x00",
                                  b"\xef\xbb\xbf{}", b"\xff\xfe{\x00", b"\x00{\x00}", b"[1]", b"1", b""])
def test_an_answers_encoding_is_the_one_json_detects(line):
    assert _encoding(line) == json.detect_encoding(line)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


def _json_read(line: bytes) -> Any:
    """What `json.loads` (the decoder conform had before its msgspec path) makes of an answer line: a value, or the error's type."""
    from gapstate.conformance.protocol import _DECODER

    try:
        return _DECODER.decode(line.decode(_encoding(line), "surrogatepass"))
    except (ValueError, RecursionError) as error:
        return type(error if isinstance(error, RecursionError) else ValueError())


@given(st.one_of(
    _JSON.map(lambda v: json.dumps(v).encode()),
    _JSON.map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass")),
    st.binary(max_size=40),
    st.sampled_from([b"1e400", b'{"a": -1e400}', b"NaN", b"1" + b"0" * 5000, b'"\\ud800"', b"\xef\xbb\xbf{}",
                     b"{\x00}", b'{"a":1,"a":2}', b' {"b": [1 , 2.50]} \r']),
))
def test_an_answer_line_reads_as_json_loads_reads_it(line):
    """The msgspec path gives what json would for every line: its value, or an error json then names."""
    from gapstate.conformance.protocol import _decoded

    try:
        read = _decoded(line)
    except (ValueError, RecursionError) as error:
        read = type(error if isinstance(error, RecursionError) else ValueError())
    expected = _json_read(line)
    assert repr(read) == repr(expected)  # repr: a NaN json reads equals itself, and -0.0 is not 0


@pytest.mark.slow  # every depth from 1 to 1,000, each read twice: about 0.8 s of CPU
def test_an_answer_nested_near_the_recursion_limit_reads_as_json_loads_reads_it():
    """msgspec reads a few levels deeper than json: an answer json finds nested too deeply is so still."""
    from gapstate.conformance.protocol import _decoded

    for depth in range(1, 1001):
        line = b'{"a": ' * depth + b"[]" + b"}" * depth
        try:
            read = _decoded(line)
        except RecursionError as error:
            read = type(error)
        assert repr(read) == repr(_json_read(line)), depth


@given(st.dictionaries(st.text(), st.one_of(st.text(), st.integers(), st.booleans(), st.none(), st.floats(),
                                             st.lists(st.integers(), max_size=2)), max_size=4))
def test_an_event_line_is_what_json_dumps_writes(message):
    """Hostile ids and keys are escaped as json.dumps escapes them, and whatever else is json.dumps' own."""
    assert _line(message) == json.dumps(message)


def test_an_event_json_cannot_write_is_refused_as_json_dumps_refuses_it():
    with pytest.raises(TypeError):
        _line({"event": "busy_start", "t": object()})
