"""What every finding is: a kind, a spec line and column, a message, and the root it follows from.

`Finding` is the record each kind of the catalogue (`gapstate.findings`)
subclasses; `Cause` is how a finding that follows from another names that
root.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, NamedTuple

Valuation = tuple[tuple[str, bool], ...]


def valuation_text(valuation: Valuation) -> str:
    shown = ", ".join(f"{g}={'true' if v else 'false'}" for g, v in valuation)
    return f" when {shown}" if shown else ""


class Cause(NamedTuple):
    """The root finding another finding follows from: its kind and line, and what else names it.

    A hole is named by its `state`, `event` and `guards` (a row's address:
    `-` or `a,!b`); a broken rule by its `rule`. Fields that do not apply
    are None and stay out of the JSON.
    """

    kind: str
    line: int
    state: str | None = None
    event: str | None = None
    guards: str | None = None
    rule: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {name: value for name, value in self._asdict().items() if value is not None}

    def __str__(self) -> str:
        if self.kind == "not_total":
            return f"the hole at {self.state} | {self.event} | {self.guards} (line {self.line})"
        if self.kind == "rule":
            return f"the {self.rule} breach at line {self.line}"
        return f"the {self.kind} finding at line {self.line}"


class Finding:
    """A defect of the spec at one line; subclasses say which kind and hold its fields.

    `template` is formatted with `parts()`: the record's own fields, plus
    whatever a subclass derives from them. The fields named in `exported`
    go into the JSON form, as `export()` gives them. `cause` is None for a
    root, and for a finding that only follows from another (a row cut off
    by a hole, a rule broken only past another breach) that root's `Cause`:
    fixing the root is what fixes it.
    """

    kind: ClassVar[str] = "finding"
    template: ClassVar[str] = ""
    exported: ClassVar[tuple[str, ...]] = ()
    trace: Sequence[dict[str, Any]] = ()  # a trace that replays the finding: only a rule breach has one
    __slots__ = ("line", "column", "cause")

    def __init__(self, line: int, column: int = 1):
        self.line = line
        self.column = column
        self.cause: Cause | None = None

    def as_cause(self) -> Cause:
        """How a finding that follows from this one names it."""
        return Cause(self.kind, self.line)

    def parts(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in type(self).__slots__}

    @property
    def message(self) -> str:
        return self.template.format(**self.parts())

    def export(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.exported}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "line": self.line,
            "column": self.column,
            "message": self.message,
        }
        out.update(self.export())
        out["cause"] = self.cause.to_dict() if self.cause is not None else None
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(line={self.line}, column={self.column}, message={self.message!r})"

    @property
    def sort_key(self) -> tuple[int, int, int, str]:
        from gapstate.findings import KINDS  # the catalogue, built on this record

        return (self.line, self.column, KINDS.index(self.kind), self.message)
