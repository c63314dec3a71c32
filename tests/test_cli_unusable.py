"""Every command, given every kind of input it cannot use: the exit code, the place named, no traceback.

One matrix: each command that reads a file, by the role that file plays
(spec, trace, report, vectors folder), against each class of bad input.
Every case also checks that nothing from the input is obeyed on the way
out: no control character reaches stdout or stderr, and no line begins a
GitHub workflow command.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from pathlib import Path

import pytest

from gapstate.cli.output import escape

from .support import ROOM_LOOP, SPEC_PATH, SPEC_TEXT, line_of, run, unwrapped

BIG = "9" * 5000  # past the 4,300 digits Python converts
HUGE = 1 << 20  # the longest line read, in bytes
HOSTILE = "x\x1b]0;owned\x07\r\n::error::pwned\u2028"  # a name that would retitle a terminal and open a workflow command
INJECTED = "\x1b]0;owned\x07\r\n::error::pwned"
NESTED = "[" * 100_000 + "]" * 100_000


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


_CAP_LINE = SPEC_TEXT.split("\n").index("@cap session_requests 3") + 1
_ROW_LINE = line_of(SPEC_TEXT, "CLEAR | loss_voiced | !dup |")


def _spec_with(line: int, old: str, new: str) -> str:
    """The bundled spec with `old` replaced by `new` on one line."""
    lines = SPEC_TEXT.split("\n")
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new)
    return "\n".join(lines)

# Per role, per class: the bytes to write, the place the error names (line, or line:column), and words it says.
# A class a role cannot have (an empty trace is a valid trace; a spec is not JSON) is left out.
_CONTENT = {
    "spec": {
        "empty": (b"", "1:1", "no transition table"),
        "binary": (bytes(range(256)), "2:118", "not UTF-8"),
        "not UTF-8": (b"# Spec\n\nprose \xe9\n", "3:7", "not UTF-8: byte 0xe9"),
        "huge line": (b"# Spec\n" + b"x" * (HUGE + 1), "2", "runs past 1048576 bytes"),
        "huge number": (_spec_with(_CAP_LINE, "3", BIG).encode(), f"{_CAP_LINE}:6", "more than 1000 digits"),
        "control characters": (_spec_with(_ROW_LINE, "CLEAR", f"CLEAR{INJECTED}").encode(), f"{_ROW_LINE}:6", "parse_error"),
    },
    "trace": {
        "binary": (bytes(range(256)), "1", "malformed lines"),
        "not UTF-8": (b'{"event": "busy_start"}\n{"event": "\xff"}\n', "2", "not UTF-8"),
        "huge line": (b'{"event": "busy_start"}\n' + b" " * (HUGE + 1), "2", "runs past 1048576 bytes"),
        "huge number": (f'{{"event": "busy_start", "t": {BIG}}}\n'.encode(), "1:25", "'t' is past the latest time a trace may give"),
        "control characters": (b'{"event": "busy_start\\u001b]0;owned\\u0007\\r\\n::error::pwned"}\n', "1:2", "unknown event"),
        "nested JSON": (NESTED.encode() + b"\n", "1", "nested too deeply"),
    },
    "report": {
        "empty": (b"", "1:1", "not valid JSON"),
        "binary": (bytes(range(256)), "2", "not UTF-8"),
        "not UTF-8": ('{"answer_key": ["q1"],\n "arms": ["caf\xe9"]}'.encode("latin-1"), "2:15", "not UTF-8"),
        "huge line": (b'{"answer_key": ["' + b"q" * (HUGE + 1) + b'"]}', "1", "runs past 1048576 bytes"),
        "huge number": (f'{{"answer_key": ["q1"],\n "arms": [{BIG}]}}'.encode(), "2:11", "a number too long"),
        "control characters": (b'{"answer_key": ["q\\u001b]0;owned\\u0007\\r\\n::error::pwned"],\n "arms": 5}', "2", "arms"),
        "nested JSON": (NESTED.encode(), "1:1", "nested too deeply"),
    },
}
# A vectors folder is bad through its manifest, at the manifest's line.
_CONTENT["folder"] = {
    "binary": _CONTENT["report"]["binary"],
    "not UTF-8": (b'{"traces":\n ["\xff"]}\n', "2:4", "not UTF-8"),
    "huge line": (b'{"traces": ["' + b"t" * (HUGE + 1) + b'"]}', "1", "runs past 1048576 bytes"),
    "huge number": (f'{{"traces":\n [{BIG}]}}'.encode(), "2:3", "a number too long"),
    "control characters": (b'{"traces": [\n {"trace": "\\u001b]0;owned\\u0007\\r\\n::error::pwned"}]}', "2:12", "no such file"),
    "nested JSON": (NESTED.encode(), "1:1", "nested too deeply"),
}
# What the message says when the path is the problem.
_WORDS = {
    "missing": "no such file", "folder": "is a directory", "device": "is a device", "FIFO": "is a named pipe",
    "hostile file name": "not UTF-8",
}
# Where a command or role says it otherwise: coverage reads a folder's traces; a vectors folder must be one.
_OTHER_WORDS = {
    ("coverage", "folder"): "a folder with no trace files",
    ("graph --coverage", "folder"): "a folder with no trace files",
    ("folder", "missing"): "no such folder",
    ("folder", "folder"): "is not a folder",
    ("folder", "device"): "is not a folder",
    ("folder", "FIFO"): "is not a folder",
    ("folder", "hostile file name"): "not valid JSON",
}
_PLACES = ("missing", "folder", "device", "FIFO", "hostile file name")


def _bad(role: str, kind: str, tmp_path: Path) -> tuple[Path, Path, str | None]:
    """A path of the given class for an input of `role`, the file the error must name, and its line (and column)."""
    folder = tmp_path / "in"
    folder.mkdir()
    suffix = {"spec": ".md", "trace": ".jsonl", "report": ".json", "folder": ""}[role]
    path, line = _make(role, kind, folder, suffix)
    if role == "folder" and line is not None:  # a suite is bad through its manifest, which the error names
        return path, path / "manifest.json", line
    return path, path, line


def _make(role: str, kind: str, folder: Path, suffix: str) -> tuple[Path, str | None]:
    if kind == "missing":
        return folder / f"missing{suffix}", None
    if kind == "folder":
        path = folder / f"a-folder{suffix}"
        path.mkdir()
        if role == "folder":  # a folder is what this role wants: give it a file instead
            path.rmdir()
            path.write_text("not a folder\n", encoding="utf-8")
        return path, None
    if kind == "device":
        return Path("/dev/zero"), None
    if kind == "FIFO":
        return _fifo(folder / f"pipe{suffix}"), None
    if kind == "hostile file name":
        path = folder / f"{HOSTILE}{suffix}"
        if role == "folder":
            path.mkdir()
            (path / "manifest.json").write_text("{", encoding="utf-8")
            return path, "1:2"
        path.write_bytes(b"\xff\n")
        return path, "1:1"
    data, line, _ = _CONTENT[role][kind]
    if role == "folder":
        path = folder / "suite"
        path.mkdir()
        (path / "manifest.json").write_bytes(data)
        return path, line
    path = folder / f"input{suffix}"
    path.write_bytes(data)
    return path, line


def _conform(*args: str) -> list[str]:
    return ["conform", *args, "--examples", "1", "--", sys.executable, str(ROOM_LOOP)]


# Each command by the role its bad input plays, and how to call it with that path. A spec that
# reads but has findings is exit 1 for `check` (they are its findings); the other commands cannot
# use such a spec: exit 2.
COMMANDS = {
    "check --spec": ("spec", lambda p: ["check", "--spec", p]),
    "check SPEC": ("spec", lambda p: ["check", p]),
    "replay --spec": ("spec", lambda p: ["replay", "-", "--spec", p]),
    "replay": ("trace", lambda p: ["replay", p]),
    "classify": ("report", lambda p: ["classify", p]),
    "diff": ("spec", lambda p: ["diff", p, str(SPEC_PATH)]),
    "witness": ("spec", lambda p: ["witness", "1", "--spec", p]),
    "explain": ("spec", lambda p: ["explain", "1", "--spec", p]),
    "graph": ("spec", lambda p: ["graph", "--spec", p]),
    "graph --coverage": ("trace", lambda p: ["graph", "--coverage", p]),
    "coverage": ("trace", lambda p: ["coverage", p]),
    "fuzz": ("spec", lambda p: ["fuzz", "--spec", p, "--examples", "1"]),
    "vectors": ("spec", lambda p: ["vectors", p + ".out", "--spec", p]),
    "mutate": ("spec", lambda p: ["mutate", p, "--kind", "duplicated"]),
    "conform --spec": ("spec", lambda p: _conform("--spec", p)),
    "conform --vectors": ("folder", lambda p: _conform("--vectors", p)),
}
CHECKS_SPEC = ("check --spec", "check SPEC")
SPEC_FINDINGS = ("empty", "control characters", "huge number")  # read, but with findings (exit 1 for check)


CASES = [
    pytest.param(command, kind, id=f"{command}-{kind}")
    for command, (role, _) in COMMANDS.items()
    for kind in (*_PLACES, *_CONTENT[role])
]


@pytest.fixture
def unblocked_fifos(tmp_path):
    """Release the writer `_guard_fifo` left waiting on a FIFO that, as it should, nobody opened."""
    yield
    for fifo in (tmp_path / "in").glob("pipe*"):
        try:  # release a writer thread, if one waits
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        except OSError:
            pass


def _guard_fifo(path: Path) -> threading.Thread | None:
    """A writer for a FIFO: a command that wrongly opens it reads an empty file and fails the test, never hangs."""
    if not path.name.startswith("pipe"):
        return None

    def write() -> None:
        try:
            os.close(os.open(path, os.O_WRONLY))  # blocks until a reader opens it: then it reads an empty file
        except OSError:
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("command, kind", CASES)
def test_unusable_input_exits_2_naming_the_place_and_obeys_nothing(tmp_path, unblocked_fifos, command, kind):
    role, call = COMMANDS[command]
    path, named, line = _bad(role, kind, tmp_path)
    _guard_fifo(path)
    before = sorted(os.listdir(tmp_path / "in"))
    result = run(*call(str(path)))
    expected = 1 if command in CHECKS_SPEC and kind in SPEC_FINDINGS else 2
    assert result.exit_code == expected, result.output
    assert "Traceback" not in result.output
    place = escape(str(named)) + (f":{line}:" if line is not None else ": ")
    assert place in result.output, (place, result.output)
    words = _OTHER_WORDS.get((command, kind)) or _OTHER_WORDS.get((role, kind)) or _WORDS.get(kind) or _CONTENT[role][kind][2]
    assert words in "\n".join(unwrapped(result.output)), (words, result.output)
    if expected == 2:
        assert result.stdout == ""  # nothing half-written
        assert sorted(os.listdir(tmp_path / "in")) == before  # no suite, no temporary file or folder left
    for stream in (result.stdout, result.stderr):
        assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", stream), stream
        assert not any(shown.startswith("::") for shown in stream.split("\n")), stream
