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
from dataclasses import MISSING, Field, FrozenInstanceError, field
from typing import Any, ClassVar, NamedTuple, TypeVar, cast, dataclass_transform

Valuation = tuple[tuple[str, bool], ...]

T = TypeVar("T")
F = TypeVar("F", bound="Finding")


def own_events(trace: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A finding's trace as events of the reader's own, for its JSON form: a trace that makes its events
    afresh each time it is read (its class says `fresh`, as the proof's `Trace` does) is listed as it
    reads, any other copied event by event (a check of the 10,003-row table lists 854,766 events; copying
    them again was 0.23 s of CPU)."""
    return list(trace) if getattr(trace, "fresh", False) else list(map(dict, trace))


@dataclass_transform(frozen_default=True, eq_default=False, field_specifiers=(field,))
def record(cls: type[T]) -> type[T]:
    """A finding's class as a frozen record compared by identity: two findings with the same fields are
    still two findings, each with its own root.

    Written as a dataclass is (annotated fields after the base's, a class
    value or `field(default=..., default_factory=...)` as the default, a bare
    `field()` for none, ClassVar left out) but made without one: a
    dataclass writes and compiles its `__init__`, `__setattr__` and
    `__delattr__` from source, about half a millisecond a class, and the
    catalogue's classes are made on every `gapstate check` (7 ms of the
    bundled table's 60). Here every record shares one `__init__` that
    reads the class's field list, and one `__setattr__` that refuses.
    """
    names = list(getattr(cls, "_fields", ()))
    defaults: dict[str, Any] = dict(getattr(cls, "_defaults", {}))
    for name, kind in cls.__dict__.get("__annotations__", {}).items():
        if (kind if isinstance(kind, str) else repr(kind)).startswith(("ClassVar", "typing.ClassVar")):
            continue
        if name not in names:
            names.append(name)
        value = cls.__dict__.get(name, MISSING)
        if isinstance(value, Field):
            value = value.default if value.default is not MISSING else (
                _Factory(value.default_factory) if value.default_factory is not MISSING else MISSING)
        if name in cls.__dict__:
            delattr(cls, name)  # the default is the record's, not a class attribute every instance shows
        if value is MISSING:
            defaults.pop(name, None)
        else:
            defaults[name] = value
    required = [name for name in names if name not in defaults]
    if any(names.index(name) > names.index(other) for name in required for other in defaults if other in names):
        raise TypeError(f"{cls.__name__}: a field without a default follows one with a default")
    made: Any = cls
    made._fields, made._defaults = tuple(names), defaults
    made.__init__ = _init
    made.__setattr__ = made.__delattr__ = _refuse
    return cls


class _Factory(NamedTuple):
    """A default made afresh for each record (`field(default_factory=...)`)."""

    make: Any


def _init(self: Any, *args: Any, **given: Any) -> None:
    names, defaults = type(self)._fields, type(self)._defaults
    if len(args) > len(names):
        raise TypeError(f"{type(self).__name__}() takes {len(names)} arguments, {len(args)} given")
    values = dict(zip(names, args, strict=False))
    for name, value in given.items():
        if name not in names or name in values:
            raise TypeError(f"{type(self).__name__}() got an unexpected or repeated argument {name!r}")
        values[name] = value
    for name in names:
        if name not in values:
            if name not in defaults:
                raise TypeError(f"{type(self).__name__}() missing argument {name!r}")
            default = defaults[name]
            values[name] = default.make() if isinstance(default, _Factory) else default
        object.__setattr__(self, name, values[name])


def _refuse(self: Any, name: str, *value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}: a finding is frozen when made")


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

    _fields: ClassVar[tuple[str, ...]] = ()  # the record's fields in order, and their defaults (see `record`)
    _defaults: ClassVar[dict[str, Any]] = {}
    kind: ClassVar[str] = "finding"
    template: ClassVar[str] = ""
    exported: ClassVar[tuple[str, ...]] = ()
    # A trace that replays the finding: only a rule breach has one, as its field. Not annotated here, so
    # that it is no field of the others (a ClassVar would keep its place ahead of `line` in a subclass).
    trace = cast("Sequence[dict[str, Any]]", ())

    line: int
    column: int

    def replaced(self: F, **changes: Any) -> F:
        """The same kind of finding with `changes` made: a new record (this one is frozen)."""
        return type(self)(**{**{name: getattr(self, name) for name in self._fields}, **changes})

    def as_cause(self) -> Cause:
        """How a finding that follows from this one names it."""
        return Cause(self.kind, self.line)

    def parts(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._fields}

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
