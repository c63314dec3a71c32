"""The grammar and the transformer: each line of the block read on its own, errors at the spec's own line and column."""

from __future__ import annotations

import pytest

from gapstate.table.parser import parse_text

from .support import SPEC_TEXT, assert_findings, check_text, line_of, table, unwrapped, variant, without_diagram


def test_columns_count_from_the_start_of_the_file_line_including_indentation():
    [finding] = parse_text(table("    CLEAR | busy_end | - | = | noop extra")).findings
    assert finding.column == len("    CLEAR | busy_end | - | = | noop ") + 1


def test_a_line_read_again_gives_the_same_row_and_a_fresh_finding():
    text = table("CLEAR | busy_end | - | = | noop extra", "* | busy_start | - | = | noop")
    first, again = parse_text(text), parse_text(text)
    assert first.table.rows == again.table.rows
    [finding], [other] = first.findings, again.findings
    assert finding is not other  # a finding may be given a cause: each reading has its own
    assert (finding.line, finding.column, finding.message) == (other.line, other.column, other.message)
    moved = parse_text(table("", "", "* | busy_start | - | = | noop"))  # the same line, one line further down
    assert moved.table.rows[0].line == first.table.rows[0].line + 1


def test_a_cap_keyword_needs_a_word_boundary():
    [finding] = parse_text(table("@capx session_requests 3")).findings
    assert finding.column == 1


def test_comments_and_blank_lines_are_skipped():
    parsed = parse_text(table("", "# a comment | with a bar", "   ", "* | busy_start | - | = | noop"))
    assert parsed.findings == ()
    assert [str(r) for r in parsed.table.rows] == ["* | busy_start | - | = | noop"]


def test_whitespace_around_bars_and_commas_is_free():
    parsed = parse_text(table("OPEN|floor_released|  !busy ,budget_left,attempts_left|SENDING|send_request ,  noop"))
    [row] = parsed.table.rows
    assert (row.state, row.event, row.next, row.actions) == ("OPEN", "floor_released", "SENDING", ("send_request", "noop"))
    assert [str(lit) for lit in row.guards] == ["!busy", "budget_left", "attempts_left"]


def test_rows_keep_their_spec_lines():
    parsed = parse_text(SPEC_TEXT)
    lines = SPEC_TEXT.splitlines()
    assert len(parsed.table.rows) == 67
    for row in parsed.table.rows:
        assert lines[row.line - 1].startswith(row.state)


def test_the_seed_caps_and_allowances_are_read():
    parsed = parse_text(SPEC_TEXT)
    assert parsed.table.cap_limits() == {"session_requests": 3, "episode_attempts": 2}
    assert len(parsed.table.allowances) == 3
    assert parsed.table.initial == "CLEAR"
    assert parsed.table.states == ("CLEAR", "OPEN", "DUE", "SENDING", "REQUESTED")


def test_an_unclosed_fence_runs_to_the_end_of_the_file():
    parsed = parse_text("```\n# state | event | guards | next | actions\n* | busy_start | - | = | noop\n")
    assert parsed.findings == ()


def test_a_header_only_table_has_no_rows():
    [finding] = parse_text("```\n# state | event | guards | next | actions\n```\n").findings
    assert (finding.line, finding.message) == (2, "the table has no rows")


def test_an_unclosed_fence_with_prose_after_the_table_says_so_once():
    text = "Prose.\n\n```\n# state | event | guards | next | actions\n* | busy_start | - | = | noop\n\nMore prose, and more.\nAnd more.\n"
    [finding] = parse_text(text).findings
    assert (finding.line, finding.column) == (7, 1)
    assert finding.message == (
        "the block opened with ``` at line 3 is never closed; the table's rows seem to end at line 5, "
        "so the text from here on is read as table lines; close the block with ```"
    )


def _spec_without_its_closing_fence() -> tuple[str, int, int]:
    """The bundled spec with the fence after its last row deleted: (text, opening fence line, last row line)."""
    lines = SPEC_TEXT.splitlines(keepends=True)
    last = next(k for k, text in enumerate(lines) if text.startswith("REQUESTED | session_end | - | CLEAR"))
    assert lines[last + 1].strip() == "```"
    opening = max(k for k in range(last) if lines[k].startswith("```"))
    return "".join(lines[: last + 1] + lines[last + 2 :]), opening + 1, last + 1


def test_a_spec_whose_table_fence_is_deleted_gets_one_finding_naming_the_opening_fence():
    # The prose and the next (mermaid) block after the table used to give a
    # syntax error per line first, and the "never closed" one only sixth.
    text, opening, last = _spec_without_its_closing_fence()
    [finding] = parse_text(text).findings
    assert finding.line == last + 2  # the heading after the blank line
    assert f"the block opened with ``` at line {opening} is never closed" in finding.message
    assert f"the table's rows seem to end at line {last}" in finding.message


def test_commands_with_spec_show_the_unclosed_block_first(tmp_path):
    from click.testing import CliRunner

    from gapstate.cli import main

    text, opening, _ = _spec_without_its_closing_fence()
    path = tmp_path / "spec.md"
    path.write_text(text, encoding="utf-8")
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"event":"busy_start","t":1}\n', encoding="utf-8")
    for args in (["replay", str(trace)], ["fuzz", "--seed", "1"], ["graph", "--update"]):
        result = CliRunner().invoke(main, [*args, "--spec", str(path)])
        assert result.exit_code == 2, args
        assert f"block opened with ``` at line {opening} is never closed" in result.output, args


def test_a_tilde_block_with_prose_before_a_backtick_fence_says_so_once():
    text = "~~~\n# state | event | guards | next | actions\n* | busy_start | - | = | noop\n\nProse here.\nMore.\n```\n"
    [finding] = parse_text(text).findings
    assert (finding.line, finding.column) == (5, 1)
    assert finding.message.startswith("the block opened with ~~~ at line 1 is never closed; the table's rows seem to end at line 3")


def test_a_tilde_block_closed_by_a_backtick_fence_says_which_fence_closes_it():
    text = "Prose.\n\n~~~\n# state | event | guards | next | actions\n* | busy_start | - | = | noop\n```\n\nMore prose.\n"
    [finding] = parse_text(text).findings
    assert (finding.line, finding.column) == (6, 1)
    assert finding.message.startswith("this fence does not close the block opened with ~~~ at line 3; close it with ~~~")


def test_check_text_shows_the_line_with_a_caret_under_the_column(tmp_path):
    from click.testing import CliRunner

    from gapstate.cli import main

    path = tmp_path / "spec.md"
    path.write_text(table("@cap session_requests 3  # three"), encoding="utf-8")
    lines = unwrapped(CliRunner().invoke(main, ["check", str(path)]).stdout)
    assert lines[0].startswith(f"{path}:7:26: parse_error: a comment goes on a line of its own")
    assert lines[1:3] == ["  7 | @cap session_requests 3  # three", "    |                          ^"]


def test_a_row_with_a_missing_column_is_a_parse_error_at_its_line_and_column():
    text = variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | =")
    line = line_of(text, "CLEAR | busy_end | - | =")
    [finding] = check_text(text).findings
    assert (finding.kind, finding.line, finding.column) == ("parse_error", line, 25)
    assert "five columns" in finding.message


def test_every_bad_line_is_reported_not_only_the_first():
    text = variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | noop extra")
    text = variant("OPEN | busy_end | - | = | noop", "OPEN | busy_end | | = | noop", text)
    assert_findings(
        text,
        f"parse_error@{line_of(text, 'noop extra')}",
        f"parse_error@{line_of(text, 'OPEN | busy_end | |')}",
    )


def test_a_header_typo_is_a_parse_error_at_the_header():
    text = variant(
        "# state | event | guards | next | actions", "# state | event | guard | next | actions"
    )
    [finding] = check_text(text).findings
    assert finding.kind == "parse_error"
    assert finding.line == line_of(text, "# state | event | guard |")
    assert finding.column == 19
    assert "'guards'" in finding.message


def test_a_document_without_a_table_is_a_parse_error():
    result = check_text("# Title\n\nJust prose.\n\n```python\nprint('hi')\n```\n")
    assert [(f.kind, f.line) for f in result.findings] == [("parse_error", 1)]
    assert "no transition table" in result.findings[0].message


def test_a_document_with_two_tables_is_a_parse_error_at_the_second():
    text = table("* | busy_start | - | = | noop") + "\n" + table("* | busy_end | - | = | noop")
    second = [n for n, line in enumerate(text.splitlines(), 1) if line.startswith("# state")][1]
    assert_findings(text, f"parse_error@{second}")


def test_a_tilde_fence_with_an_info_string_holds_the_table():
    text = without_diagram(SPEC_TEXT).replace("```gapstate", "~~~~ table").replace("\n```\n", "\n~~~~\n")
    assert check_text(text).ok


def test_the_block_is_found_by_its_header_not_by_being_first():
    text = "```sh\ngapstate check\n```\n\n" + SPEC_TEXT
    assert check_text(text).ok


@pytest.mark.parametrize("new", [
    "CLEAR | send_ok | - | = | invalid,noop",
    "CLEAR | send_ok | - | OPEN | invalid",
])
def test_invalid_stands_alone_and_keeps_the_state(new):
    text = variant("CLEAR | send_ok | - | = | invalid", new)
    [finding] = check_text(text).findings
    assert (finding.kind, finding.line) == ("parse_error", line_of(text, new))
    assert "`invalid` stands alone" in finding.message


@pytest.mark.parametrize("separator", ["\u2028", "\x85", "\x0c", "\r"])
def test_lines_are_numbered_as_editors_and_grep_number_them(separator):
    """Only LF ends a line: a separator in the prose shifts no line, and one inside a row is one error there."""
    prose = SPEC_TEXT.replace("\n", f" x{separator}y\n", 1)  # on the first line
    assert [r.line for r in parse_text(prose).table.rows] == [r.line for r in parse_text(SPEC_TEXT).table.rows]
    lines = SPEC_TEXT.split("\n")
    at = lines.index("CLEAR | busy_end | - | = | noop")
    lines[at] = f"CLEAR | busy_end{separator} | - | = | noop"
    findings = parse_text("\n".join(lines)).findings
    assert [(f.kind, f.line) for f in findings] == [("parse_error", at + 1)]
