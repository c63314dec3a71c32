"""`gapstate explain`: one row, in a reviewer's terms.

When it fires (how many reachable configurations fire it, and its guards'
meanings from the vocabulary), what it does to the state, the counters and
the debt, which rules concern it and whether it keeps them on every
reachable step, a shortest trace that fires it, and for a row that never
fires, why. Everything comes from the vocabulary and the
proof's graph (through `witness.Ways`); nothing here is written per row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gapstate.seeing.witness import Ways, witness
from gapstate.table.model import STAY, Row
from gapstate.table.rules import RULES
from gapstate.table.vocabulary import ENDINGS, EVENTS, GUARDS, WRITE_OFFS, action, field_words, guard_words


@dataclass(frozen=True)
class RuleNote:
    """A rule that concerns the row, and on how many of its reachable steps it breaks."""

    id: str
    description: str
    every_step: bool  # the rule is checked on every step, not only on this row's event or actions
    checked: int  # reachable steps firing the row, each checked against the rule
    broken: int  # of those, the ones that break it
    guarded_by: str | None = None  # a guard literal of the row that keeps the rule by itself

    @property
    def kept(self) -> bool | None:
        """True when no reachable step firing the row breaks it; None when the row never fires."""
        return None if not self.checked else not self.broken

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "description": self.description,
            "kept": self.kept,
            "checked_steps": self.checked,
            "broken_steps": self.broken,
            "guarded_by": self.guarded_by,
        }


@dataclass(frozen=True)
class Explanation:
    """Everything `gapstate explain` says about one row, shaped like its JSON output."""

    spec: str
    row: Row
    status: str  # witness.FIRES, witness.REFUSED or witness.UNREACHABLE
    allowed: bool  # allow-listed with @unreachable
    configurations: int  # reachable configurations from which the row fires (or refuses)
    steps: int  # reachable steps (configuration, event, chosen guard) that match it
    guards: tuple[tuple[str, str], ...]  # (literal, meaning)
    effects: tuple[str, ...]
    rules: tuple[RuleNote, ...]
    trace: tuple[dict[str, Any], ...] | None
    reason: str | None  # why it never fires, or why its event is refused

    def to_dict(self) -> dict[str, Any]:
        row = self.row
        return {
            "ok": True,  # any row of the table is explained, reachable or not
            "spec": self.spec,
            "row": row.line,
            "text": str(row),
            "state": row.state,
            "event": row.event,
            "guards": {lit.guard: lit.positive for lit in row.guards},
            "next": row.next,
            "actions": list(row.actions),
            "status": self.status,
            "allowed_unreachable": self.allowed,
            "configurations": self.configurations,
            "steps": self.steps,
            "when": [{"guard": literal, "meaning": meaning} for literal, meaning in self.guards],
            "effects": list(self.effects),
            "rules": [note.to_dict() for note in self.rules],
            "trace": list(self.trace) if self.trace is not None else None,
            "reason": self.reason,
        }


def explain(ways: Ways, row: Row, state: str | None = None) -> Explanation:
    """What `row` means and does (in `state`, for a `*` row asked of one), from the vocabulary and the proof's graph."""
    found = witness(ways, row, state)
    firings = ways.of(row, state)
    machine = ways.machine
    broken: dict[str, int] = {}
    for way in firings:
        for rule_id in machine.step(way.config, *way.sent).broken:
            broken[rule_id] = broken.get(rule_id, 0) + 1
    rules = tuple(
        RuleNote(
            rule.id,
            rule.description,
            not rule.on,
            len(firings),
            broken.get(rule.id, 0),
            next((str(lit) for lit in row.guards if str(lit) in rule.kept_by), None),
        )
        for rule in RULES
        if not row.invalid and rule.concerns(row.event, row.actions)
    )
    guards = tuple(
        (str(lit), guard_words(lit.guard, lit.positive))
        for lit in row.guards
        if lit.guard in GUARDS
    )
    return Explanation(
        spec=ways.spec.path,
        row=row,
        status=found.status,
        allowed=ways.allowed(row),
        configurations=len({way.config for way in firings}),
        steps=len(firings),
        guards=guards,
        effects=tuple(effects(row)),
        rules=rules,
        trace=found.trace,
        reason=found.reason,
    )


def effects(row: Row) -> list[str]:
    """What firing the row does, in words: the state, then the event's own effects, then each action's."""
    if row.invalid:
        return [f"{row.event} cannot occur here: the replay fails on it and nothing changes"]
    out = [
        f"stays in {row.state if row.state != '*' else 'the same state'}"
        if row.next == STAY
        else f"moves {'from ' + row.state + ' ' if row.state != '*' else ''}to {row.next}"
    ]
    event = EVENTS[row.event]
    for field, value in {**event.sets, **event.then}.items():
        out.append(f"{row.event}: {field_words(field, value)}")
    for name in row.actions:
        does = action(name)
        said = [f"{counter} {delta:+d}" for counter, delta in does.add.items()]
        said.extend(field_words(field, value) for field, value in does.sets.items())
        if name in WRITE_OFFS:
            said.append("writes the gap off: the reply stays owed")
        if name in ENDINGS:
            said.append("names how the gap ended")
        out.append(f"{name}: {'; '.join(said)}" if said else f"{name}: a label the implementation realises")
    return out
