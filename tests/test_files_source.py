"""Reading input: regular files only, no line past the limit, lines counted as editors count them."""

from __future__ import annotations

import ast
import io
import os
import re

import pytest

import gapstate
from gapstate.errors import GapstateError
from gapstate.files.source import (
    MAX_LINE,
    as_lf,
    cr_ended,
    decode_text,
    open_binary,
    parse_json,
    read_bounded,
    text_lines,
)
from gapstate.run.trace import read_trace

from .reference import read as reference_read
from .support import REPORT_EXAMPLE, SPEC_TEXT, run


class Zeros(io.RawIOBase):
    """/dev/zero as a stream: it never ends, and counts what was read from it."""

    def __init__(self):
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        buffer[:] = bytes(len(buffer))
        self.given += len(buffer)
        return len(buffer)


def test_a_stream_without_a_line_end_stops_once_the_limit_is_read():
    zeros = Zeros()
    with pytest.raises(GapstateError) as caught:
        read_bounded(io.BufferedReader(zeros), "<stdin>", limit=1000)
    assert (caught.value.file, caught.value.line) == ("<stdin>", 1)
    assert "runs past 1000 bytes" in caught.value.message
    assert zeros.given < 4 * MAX_LINE  # a block or two, never the stream


@pytest.mark.parametrize("data, line", [
    (b"a\n" + b"x" * 11 + b"\nb\n", 2),  # inside a block
    (b"a\nb\n" + b"x" * 11, 3),  # the last line, without an end
    (b"x" * 11 + b"\n", 1),
])
def test_the_first_line_past_the_limit_is_named(data, line):
    with pytest.raises(GapstateError) as caught:
        read_bounded(io.BytesIO(data), "f", limit=10)
    assert caught.value.line == line


def test_lines_up_to_the_limit_are_read_whole():
    data = (b"x" * 10 + b"\n") * 3 + b"y" * 10
    assert read_bounded(io.BytesIO(data), "f", limit=10) == data


@pytest.mark.parametrize("make, words", [
    (lambda p: (os.mkfifo(p / "pipe"), p / "pipe")[1], "is a named pipe (FIFO)"),
    (lambda p: "/dev/zero", "is a device"),
    (lambda p: p, "is a directory"),
    (lambda p: (os.symlink(p / "gone", p / "link"), p / "link")[1], "a symbolic link to nothing"),
    (lambda p: p / "a\x00b", "cannot read"),
])
def test_only_regular_files_are_opened_and_a_fifo_never_blocks(tmp_path, make, words):
    path = make(tmp_path)
    with pytest.raises(GapstateError) as caught:
        open_binary(path)
    assert words in caught.value.message and caught.value.file == str(path)


def test_load_spec_of_a_path_holding_a_nul_raises_the_one_documented_exception():
    with pytest.raises(gapstate.GapstateError, match="cannot read"):
        gapstate.load_spec("spec\x00.md")


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c", "\r"])
def test_only_a_line_feed_ends_a_line(separator):
    assert text_lines(f"one{separator}still one\r\ntwo\n") == [f"one{separator}still one", "two"]


def test_a_json_number_too_long_to_convert_is_named_at_its_place():
    with pytest.raises(GapstateError) as caught:
        parse_json('{"a": 1,\n "b": [' + "7" * 5000 + "]}", "r.json")
    assert (caught.value.line, caught.value.column) == (2, 8)
    assert "a number too long" in caught.value.message


def test_json_nested_too_deeply_is_unusable_not_a_crash():
    with pytest.raises(GapstateError, match="nested too deeply"):
        parse_json("[" * 100_000 + "]" * 100_000, "r.json")


# CR line ends (classic Mac OS): a file with CRs and no LF ----------------------------------

@pytest.mark.parametrize("text, lines", [
    ("one\rtwo\r", ["one", "two"]),
    ("one\r\rthree", ["one", "", "three"]),
    ("one\rstill one\ntwo\n", ["one\rstill one", "two"]),  # an LF anywhere: a lone CR is inside a line
    ("one\r\ntwo\rstill two\r\n", ["one", "two\rstill two"]),
])
def test_a_file_with_crs_and_no_lf_has_cr_line_ends(text, lines):
    assert text_lines(text) == lines
    assert cr_ended(text) == cr_ended(text.encode()) == ("\n" not in text)
    assert as_lf(text.encode()).decode() == (text.replace("\r", "\n") if "\n" not in text else text)


def test_a_cr_ended_file_longer_than_the_limit_is_read_by_its_lines(monkeypatch):
    import gapstate.files.source as source

    monkeypatch.setattr(source, "_BLOCK", 64)  # many blocks
    data = b"".join(b"line %d\r" % n for n in range(200))
    assert read_bounded(io.BytesIO(data), "cr.md", limit=16) == data
    with pytest.raises(GapstateError) as caught:  # by CR's count too, a long line is named at its place
        read_bounded(io.BytesIO(data + b"x" * 40 + b"\r"), "cr.md", limit=16)
    assert caught.value.line == 201
    with pytest.raises(GapstateError) as caught:  # an LF after all: by LF's count the first line is too long
        read_bounded(io.BytesIO(data + b"\n"), "cr.md", limit=16)
    assert caught.value.line == 1


def test_a_byte_that_is_not_utf8_in_a_cr_ended_file_is_named_at_its_cr_line():
    with pytest.raises(GapstateError) as caught:
        decode_text(b"one\rtwo\rth\xffree\r", "cr.md")
    assert (caught.value.line, caught.value.column) == (3, 3)


def _cr(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r")


BROKEN_SPEC = SPEC_TEXT.replace("OPEN | loss_voiced | !dup | = | merge_gap", "OPEN | loss_voiced | !dup | = | merge_gap | x").encode()
assert BROKEN_SPEC != SPEC_TEXT.encode()
BROKEN_TRACE = b'{"event": "busy_start", "t": 1}\n\n{"event": "busy_end", "t": 2}\n{"event": "nope", "t": 3}\n'
BROKEN_REPORT = REPORT_EXAMPLE.read_bytes().replace(b'"arms"', b'"arms" 7', 1)


@pytest.mark.parametrize("command, data", [
    ("check", BROKEN_SPEC), ("replay", BROKEN_TRACE), ("classify", BROKEN_REPORT),
], ids=["spec", "trace", "report"])
def test_every_reader_places_a_problem_in_a_cr_ended_file_as_in_the_lf_file(tmp_path, command, data):
    """The same lines with CR ends: the same output, the same line and column, in a spec, a trace and a report."""
    assert b"\r" not in data
    said = []
    for ends, content in (("lf", data), ("cr", _cr(data))):
        path = tmp_path / ends / "input"
        path.parent.mkdir()
        path.write_bytes(content)
        result = run(command, str(path)) if command != "check" else run("check", "--spec", str(path))
        said.append((result.exit_code, result.stdout.replace(f"{ends}/", ""), result.stderr.replace(f"{ends}/", "")))
    assert said[0] == said[1] and said[0][0] in (1, 2)
    assert re.search(r"input:\d+:", said[0][1] + said[0][2])


def test_a_cr_ended_trace_across_many_blocks_replays_as_its_lf_twin(tmp_path):
    lines = [f'{{"event": "busy_start", "t": {n}}}' if n % 2 == 0 else f'{{"event": "busy_end", "t": {n}}}' for n in range(3000)]
    (tmp_path / "lf.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "cr.jsonl").write_text("\r".join(lines), encoding="utf-8", newline="")
    lf = list(read_trace(str(tmp_path / "lf.jsonl"), limit=1000))
    cr = list(read_trace(str(tmp_path / "cr.jsonl"), limit=1000))
    assert cr == lf and len(cr) == 3000
    assert reference_read((tmp_path / "cr.jsonl").read_bytes()) == reference_read((tmp_path / "lf.jsonl").read_bytes())


# Modules outside files/ that touch a file themselves, and why that is not input or output of gapstate's.
OWN_FILES = {
    "conformance/reaper.py": "the kernel's /proc files, read to find what a child left running",
    "cli/base.py": "os.devnull, opened over a closed standard output",
    "cli/init.py": "the installed package's own metadata (importlib.metadata's read_text)",
}


def test_no_module_outside_files_opens_reads_or_writes_a_file_by_path_itself():
    """Input is read, and output written, only through files/: regular files only, bounded, whole or not at all."""
    from .support import package_nodes

    calls = {"read_text", "read_bytes", "write_text", "write_bytes"}
    found, excused = [], set()
    for module, nodes in package_nodes():
        if module.startswith("files/"):
            continue
        for node in nodes:
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            touches = (isinstance(func, ast.Name) and func.id == "open") or (
                isinstance(func, ast.Attribute) and (func.attr in calls or (
                    func.attr in ("open", "replace", "rename") and isinstance(func.value, ast.Name)
                    and func.value.id in ("os", "io"))))
            if touches and module in OWN_FILES:
                excused.add(module)
            elif touches:
                found.append(f"{module}:{node.lineno}")
    assert found == []
    assert excused == set(OWN_FILES), "an excuse no longer needed: remove it"
