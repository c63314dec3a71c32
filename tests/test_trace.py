"""The trace reader: strict JSON Lines, every bad line named, read as a stream."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import gapstate
from gapstate.cli import main
from gapstate.trace import concretize, read_trace


def write(tmp_path, *lines: str):
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def replay(path, *args: str):
    return CliRunner().invoke(main, ["replay", str(path), *args])


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
    path = write(tmp_path, GOOD, "", bad)
    result = replay(path)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert f"{path}:3" in result.stderr
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_a_time_going_back_is_malformed(tmp_path):
    path = write(tmp_path, GOOD, '{"event": "floor_released", "t": 100}')
    result = replay(path)
    assert result.exit_code == 2
    assert f"{path}:2: 't' goes back in time: 100 after 120" in result.stderr


def test_a_json_syntax_error_gives_its_column(tmp_path):
    path = write(tmp_path, '{"event": "busy_start",, "t": 1}')
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
    path = write(tmp_path, '{"event": "send_ok"}', '{"event": "bogus"}')
    result = replay(path)
    assert result.exit_code == 2 and f"{path}:2" in result.stderr


def test_absent_times_repeat_the_previous_one_and_start_at_zero(tmp_path):
    path = write(tmp_path, '{"event": "busy_start"}', '{"event": "busy_end", "t": 40}', '{"event": "busy_start"}')
    assert [e.t for e in read_trace(path)] == [0, 40, 40]


def test_blank_lines_are_skipped_and_indexes_count_events_not_lines(tmp_path):
    path = write(tmp_path, "", GOOD, "   ", '{"event": "send_ok"}')
    result = replay(path, "--format", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["index"] == 1
    assert f"{path}:4: invalid_event" in replay(path).stdout


def test_the_reader_streams_a_line_at_a_time(tmp_path):
    path = write(tmp_path, GOOD, "{broken")
    events = iter(read_trace(path))
    assert next(events).event == "loss_voiced"  # read before the bad line is reached
    with pytest.raises(gapstate.GapstateError):
        next(events)


def test_the_api_checks_dicts_the_same_way():
    with pytest.raises(gapstate.GapstateError) as caught:
        gapstate.replay(gapstate.load_spec(), [{"event": "busy_start"}, {"event": "busy_start", "extra": 1}])
    assert caught.value.line == 2 and "unknown field 'extra'" in caught.value.message


def test_concretized_traces_use_fresh_and_repeated_ids_and_post_send_speech():
    trace = concretize([("loss_voiced", False), ("loss_voiced", True), ("loss_voiced", False), ("evidence_turn", True), ("evidence_turn", False)])
    assert [e.get("id") for e in trace[:3]] == ["iv-1", "iv-1", "iv-2"]
    assert trace[3]["speech_start"] > trace[2]["t"]
    assert trace[4]["speech_start"] == 0
    assert [e["t"] for e in trace] == sorted(e["t"] for e in trace)


# the replay command ---------------------------------------------------------


def test_replay_json_has_the_contract_shape(tmp_path):
    path = write(tmp_path, GOOD, '{"event": "floor_released", "t": 300}', '{"event": "evidence_turn", "t": 900, "speech_start": 650}')
    result = replay(path, "--format", "json")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert set(document) == {"ok", "steps", "final", "error"}
    assert set(document["steps"][0]) == {"index", "event", "from", "to", "row", "guards", "actions", "counters"}
    assert set(document["final"]) == {"state", "counters", "debt_owed", "ended"}
    assert document["error"] is None


def test_replay_summary_prints_only_the_final_configuration_and_the_error(tmp_path):
    path = write(tmp_path, GOOD, '{"event": "send_ok", "t": 300}')
    text = replay(path, "--summary")
    assert text.exit_code == 1
    assert "loss_voiced" not in text.stdout
    assert "invalid_event" in text.stdout and text.stdout.count("\n") == 3
    document = json.loads(replay(path, "--summary", "--format", "json").stdout)
    assert "steps" not in document and document["error"]["kind"] == "invalid_event"


def test_replay_text_reads_like_a_transcript_with_the_failing_step_marked(tmp_path):
    path = write(tmp_path, GOOD, '{"event": "send_ok", "t": 300}')
    lines = replay(path).stdout.splitlines()
    assert "loss_voiced" in lines[0] and "CLEAR" in lines[0] and "OPEN" in lines[0]
    assert lines[1].startswith("!")
    assert "send_ok cannot occur in OPEN" in lines[1]


def test_replay_against_a_spec_with_a_syntax_error_is_unusable(tmp_path):
    spec = tmp_path / "spec.md"
    spec.write_text("```\n# state | event | guards | next | actions\nCLEAR | busy_end\n```\n", encoding="utf-8")
    result = replay(write(tmp_path, GOOD), "--spec", str(spec))
    assert result.exit_code == 2
    assert f"{spec}:3:" in result.stderr and "parse_error" in result.stderr


def test_a_trace_can_come_from_standard_input():
    result = CliRunner().invoke(main, ["replay", "-", "--format", "json"], input=GOOD + "\n")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["final"]["state"] == "OPEN"


def test_a_byte_order_mark_on_the_first_line_is_accepted(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode() + b"\n")
    assert replay(path).exit_code == 0


def test_a_line_that_is_not_utf8_says_so_with_its_column(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_bytes(GOOD.encode() + b'\n{"event": "busy_start\xff"}\n')
    assert f"{path}:2:22: not UTF-8" in replay(path).stderr


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_streamed_output_is_what_the_result_renders(tmp_path, fmt):
    from gapstate.render import replay_json, replay_step_line, replay_tail

    lines = [GOOD, '{"event": "floor_released", "t": 300}', '{"event": "send_ok", "t": 400}', '{"event": "send_ok", "t": 500}']
    path = write(tmp_path, *lines)
    api = gapstate.replay(gapstate.load_spec(), [json.loads(line) for line in lines])
    cli = replay(path, "--format", fmt).stdout
    if fmt == "json":
        assert cli == "".join(replay_json(api)) + "\n"
        assert json.loads(cli) == api.to_dict()
    else:
        caps = {"session_requests": 3, "episode_attempts": 2}
        assert cli == "".join(replay_step_line(step, caps) + "\n" for step in api.steps) + replay_tail(api, caps, str(path)) + "\n"


def test_a_long_trace_streams_every_step_through_the_spool(tmp_path):
    # 80,000 transcript lines pass the spool's 8 MiB in memory, so it moves to a file.
    path = write(tmp_path, *(['{"event": "loss_silent"}'] * 80000))
    result = replay(path)
    assert result.exit_code == 0
    assert result.stdout.count("\n") == 80000 + 2
