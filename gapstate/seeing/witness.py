"""Ways to rows: the shortest trace that fires a row, and why a row never fires.

`gapstate witness` and `gapstate explain` address a row by its spec line or
as `STATE | EVENT | GUARDS`, ask the proof's graph for the reachable steps
that match it, and either hand back the shortest trace ending on one of them
(replayed, so its steps are the replay's own) or say, in the vocabulary's
words, why no reachable configuration matches it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gapstate.errors import GapstateError
from gapstate.run.machine import Machine
from gapstate.table.load import Spec
from gapstate.table.model import Row, Table, format_guards
from gapstate.table.vocabulary import INVALID, Config

if TYPE_CHECKING:
    from gapstate.proof.progress import Reached

FIRES = "fires"
REFUSED = INVALID  # the row is `invalid`: it refuses its event, and the trace ends on that refusal
UNREACHABLE = "unreachable"


def locate(table: Table, address: str, source: str) -> tuple[Row, str | None]:
    """The row an address names, and the state it was asked for when that row is a `*` row.

    An address is a spec line (`212`) or `STATE | EVENT | GUARDS`, guards in
    any order. Raises GapstateError, naming `source` (the spec), when the
    address is malformed or names no row.

    `OPEN | loss_silent | -` names no row of its own when `* | loss_silent |
    -` covers OPEN; it is that row, fired in OPEN.
    """
    text = address.strip()
    if text.isascii() and text.isdigit():
        if len(text) > 18:  # no spec has that many lines, and Python will not convert 4,300 digits
            raise GapstateError(f"line {text[:18]}… ({len(text)} digits) holds no row of the table", file=source)
        line = int(text)
        for row in table.rows:
            if row.line == line:
                return row, None
        raise GapstateError(f"line {line} holds no row of the table", file=source, line=line)
    from gapstate.table.parser import parse_address

    cells = text.split("|")
    pasted = [cell.strip() for cell in cells[3:]] if len(cells) == 5 else None
    try:
        state, event, guards = parse_address("|".join(cells[:3]) if pasted else text)
    except GapstateError as error:
        raise GapstateError(f"row address '{address}', column {error.column}: {error.message}", file=source) from None
    wanted = frozenset(guards)
    for row in table.rows:
        if row.state == state and row.event == event and row.guard_set == wanted:
            return _pasted_agrees(row, pasted, source), None
    near = [r for r in table.rows if r.event == event and r.guard_set == wanted and r.applies_to(state)]
    if near and near[0].state == "*" and state in table.states:
        return _pasted_agrees(near[0], pasted, source), state
    raise GapstateError(
        f"no row `{state} | {event} | {format_guards(guards)}` in the table; nearest rows: "
        + "; ".join(f"`{_show(r)}` (line {r.line})" for r in nearest(table, state, event, wanted)),
        file=source,
    )


def _show(row: Row) -> str:
    return f"{row.state} | {row.event} | {format_guards(row.guards)}"


def _words(text: str) -> list[str]:
    return [word for word in text.replace(",", " ").split() if word]


def _pasted_agrees(row: Row, pasted: list[str] | None, source: str) -> Row:
    """A pasted full row names its row only when its NEXT and ACTIONS are the table's own."""
    if pasted is None:
        return row
    differs = []
    if pasted[0] != row.next:
        differs.append(f"NEXT is {row.next}, not {pasted[0] or 'empty'}")
    if _words(pasted[1]) != list(row.actions):
        differs.append(f"ACTIONS are {' '.join(row.actions)}, not {pasted[1] or 'empty'}")
    if differs:
        raise GapstateError(f"line {row.line} `{_show(row)}` differs from the pasted row: " + "; ".join(differs), file=source, line=row.line)
    return row


def nearest(table: Table, state: str, event: str, guards: frozenset, count: int = 3) -> list[Row]:
    """The rows closest to an address that names none: same state and event first, then the most parts shared."""

    def closeness(row: Row) -> tuple:
        same = (row.event == event) + row.applies_to(state)
        shared = len(row.guard_set & guards) - len(row.guard_set ^ guards)
        return (-(row.event == event and row.applies_to(state)), -same, -shared, row.line)

    return sorted(table.rows, key=closeness)[:count]


class Ways:
    """The proof's graph of one spec, and every reachable step grouped by the row it matches."""

    def __init__(self, spec: Spec):
        from gapstate.proof.explore import explore
        from gapstate.proof.reach import firings
        from gapstate.run.replayer import machine_for

        self.spec = spec
        self.machine: Machine = machine_for(spec)
        self.exploration = explore(self.machine)
        self.firings = firings(self.exploration)

    def of(self, row: Row, state: str | None = None) -> list:
        """The reachable steps that fire `row` (from `state` only, when given: a `*` row asked of one state)."""
        ways = self.firings.get(row.line, [])
        return ways if state is None else [way for way in ways if way.config.state == state]

    def bound(self, name: str) -> Reached:
        """The most a run of the table reaches of a bound (`table.bounds`), and a run that reaches it."""
        from gapstate.proof.progress import progress

        assert self.spec.table is not None
        return progress(self.spec.table, self.exploration).bound(name)

    def allowed(self, row: Row) -> bool:
        assert self.spec.table is not None
        return any(allowance.names(row) for allowance in self.spec.table.allowances)

    def configurations(self, states: set[str]) -> list[Config]:
        """The reachable configurations in these states that can still take a step."""
        machine = self.machine
        return [
            c
            for c in self.exploration.configs()
            if c.state in states and not c.ended and machine.within_caps(c)
        ]


@dataclass(frozen=True)
class RowWitness:
    """What `gapstate witness` found for one row, shaped like its JSON output."""

    row: Row
    status: str  # FIRES, REFUSED or UNREACHABLE
    trace: tuple[dict[str, Any], ...] | None
    steps: tuple[dict[str, Any], ...] | None
    reason: str | None  # why the row does not fire (None when it does)
    detour: bool = False  # every way there breaks a rule first

    @property
    def ok(self) -> bool:
        """The row fires on a trace that breaks no rule."""
        return self.status == FIRES and not self.detour

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ok": self.ok,
            "row": self.row.line,
            "state": self.row.state,
            "event": self.row.event,
            "guards": {lit.guard: lit.positive for lit in self.row.guards},
            "trace": list(self.trace) if self.trace is not None else None,
            "steps": list(self.steps) if self.steps is not None else None,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        if self.detour:
            out["breaks_rule"] = True  # the trace reaches the row only through a step that breaks a rule
        return out


def witness(ways: Ways, row: Row, state: str | None = None) -> RowWitness:
    """The shortest trace whose last event fires `row` (in `state`, for a `*` row), walking only steps that break no rule.

    For an `invalid` row the trace ends on the refused event (its steps stop
    before it); for a row no reachable configuration matches there is no
    trace, and the reason says which of its guards never hold.
    """
    from gapstate.proof.paths import shortest_firing_trace
    from gapstate.run.replayer import replay
    from gapstate.run.trace import from_dicts

    found = shortest_firing_trace(ways.exploration, ways.of(row, state))
    if found is None:
        return RowWitness(row, UNREACHABLE, None, None, why_unreachable(ways, row))
    result = replay(ways.spec, from_dicts(found.trace))
    steps = tuple(step.to_dict() for step in result.steps or ())
    if row.invalid:
        reason = (
            f"{row.event} is refused in {found.firing.config.state}: row at line {row.line} marks it invalid; "
            "the trace ends on that refusal"
        )
        return RowWitness(row, REFUSED, tuple(found.trace), steps, reason, found.detour)
    if found.detour:
        # Every way there breaks a rule on the way, so the replay stops before the row.
        stop = result.error
        where = f": the replay of this trace stops at event {stop.index}: {stop.message}" if stop is not None else ""
        reason = f"reachable only by breaking a rule first{where}"
        return RowWitness(row, FIRES, tuple(found.trace), steps, reason, True)
    return RowWitness(row, FIRES, tuple(found.trace), steps, None)


def why_unreachable(ways: Ways, row: Row) -> str:
    """Why no reachable configuration fires `row` (see `proof.reach.why_unreachable`, which `check` shares)."""
    from gapstate.proof.reach import why_unreachable as why

    assert ways.spec.table is not None
    return why(ways.machine, ways.configurations(set(ways.spec.table.states)), ways.spec.table, row).words()
