"""Unusable input: where and why, quoting the line."""

from __future__ import annotations

from typing import Any

from gapstate.cli.render import to_json


def error_text(error: Any, problems: tuple[Any, ...] | None = None) -> str:
    """What stderr says about input that cannot be used: where and why, then each problem.

    A report's problems are named by their JSON path; a trace's malformed
    lines are quoted with a caret under the column.
    """
    lines = [f"gapstate: error: {error}"]
    for p in problems or ():
        if hasattr(p, "path"):
            lines.append(f"{error.file}:{p.line}:{p.column}: {p.path}: {p.message}")
            continue
        if not (len(problems or ()) == 1 and error.line == p.line):  # else the first line said it
            lines.append(f"{error.file}:{p.line}" + (f":{p.column}" if p.column else "") + f": {p.message}")
        lines.extend(quote(p.line, p.text, p.column))
    return "\n".join(lines)


QUOTE_WIDTH = 100


def quote(line: int, text: str, column: int | None) -> list[str]:
    """The line as written, and a caret under the column, as ruff and rustc show them.

    A long line is cut to a window around the column.
    """
    text = text.replace("\t", " ")
    at = column or 0
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


def error_json(error: Any, problems: tuple[Any, ...] | None = None) -> str:
    """The document stdout gets instead: {"ok": false, "error": {file, line, column, message[, problems]}}."""
    detail = error_detail(error)
    if problems is not None:
        detail["problems"] = [problem.to_dict() for problem in problems]
    return to_json({"ok": False, "error": detail})


def error_detail(error: Any) -> dict[str, Any]:
    """Unusable input as the JSON documents give it: file, line, column, message."""
    return {"file": error.file, "line": error.line, "column": error.column, "message": error.message}
