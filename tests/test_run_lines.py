"""Reading a trace as bounded whole lines: a long line named at once, a byte-order mark dropped, blanks marked."""

from __future__ import annotations

import io
import json

import msgspec
import pytest

import gapstate
from gapstate.run.event import Event
from gapstate.run.lines import BLANK, file_batches, same_text
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


# The reader takes a batch whose text is its decoded events written again, give or take blanks,
# as one event a line with each field once (lines.same_text): these must never pass for that.
SEEMING = [
    b'{"event": "busy_start", "t": 1, "t": 2}\n',
    b'{"event":"busy_start","t":1,"t":2}\n',
    b'{"event":"busy_start","t":1,"\\u0074":2}\n',
    b'{"event":"loss_voiced","id":"a b","id":"ab"}\n',
    b'{"event":"busy_start"} {"event":"busy_end"}\n',
    b'{"event":"busy_start"}{"event":"busy_end"}\n',
    b'{"event":"busy_start"}\n\n',
    b'{"event":"busy_start"}\n \t\r\n',
]


@pytest.mark.parametrize("text", SEEMING)
def test_text_that_differs_from_its_events_by_more_than_blanks_is_not_theirs(text):
    decoded = msgspec.json.Decoder(Event).decode_lines(text)
    assert not same_text(msgspec.json.Encoder().encode_lines(decoded), text)


@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": "), (" ,\t", " :  ")])
def test_events_written_with_any_blanks_between_tokens_are_their_own_text(separators):
    items = [{"event": "loss_voiced", "t": 3, "id": "a b"}, {"event": "busy_start"}, {"event": "evidence_turn", "speech_start": 9}]
    text = "".join(json.dumps(item, separators=separators) + "\r\n" for item in items).encode()
    decoded = msgspec.json.Decoder(Event).decode_lines(text)
    assert same_text(msgspec.json.Encoder().encode_lines(decoded), text)


@pytest.mark.parametrize("spaced", [False, True])
@pytest.mark.parametrize("text", [t for t in SEEMING if t.count(b"\n") == 1])
def test_a_line_not_its_events_own_text_among_clean_ones_is_unusable_input(tmp_path, text, spaced):
    separators = (", ", ": ") if spaced else (",", ":")
    clean = "".join(json.dumps({"event": "busy_end", "t": 0}, separators=separators) + "\n" for _ in range(50)).encode()
    path = tmp_path / "t.jsonl"
    path.write_bytes(clean + text + clean)
    with pytest.raises(gapstate.GapstateError) as caught:
        list(read_trace(path))
    assert caught.value.line == 51
