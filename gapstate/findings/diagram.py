"""The diagram finding: a block marked `<!-- gapstate:graph -->` that is not what `gapstate graph` draws."""

from __future__ import annotations

from enum import Enum

from gapstate.findings.record import Finding
from gapstate.words import shell_word


class DiagramProblem(Enum):
    """Why a marked diagram block is stale; each value is its message template."""

    DIFFERS = "the diagram differs from what `gapstate graph --format mermaid` draws for this table; run `{command}`"
    NO_BLOCK = "the line `<!-- gapstate:graph -->` is not followed by a ```mermaid block; run `{command}`"
    UNCLOSED = "the diagram block is never closed; close it with ``` and run `{command}`"


class StaleDiagram(Finding):
    """A diagram block marked `<!-- gapstate:graph -->` that is not what `gapstate graph` draws."""

    kind = "stale_diagram"
    __slots__ = ("reason", "path")

    def __init__(self, line: int, column: int, reason: DiagramProblem, path: str):
        super().__init__(line, column)
        self.reason = reason
        self.path = path  # the spec's, so the fix names the file to redraw, not the project's default

    @property
    def message(self) -> str:
        path = shell_word(self.path)
        return self.reason.value.format(command=f"gapstate check --fix {path}") + (
            f" (or `gapstate graph --update --spec {path}`)"
        )
