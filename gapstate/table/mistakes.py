"""The labelled mistakes: a syntax error said in the table's terms, with what was expected and found.

A small table of known malformed lines (`KNOWN_MISTAKES`) labels the
grammar's errors, as lark's `match_examples` does; mistakes the grammar
would only call unexpected (non-ASCII, markdown bars, a trailing comment)
are said before the grammar is asked.
"""

from __future__ import annotations

import re

from lark import Lark, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

# Known mistakes, labelled, so that a syntax error says what is probably
# wrong rather than only which token was unexpected. Each example must fail
# the way the mistake it names fails; tests/test_table_mistakes.py checks that.
KNOWN_MISTAKES: dict[str, list[str]] = {
    "a row has five columns (state | event | guards | next | actions); this one ends early": [
        "CLEAR | busy_end | - | =",
        "CLEAR | busy_end | - | = |",
        "CLEAR | busy_end | -",
        "CLEAR | busy_end",
        "CLEAR",
    ],
    "stray text after the actions; separate actions with ','": [
        "CLEAR | busy_end | - | = | noop extra",
        "CLEAR | busy_end | - | = | noop | extra",
    ],
    "a column is empty; write '-' for no guards": [
        "CLEAR | busy_end | | = | noop",
        "CLEAR | | - | = | noop",
    ],
    "separate guards with ',' and write '-' only alone": [
        "CLEAR | busy_end | busy !dup | = | noop",
        "CLEAR | busy_end | -,busy | = | noop",
    ],
    "a ',' must be followed by another name": [
        "CLEAR | busy_end | - | = | noop,",
        "CLEAR | busy_end | busy, | = | noop",
    ],
    "'@cap' takes a counter name and a whole number": [
        "@cap session_requests",
        "@cap session_requests three",
        "@cap 3",
    ],
    "'@unreachable' takes state | event | guards": [
        "@unreachable OPEN | floor_released",
        "@unreachable OPEN | floor_released | - | = | noop",
    ],
}

# A directive's own label, for a line the lexer stops in (`@cap x 3.5`).
_DIRECTIVES = {
    "@cap": "'@cap' takes a counter name and a whole number",
    "@unreachable": "'@unreachable' takes state | event | guards",
}

_WORDS = {
    "NAME": "a name",
    "INT": "a whole number",
    "COMMENT": "a comment",
    "_CAP": "'@cap'",
    "_UNREACHABLE": "'@unreachable'",
    "ANY_STATE": "'*'",
    "$END": "the end of the line",
    "<END-OF-FILE>": "the end of the line",
}


_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def line_problem(text: str) -> tuple[int, str] | None:
    """(column, message) for mistakes the grammar would only call unexpected, said in the table's terms."""
    stripped = text.strip()
    if stripped.startswith("#"):
        return None  # a comment line: anything goes
    odd = _NOT_ASCII.search(text)
    if odd is not None:
        return odd.start() + 1, f"names are ASCII letters, digits and '_'; '{odd.group()}' is not one of them"
    if stripped.startswith("|") or (stripped.endswith("|") and stripped.count("|") >= 5):
        cells = [cell.strip() for cell in stripped.strip("|").split("|")]
        bare = " | ".join(cells)
        column = text.index("|") + 1 if stripped.startswith("|") else len(text.rstrip())
        return column, f"write rows without the outer '|' of a markdown table: `{bare}`"
    hash_at = text.find("#")
    if hash_at > 0:
        return hash_at + 1, "a comment goes on a line of its own, starting with '#', not after a row or directive"
    return None


def _describe(parser: Lark, terminal: str) -> str:
    if terminal in _WORDS:
        return _WORDS[terminal]
    try:
        pattern = parser.get_terminal(terminal).pattern
    except KeyError:
        return terminal
    return f"'{pattern.value}'" if pattern.type == "str" else terminal.lower()


def _label(parser: Lark, error: UnexpectedInput) -> str | None:
    """The known mistake that fails in the same parser state on the same kind of token.

    Like lark's `match_examples`, but without its fallback to a label whose
    example merely stops in the same state: "ends early" must not be said of
    a line that goes on with stray text.
    """
    if not isinstance(error, UnexpectedToken):
        return None
    for label, examples in KNOWN_MISTAKES.items():
        for example in examples:
            try:
                parser.parse(example)
            except UnexpectedToken as known:
                if known.state == error.state and known.token.type == error.token.type:
                    return label
    return None


def syntax_problem(parser: Lark, error: UnexpectedInput, text: str) -> tuple[int, str]:
    """(column, message) for a line the grammar refused: the known mistake it is, and what was expected."""
    if isinstance(error, UnexpectedToken):
        expected = sorted(error.expected)
        found = (
            "the end of the line"
            if error.token.type == "$END"
            else f"'{error.token}'"
        )
        column = len(text.rstrip()) + 1 if error.token.type == "$END" else error.column
    elif isinstance(error, UnexpectedCharacters):
        expected = sorted(error.allowed or ())
        found = f"'{text[error.pos_in_stream or 0]}'"  # lark declares the place None, then always sets it
        column = error.column
    else:  # UnexpectedEOF: LALR reports the end as a $END token instead
        expected, found, column = [], "the end of the line", len(text.rstrip()) + 1
    words = sorted({_describe(parser, t) for t in expected if not t.startswith("WS")})
    detail = f"expected {' or '.join(words)}, found {found}" if words else f"unexpected {found}"
    label = _label(parser, error) or next(
        (label for keyword, label in _DIRECTIVES.items() if text.lstrip().startswith(keyword)), None
    )
    message = f"{label}: {detail}" if label else detail
    return column, message
