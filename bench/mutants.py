"""Mutation testing of `gapstate check`: does every one-line mistake in the bundled table get caught?

    python bench/mutants.py                 # the counts, and the survivors grouped by row
    python bench/mutants.py --json          # every mutant, as JSON Lines
    python bench/mutants.py --roots         # also: how many findings each killed mutant gets, and its roots
    python bench/mutants.py --only=deleted  # only mutants of one kind (repeat for more)

A mutant is the bundled table with one mistake a person could make in one
row: the row deleted or duplicated, one guard literal negated or dropped,
the next state changed (to `=` or any state), or one action replaced by
another action of the vocabulary. A mutant *changes behaviour* when some
configuration reachable in the bundled table steps differently under it
(another next configuration, other actions, a refusal where there was
none, no row where there was one, or the reverse): the first step at which
two tables differ is always taken from a configuration both reach, so
comparing the steps out of the bundled table's reachable configurations
decides it exactly. Such a mutant is *killed* when `check` reports any
finding on it; the marked diagram is left out of every mutant, so a stale
diagram never counts as a kill.

A survivor changes behaviour without a finding: the prose leaves that
behaviour open, or a rule is missing. `SURVIVORS_OPEN` below names, per
row, why the prose leaves it open; a survivor of a row not listed there is
a rule the checker lacks. The counts depend on nothing but the code.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gapstate.proof.check import check  # noqa: E402
from gapstate.proof.explore import explore  # noqa: E402
from gapstate.run.machine import Machine, Status  # noqa: E402
from gapstate.table.diagram import marked_blocks  # noqa: E402
from gapstate.table.load import parse_spec  # noqa: E402
from gapstate.table.model import STAY, Row, Table, format_guards  # noqa: E402
from gapstate.table.vocabulary import ACTIONS, EVENTS, STATES  # noqa: E402

SPEC = ROOT / "spec" / "gap-state.md"

KINDS = ("deleted", "duplicated", "guard_negated", "guard_dropped", "next_changed", "action_replaced")


class Mutant(NamedTuple):
    """One mistake in one row: what kind, at which line, the row as it became ("" when deleted)."""

    kind: str
    line: int  # the row's line in the bundled spec (in the mutant, a duplicate sits at line + 1)
    row: str  # the row as written in the bundled spec
    became: str  # the mutated row, or "" for a deletion
    text: str  # the whole mutated spec

    @property
    def changed_line(self) -> int:
        """The line a finding should point at: the changed row, or the copy a duplication added."""
        return self.line + 1 if self.kind == "duplicated" else self.line


def without_diagram(text: str) -> str:
    """The spec minus its marked diagram block: a changed table makes it stale, and that is no kill."""
    lines = text.splitlines(keepends=True)
    for block in reversed(marked_blocks([line.rstrip("\r\n") for line in lines])):
        end = block.closing if block.closing is not None else block.marker
        del lines[block.marker : end + 1]
    return "".join(lines)


def _write(row: Row, guards: str | None = None, next: str | None = None, actions: str | None = None) -> str:
    return " | ".join(
        (
            row.state,
            row.event,
            format_guards(row.guards) if guards is None else guards,
            row.next if next is None else next,
            ",".join(row.actions) if actions is None else actions,
        )
    )


def row_mutations(row: Row, states: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """(kind, mutated row) for every one-change mistake in `row`; "" deletes it."""
    yield "deleted", ""
    yield "duplicated", str(row)
    for i, lit in enumerate(row.guards):
        flipped = tuple(lit._replace(positive=not lit.positive) if j == i else other for j, other in enumerate(row.guards))
        yield "guard_negated", _write(row, guards=format_guards(flipped))
        yield "guard_dropped", _write(row, guards=format_guards(row.guards[:i] + row.guards[i + 1 :]))
    for target in (STAY, *states):
        if target != row.next:
            yield "next_changed", _write(row, next=target)
    for i, name in enumerate(row.actions):
        for other in ACTIONS:
            if other != name:
                replaced = row.actions[:i] + (other,) + row.actions[i + 1 :]
                yield "action_replaced", _write(row, actions=",".join(replaced))


def mutants(text: str | None = None) -> Iterator[Mutant]:
    """Every mutant of a spec's table (the bundled spec's by default), in row order."""
    base = without_diagram(SPEC.read_text(encoding="utf-8") if text is None else text)
    spec = parse_spec(base, "spec.md")
    assert spec.table is not None
    lines = base.splitlines(keepends=True)
    states = tuple(dict.fromkeys((*spec.table.states, *STATES)))
    for row in spec.table.rows:
        index = row.line - 1
        written = lines[index].rstrip("\n")
        for kind, became in row_mutations(row, states):
            if kind == "duplicated":
                changed = lines[: index + 1] + [became + "\n"] + lines[index + 1 :]
            else:
                changed = lines[:index] + ([became + "\n"] if became else []) + lines[index + 1 :]
            yield Mutant(kind, row.line, written, became, "".join(changed))


class Reference:
    """The bundled table's reachable steps, to compare a mutant's with."""

    def __init__(self, table: Table):
        self.machine = Machine(table)
        exploration = explore(self.machine)
        self.configs = [c for c in exploration.configs() if not c.ended and self.machine.within_caps(c)]
        self.steps = {
            (config, event, choice): _observable(self.machine.step(config, event, choice))
            for config in self.configs
            for event in EVENTS
            for choice in self.machine.choices(config, event)
        }

    def differs(self, table: Table) -> bool:
        """True when the table steps some reachable configuration of the reference differently."""
        machine = Machine(table)
        return any(_observable(machine.step(*key)) != seen for key, seen in self.steps.items())


def _observable(outcome) -> tuple:
    """What a step shows an implementation under test: refused or not, where it leads, the actions."""
    if outcome.status is not Status.OK:
        return (outcome.status,)
    return (outcome.status, outcome.config, outcome.actions)


class Verdict(NamedTuple):
    mutant: Mutant
    changes: bool  # behaviour differs from the bundled table's
    findings: tuple  # check's findings on it (the proof's records)
    roots: tuple = ()  # those of them that follow from no other

    @property
    def killed(self) -> bool:
        return bool(self.findings)


def judge(reference: Reference, mutant: Mutant) -> Verdict:
    spec = parse_spec(mutant.text, "spec.md")
    result = check(spec)
    if spec.table is None or not spec.steppable:
        changes = True  # it does not even parse or speak the vocabulary: a change, and killed
    else:
        changes = reference.differs(spec.table)
    return Verdict(mutant, changes, result.findings, tuple(result.roots()))


def run(text: str | None = None, only: tuple[str, ...] | None = None) -> Iterator[Verdict]:
    base = without_diagram(SPEC.read_text(encoding="utf-8") if text is None else text)
    spec = parse_spec(base, "spec.md")
    assert spec.table is not None and not check(spec).findings, "the reference table must check clean"
    reference = Reference(spec.table)
    for mutant in mutants(base):
        if only is None or mutant.kind in only:
            yield judge(reference, mutant)


def one_root(verdict: Verdict) -> bool:
    """True when exactly one finding is a root, and it is at the changed row or the hole a deleted row left."""
    if len(verdict.roots) != 1:
        return False
    root, mutant = verdict.roots[0], verdict.mutant
    if mutant.kind == "deleted":
        spec = parse_spec(mutant.text, "spec.md")  # the hole is where the row was: its state, event and guards
        row = next(r for r in parse_spec(without_diagram(SPEC.read_text(encoding="utf-8")), "spec.md").table.rows
                   if r.line == mutant.line)
        del spec
        return (
            root.kind == "not_total"
            and root.state == row.state
            and root.event == row.event
            and frozenset(root.cube) == frozenset((lit.guard, lit.positive) for lit in row.guards)
        ) or (root.kind == "stale_allowance" and root.line != mutant.line)
    return root.line == mutant.changed_line


def roots_summary(verdicts: list[Verdict]) -> str:
    killed = [v for v in verdicts if v.killed]
    good = [v for v in killed if one_root(v)]
    lines = [f"killed mutants with exactly one root finding, at the mistake: {len(good)} of {len(killed)}"]
    many = Counter(len(v.findings) for v in killed)
    lines.append("findings per killed mutant: " + ", ".join(f"{n}: {c}" for n, c in sorted(many.items())))
    for v in killed:
        if not one_root(v):
            roots = [f"{f.kind}@{f.line}" + (f"({f.rule})" if f.kind == "rule" else "") for f in v.roots]
            lines.append(f"  {v.mutant.kind} {v.mutant.line}: {v.mutant.became or v.mutant.row}  roots: {', '.join(roots)}")
    return "\n".join(lines)


def summary(verdicts: list[Verdict]) -> str:
    changing = [v for v in verdicts if v.changes]
    killed = [v for v in changing if v.killed]
    survivors = [v for v in changing if not v.killed]
    lines = [
        f"mutants: {len(verdicts)}; behaviour-changing: {len(changing)}; killed by check: {len(killed)}; "
        f"survivors: {len(survivors)}",
        "by kind (changing / killed): "
        + ", ".join(
            f"{kind} {sum(v.mutant.kind == kind for v in changing)}/{sum(v.mutant.kind == kind for v in killed)}"
            for kind in KINDS
        ),
        f"quiet but harmless (no behaviour change, no finding): {sum(not v.changes and not v.killed for v in verdicts)}",
    ]
    by_row: dict[tuple[int, str], list[Verdict]] = {}
    for v in survivors:
        by_row.setdefault((v.mutant.line, v.mutant.row), []).append(v)
    if by_row:
        lines.append(f"survivors over {len(by_row)} rows:")
    for (line, row), group in sorted(by_row.items()):
        kinds = Counter(v.mutant.kind for v in group)
        detail = ", ".join(f"{k} {n}" for k, n in kinds.items())
        lines.append(f"  {line}: {row}  ({detail})")
        for v in group:
            lines.append(f"      -> {v.mutant.became or '(deleted)'}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    start = time.perf_counter()
    only = tuple(a.split("=", 1)[1] for a in argv if a.startswith("--only=")) or None
    verdicts = list(run(only=only))
    elapsed = time.perf_counter() - start
    if "--json" in argv:
        for v in verdicts:
            print(json.dumps({
                "kind": v.mutant.kind, "line": v.mutant.line, "row": v.mutant.row, "became": v.mutant.became,
                "changes": v.changes, "killed": v.killed,
                "findings": [f"{f.kind}@{f.line}" for f in v.findings],
            }))
        return 0
    print(summary(verdicts))
    if "--roots" in argv:
        print(roots_summary(verdicts))
    print(f"({len(verdicts)} mutants checked in {elapsed:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
