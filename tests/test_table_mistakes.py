"""The labelled mistakes: a syntax error says, in the table's terms, what is probably wrong."""

from __future__ import annotations

import pytest

from gapstate.table.mistakes import KNOWN_MISTAKES
from gapstate.table.parser import parse_text

from .support import table

KNOWN = [(label, example) for label, examples in KNOWN_MISTAKES.items() for example in examples]


@pytest.mark.parametrize("label, example", KNOWN, ids=[e for _, e in KNOWN])
def test_each_known_mistake_is_labelled(label, example):
    text = table(example)
    [finding] = parse_text(text).findings
    assert finding.kind == "parse_error"
    assert finding.message.startswith(label)


def test_an_unlabelled_error_still_says_what_was_expected_and_found():
    [finding] = parse_text(table("CLEAR | a b | - | = | noop")).findings
    assert finding.message == "expected '|', found 'b'"
    assert finding.column == 11


# messages in the user's words ---------------------------------------------------

PARSER_WORDS = ("<END-OF-FILE>", "$END", "found 'prose'", "Token(", "NAME", "ANY_STATE")


@pytest.mark.parametrize("line, column, words", [
    ("@cap session_requests 3  # three", 26, "a comment goes on a line of its own"),
    ("CLEAR | busy_end | - | = | noop  # why", 34, "a comment goes on a line of its own"),
    ("CLEAR | busy_end | - | =", 25, "a row has five columns"),
    ("| CLEAR | busy_end | - | = | noop |", 1, "write rows without the outer '|' of a markdown table: `CLEAR | busy_end | - | = | noop`"),
    ("CLEAR | busy_end | - | = | noop |", 33, "write rows without the outer '|'"),
    ("OPÉN | busy_end | - | = | noop", 3, "names are ASCII letters, digits and '_'; 'É' is not one of them"),
    ("@cap session_requests 3.5", 24, "'@cap' takes a counter name and a whole number"),
    ("CLEAR | busy_end | - | = | noop,", 33, "a ',' must be followed by another name"),
])
def test_a_bad_line_is_described_in_the_table_s_terms(line, column, words):
    [finding] = parse_text(table(line)).findings
    assert finding.column == column
    assert words in finding.message
    assert not [w for w in PARSER_WORDS if w in finding.message]
