"""What every finding is: a kind, a spec line and column, a message, and how another finding names it.

`Finding` is the frozen record each kind of the catalogue (`gapstate.findings`)
subclasses: made once, by the proof or the parser, and never changed after.
Which finding follows from which is not a field of either: the check result
holds it (`CheckResult.causes`), and a finding's words under a root are
`describe(cause)`. `Cause` is how a finding that follows from another names
that root.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar, NamedTuple, TypeVar, cast, dataclass_transform

Valuation = tuple[tuple[str, bool], ...]

T = TypeVar("T")


@dataclass_transform(frozen_default=True, eq_default=False)
def record(cls: type[T]) -> type[T]:
    """A finding's class as a frozen dataclass compared by identity: two findings with the same fields are
    still two findings, each with its own root. Not slotted: a slotted dataclass is a copy of its class,
    which a bare super() does not find."""
    return dataclass(frozen=True, eq=False, repr=False)(cls)


def valuation_text(valuation: Valuation) -> str:
    shown = ", ".join(f"{g}={'true' if v else 'false'}" for g, v in valuation)
    return f" when {shown}" if shown else ""


class Cause(NamedTuple):
    """The root finding another finding follows from: its kind and line, and what else names it.

    A hole is named by its `state`, `event` and `guards` (a row's address:
    `-` or `a,!b`); a broken rule by its `rule`. Fields that do not apply
    are None and stay out of the JSON. `also` names the other roots of a
    finding that only mending them all mends (JSON `with`), empty for most.
    """

    kind: str
    line: int
    state: str | None = None
    event: str | None = None
    guards: str | None = None
    rule: str | None = None
    also: tuple[Cause, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {name: value for name, value in self._asdict().items() if value is not None and name != "also"}
        if self.also:
            out["with"] = [other.to_dict() for other in self.also]
        return out

    def __str__(self) -> str:
        together = "".join(f" together with {other}" for other in self.also)
        if self.kind == "not_total":
            return f"the hole at {self.state} | {self.event} | {self.guards} (line {self.line}){together}"
        if self.kind == "rule":
            return f"the {self.rule} breach at line {self.line}{together}"
        return f"the {self.kind} finding at line {self.line}{together}"


@record
class Finding:
    """A defect of the spec at one line; subclasses say which kind and hold its fields.

    `template` is formatted with `parts()`: the record's own fields, plus
    whatever a subclass derives from them. The fields named in `exported`
    go into the JSON form, as `export()` gives them. A finding that only
    follows from another (a row cut off by a hole, a rule broken only past
    another breach) is told with that root's `Cause` (`describe(cause)`,
    `to_dict(cause)`): fixing the root is what fixes it, so its words give
    no advice of their own.
    """

    kind: ClassVar[str] = "finding"
    template: ClassVar[str] = ""
    exported: ClassVar[tuple[str, ...]] = ()
    # A trace that replays the finding: only a rule breach has one, as its field. Not annotated here, so
    # that it is no field of the others (a ClassVar would keep its place ahead of `line` in a subclass).
    trace = cast("Sequence[dict[str, Any]]", ())

    line: int
    column: int

    def as_cause(self) -> Cause:
        """How a finding that follows from this one names it."""
        return Cause(self.kind, self.line)

    def parts(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def describe(self, cause: Cause | None = None) -> str:
        """The message, as a root (`cause` None) or under the root `cause` names."""
        return self.template.format(**self.parts())

    @property
    def message(self) -> str:
        """The message as a root."""
        return self.describe(None)

    def export(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.exported}

    def to_dict(self, cause: Cause | None = None) -> dict[str, Any]:
        """The JSON form; `cause` is the root it follows from (null for a root)."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "line": self.line,
            "column": self.column,
            "message": self.describe(cause),
        }
        out.update(self.export())
        out["cause"] = cause.to_dict() if cause is not None else None
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(line={self.line}, column={self.column}, message={self.message!r})"

    @property
    def sort_key(self) -> tuple[int, int, int, str]:
        from gapstate.findings import KINDS  # the catalogue, built on this record

        return (self.line, self.column, KINDS.index(self.kind), self.message)
