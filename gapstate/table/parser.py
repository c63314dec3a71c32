"""From markdown text to a `Table`, with every syntax problem as a finding.

With its table of labelled mistakes (`mistakes`), the only module that
imports lark. It takes the one fenced block whose first non-blank line is
the header (`blocks`) and parses each of its lines on its own, so one bad
row does not hide the next and every error carries the spec's own line and
column.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from lark import Lark, Token, Transformer, UnexpectedInput

from gapstate.files.source import text_lines
from gapstate.findings import Finding, ParseError, ParseProblem
from gapstate.table.blocks import (
    HEADER,
    OPEN_FENCE,
    Fenced,
    fenced,
    find_blocks,
    header_finding,
    is_header,
    misplaced_header,
)
from gapstate.table.mistakes import line_problem, syntax_problem
from gapstate.table.model import MAX_CAP_DIGITS, Allowance, Cap, Label, Literal, Name, Row, Table

GRAMMAR = Path(__file__).with_name("table.lark")


class Parsed(NamedTuple):
    """What the text gave: a table when its syntax holds, and the syntax findings."""

    table: Table | None
    findings: tuple[Finding, ...]


@lru_cache(maxsize=1)
def _lark() -> Lark:
    # cache=True keeps lark's grammar analysis in a temp file: loading drops
    # from ~30 ms to ~2 ms, which is most of `gapstate check`'s own time.
    # The reader rides along as lark's embedded transformer: each rule becomes
    # its record as it is reduced, with no parse tree built and walked after
    # (a third of the parsing time of a 10,000-row table). `parse` then
    # returns the line's record; `_read` sets the line number it carries.
    return Lark.open(
        str(GRAMMAR), parser="lalr", start="line", cache=True, transformer=_LineReader()
    )


def _read(parser: Lark, text: str, number: int) -> Row | Cap | Allowance | Label | None:
    """The record for one table line; raises lark's UnexpectedInput when it does not parse."""
    _here.number = number
    return parser.parse(text)  # type: ignore[return-value]  # the embedded transformer's record, not a Tree


_here = threading.local()  # the line `_read` is reading, per thread: the reader is shared through the cached parser


def parse_text(text: str) -> Parsed:
    """Parse a spec document; never raises on bad content, only returns findings."""
    lines = text_lines(text)
    blocks = find_blocks(lines)
    if not blocks:
        # No header: a block that nearly starts with one is the table with a
        # header mistake, which says more than "no table".
        blocks = find_blocks(lines, near=True)[:1]
    if not blocks:
        misplaced = misplaced_header(lines)
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
    block = next(b for b in fenced(lines) if b.start == start)
    return _parse_block(start, header_line, content, block)


def _parse_block(start: int, header_line: int, content: list[str], block: Fenced) -> Parsed:
    findings: list[Finding] = []
    rows: list[Row] = []
    caps: list[Cap] = []
    allowances: list[Allowance] = []
    labels: list[Label] = []
    first = header_line - start + 1  # offset of the first line after the header
    # A fence inside the block (another character, or shorter) does not close
    # it: the lines after the table up to there would be read as table lines.
    fence_at = next((k for k in range(first, len(content)) if OPEN_FENCE.match(content[k])), None)
    end = len(content) if fence_at is None else fence_at
    unclosed = _unclosed_finding(start, first, content[:end], block) if (
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
    if not is_header(content[header_line - start]):
        findings.append(header_finding(content[header_line - start], header_line))
    for offset in range(first, end):
        text = content[offset]
        number = start + offset
        if not text.strip():
            continue
        item = _parse_line(text, number)
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


def _parse_line(text: str, number: int) -> Row | Cap | Allowance | Label | ParseError | None:
    """One table line as what it declares (None for a comment), or the syntax finding it earns."""
    item = _read_line(text, number)
    if isinstance(item, _Problem):
        return ParseError(number, item.column, ParseProblem.SYNTAX, detail=item.detail)
    return item


class _Problem(NamedTuple):
    """Why a line does not parse: where, and the parser's diagnostic."""

    column: int
    detail: str


@lru_cache(maxsize=4096)
def _read_line(text: str, number: int) -> Row | Cap | Allowance | Label | _Problem | None:
    """`_parse_line`'s work, kept: a spec is often read again with most lines unchanged.

    `diff` reads two versions of one table, `--fix` reads its spec again, and
    the API's users check one spec many times; each line then costs lark once.
    What is kept is immutable (NamedTuples); the finding is made afresh.
    """
    parser = _lark()
    problem = line_problem(text)
    if problem is None:
        try:
            return _read(parser, text, number)
        except UnexpectedInput as error:
            problem = syntax_problem(parser, error, text)
    return _Problem(*problem)


def _unclosed_finding(start: int, first: int, content: list[str], block: Fenced) -> ParseError | None:
    """The one finding for a block not closed where its table ends, or None when no prose follows the rows.

    The table's rows end at the last line that reads as a row or directive;
    the first non-blank line after them, when some line after them does not
    read as a table line, is where the closing fence is missing. Reporting
    each prose line as a syntax error would bury this, the real error.
    """
    read = [
        (k, _parse_line(content[k], start + k))
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

    `number` is the spec line being read, set before each parse (`_read`),
    kept per thread so that threads may parse at once.
    """

    @property
    def number(self) -> int:
        return getattr(_here, "number", 0)

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
            assert children[0].column is not None, "the lexer places every token"
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


def parse_address(text: str) -> tuple[str, str, tuple[Literal, ...]]:
    """`STATE | EVENT | GUARDS` (a row's address, as `@unreachable` writes it) as its parts.

    Raises GapstateError with the column (counted from the start of `text`)
    and the parser's diagnostic when the address is malformed.
    """
    from gapstate.errors import GapstateError

    prefix = "@unreachable "
    parser = _lark()
    try:
        item = _read(parser, prefix + text, 0)
    except UnexpectedInput as error:
        column, message = syntax_problem(parser, error, prefix + text)
        message = message.replace("'@unreachable' takes", "a row's address is")
        raise GapstateError(message, column=max(1, column - len(prefix))) from None
    if not isinstance(item, Allowance):
        raise GapstateError("a row's address is state | event | guards", column=1)
    return item.state, item.event, item.guards
