"""gapstate/cli/render/errors.py: unusable input said where and why, each problem at its line, quoted with a caret."""

from __future__ import annotations

import json

import pytest

import gapstate
from gapstate.attribution.positions import problem_lines
from gapstate.attribution.validation import problems
from gapstate.cli.render.errors import QUOTE_WIDTH, error_json, error_text, quote


def _refused(events) -> gapstate.GapstateError:
    with pytest.raises(gapstate.GapstateError) as caught:
        gapstate.replay(None, events)
    return caught.value


def test_one_malformed_line_is_said_once_and_quoted():
    text = error_text(_refused([{"event": "busy_start", "t": 1}, {"event": "nope\x1b", "t": 2}]))
    lines = text.split("\n")
    assert lines[0].startswith("gapstate: error: <events>:2: unknown event 'nope\\x1b'; expected one of: ")
    assert lines[1:] == ['  2 | {"event": "nope\\u001b", "t": 2}']  # the first line said where: only the quote follows


def test_several_malformed_lines_are_each_named_and_quoted():
    lines = error_text(_refused([{"event": "nope", "t": 1}, {"event": "busy_end", "t": "x"}])).split("\n")
    assert lines[0] == "gapstate: error: <events>:1: 2 malformed lines, the first here"
    assert lines[1].startswith("<events>:1: unknown event 'nope'")
    assert lines[3] == "<events>:2: 't' must be a whole number of milliseconds, not a string"
    assert lines[4] == '  2 | {"event": "busy_end", "t": "x"}'


def _report_error() -> gapstate.GapstateError:
    """A report's problems pointed at its text, as `gapstate classify` raises them."""
    text = '{"answer_key": [1],\n "arms": []}'
    return gapstate.GapstateError("cannot judge", "r.json", problems=problem_lines(text, problems(json.loads(text))))


def test_a_report_s_problems_are_named_by_line_column_and_json_path():
    assert error_text(_report_error()).split("\n")[:3] == [
        "gapstate: error: r.json: cannot judge",
        "r.json:1:17: answer_key[0]: expected a non-empty string, got 1",
        "r.json:2:10: arms: expected exactly one arm of kind control, found 0",
    ]


def test_the_json_document_is_not_ok_and_carries_the_record_and_its_problems():
    document = json.loads(error_json(_report_error().record))
    assert document["ok"] is False and document["error"]["file"] == "r.json"
    assert document["error"]["problems"][0] == {"line": 1, "column": 17, "path": "answer_key[0]",
                                                "message": "expected a non-empty string, got 1"}


def _caret_under(quoted: list[str]) -> str:
    line, caret = quoted
    return line[caret.index("^")]


def test_the_caret_stays_under_its_character_when_what_comes_before_it_is_escaped():
    quoted = quote(7, "a\tb\x1bc", 5)
    assert quoted[0] == "  7 | a b\\x1bc"  # a tab is a space, a control character an escape
    assert _caret_under(quoted) == "c"


def test_a_long_line_is_cut_to_a_window_around_the_column():
    quoted = quote(12, "x" * 300 + "Y" + "z" * 300, 301)
    assert quoted[0].startswith("  12 | …") and quoted[0].endswith("…")
    assert len(quoted[0]) == len("  12 | ") + QUOTE_WIDTH + 2
    assert _caret_under(quoted) == "Y"
    near_the_start = quote(3, "Y" + "z" * 300, 1)
    assert near_the_start[0] == "  3 | Y" + "z" * (QUOTE_WIDTH - 1) + "…" and _caret_under(near_the_start) == "Y"


def test_without_a_column_there_is_no_caret():
    assert quote(4, "text", None) == ["  4 | text"]


def test_what_a_child_wrote_follows_the_message_line_by_line_each_escaped_and_indented():
    error = gapstate.GapstateError(
        "the implementation exited (status 1) before answering x; the end of its stderr:", "./adapter",
        output=("Traceback (most recent call last):", '  File "a.py", line 5', "RuntimeError: boom\x1b[31m"),
    )
    assert error_text(error).split("\n") == [
        "gapstate: error: ./adapter: the implementation exited (status 1) before answering x; the end of its stderr:",
        "    Traceback (most recent call last):",
        '      File "a.py", line 5',
        "    RuntimeError: boom\\x1b[31m",
    ]
    assert json.loads(error_json(error.record))["error"]["output"][2] == "RuntimeError: boom\x1b[31m"  # the JSON keeps it as written
