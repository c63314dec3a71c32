"""The one exception gapstate raises for input it cannot use."""

from __future__ import annotations


class GapstateError(Exception):
    """Input that cannot be used at all, with the file, line and column that say why."""

    def __init__(
        self,
        message: str,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        problems: tuple = (),
    ):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.problems = problems  # several at once, when the input is wrong in several places

    def __str__(self) -> str:
        where = [str(p) for p in (self.file, self.line, self.column) if p is not None]
        return f"{':'.join(where)}: {self.message}" if where else self.message
