"""gapstate/words.py: input shown on one line and never obeyed, nouns counted, indices as people count, traces as JSON Lines."""

from __future__ import annotations

import json
import re

import pytest

from gapstate.words import as_json, escape, escape_lines, nth, number, plural, trace_lines


@pytest.mark.parametrize("char, shown", [
    ("\x1b", "\\x1b"), ("\x07", "\\x07"), ("\x00", "\\x00"), ("\r", "\\r"), ("\n", "\\n"), ("\t", "\\t"),
    ("\x7f", "\\x7f"), ("\x85", "\\x85"), ("\x9b", "\\x9b"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"),
    ("\u202e", "\\u202e"), ("\udcff", "\\udcff"),
])
def test_every_control_character_and_separator_is_shown_as_an_escape(char, shown):
    assert escape(f"a{char}b") == f"a{shown}b"
    assert escape_lines(f"a{char}b") == (f"a{char}b" if char == "\n" else f"a{shown}b")


def test_every_ascii_character_is_escaped_or_kept_as_the_search_says():
    """The quick path for ASCII text keeps exactly what the escaping search leaves alone."""
    for code in range(128):
        text = f"{{a{chr(code)}\n}}" * 3
        kept = code == 10 or 0x20 <= code < 0x7F
        assert (escape_lines(text) == text) is kept, code
        assert escape_lines(text) == re.sub(r"[\x00-\x09\x0b-\x1f\x7f]", lambda m: {"\r": "\\r", "\t": "\\t"}.get(
            m.group(), f"\\x{ord(m.group()):02x}"), text)


def test_ordinary_text_is_left_as_it_is():
    text = "état | loss_voiced -> OPEN [1/3] ✓ 'quoted' \\ back"
    assert escape(text) == text == escape_lines(text)


def test_what_is_not_text_is_shown_as_its_text_and_escaped_too():
    assert escape(42) == "42"
    assert escape(ValueError("bad\nline")) == "bad\\nline"


def test_a_character_past_latin_1_is_shown_as_a_four_digit_escape():
    assert escape("\u061c|\u200e|\u2066") == "\\u061c|\\u200e|\\u2066"


@pytest.mark.parametrize("index, said", [
    (0, "1st"), (1, "2nd"), (2, "3rd"), (3, "4th"), (10, "11th"), (11, "12th"), (12, "13th"),
    (20, "21st"), (21, "22nd"), (100, "101st"), (110, "111th"), (112, "113th"),
])
def test_a_0_based_index_is_said_as_people_count(index, said):
    assert nth(index) == said


def test_a_noun_is_counted_with_its_plural_but_one_is_one():
    assert [plural(n, "event") for n in (0, 1, 2)] == ["0 events", "1 event", "2 events"]


def test_a_trace_is_one_json_document_a_line_that_reads_back_as_the_same_events():
    trace = [{"event": "loss_voiced", "t": 1, "id": "iv\n1"}, {"event": "send_ok", "t": 2}]
    lines = trace_lines(trace)
    assert len(lines) == 2 and all("\n" not in line for line in lines)
    assert [json.loads(line) for line in lines] == trace


def test_a_number_too_long_to_write_out_is_told_by_its_exact_length():
    for digits in range(4299, 4305):
        for n in (10 ** (digits - 1), 10**digits - 1):
            assert number(n) == (str(n) if digits <= 4300 else f"a number of {digits} digits")
    assert number(-(10**5000)) == "a negative number of 5001 digits"


def test_as_json_writes_what_json_can_and_sketches_the_rest_without_raising():
    assert as_json({"a": [1, "b", None]}) == json.dumps({"a": [1, "b", None]})
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert as_json(deep) == "[" * 20 + "[...]" + "]" * 20
    assert as_json({"n": 10**5000, (1,): {2}, 3: b"x"}) == '{"n": <a number of 5001 digits>, [1]: <set>, 3: <bytes>}'
    assert as_json(list(range(10_000)) + [{1}]).endswith(", ...]")  # a bounded sketch of a long list
