"""The diagram finding: a block marked `<!-- gapstate:graph -->` that is not what `gapstate graph` draws."""

from __future__ import annotations

from enum import Enum

from gapstate.findings.record import Cause, Finding, record
from gapstate.words import shell_word


class DiagramProblem(Enum):
    """Why a marked diagram block is stale; each value is its message template."""

    DIFFERS = "the diagram differs from what `gapstate graph --format mermaid` draws for this table; run `{command}`"
    NO_BLOCK = "the line `<!-- gapstate:graph -->` is not followed by a ```mermaid block; run `{command}`"
    UNCLOSED = "the diagram block is never closed; close it with ``` and run `{command}`"


@record
class StaleDiagram(Finding):
    """A diagram block marked `<!-- gapstate:graph -->` that is not what `gapstate graph` draws.

    Under a cause (the table's own mistake made it differ), it says to mend
    that first: redrawn now, it would draw the mistake.
    """

    kind = "stale_diagram"

    reason: DiagramProblem
    path: str  # the spec's, so the fix names the file to redraw, not the project's default

    def describe(self, cause: Cause | None = None) -> str:
        path = shell_word(self.path)
        command = f"gapstate check --fix {path}"
        if cause is not None and self.reason is DiagramProblem.DIFFERS:
            # Redrawn now, the diagram would draw the mistake: the table comes first.
            return (
                "the diagram differs from what `gapstate graph --format mermaid` draws for this table; "
                f"it follows from {cause}: mend that, then run `{command}` if it still differs"
            )
        return self.reason.value.format(command=command) + f" (or `gapstate graph --update --spec {path}`)"
