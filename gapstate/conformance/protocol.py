"""The line protocol's transport: an implementation in a child process, one JSON object a line each way.

This is the I/O half of `gapstate conform`; the comparison lives in
`conformance.py`. The child is started once in its own process group. Every
write and every read waits with `select` against a deadline, draining the
child's stdout and stderr as it goes, so a child that stops reading, stops
answering or fills a pipe can never hang gapstate. Any failure is sticky: it
ends the child and every later call raises the same Untestable. `close()`
ends the child (its whole process group, and on Linux what left the group:
`reaper.py`) whatever state it is in.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from json.encoder import encode_basestring_ascii
from typing import Any

import msgspec

from gapstate.conformance.conform import Untestable
from gapstate.conformance.reaper import Reaper

_TAIL = 4096  # bytes of the child's stderr kept for the message when it fails
_GRACE = 1.0  # seconds a child may take to exit by itself once its stdin is closed
_LONGEST = 1 << 20  # bytes an answer line may take: a child that never ends its line fills no memory
_POLL = 0.05  # seconds between looks at whether the child has exited, where no pidfd tells at once


class Child:
    """An implementation under test in a child process (a context manager that always ends it)."""

    def __init__(self, command: Sequence[str], timeout: float = 5.0):
        if not command:
            raise Untestable("no command to test: give it after `--`, as in `gapstate conform -- ./adapter`")
        self.command = list(command)
        self.timeout = timeout
        self.failure: Untestable | None = None
        self._owed = 0  # answers still to read for lines written
        self._out = bytearray()
        self._err = bytearray()
        self._err_open = True
        self._pidfd: int | None = None
        # A Ctrl-C or SIGTERM that landed inside Popen would unwind out of it after
        # the child started but before anyone holds it, and the child's group would
        # outlive us; so they wait until the child is ours, and then end it.
        stops = {signal.SIGINT, signal.SIGTERM}
        held = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
        self._reaper = Reaper.start()  # before the child starts: what it orphans comes back to us
        try:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                start_new_session=True,  # its own process group, so close() ends its children too
            )
        except OSError as error:
            if self._reaper is not None:
                self._reaper.end()
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            reason = error.strerror or str(error)
            raise Untestable(f"cannot start the implementation: {reason}", file=self.command[0]) from None
        if self._reaper is not None:
            self._reaper.root = self.process.pid
        # Readable once the child exits: a process it forked may hold the pipes open after it, so their
        # end never comes, and without this the child's exit would be seen only at the deadline.
        self._pidfd = _pidfd(self.process.pid)
        # Three pipes, as asked for above (Popen's type allows None for each).
        stdin, stdout, stderr = self.process.stdin, self.process.stdout, self.process.stderr
        assert stdin is not None and stdout is not None and stderr is not None
        self._stdin, self._stdout, self._stderr = stdin, stdout, stderr
        try:
            for pipe in (stdin, stdout, stderr):
                os.set_blocking(pipe.fileno(), False)
            signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a stop that waited is raised here
        except BaseException:
            self.close(grace=False)
            raise

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # the two calls conform makes ------------------------------------------------

    def reset(self) -> dict[str, Any]:
        answer = self._ask({"reset": True})
        if not isinstance(answer, dict):
            self._fail(f"the answer to {{\"reset\": true}} must be a JSON object, not {json.dumps(answer)[:80]}")
        return answer

    def step(self, event: dict[str, Any]) -> Any:
        return self._ask(event)

    def trace(self, events: Sequence[dict[str, Any]]) -> Iterator[Any]:
        """A reset, then every event, written at once; each event's answer, in order, as it is read.

        The same lines, answers and checks as `reset()` then `step()` for
        each event, with one write for the whole trace rather than one a
        line (a write that wakes the child cost more than the rest of a
        round trip). Each answer still has its own `timeout`. Answers left
        unread (the caller stopped at a divergence) are read and dropped
        before anything else is sent, so the next reset starts clean.
        """
        if self.failure is not None:
            raise self.failure
        self._drain()
        sent = [_RESET, *map(_line, events)]
        data = ("\n".join(sent) + "\n").encode()
        self._owed = len(sent)
        self._write(data, sent[0], time.monotonic() + self.timeout, exited_later=True)
        answer = self._answer(sent[0])
        if not isinstance(answer, dict):
            self._fail(f"the answer to {{\"reset\": true}} must be a JSON object, not {json.dumps(answer)[:80]}")
        for line in sent[1:]:
            yield self._answer(line)

    # transport ------------------------------------------------------------------

    def _ask(self, message: dict[str, Any]) -> Any:
        if self.failure is not None:
            raise self.failure
        self._drain()
        sent = json.dumps(message)
        self._write((sent + "\n").encode(), sent, time.monotonic() + self.timeout)
        self._owed = 1
        return self._answer(sent)

    def _answer(self, sent: str) -> Any:
        """The next answer line, owed for the message `sent`, parsed."""
        line = self._read_line(sent, time.monotonic() + self.timeout)
        self._owed -= 1
        try:
            return _decoded(line)
        except (ValueError, RecursionError) as error:
            shown = line.decode("utf-8", "replace").strip()
            self._fail(f"the answer to {sent} is {_why(line, error)}: {shown[:200]!r}")

    def _drain(self) -> None:
        """Read and drop the answers a trace left unread (it stopped at a divergence)."""
        while self._owed > 0:
            self._read_line("an event sent after a divergence", time.monotonic() + self.timeout)
            self._owed -= 1

    def _write(self, data: bytes, sent: str, deadline: float, exited_later: bool = False) -> None:
        """Write it all; a pipe with room takes it at once, without a `select` (half the system calls of a round trip).

        With `exited_later`, a child that stops reading is not reported here
        but by the read of the first answer it did not give, which names
        the message it did not answer.
        """
        stdin = self._stdin.fileno()
        view = memoryview(data)
        writable = True
        while view:
            if writable:
                try:
                    view = view[os.write(stdin, view) :]
                    continue
                except BrokenPipeError:
                    if exited_later:
                        return
                    self._exited(sent)
                except BlockingIOError:
                    pass
            writable = self._wait([stdin], sent, deadline)

    def _read_line(self, sent: str, deadline: float) -> bytes:
        while True:
            end = self._out.find(b"\n")
            while end >= 0:
                line = bytes(self._out[:end])
                del self._out[: end + 1]
                if line.strip():
                    return line
                end = self._out.find(b"\n")  # blank lines are not answers
            self._wait([], sent, deadline)

    def _wait(self, write: list[int], sent: str, deadline: float) -> bool:
        """Wait until `write` can take bytes or output arrives, reading whatever arrived; True when writable."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            self._fail(f"no answer to {sent} within {self.timeout:g} s")
        stdout, stderr, pidfd = self._stdout.fileno(), self._stderr.fileno(), self._pidfd
        reads = [stdout] + ([stderr] if self._err_open else []) + ([pidfd] if pidfd is not None else [])
        readable, writable, _ = select.select(reads, write, [], remaining if pidfd is not None else min(remaining, _POLL))
        if stderr in readable:
            self._keep_stderr(_read(stderr))
        data = _read(stdout) if stdout in readable else None
        if data == b"":
            self._exited(sent)
        if data:
            self._out += data
            if len(self._out) > _LONGEST and b"\n" not in self._out:
                self._fail(f"the answer to {sent} runs past {_LONGEST >> 20} MiB without a line end")
        elif self._gone(readable, writable):  # and what it wrote has been read: what still holds its stdout is not it
            self._exited(sent)
        return bool(writable)

    def _gone(self, readable: list[int], writable: list[int]) -> bool:
        """Whether the child has exited: its pidfd is readable, or, where there is none, waitid says so."""
        if self._pidfd is not None:
            return self._pidfd in readable
        return not writable and _status(self.process.pid) is not None

    def _keep_stderr(self, data: bytes | None) -> None:
        if data == b"":
            self._err_open = False
        elif data:
            self._err += data
            del self._err[:-_TAIL]

    # failure and ending ------------------------------------------------------------

    def _exited(self, sent: str) -> None:
        """The child closed its stdout or stdin, or exited, perhaps while a process it started keeps them open.

        Report how it ended, with the end of its stderr; `_fail` then ends
        its process group, the process that held the pipes with it.
        """
        status = self._exit_status()
        how = f"exited ({status})" if status is not None else "closed its standard output"
        held = status is not None and self._stdout_held()
        self._drain_stderr()
        tail = tuple(self._err.decode("utf-8", "replace").strip().splitlines())
        detail = "; the end of its stderr:" if tail else " (its stderr is empty)"
        left = ", leaving a process it started holding its output open (ended with it)" if held else ""
        self._fail(f"the implementation {how} before answering {sent}{left}{detail}", tail)

    def _exit_status(self) -> str | None:
        end = time.monotonic() + min(self.timeout, _GRACE)
        while time.monotonic() < end:
            ended = _status(self.process.pid)
            if ended is not None:
                if ended.si_code == os.CLD_EXITED:
                    return f"status {ended.si_status}"
                return f"signal {ended.si_status}"
            time.sleep(0.01)
        return None

    def _stdout_held(self) -> bool:
        """Whether, the child having exited, something else still holds its stdout open: no end of it to read."""
        stdout = self._stdout.fileno()
        for _ in range(16):  # what is left is no answer; a process that writes without end is holding it
            readable, _, _ = select.select([stdout], [], [], 0)
            data = _read(stdout) if readable else None
            if not data:
                return data is None
        return True

    def _drain_stderr(self) -> None:
        stderr = self._stderr.fileno()
        end = time.monotonic() + 0.2
        while self._err_open and time.monotonic() < end:
            readable, _, _ = select.select([stderr], [], [], max(0.0, end - time.monotonic()))
            if not readable:
                break
            self._keep_stderr(_read(stderr))

    def _fail(self, message: str, output: tuple[str, ...] = ()) -> None:
        self.failure = Untestable(message, file=self.command[0], output=output)
        self.close(grace=False)
        raise self.failure

    def close(self, grace: bool = True) -> None:
        """End the child: close its stdin, let it exit by itself for a moment, then kill its process group."""
        process = self.process
        if process.returncode is not None and self._stdin.closed:
            return
        try:
            self._stdin.close()
        except OSError:
            pass
        if grace:
            end = time.monotonic() + min(self.timeout, _GRACE)
            while time.monotonic() < end and _status(process.pid) is None:
                time.sleep(0.005)
        # A second Ctrl-C or SIGTERM waits until everything is ended: cut short, the kill would leave some alive.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            try:
                os.killpg(process.pid, signal.SIGKILL)  # the child is not reaped yet, so its group id is still its own
            except (ProcessLookupError, PermissionError):
                pass
            process.wait()
            if self._reaper is not None:  # what left the group (setsid) and was re-parented to us
                self._reaper.end()
                self._reaper = None
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        self._stdout.close()
        self._stderr.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None


def _not_json(constant: str) -> Any:
    """NaN and Infinity, which Python's json reads and JSON lacks: an answer holding one is not JSON."""
    raise ValueError(f"{constant} is not JSON")


def _finite(text: str) -> float:
    """A JSON number as a float; one past a float's range (1e400) is refused, not read as infinity."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text[:20]} is past what a float holds")
    return value


def _why(line: bytes, error: Exception) -> str:
    """Why an answer line cannot be read, in a few words."""
    from gapstate.files.source import long_number

    if isinstance(error, RecursionError):
        return "nested too deeply"
    if isinstance(error, UnicodeDecodeError):
        return "not UTF-8 text"
    if not isinstance(error, json.JSONDecodeError):  # raised by Python's own int(), or by the two checks above
        text = line.decode("utf-8", "replace")
        if long_number(text) is not None:
            return "not usable JSON: it holds a number of more than 4,300 digits"
        return f"not usable JSON: {error}"
    return "not JSON"


def _pidfd(pid: int) -> int | None:
    """A file descriptor that becomes readable when `pid` exits (Linux 5.3 on), or None where there is none."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _read(fd: int) -> bytes | None:
    """What the pipe holds (b"" at its end), or None when nothing is there after all."""
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def _status(pid: int) -> os.waitid_result | None:
    """How the child ended, or None while it runs, without reaping it (its pid stays its own until wait())."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return None


def _encoding(line: bytes) -> str:
    """`json.detect_encoding(line)`, without its tests for the answer every adapter gives: an object, in UTF-8.

    A line that opens with `{` followed by anything but a NUL byte starts with
    no byte order mark and is not UTF-16 or UTF-32: detect_encoding says
    UTF-8 for it too.
    """
    return "utf-8" if line[:1] == b"{" and line[1:2] != b"\x00" else json.detect_encoding(line)


_DECODER = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite)  # what json.loads would build per answer
# msgspec reads an answer in a third of the time, and gives what _DECODER gives for every line it reads:
# each line either reads (NaN, 1e400, a number of 4,300 digits, a lone surrogate, a byte order mark, text
# that is not UTF-8 or an array nested to the recursion limit it refuses), so _DECODER says why.
# Nesting is held well under the limit: msgspec's is a few levels deeper than json's.
_FAST = msgspec.json.Decoder().decode
_SHALLOW = 64  # opening brackets an answer may hold for _FAST to read it


def _decoded(line: bytes) -> Any:
    """An answer line's value as `json.loads` reads it (ValueError or RecursionError when it cannot), in a third of the time."""
    if line.count(b"{") + line.count(b"[") < _SHALLOW:
        try:
            return _FAST(line)
        except (msgspec.DecodeError, RecursionError):  # json reads it after all, or says why not
            pass
    return _DECODER.decode(line.decode(_encoding(line), "surrogatepass"))  # json.loads, one decoder


def _line(message: dict[str, Any]) -> str:
    """`json.dumps(message)`, written out for an event's own values (a name, ids, times) in half its time.

    Each key and text escaped as json.dumps escapes them (hostile ids
    included); anything but a str or an int goes to json.dumps itself.
    """
    parts = []
    for key, value in message.items():
        kind = type(value)
        if kind is str:
            text = _text(value)
        elif kind is int:
            text = int.__repr__(value)
        else:
            return json.dumps(message)
        known = _KEYS.get(key)
        if known is None:
            if type(key) is not str:
                return json.dumps(message)
            known = _KEYS[key] = _text(key) + ": "
        parts.append(known + text)
    return "{" + ", ".join(parts) + "}"


_text = encode_basestring_ascii  # what json.dumps writes a string as, quotes included
_KEYS: dict[str, str] = {}  # each key as _line writes it
_RESET = json.dumps({"reset": True})
