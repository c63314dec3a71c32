"""The trace reader: strict JSON Lines, every bad line named, read as a stream."""

from __future__ import annotations

import json

import pytest

import gapstate
from gapstate.trace import read_trace

from .support import replay, write_trace


GOOD = '{"event": "loss_voiced", "t": 120, "id": "iv-1"}'

MALFORMED = [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('"loss_voiced"', "expected a JSON object"),
    ('{"t": 5}', "missing the 'event' field"),
    ('{"event": "loss_loud"}', "unknown event 'loss_loud'"),
    ('{"event": 7}', "Expected `str`, got `int` in field 'event'"),
    ('{"event": "loss_voiced", "t": 500}', "loss_voiced needs an 'id'"),
    ('{"event": "loss_voiced", "id": ""}', "in field 'id'"),
    ('{"event": "evidence_turn", "t": 500}', "evidence_turn needs a 'speech_start'"),
    ('{"event": "busy_start", "colour": "red"}', "unknown field 'colour'"),
    ('{"event": "busy_start", "t": "5"}', "in field 't'"),
    ('{"event": "busy_start", "t": 5.5}', "in field 't'"),
    ('{"event": "busy_start", "t": true}', "in field 't'"),
    ('{"event": "busy_start", "t": null}', "in field 't'"),
    ('{"event": "busy_start", "t": -1}', "in field 't'"),
    ('{"event": "evidence_turn", "speech_start": "x"}', "in field 'speech_start'"),
]


@pytest.mark.parametrize("bad, words", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_line_exits_2_naming_the_file_and_line(tmp_path, bad, words):
    path = write_trace(tmp_path, GOOD, "", bad)
    result = replay(path)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert f"{path}:3" in result.stderr
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_a_time_going_back_is_malformed(tmp_path):
    path = write_trace(tmp_path, GOOD, '{"event": "floor_released", "t": 100}')
    result = replay(path)
    assert result.exit_code == 2
    assert f"{path}:2: 't' goes back in time: 100 after 120" in result.stderr


def test_a_json_syntax_error_gives_its_column(tmp_path):
    path = write_trace(tmp_path, '{"event": "busy_start",, "t": 1}')
    assert f"{path}:1:24: not valid JSON" in replay(path).stderr


def test_a_missing_trace_exits_2(tmp_path):
    result = replay(tmp_path / "nope.jsonl")
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_invalid_utf8_exits_2_with_its_line(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_bytes(GOOD.encode() + b'\n{"event": "busy_start\xff"}\n')
    result = replay(path)
    assert result.exit_code == 2 and f"{path}:2" in result.stderr


def test_a_malformed_line_after_a_replay_error_is_still_unusable_input(tmp_path):
    path = write_trace(tmp_path, '{"event": "send_ok"}', '{"event": "bogus"}')
    result = replay(path)
    assert result.exit_code == 2 and f"{path}:2" in result.stderr


def test_absent_times_repeat_the_previous_one_and_start_at_zero(tmp_path):
    path = write_trace(tmp_path, '{"event": "busy_start"}', '{"event": "busy_end", "t": 40}', '{"event": "busy_start"}')
    assert [e.t for e in read_trace(path)] == [0, 40, 40]


def test_blank_lines_are_skipped_and_indexes_count_events_not_lines(tmp_path):
    path = write_trace(tmp_path, "", GOOD, "   ", '{"event": "send_ok"}')
    result = replay(path, "--format", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["index"] == 1
    assert f"{path}:4: invalid_event" in replay(path).stdout


def test_the_reader_streams_a_line_at_a_time(tmp_path):
    path = write_trace(tmp_path, GOOD, "{broken")
    events = iter(read_trace(path))
    assert next(events).event == "loss_voiced"  # read before the bad line is reached
    with pytest.raises(gapstate.GapstateError):
        next(events)


def test_the_api_checks_dicts_the_same_way():
    with pytest.raises(gapstate.GapstateError) as caught:
        gapstate.replay(gapstate.load_spec(), [{"event": "busy_start"}, {"event": "busy_start", "extra": 1}])
    assert caught.value.line == 2 and "unknown field 'extra'" in caught.value.message
