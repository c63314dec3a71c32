"""Finding the table: the one fenced block whose first non-blank line is the header, or nearly is."""

from __future__ import annotations

import pytest

from gapstate.table.blocks import HEADER, find_blocks
from gapstate.table.parser import parse_text

from .support import SPEC_TEXT


def test_a_block_is_found_by_its_header_with_its_first_content_line_and_header_line():
    lines = ["Prose.", "", "~~~ text", "", HEADER, "* | busy_start | - | = | noop", "~~~", "```", "# other", "```"]
    assert find_blocks(lines) == [(4, 5, ["", HEADER, "* | busy_start | - | = | noop"])]
    near = ["```", "# state | evnt | guards | next | actions", "```"]
    assert find_blocks(near) == [] and find_blocks(near, near=True) == [(2, 2, [near[1]])]


def test_a_header_below_a_comment_is_pointed_at_not_reported_as_no_table():
    text = "Prose.\n\n```\n# the table\n# state | event | guards | next | actions\n* | busy_start | - | = | noop\n```\n"
    [finding] = parse_text(text).findings
    assert (finding.line, finding.column) == (5, 1)
    assert "the fenced block at line 3 holds the header at line 5" in finding.message


SHELL_BLOCK = "```sh\n# replay | count\ngapstate replay t.jsonl | wc -l\n```\n"


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_code_block_whose_first_line_is_a_comment_with_a_bar_is_prose(where):
    text = SHELL_BLOCK + "\n" + SPEC_TEXT if where == "before" else SPEC_TEXT + "\n" + SHELL_BLOCK
    parsed = parse_text(text)
    assert parsed.findings == ()
    assert len(parsed.table.rows) == 67


@pytest.mark.parametrize("first", [
    "# replay | count",
    "# a | b | c | d | e",
    "#!/bin/sh",
    "# pipe the state | into jq",
    "# state, event, guards, next, actions",  # no bar: a sentence, not a header
])
def test_an_ordinary_code_block_is_never_taken_for_a_mistyped_header(first):
    [finding] = parse_text(f"Prose.\n\n```sh\n{first}\necho hi | wc -l\n```\n").findings
    assert (finding.line, finding.column) == (1, 1)
    assert finding.message.startswith("no transition table")


@pytest.mark.parametrize("header, words", [
    ("# STATE | EVENT | GUARDS | NEXT | ACTIONS", "'STATE' where 'state' belongs"),
    ("# state | evnt | guards | next | actions", "'evnt' where 'event' belongs"),
    ("# state | event | next | actions", "the 'guards' column is missing"),
    ("# state | event | guards | next | action", "'action' where 'actions' belongs"),
    ("# state | event | guards | next | actions | notes", "'notes' after 'actions'"),
    ("# state | event | guards", "the 'next' column is missing"),
    ("#state|event|guard|next|actions", "'guard' where 'guards' belongs"),
])
def test_a_near_miss_of_the_header_is_a_header_mistake_not_no_table(header, words):
    [finding] = parse_text(f"Prose.\n\n```\n{header}\nCLEAR | busy_end | - | = | noop\n```\n").findings
    assert finding.line == 4
    assert finding.message.startswith("the header must read `# state | event | guards | next | actions`")
    assert words in finding.message
    assert "no transition table" not in finding.message


def test_the_header_is_whitespace_free():
    parsed = parse_text("```\n  #state|event |guards|  next|actions  \n* | busy_start | - | = | noop\n```\n")
    assert parsed.findings == ()
    assert len(parsed.table.rows) == 1


def test_a_near_miss_beside_a_real_table_is_prose():
    text = SPEC_TEXT + "\n```\n# state | event | guard | next | actions\nOPEN | busy_end | - | = | noop\n```\n"
    parsed = parse_text(text)
    assert parsed.findings == ()
