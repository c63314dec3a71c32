"""The trace reader: strict JSON Lines read as a stream, a batch at a time, each event at its line."""

from __future__ import annotations

import json

import pytest

import gapstate
from gapstate.run.trace import read_trace

from .support import replay, write_trace

GOOD = '{"event": "loss_voiced", "t": 120, "id": "iv-1"}'

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


def test_the_reader_streams_a_batch_at_a_time(tmp_path):
    """The file is never held whole: the first events come before a bad line megabytes later is read."""
    path = write_trace(tmp_path, *([GOOD] * 100_000), "{broken")
    events = iter(read_trace(path))
    assert next(events).event == "loss_voiced"
    with pytest.raises(gapstate.GapstateError) as caught:
        for _ in events:
            pass
    assert caught.value.line == 100_001


def test_the_api_checks_dicts_the_same_way():
    with pytest.raises(gapstate.GapstateError) as caught:
        gapstate.replay(gapstate.load_spec(), [{"event": "busy_start"}, {"event": "busy_start", "extra": 1}])
    assert caught.value.line == 2 and "unknown field 'extra'" in caught.value.message


@pytest.fixture
def small_batches(monkeypatch):
    """Batches of a few lines, so that a short trace crosses many of them."""
    import gapstate.run.lines

    monkeypatch.setattr(gapstate.run.lines, "CHUNK", 64)
    monkeypatch.setattr(gapstate.run.lines, "BATCH", 3)


@pytest.mark.parametrize("blank", [False, True])
def test_lines_are_named_right_across_batches(tmp_path, small_batches, blank):
    """A replay stopped, or a line refused, deep in the trace: its line, whichever path read its batch."""
    lines = [f'{{"event":"candidate_start","t":{i}}}' for i in range(40)]
    if blank:
        lines[5:5] = ["", "   "]
    stopped = write_trace(tmp_path, *lines, '{"event":"send_ok"}', '{"event":"busy_start"}')
    document = json.loads(replay(stopped, "--format", "json").stdout)
    assert document["error"]["index"] == 40
    assert f"{stopped}:{len(lines) + 1}: invalid_event" in replay(stopped).stdout
    for bad, words in (('{"event":"busy_start","t":1}', "goes back"), ('{"event":"nope"}', "unknown event"),
                       ('{"event":"loss_voiced"}', "needs an 'id'"), ('{"event":"busy_start","t":null}', "'t'"),
                       ('{"event":"busy_start","t":50,"event":"loss_silent"}', "appears twice")):
        path = write_trace(tmp_path, *lines, bad, *lines[:3])
        result = replay(path)
        assert result.exit_code == 2
        assert f"{path}:{len(lines) + 1}" in result.output and words in result.output


def test_the_api_reads_dicts_in_batches_with_the_same_checks(small_batches):
    events = [{"event": "candidate_start", "t": i} for i in range(50)] + [{"event": "floor_released"}]
    result = gapstate.replay(gapstate.load_spec(), events)
    assert result.ok and len(result.steps) == 51 and result.final.state == "CLEAR"
    assert [step.index for step in result.steps] == list(range(51))
    with pytest.raises(gapstate.GapstateError) as caught:
        gapstate.replay(gapstate.load_spec(), events + [{"event": "busy_start", "t": None}])
    assert caught.value.line == 52
