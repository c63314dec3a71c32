"""Reading a trace as bounded whole lines: a long line named at once, a byte-order mark dropped, blanks marked."""

from __future__ import annotations

import io

import pytest

import gapstate
from gapstate.run.lines import BLANK, file_batches
from gapstate.run.trace import read_trace


def test_batches_hold_whole_lines_without_a_byte_order_mark_and_mark_blank_lines(monkeypatch):
    monkeypatch.setattr(gapstate.run.lines, "CHUNK", 8)
    data = b"\xef\xbb\xbf" + b'{"a":1}\n\n  \n{"bb":22}\n{"c":3}'
    batches = list(file_batches(io.BytesIO(data), "<t>"))
    assert b"".join(chunk for chunk, _ in batches) == data[3:]
    assert all(chunk.endswith(b"\n") for chunk, _ in batches[:-1])
    assert [line for _, lines in batches for line in lines] == [b'{"a":1}', BLANK, BLANK, b'{"bb":22}', b'{"c":3}']


def test_a_line_past_the_limit_is_named_without_reading_the_rest(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"event": "busy_start"}\n' * 3 + b" " * 5000)
    with pytest.raises(gapstate.GapstateError) as caught:
        list(read_trace(path, limit=1000))
    assert (caught.value.line, caught.value.file) == (4, str(path))
    assert "runs past 1000 bytes" in caught.value.message
