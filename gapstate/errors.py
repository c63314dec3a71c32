"""The one exception gapstate raises for input it cannot use, and the record it carries."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One place the input is wrong: its line and column, what is wrong, and how to show it.

    A trace's malformed line carries `text`, the line as written (quoted
    with a caret under the column); a report's problem carries `path`, the
    JSON path it concerns.
    """

    message: str
    line: int | None = None
    column: int | None = None
    path: str | None = None
    text: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"line": self.line, "column": self.column}
        if self.path is not None:
            out["path"] = self.path
        out["message"] = self.message
        if self.text is not None:
            out["text"] = self.text
        return out

    def __str__(self) -> str:
        """`arms[1].kind: expected ...` or `3:7: expected ...`: where, then what."""
        where = self.path if self.path is not None else ":".join(str(p) for p in (self.line, self.column) if p is not None)
        return f"{where}: {self.message}" if where else self.message


@dataclass(frozen=True)
class Unusable:
    """Why input cannot be used: the file, line and column that say why, every problem found, what a child wrote."""

    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    problems: tuple[Any, ...] = ()  # several at once, when the input is wrong in several places
    output: tuple[str, ...] = ()  # lines a program gapstate ran wrote (an adapter's stderr), as written

    def __str__(self) -> str:
        where = [str(p) for p in (self.file, self.line, self.column) if p is not None]
        return f"{':'.join(where)}: {self.message}" if where else self.message

    def to_dict(self) -> dict[str, Any]:
        """As the JSON documents give it: file, line, column, message (and the problems, if any)."""
        out: dict[str, Any] = {"file": self.file, "line": self.line, "column": self.column, "message": self.message}
        if self.problems:
            out["problems"] = [problem.to_dict() for problem in self.problems]
        if self.output:
            out["output"] = list(self.output)
        return out


class GapstateError(Exception):
    """Input that cannot be used at all; `record` says where and why (an `Unusable`)."""

    def __init__(
        self,
        message: str,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        problems: tuple = (),
        output: tuple[str, ...] = (),
    ):
        super().__init__(message)
        self.record = Unusable(message, file, line, column, tuple(problems), tuple(output))

    @property
    def message(self) -> str:
        return self.record.message

    @property
    def file(self) -> str | None:
        return self.record.file

    @property
    def line(self) -> int | None:
        return self.record.line

    @property
    def column(self) -> int | None:
        return self.record.column

    @property
    def problems(self) -> tuple[Any, ...]:
        return self.record.problems

    def replaced(self, **changes: Any) -> GapstateError:
        """The same error with some of its record's fields changed: a new exception, this one unchanged."""
        record = replace(self.record, **changes)
        return GapstateError(record.message, record.file, record.line, record.column, record.problems, record.output)

    def noted(self, note: str) -> GapstateError:
        """The same error, its message followed by `note`."""
        return self.replaced(message=self.record.message + note)

    def __str__(self) -> str:
        """The record's one line, then what a child wrote, line by line (the CLI escapes each: `render.errors`)."""
        return "\n".join([str(self.record), *(f"    {line}" for line in self.record.output)])
