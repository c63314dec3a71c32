"""From markdown text to a `Table`, with every syntax problem as a finding.

This is the only module that imports lark. It finds the one fenced block
whose first non-blank line is the header and parses each of its lines on its
own, so one bad row does not hide the next and every error carries the
spec's own line and column.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from lark import Lark, Token, Transformer, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from gapstate.findings import Finding, ParseError, ParseProblem
from gapstate.spec.source import text_lines
from gapstate.spec.table import MAX_CAP_DIGITS, Allowance, Cap, Label, Literal, Name, Row, Table

GRAMMAR = Path(__file__).with_name("table.lark")
HEADER = "# state | event | guards | next | actions"

_OPEN_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")

# Known mistakes, labelled, so that a syntax error says what is probably
# wrong rather than only which token was unexpected. Each example must fail
# the way the mistake it names fails; tests/test_parser.py checks that.
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


class Parsed(NamedTuple):
    """What the text gave: a table when its syntax holds, and the syntax findings."""

    table: Table | None
    findings: tuple[Finding, ...]


@lru_cache(maxsize=1)
def _lark() -> Lark:
    # cache=True keeps lark's grammar analysis in a temp file: loading drops
    # from ~30 ms to ~2 ms, which is most of `gapstate check`'s own time.
    return Lark.open(
        str(GRAMMAR), parser="lalr", start="line", cache=True
    )


class Fenced(NamedTuple):
    """A fenced block: its first content line (1-based), its content lines, its fence, and whether it closes."""

    start: int
    content: list[str]
    fence: str
    closed: bool


def _fenced(lines: list[str]) -> list[Fenced]:
    """Every fenced block, as CommonMark finds them: an unclosed one runs to the end."""
    blocks: list[Fenced] = []
    i = 0
    while i < len(lines):
        match = _OPEN_FENCE.match(lines[i])
        if not match or (match["fence"][0] == "`" and "`" in match["info"]):
            i += 1
            continue
        fence = match["fence"]
        closing = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        start = i + 1
        j = start
        while j < len(lines) and not closing.match(lines[j]):
            j += 1
        blocks.append(Fenced(start + 1, lines[start:j], fence, j < len(lines)))
        i = j + 1
    return blocks


_COLUMNS = tuple(HEADER.lstrip("# ").replace(" ", "").split("|"))


def _is_header(text: str) -> bool:
    """The header exactly, whitespace free."""
    return "".join(text.split()) == "".join(HEADER.split())


def _near_header(text: str) -> bool:
    """A line meant as the header but mistyped: it starts with `#`, has a `|`, and
    names, exactly or nearly (a letter or two off), at least three of the five columns.

    A shell or Python comment (`# replay | count`) names none, so ordinary code
    blocks stay prose; `# state | event | guard | next` is a header mistake.
    """
    head = text.strip()
    if not head.startswith("#") or "|" not in head:
        return False
    import difflib  # here: only a line that looks like a header pays for it

    words = re.findall(r"[a-z_]+", head.lower())
    return sum(1 for column in _COLUMNS if difflib.get_close_matches(column, words, n=1, cutoff=0.8)) >= 3


def find_blocks(lines: list[str], near: bool = False) -> list[tuple[int, int, list[str]]]:
    """Every fenced block whose first non-blank line is the header (or, with `near`, nearly is).

    Returns (first content line number, header line number, content lines)
    for each such block, 1-based.
    """
    found = []
    for start, content, _, _ in _fenced(lines):
        first = next((k for k, text in enumerate(content) if text.strip()), None)
        if first is None:
            continue
        text = content[first]
        if _is_header(text) or (near and _near_header(text)):
            found.append((start, start + first, content))
    return found


def _misplaced_header(lines: list[str]) -> tuple[int, int] | None:
    """(block start, header line) of a fenced block that holds the header below its first line."""
    for start, content, _, _ in _fenced(lines):
        for offset, text in enumerate(content):
            if _is_header(text):
                return start - 1, start + offset
    return None


def parse_text(text: str) -> Parsed:
    """Parse a spec document; never raises on bad content, only returns findings."""
    lines = text_lines(text)
    blocks = find_blocks(lines)
    if not blocks:
        # No header: a block that nearly starts with one is the table with a
        # header mistake, which says more than "no table".
        blocks = find_blocks(lines, near=True)[:1]
    if not blocks:
        misplaced = _misplaced_header(lines)
        if misplaced is not None:
            fence, header = misplaced
            return Parsed(None, (ParseError(header, 1, ParseProblem.MISPLACED_HEADER, other=fence),))
        return Parsed(None, (ParseError(1, 1, ParseProblem.NO_TABLE, detail=HEADER),))
    if len(blocks) > 1:
        first = blocks[0][1]
        return Parsed(
            None,
            tuple(ParseError(header_line, 1, ParseProblem.SECOND_TABLE, other=first) for _, header_line, _ in blocks[1:]),
        )
    start, header_line, content = blocks[0]
    block = next(b for b in _fenced(lines) if b.start == start)
    return _parse_block(start, header_line, content, block)


def _parse_block(start: int, header_line: int, content: list[str], block: Fenced) -> Parsed:
    parser = _lark()
    reader = _LineReader()
    findings: list[Finding] = []
    rows: list[Row] = []
    caps: list[Cap] = []
    allowances: list[Allowance] = []
    labels: list[Label] = []
    first = header_line - start + 1  # offset of the first line after the header
    # A fence inside the block (another character, or shorter) does not close
    # it: the lines after the table up to there would be read as table lines.
    fence_at = next((k for k in range(first, len(content)) if _OPEN_FENCE.match(content[k])), None)
    end = len(content) if fence_at is None else fence_at
    unclosed = _unclosed_finding(parser, start, first, content[:end], block) if (
        fence_at is not None or not block.closed
    ) else None
    if unclosed is not None:
        end = unclosed.line - start
    elif fence_at is not None:
        text = content[fence_at]
        detail = (
            f"this fence does not close the block opened with {block.fence} at line {start - 1}; "
            f"close it with {block.fence} (the same character, at least as many)"
        )
        unclosed = ParseError(start + fence_at, len(text) - len(text.lstrip()) + 1, ParseProblem.SYNTAX, detail=detail)
    if not _is_header(content[header_line - start]):
        findings.append(_header_finding(content[header_line - start], header_line))
    for offset in range(first, end):
        text = content[offset]
        number = start + offset
        if not text.strip():
            continue
        item = _parse_line(parser, reader, text, number)
        if isinstance(item, ParseError):
            findings.append(item)
        elif isinstance(item, Row):
            rows.append(item)
        elif isinstance(item, Cap):
            caps.append(item)
        elif isinstance(item, Allowance):
            allowances.append(item)
        elif isinstance(item, Label):
            labels.append(item)
    if unclosed is not None:
        findings.append(unclosed)
    if findings:
        # What did parse is kept, so the summary can say what was read.
        partial = Table.build(header_line, tuple(rows), tuple(caps), tuple(allowances), tuple(labels)) if rows else None
        return Parsed(partial, tuple(findings))
    if not rows:
        return Parsed(None, (ParseError(header_line, 1, ParseProblem.NO_ROWS),))
    return Parsed(Table.build(header_line, tuple(rows), tuple(caps), tuple(allowances), tuple(labels)), ())


def _parse_line(parser: Lark, reader: "_LineReader", text: str, number: int) -> Row | Cap | Allowance | ParseError | None:
    """One table line as what it declares (None for a comment), or the syntax finding it earns."""
    problem = _line_problem(text)
    if problem is None:
        try:
            tree = parser.parse(text)
        except UnexpectedInput as error:
            problem = _syntax_problem(parser, error, text)
    if problem is not None:
        column, detail = problem
        return ParseError(number, column, ParseProblem.SYNTAX, detail=detail)
    reader.number = number
    return reader.transform(tree)


def _unclosed_finding(parser: Lark, start: int, first: int, content: list[str], block: Fenced) -> ParseError | None:
    """The one finding for a block not closed where its table ends, or None when no prose follows the rows.

    The table's rows end at the last line that reads as a row or directive;
    the first non-blank line after them, when some line after them does not
    read as a table line, is where the closing fence is missing. Reporting
    each prose line as a syntax error would bury this, the real error.
    """
    reader = _LineReader()
    read = [
        (k, _parse_line(parser, reader, content[k], start + k))
        for k in range(first, len(content))
        if content[k].strip()
    ]
    last = max((k for k, item in read if isinstance(item, (Row, Cap, Allowance, Label))), default=first - 1)
    if not any(isinstance(item, ParseError) for k, item in read if k > last):
        return None
    at = next(k for k, _ in read if k > last)
    text = content[at]
    rows_end = f"the table's rows seem to end at line {start + last}, so " if last >= first else ""
    detail = (
        f"the block opened with {block.fence} at line {start - 1} is never closed; {rows_end}the text "
        f"from here on is read as table lines; close the block with {block.fence}"
    )
    return ParseError(start + at, len(text) - len(text.lstrip()) + 1, ParseProblem.SYNTAX, detail=detail)


class _Guard(NamedTuple):
    literal: Literal
    name: Token
    column: int  # where the literal starts, its '!' included


class _Guards(NamedTuple):
    literals: tuple[Literal, ...]
    names: tuple[Name, ...]
    column: int


class _LineReader(Transformer):
    """One method per grammar rule: a parsed line becomes a Row, Cap, Allowance, or None for a comment.

    `number` is the spec line being read, set before each transform.
    """

    number = 0

    def line(self, children: list) -> Row | Cap | Allowance | None:
        item = children[0]
        return None if isinstance(item, Token) else item

    def cap(self, children: list) -> Cap:
        name, value = children
        # Past MAX_CAP_DIGITS digits the number is not converted (Python
        # refuses numbers of 4,300 digits): None stands for it, and is refused.
        limit = int(value) if len(value) <= MAX_CAP_DIGITS else None
        return Cap(self.number, str(name), limit, name.column)

    def label(self, children: list) -> Label:
        (name,) = children
        return Label(self.number, str(name), name.column)

    def allow(self, children: list) -> Allowance:
        state, event, guards = children
        names = [Name("state", str(state), state.column)] if state.type == "NAME" else []
        names.append(Name("event", str(event), event.column))
        names.extend(guards.names)
        return Allowance(self.number, str(state), str(event), guards.literals, tuple(names))

    def row(self, children: list) -> Row:
        state, event, guards, target, actions = children
        names = [Name("state", str(state), state.column)] if state.type == "NAME" else []
        names.append(Name("event", str(event), event.column))
        names.extend(guards.names)
        if target.type == "NAME":
            names.append(Name("next state", str(target), target.column))
        names.extend(Name("action", str(a), a.column) for a in actions)
        return Row(
            line=self.number,
            state=str(state),
            event=str(event),
            guards=guards.literals,
            next=str(target),
            actions=tuple(str(a) for a in actions),
            names=tuple(names),
            guards_column=guards.column,
        )

    def state(self, children: list) -> Token:
        return children[0]

    def event(self, children: list) -> Token:
        return children[0]

    def guards(self, children: list) -> _Guards:
        if isinstance(children[0], Token):  # the lone '-'
            return _Guards((), (), children[0].column)
        return _Guards(
            tuple(g.literal for g in children),
            tuple(Name("guard", str(g.name), g.name.column) for g in children),
            children[0].column,
        )

    def literal(self, children: list) -> _Guard:
        name = children[-1]
        positive = len(children) == 1
        return _Guard(Literal(str(name), positive=positive), name, name.column - (0 if positive else 1))

    def next(self, children: list) -> Token:
        return children[0]

    def actions(self, children: list) -> tuple[Token, ...]:
        return tuple(children)


_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def _line_problem(text: str) -> tuple[int, str] | None:
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


def _header_finding(text: str, line: int) -> ParseError:
    """What is wrong with a line meant as the header, column by column, in the header's words."""
    start = text.index("#") + 1
    cells: list[tuple[int, str]] = []  # (1-based column, text) of each cell
    for part in text[start:].split("|"):
        cells.append((start + len(part) - len(part.lstrip()) + 1, part.strip()))
        start += len(part) + 1
    for index, expected in enumerate(_COLUMNS):
        if index >= len(cells):
            column, what = len(text.rstrip()) + 1, f"the '{expected}' column is missing"
            return ParseError(line, column, ParseProblem.BAD_HEADER, detail=what)
        column, found = cells[index]
        if found != expected:
            what = (
                f"the '{expected}' column is missing"
                if found in _COLUMNS[index + 1 :]
                else f"'{found}' where '{expected}' belongs" if found else f"the '{expected}' column is empty"
            )
            return ParseError(line, column, ParseProblem.BAD_HEADER, detail=what)
    column, found = cells[len(_COLUMNS)]
    what = f"'{found}' after 'actions'; the header has five columns"
    return ParseError(line, column, ParseProblem.BAD_HEADER, detail=what)


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


def _syntax_problem(parser: Lark, error: UnexpectedInput, text: str) -> tuple[int, str]:
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
        found = f"'{text[error.pos_in_stream]}'"
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


def parse_address(text: str) -> tuple[str, str, tuple[Literal, ...]]:
    """`STATE | EVENT | GUARDS` (a row's address, as `@unreachable` writes it) as its parts.

    Raises GapstateError with the column (counted from the start of `text`)
    and the parser's diagnostic when the address is malformed.
    """
    from gapstate.errors import GapstateError

    prefix = "@unreachable "
    parser = _lark()
    try:
        tree = parser.parse(prefix + text, start="line")
    except UnexpectedInput as error:
        column, message = _syntax_problem(parser, error, prefix + text)
        message = message.replace("'@unreachable' takes", "a row's address is")
        raise GapstateError(message, column=max(1, column - len(prefix))) from None
    item = _LineReader().transform(tree)
    if not isinstance(item, Allowance):
        raise GapstateError("a row's address is state | event | guards", column=1)
    return item.state, item.event, item.guards
