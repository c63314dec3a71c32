"""The catalogue of what `gapstate check` can find wrong with a table.

One small class per kind, as in pyflakes' messages: each record has its
spec line and column, its own named fields and a message template that only
it fills in, so the proof and the spec only append records, a misspelt field
fails where the record is built, and only the CLI decides how to show them.
Records are frozen when made: which finding follows from which is held by
the check result, beside them, never written into them.
`kind` is the stable name used in JSON output and in tests; it is never
reused for something else. Where one kind has several causes (a bad cap, a
stale allowance, a parse error), the cause is a member of a small Enum whose
value is the template; why a row never fires is a reason record
(`NeverEntered`, `GuardsNeverHold`, `TakenEarlier`) the proof gives and
the record puts into words. Frozen dataclasses compared by
identity: defining the catalogue's records costs about 7 ms, on the
path of every `gapstate check`.

`record` holds what every finding is (`Finding`, `Cause`); the kinds are in
`syntax` (the text and its names), `proof` (the table's behaviour),
`progress` (gaps that cannot end, loops that send), `diagram` (the
marked diagram block) and `generated` (a generated decider made from
another version of the spec). Import them from here.
"""

from __future__ import annotations

from gapstate.findings.diagram import DiagramProblem, StaleDiagram
from gapstate.findings.generated import GeneratedProblem, StaleGenerated
from gapstate.findings.progress import RetryLoop, StuckGap
from gapstate.findings.proof import (
    AllowanceProblem,
    Ambiguous,
    Contradiction,
    GuardsNeverHold,
    NeverEntered,
    NeverFires,
    NotTotal,
    RuleBroken,
    StaleAllowance,
    TakenEarlier,
    Unreachable,
)
from gapstate.findings.record import Cause, Finding, Valuation
from gapstate.findings.syntax import (
    BadCap,
    CapProblem,
    ParseError,
    ParseProblem,
    UnknownName,
)

__all__ = [
    "CATALOGUE",
    "KINDS",
    "AllowanceProblem",
    "Ambiguous",
    "BadCap",
    "CapProblem",
    "Cause",
    "Contradiction",
    "DiagramProblem",
    "Finding",
    "GeneratedProblem",
    "GuardsNeverHold",
    "NeverEntered",
    "NeverFires",
    "NotTotal",
    "ParseError",
    "ParseProblem",
    "RetryLoop",
    "RuleBroken",
    "StaleAllowance",
    "StaleDiagram",
    "StaleGenerated",
    "StuckGap",
    "TakenEarlier",
    "UnknownName",
    "Unreachable",
    "Valuation",
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
    StuckGap,
    RetryLoop,
    StaleDiagram,
    StaleGenerated,
)
KINDS: tuple[str, ...] = tuple(cls.kind for cls in CATALOGUE)
