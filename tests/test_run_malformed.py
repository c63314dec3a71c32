"""What is wrong with a trace line, said in the trace's words: every bad line named, with its column."""

from __future__ import annotations

import json

import pytest

import gapstate

from .support import replay, write_trace

GOOD = '{"event": "loss_voiced", "t": 120, "id": "iv-1"}'

MALFORMED = [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "expected an event object, found an array"),
    ('"loss_voiced"', "expected an event object, found a string"),
    ('{"t": 5}', "missing the 'event' field"),
    ('{"event": "loss_loud"}', "unknown event 'loss_loud'"),
    ('{"event": 7}', "'event' must be a string naming an event, not a whole number"),
    ('{"event": "loss_voiced", "t": 500}', "loss_voiced needs an 'id'"),
    ('{"event": "loss_voiced", "id": ""}', "'id' must not be empty"),
    ('{"event": "evidence_turn", "t": 500}', "evidence_turn needs a 'speech_start'"),
    ('{"event": "busy_start", "colour": "red"}', "unknown field 'colour'"),
    ('{"event": "busy_start", "t": "5"}', "'t' must be a whole number of milliseconds, not a string"),
    ('{"event": "busy_start", "t": 5.5}', "'t' must be an integer number of milliseconds, written without an exponent or fraction"),
    ('{"event": "busy_start", "t": true}', "'t' must be a whole number of milliseconds, not true/false"),
    ('{"event": "busy_start", "t": null}', "'t' must be a whole number of milliseconds, not null"),
    ('{"event": "busy_start", "t": -1}', "'t' must not be negative (-1)"),
    ('{"event": "evidence_turn", "speech_start": "x"}', "'speech_start' must be a whole number of milliseconds, not a string"),
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
    assert f"{path}:2:29: 't' goes back in time: 100 after 120" in result.stderr


def test_a_json_syntax_error_gives_its_column(tmp_path):
    path = write_trace(tmp_path, '{"event": "busy_start",, "t": 1}')
    assert f"{path}:1:24: not valid JSON" in replay(path).stderr


# errors in the trace's words ----------------------------------------------------

RAW_DECODER_WORDS = ("Expected `", "got `", "Input data was truncated", "JSON is malformed", "$.", "msgspec")


@pytest.mark.parametrize("bad, words", MALFORMED + [('{"event": "busy_start"', "not valid JSON"), ('{"event": "busy_start"} {"event": "busy_end"}', "more than one JSON value")], ids=lambda x: str(x)[:30])
def test_no_message_shows_the_decoder_s_own_words(tmp_path, bad, words):
    result = replay(write_trace(tmp_path, bad))
    assert result.exit_code == 2 and words in result.stderr
    assert not [w for w in RAW_DECODER_WORDS if w in result.stderr], result.stderr


def test_the_offending_line_is_quoted_with_a_caret_under_the_column(tmp_path):
    path = write_trace(tmp_path, GOOD, '{"event": "busy_start", "t": "5"}')
    lines = replay(path).stderr.splitlines()
    assert lines[0] == f"gapstate: error: {path}:2:25: 't' must be a whole number of milliseconds, not a string"
    assert lines[1:] == ['  2 | {"event": "busy_start", "t": "5"}', "    |                         ^"]


@pytest.mark.parametrize("text, hint", [
    ('[{"event": "busy_start"}, {"event": "busy_end"}]\n', "jq -c '.[]'"),
    ('[\n  {"event": "busy_start"},\n  {"event": "busy_end"}\n]\n', "jq -c '.[]'"),
    ('{\n  "event": "busy_start",\n  "t": 5\n}\n', "pretty-printed JSON"),
])
def test_an_array_or_a_pretty_printed_file_gets_a_hint(tmp_path, text, hint):
    path = tmp_path / "trace.json"
    path.write_text(text, encoding="utf-8")
    result = replay(path)
    assert result.exit_code == 2
    assert hint in result.stderr.splitlines()[0]


def test_every_malformed_line_is_reported_not_just_the_first(tmp_path):
    path = write_trace(tmp_path, GOOD, '{"event": "busy_start", "t": "5"}', GOOD, '{"event": "nope"}', "[1]")
    result = replay(path, "--format", "json")
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert (error["line"], error["message"]) == (2, "3 malformed lines, the first here")
    assert [(p["line"], p["text"]) for p in error["problems"]] == [(2, '{"event": "busy_start", "t": "5"}'), (4, '{"event": "nope"}'), (5, "[1]")]
    assert "did you mean" not in error["problems"][1]["message"] and "expected one of" in error["problems"][1]["message"]
    text = replay(path).stderr
    assert f"{path}:4:2: unknown event 'nope'" in text and f"{path}:5:1: expected an event object, found an array" in text


def test_past_the_limit_malformed_lines_are_counted(tmp_path):
    from gapstate.run.malformed import MAX_PROBLEMS

    path = write_trace(tmp_path, *(["[1]"] * (MAX_PROBLEMS + 5)))
    error = json.loads(replay(path, "--format", "json").stdout)["error"]
    assert len(error["problems"]) == MAX_PROBLEMS
    assert error["message"].startswith(f"{MAX_PROBLEMS + 5} malformed lines")


def test_an_unknown_event_suggests_the_closest(tmp_path):
    result = replay(write_trace(tmp_path, '{"event": "busy_strat"}'))
    assert "unknown event 'busy_strat'; did you mean 'busy_start'?" in result.stderr


def test_the_python_api_gets_every_problem_too():
    with pytest.raises(gapstate.GapstateError) as caught:
        gapstate.replay(None, [{"event": "busy_start"}, {"event": 3}, {"event": "busy_end", "t": -2}])
    assert [p.line for p in caught.value.problems] == [2, 3]


# messages a new user met -------------------------------------------------------

@pytest.mark.parametrize("bad", ['{"event": "busy_start", "t": 1e3}', '{"event": "busy_start", "t": 1000.0}'])
def test_a_time_with_an_exponent_or_fraction_asks_for_an_integer(tmp_path, bad):
    result = replay(write_trace(tmp_path, bad))
    assert result.exit_code == 2
    assert "'t' must be an integer number of milliseconds, written without an exponent or fraction" in result.stderr
    assert "a number with a fraction" not in result.stderr


def test_the_opening_brace_of_a_pretty_printed_file_is_not_called_a_trailing_comma(tmp_path):
    path = tmp_path / "trace.json"
    path.write_text('{\n  "event": "busy_start",\n  "t": 5\n}\n', encoding="utf-8")
    [first] = json.loads(replay(path, "--format", "json").stdout)["error"]["problems"][:1]
    assert first["line"] == 1
    assert "trailing comma" not in first["message"]
    assert "each event object on one line" in first["message"]


def test_a_line_that_is_not_utf8_is_not_called_pretty_printed(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_bytes(GOOD.encode() + b'\n{"event": "busy_start\xff"}\n')
    first, quoted = replay(path).stderr.splitlines()[:2]
    assert first == f"gapstate: error: {path}:2:22: not UTF-8 text: byte 0xff cannot be decoded (a trace is UTF-8 JSON Lines)"
    assert quoted.startswith('  2 | {"event": "busy_start')  # the line itself, not its JSON quoting


@pytest.mark.parametrize("line, key, column", [
    ('{"event":"loss_voiced","id":"a","event":"busy_start"}', "event", 33),
    ('{"event":"busy_start","t":1,"t":2}', "t", 29),
    ('{"event":"busy_start","event":"busy_end"}', "event", 23),
    ('{"event":"evidence_turn","speech_start":1,"t":3,"speech_start":2}', "speech_start", 49),
])
def test_a_field_given_twice_in_one_event_is_malformed(tmp_path, line, key, column):
    path = write_trace(tmp_path, GOOD, line)
    result = replay(path)
    assert result.exit_code == 2
    assert f"{path}:2:{column}: the field '{key}' appears twice in one event" in result.stderr


@pytest.mark.parametrize("line, key, column", [
    ('{"event": "x", "event": "busy_start"}', "event", 16),  # the decoder refuses the first name; json keeps the last
    ('{"event": "busy_start", "event": "x"}', "event", 25),
    ('{"event": "busy_strat", "t": 1, "t": 2}', "t", 33),
])
def test_a_field_given_twice_is_named_even_where_the_decoder_refuses_the_line(tmp_path, line, key, column):
    path = write_trace(tmp_path, line)
    result = replay(path)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-3] == f"gapstate: error: {path}:1:{column}: the field '{key}' appears twice in one event; give each field once"


def test_a_key_of_a_nested_object_is_not_a_repeat_of_the_event_s(tmp_path):
    path = write_trace(tmp_path, '{"event": "busy_start", "t": {"t": 1}}')
    assert f"{path}:1:25: 't' must be a whole number of milliseconds, not an object" in replay(path).stderr


def test_a_colon_inside_a_string_is_not_a_repeated_field(tmp_path):
    path = write_trace(tmp_path, '{"event": "loss_voiced", "t": 1, "id": "iv:1:2"}', '{"event": "busy_start"}')
    assert replay(path).exit_code == 0


@pytest.mark.parametrize("name", ["bogus", "busy_strat"])
def test_the_api_says_what_the_cli_says_placed_by_the_event_s_number(tmp_path, name):
    path = write_trace(tmp_path, GOOD, json.dumps({"event": name}))
    cli = replay(path, "--format", "json")
    [said] = json.loads(cli.stdout)["error"]["problems"]
    with pytest.raises(gapstate.GapstateError) as caught:
        gapstate.replay(None, [json.loads(GOOD), {"event": name}])
    assert caught.value.message == said["message"]
    assert (caught.value.line, caught.value.column) == (2, None)
    assert str(caught.value).startswith(f"<events>:2: unknown event '{name}'")


def test_the_api_gives_no_file_hint_for_an_event_that_is_not_an_object():
    with pytest.raises(gapstate.GapstateError) as caught:
        gapstate.replay(None, ["busy_start"])
    assert caught.value.message == "expected an event object, found a string"


def test_a_number_of_5000_digits_is_a_malformed_line_not_a_crash(tmp_path):
    result = replay(write_trace(tmp_path, GOOD, '{"event": "loss_voiced", "id": ' + "9" * 5000 + "}"))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert ":2:32: a number too long to be read" in result.stderr


def test_two_events_on_one_line_are_refused_even_beside_a_blank_line(tmp_path):
    path = write_trace(tmp_path, '{"event": "busy_start"}{"event": "busy_end"}', "", GOOD)
    result = replay(path)
    assert result.exit_code == 2, result.output
    assert f"{path}:1:24: not valid JSON: more than one JSON value on this line" in result.stderr


LATEST = 2**63 - 1


@pytest.mark.parametrize("field", ["t", "speech_start"])
@pytest.mark.parametrize("late, written, shown", [
    (LATEST + 1, str(LATEST + 1), str(LATEST + 1)),
    (10**5000, "1" + "0" * 5000, "a number of 5001 digits"),  # past what Python writes out: the API raised ValueError
    (-(10**5000), "-1" + "0" * 5000, None),
], ids=["2^63", "5001-digits", "minus-5001-digits"])
def test_a_time_out_of_range_gets_one_message_on_every_way_in(tmp_path, field, late, written, shown):
    """A file, standard input, the Python API and conform's vectors: the same words, placed at the field."""
    import sys

    from click.testing import CliRunner

    from gapstate.cli import main

    from .support import ROOM_LOOP

    if shown is None:
        words = f"'{field}' must not be negative (a negative number of 5001 digits)"
    else:
        words = f"'{field}' is past the latest time a trace may give ({LATEST} ms): {shown}"
    line = {"event": "evidence_turn", "t": 5, "speech_start": 5, field: late}
    text = json.dumps({**line, field: 0}).replace(f'"{field}": 0', f'"{field}": {written}')  # json.dumps cannot write 10**5000
    path = write_trace(tmp_path, text)
    column = text.index(f'"{field}"') + 1
    from_file = replay(path)
    assert from_file.exit_code == 2 and f"{path}:1:{column}: {words}\n" in from_file.stderr
    from_stdin = CliRunner().invoke(main, ["replay", "-"], input=text + "\n")
    assert from_stdin.exit_code == 2 and f"<stdin>:1:{column}: {words}\n" in from_stdin.stderr
    with pytest.raises(gapstate.GapstateError) as caught:
        gapstate.replay(gapstate.load_spec(), [line])
    assert caught.value.message == words
    suite = tmp_path / "suite"
    suite.mkdir()
    path.rename(suite / "late.jsonl")
    vectors = CliRunner().invoke(main, ["conform", "--vectors", str(suite), "--examples", "0", "--", sys.executable, str(ROOM_LOOP)])
    assert vectors.exit_code == 2 and f"{suite / 'late.jsonl'}:1:{column}: {words}\n" in vectors.stderr


def test_the_latest_time_itself_is_a_time(tmp_path):
    line = {"event": "evidence_turn", "t": LATEST, "speech_start": LATEST}
    assert replay(write_trace(tmp_path, json.dumps(line))).exit_code == 0


@pytest.mark.parametrize("event, words", [
    ({"event": "busy_start", 10**5000: 1}, "unknown field <a number of 5001 digits>"),
    ({"event": "busy_start", (1, 2): 1}, "unknown field [1, 2]"),
    ({"event": "\udcff"}, "unknown event '\udcff'"),
    ({"\udcff": 1, "event": "busy_start"}, "unknown field '\udcff'"),
    ({"event": b"busy_start"}, "'event' must be a string naming an event, not a Python bytes, which JSON lacks"),
    ({"event": "busy_start", "t": {5}}, "'t' must be a whole number of milliseconds, not a Python set, which JSON lacks"),
    ({"event": "loss_voiced", "id": 10**5000}, "'id' must be a string (the interval id), not a whole number"),
])
def test_the_api_refuses_any_event_dict_with_the_documented_error(event, words):
    """What JSON cannot hold (keys of other types, a number too long to write out, bytes, lone surrogates) is named."""
    with pytest.raises(gapstate.GapstateError) as caught:
        gapstate.replay(gapstate.load_spec(), [event])
    assert caught.value.message.startswith(words)


def test_a_time_that_goes_back_says_the_same_from_a_file_and_the_api(tmp_path):
    events = [{"event": "busy_start", "t": 5}, {"event": "busy_end", "t": 3}]
    result = replay(write_trace(tmp_path, *map(json.dumps, events)))
    assert result.exit_code == 2 and "'t' goes back in time: 3 after 5" in result.stderr
    with pytest.raises(gapstate.GapstateError, match="'t' goes back in time: 3 after 5"):
        gapstate.replay(gapstate.load_spec(), events)
