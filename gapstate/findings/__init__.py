"""The catalogue of what `gapstate check` can find wrong with a table.

One small class per kind, as in pyflakes' messages: each record has its
spec line and column, its own named fields and a message template that only
it fills in, so the proof and the spec only append records, a misspelt field
fails where the record is built, and only the CLI decides how to show them.
`kind` is the stable name used in JSON output and in tests; it is never
reused for something else. Where one kind has several causes (a bad cap, a
stale allowance, a parse error), the cause is a member of a small Enum whose
value is the template. Plain slotted classes rather than dataclasses: they
cost nothing to define, and this package is on the path of every
`gapstate check`.

`record` holds what every finding is (`Finding`, `Cause`); the kinds are in
`syntax` (the text and its names), `proof` (the table's behaviour) and
`diagram` (the marked diagram block). Import them from here.
"""

from __future__ import annotations

from gapstate.findings.diagram import DiagramProblem, StaleDiagram
from gapstate.findings.proof import (
    AllowanceProblem,
    Ambiguous,
    Contradiction,
    NotTotal,
    RuleBroken,
    StaleAllowance,
    Unreachable,
)
from gapstate.findings.record import Cause, Finding, Valuation
from gapstate.findings.syntax import BadCap, CapProblem, ParseError, ParseProblem, UnknownName

__all__ = [
    "AllowanceProblem", "Ambiguous", "BadCap", "CATALOGUE", "CapProblem", "Cause", "Contradiction", "DiagramProblem",
    "Finding", "KINDS", "NotTotal", "ParseError", "ParseProblem", "RuleBroken", "StaleAllowance", "StaleDiagram",
    "Unreachable", "UnknownName", "Valuation",
]

CATALOGUE: tuple[type[Finding], ...] = (
    ParseError,
    UnknownName,
    BadCap,
    Contradiction,
    NotTotal,
    Ambiguous,
    Unreachable,
    StaleAllowance,
    RuleBroken,
    StaleDiagram,
)
KINDS: tuple[str, ...] = tuple(cls.kind for cls in CATALOGUE)
