"""Reading input: regular files only, no line past the limit, lines counted as editors count them."""

from __future__ import annotations

import io
import os

import pytest

import gapstate
from gapstate.errors import GapstateError
from gapstate.spec.source import MAX_LINE, open_binary, parse_json, read_bounded, text_lines


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
