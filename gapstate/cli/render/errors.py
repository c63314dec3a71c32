"""Unusable input: where and why, quoting the line."""

from __future__ import annotations

from gapstate.cli.output import escape
from gapstate.cli.render import to_json
from gapstate.errors import GapstateError, Unusable
from gapstate.words import WIDTH


def error_text(error: Unusable | GapstateError) -> str:
    """What stderr says about input that cannot be used: where and why, then each problem.

    A report's problems are named by their JSON path; a trace's malformed
    lines are quoted with a caret under the column; what a program gapstate
    ran wrote (an adapter's traceback) follows line by line, each escaped
    and indented under the message. Each problem is one line, however long:
    scripts match them whole (docs/cli.md, Output).
    """
    error = error.record if isinstance(error, GapstateError) else error
    problems = error.problems
    lines = [f"gapstate: error: {escape(error)}"]
    lines.extend(f"    {escape(line)}" for line in error.output)
    for p in problems:
        if p.path is not None:
            lines.append(f"{escape(error.file)}:{p.line}:{p.column}: {escape(p.path)}: {escape(p.message)}")
            continue
        if not (len(problems) == 1 and error.line == p.line):  # else the first line said it
            lines.append(f"{escape(error.file)}:{p.line}" + (f":{p.column}" if p.column else "") + f": {escape(p.message)}")
        if p.text is not None:
            lines.extend(quote(p.line, p.text, p.column))
    return "\n".join(lines)


QUOTE_WIDTH = WIDTH - 14  # the window of a long line: with the gutter of a line up to 99999 and two `…`, within WIDTH


def quote(line: int, text: str, column: int | None) -> list[str]:
    """The line as written, and a caret under the column, as ruff and rustc show them.

    A long line is cut to a window around the column; what it holds is
    escaped, the caret kept under the same character.
    """
    text = text.replace("\t", " ")
    at = column or 0
    if at:
        at = len(escape(text[: at - 1])) + 1
    text = escape(text)
    if len(text) > QUOTE_WIDTH:
        start = max(0, min(at - QUOTE_WIDTH // 2, len(text) - QUOTE_WIDTH))
        shown = ("…" if start else "") + text[start : start + QUOTE_WIDTH] + ("…" if start + QUOTE_WIDTH < len(text) else "")
        at = at - start + (1 if start else 0)
    else:
        shown = text
    gutter = " " * len(str(line))
    out = [f"  {line} | {shown}"]
    if at:
        out.append(f"  {gutter} | {' ' * (at - 1)}^")
    return out


def error_json(error: Unusable) -> str:
    """The document stdout gets instead: {"ok": false, "error": {file, line, column, message[, problems]}}."""
    return to_json({"ok": False, "error": error.to_dict()})
