"""Mutation testing of the proof: every one-row mistake of a table, whether it changes behaviour, what `check` finds.

A mutant is the table with one mistake a person could make in one row
(`KINDS`): the row deleted or duplicated, one guard literal negated or
dropped, the next state changed (to `=` or any state), or one action
replaced by another of the vocabulary. It *changes behaviour* when some
configuration the table reaches steps differently under it: refused or
not, matched or not, another next configuration or other actions. Two
tables that differ first differ at a step out of a configuration both
reach, so comparing the mutant's steps with the table's at the table's
explored configurations decides it exactly, and the configuration nearest
the start (breadth-first) gives the shortest trace on which they differ.
A behaviour-changing mutant is *killed* when the proof reports any finding
on it; the marked diagram block is left out (blanked, so every line keeps
its number), so a stale diagram never counts as a kill. A *survivor*
changes behaviour and passes: the prose leaves that behaviour open, or the
proof lacks a rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from gapstate.errors import GapstateError
from gapstate.findings import CATALOGUE, Finding, RuleBroken
from gapstate.proof.explore import explore
from gapstate.results import Result
from gapstate.run.concrete import concretize
from gapstate.run.machine import Machine, Outcome, Status
from gapstate.table.diagram import marked_blocks
from gapstate.table.load import Spec, parse_spec
from gapstate.table.model import ANY_STATE, STAY, Row, Table, format_guards
from gapstate.table.rules import RULES
from gapstate.table.vocabulary import ACTIONS, EVENTS, STATES, Config, Stimulus

KINDS = ("deleted", "duplicated", "guard_negated", "guard_dropped", "next_changed", "action_replaced")
DELETED, DUPLICATED = "(deleted)", "(duplicated)"  # what a mutant's name says its row became, for these two kinds
ARROW = " -> "

# What the proof checks of the table's behaviour besides the prose's rules, by finding kind (totality,
# reachability, progress): a mutant is killed by each that finds something on it. The prose's rules are
# named by their ids (`table.rules.RULES`). A row's mistake is never a diagram finding; one the language refuses
# (`invalid` given a next state or another action) is killed by `parse_error`, listed by `rule_kills` once it kills.
CHECKS = tuple(cls.kind for cls in CATALOGUE if cls is not RuleBroken
               and cls.__module__ in ("gapstate.findings.proof", "gapstate.findings.progress"))


class Mutant(NamedTuple):
    """One mistake in one row: its kind, the row's line and text, the row as it became ("" deleted), the whole spec."""

    kind: str
    line: int  # the row's line in the spec (in the mutant, a duplicate sits at line + 1)
    row: str  # the row, as `Row.__str__` writes it
    became: str  # the mutated row, or "" for a deletion
    text: str  # the whole mutated spec, its marked diagram blanked

    @property
    def name(self) -> str:
        """What names the mutant in output and in a baseline: the row, an arrow, what it became.

        It holds no line number, so a baseline outlives rows added above.
        """
        return mutant_name(self.row, self.kind, self.became)

    @property
    def changed_line(self) -> int:
        """The line a finding should point at: the changed row, or the copy a duplication added."""
        return self.line + 1 if self.kind == DUPLICATED_KIND else self.line


DUPLICATED_KIND = "duplicated"


def mutant_name(row: str, kind: str, became: str) -> str:
    after = DELETED if kind == "deleted" else DUPLICATED if kind == DUPLICATED_KIND else became
    return f"{row}{ARROW}{after}"


def without_diagram(text: str) -> str:
    """The spec with its marked diagram blocks blanked: a changed table makes them stale, and that is no kill."""
    lines = text.splitlines(keepends=True)
    for block in marked_blocks([line.rstrip("\r\n") for line in lines]):
        end = block.closing if block.closing is not None else block.marker
        for index in range(block.marker, end + 1):
            lines[index] = "\n"
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
    yield DUPLICATED_KIND, str(row)
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


def mutants(text: str, lines: Iterable[int] | None = None, kinds: Iterable[str] | None = None) -> Iterator[Mutant]:
    """Every mutant of a spec's table, in row order (only of the rows at `lines` and of `kinds`, when given).

    The spec's marked diagram is blanked first (`without_diagram`); a spec
    with no table yields none.
    """
    base = without_diagram(text)
    table = parse_spec(base, "spec").table
    if table is None:
        return
    written = base.splitlines(keepends=True)
    wanted_lines = None if lines is None else set(lines)
    wanted_kinds = None if kinds is None else set(kinds)
    seen: set[str] = set()
    for row, kind, became in mistakes(table):
        if wanted_lines is not None and row.line not in wanted_lines:
            continue
        if wanted_kinds is not None and kind not in wanted_kinds:
            continue
        mutant = Mutant(kind, row.line, str(row), became, "")
        if mutant.name in seen:  # the same mistake reached two ways (an action listed twice)
            continue
        seen.add(mutant.name)
        index = row.line - 1
        if kind == DUPLICATED_KIND:
            changed = written[: index + 1] + [became + "\n"] + written[index + 1 :]
        else:
            changed = written[:index] + ([became + "\n"] if became else []) + written[index + 1 :]
        yield mutant._replace(text="".join(changed))


def mistakes(table: Table) -> Iterator[tuple[Row, str, str]]:
    """(row, kind, mutated row) for every one-row mistake of `table`, in row order (`row_mutations`)."""
    states = tuple(dict.fromkeys((*table.states, *STATES)))
    for row in table.rows:
        for kind, became in row_mutations(row, states):
            yield row, kind, became


def kills(findings: Iterable[Finding]) -> frozenset[str]:
    """The checks that find something: a rule's id for a broken rule, else the finding's kind."""
    return frozenset(f.rule if isinstance(f, RuleBroken) else f.kind for f in findings if f.kind != "stale_diagram")


class Difference(NamedTuple):
    """The first step at which a mutant behaves otherwise: the steps before it, and both tables' outcomes."""

    steps: tuple[Stimulus, ...]  # the shortest trace's, its last the step that differs
    table: tuple[Any, ...]  # what the table does there (`observable`)
    mutant: tuple[Any, ...]  # what the mutant does there


def observable(outcome: Outcome) -> tuple[Any, ...]:
    """What a step shows an implementation under test: refused, unmatched or ended, else where it leads and the actions."""
    if outcome.status is not Status.OK:
        return (outcome.status.value,)
    return (outcome.status.value, outcome.config, outcome.actions)


class Reference:
    """The table a mutant is compared with: its explored configurations, breadth-first, by state."""

    def __init__(self, table: Table):
        self.table = table
        self.machine = Machine(table)
        self.exploration = exploration = explore(self.machine, budget=None)
        for config in exploration.configs():  # every reachable step memoised, for `Machine.sharing` to hand on
            if not config.ended:
                for event in EVENTS:
                    for choice in self.machine.choices(config, event):
                        self.machine.step(config, event, choice)
        # Breadth-first order: the first configuration that steps differently is the nearest.
        self.order: list[Config] = [
            config for node, config in zip(exploration.nodes(), exploration.configs(), strict=True)
            if not config.ended and exploration.expanded(node)
        ]

    def compare(self, table: Table, line: int) -> tuple[Machine, Difference | None]:
        """A machine for a mutant's table (sharing the reference's steps), and where it first steps otherwise.

        `line` is the line of the reference's row the mutant changed.
        """
        row = next(r for r in self.table.rows if r.line == line)
        machine = self.machine.sharing(table)
        machine.inherited = self.exploration  # its explorer takes over the classes of the states stepping alike
        return machine, self.difference(machine, (row.state,), row.event)

    def difference(self, machine: Machine, affected: tuple[str, ...], event: str) -> Difference | None:
        """Where `machine` first steps otherwise than the reference: only the configurations in `affected`
        states, for `event`, can (the one row changed is of that state and event, or `*`)."""
        reference = self.machine
        everywhere = ANY_STATE in affected
        for config in self.order:
            if not everywhere and config.state not in affected:
                continue
            for choice in reference.choices(config, event):
                seen, now = observable(reference.step(config, event, choice)), observable(machine.step(config, event, choice))
                if seen != now:
                    steps = self.exploration.steps_to(config, clean=False)
                    return Difference((*steps, Stimulus(event, choice)), seen, now)
        return None


class Verdict(NamedTuple):
    """What became of one mutant: whether it changes behaviour, where first, and which checks find it."""

    kind: str
    line: int
    name: str
    difference: Difference | None  # None: the mutant behaves as the table does
    killers: frozenset[str]  # the checks with a finding on it (`kills`); empty for a mutant that changes nothing

    @property
    def changes(self) -> bool:
        return self.difference is not None

    @property
    def killed(self) -> bool:
        return self.changes and bool(self.killers)

    @property
    def survives(self) -> bool:
        return self.changes and not self.killers


def judge(reference: Reference, mutant: Mutant) -> Verdict:
    """One mutant compared with the reference, and checked when it behaves otherwise."""
    spec = parse_spec(mutant.text, "mutant")
    if spec.table is None or not spec.steppable:  # it no longer speaks the vocabulary: the proof stops, killing it
        return Verdict(mutant.kind, mutant.line, mutant.name, Difference((), (), ()), kills(spec.findings))
    machine, difference = reference.compare(spec.table, mutant.line)
    if difference is None:
        return Verdict(mutant.kind, mutant.line, mutant.name, None, frozenset())
    from gapstate.proof.check import check  # networkx: loaded once there is a mutant to check

    result = check(spec, budget=None, machine=machine, findings_only=True)
    return Verdict(mutant.kind, mutant.line, mutant.name, difference, kills(result.findings))


class RuleKills(NamedTuple):
    """How many behaviour-changing mutants a check kills, and how many it alone kills."""

    rule: str
    kills: int
    alone: int


class Survivor(NamedTuple):
    """A mutant that changes behaviour and that the proof passes, with the shortest trace that tells them apart."""

    name: str
    kind: str
    line: int
    trace: tuple[dict[str, Any], ...]
    table: tuple[Any, ...]  # the table's last step on it (`observable`)
    mutant: tuple[Any, ...]  # the mutant's
    listed: bool  # in the baseline
    reason: str = ""  # why the baseline accepts it (its line's `# ...`), when it gives one


def step_words(seen: tuple[Any, ...]) -> str:
    """An observable step in a reader's words: `refused`, or `-> STATE: actions`."""
    if not seen:
        return "no table to step"
    if len(seen) == 1:
        return str(seen[0])
    _, config, actions = seen
    return f"-> {config.state} | {','.join(actions)}"


@dataclass(frozen=True)
class MutationResult(Result):
    """The outcome of `mutate`, shaped like its JSON output (see `to_dict`)."""

    spec: str
    verdicts: tuple[Verdict, ...]
    rules: tuple[RuleKills, ...]
    survivors: tuple[Survivor, ...]
    baseline: Mapping[str, str] | None = None  # the survivors accepted, each with its reason; None: no baseline given
    unused: tuple[str, ...] = field(default=())  # baseline names that are no survivor here
    # The names of the table's mutants this run did not make (`--line`, `--kind`): what a baseline says
    # of them is neither stale nor judged here.
    unmade: frozenset[str] = field(default=frozenset())

    @property
    def behaviour_changing(self) -> int:
        return sum(v.changes for v in self.verdicts)

    @property
    def killed(self) -> int:
        return sum(v.killed for v in self.verdicts)

    @property
    def new(self) -> tuple[Survivor, ...]:
        """The survivors outside the baseline (every survivor, without one)."""
        return tuple(s for s in self.survivors if not s.listed)

    @property
    def ok(self) -> bool:
        return not self.new

    def against(self, baseline: Mapping[str, str] | Iterable[str]) -> MutationResult:
        """This result with `baseline` the survivors accepted (names, or names with their reasons): each
        survivor marked listed or not, with its reason, and the names it lists that are no survivor here."""
        accepted = dict(baseline) if isinstance(baseline, Mapping) else dict.fromkeys(baseline, "")
        survivors = tuple(s._replace(listed=s.name in accepted, reason=accepted.get(s.name, "")) for s in self.survivors)
        unused = tuple(sorted(accepted.keys() - {s.name for s in survivors} - self.unmade))
        return replace(self, survivors=survivors, baseline=accepted, unused=unused)

    def kept(self) -> tuple[str, ...]:
        """The names the baseline lists of mutants this run did not make: a baseline saved keeps them."""
        return tuple(name for name in self.baseline or () if name in self.unmade)

    def idle(self) -> list[str]:
        """The checks that kill no mutant: they cannot fail on this table (vacuous), or others always find first."""
        return [r.rule for r in self.rules if not r.kills]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "spec": self.spec,
            "mutants": len(self.verdicts),
            "behaviour_changing": self.behaviour_changing,
            "killed": self.killed,
            "rules": [{"rule": r.rule, "kills": r.kills, "alone": r.alone} for r in self.rules],
            "survivors": [
                {"mutant": s.name, "kind": s.kind, "line": s.line, "trace": list(s.trace),
                 "table": step_words(s.table), "mutated": step_words(s.mutant), "baseline": s.listed,
                 "reason": s.reason or None}
                for s in self.survivors
            ],
            "unused_baseline": list(self.unused),
        }


def rule_kills(verdicts: Sequence[Verdict]) -> tuple[RuleKills, ...]:
    """Each check (`CHECKS`, then the rules), with how many mutants it kills and how many it alone kills."""
    names = [*CHECKS, *(rule.id for rule in RULES)]
    found = {name for v in verdicts if v.killed for name in v.killers}
    names += sorted(found - set(names))
    kills_of = dict.fromkeys(names, 0)
    alone = dict.fromkeys(names, 0)
    for v in verdicts:
        if v.killed:
            for name in v.killers:
                kills_of[name] += 1
            if len(v.killers) == 1:
                alone[next(iter(v.killers))] += 1
    return tuple(RuleKills(name, kills_of[name], alone[name]) for name in names)


def read_baseline(text: str, name: str) -> dict[str, str]:
    """The survivors a baseline file accepts, each with the reason its line gives: one mutant a line, as
    `mutate` writes them.

    A name is `ROW -> CHANGE`: the row (`STATE | EVENT | GUARDS | NEXT |
    ACTIONS`), then the row as it became, `(deleted)` or `(duplicated)`.
    Spaces around the fields do not matter; a blank line or one starting
    with `#` is skipped, and a `#` after the name starts the reason (no
    name holds one). GapstateError at the first line that is no name.
    """
    names: dict[str, str] = {}
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        written, _, reason = line.partition("#")
        names[_baseline_name(written, name, number)] = reason.strip()
    return names


def baseline_text(survivors: Iterable[Survivor], reasons: Mapping[str, str] | None = None, kept: Iterable[str] = ()) -> str:
    """A baseline accepting `survivors`, each with its reason from `reasons` (a baseline read before) when it has one,
    then the names `kept` (of mutants the run did not make, `MutationResult.kept`) with theirs."""
    reasons = reasons or {}
    lines = []
    for name, reason in [*((s.name, reasons.get(s.name) or s.reason) for s in survivors), *((n, reasons.get(n, "")) for n in kept)]:
        lines.append(f"{name}  # {reason}\n" if reason else f"{name}\n")
    return "# gapstate mutate: the survivors accepted\n" + "".join(lines)


def _baseline_name(line: str, name: str, number: int) -> str:
    """One baseline line as the mutant name it means, its fields spaced as `mutate` writes them."""
    before, arrow, after = line.partition(ARROW.strip())
    if not arrow:
        raise GapstateError(f"expected a mutant, `ROW {ARROW.strip()} CHANGE` (as --save-baseline writes them), "
                            "or a `#` comment", file=name, line=number, column=len(line) - len(line.lstrip()) + 1)
    row = _fields(before, name, number, 1)
    change = after.strip()
    if change not in (DELETED, DUPLICATED):
        change = _fields(after, name, number, len(before) + len(arrow) + 1)
    return f"{row}{ARROW}{change}"


def _fields(text: str, name: str, number: int, column: int) -> str:
    """`STATE | EVENT | GUARDS | NEXT | ACTIONS` with single spaces around its bars; GapstateError unless five fields."""
    fields = [field.strip() for field in text.split("|")]
    if len(fields) != 5 or not all(fields):
        raise GapstateError(f"expected a row, `STATE | EVENT | GUARDS | NEXT | ACTIONS` (five fields), not "
                            f"{len(fields)} field{'s' if len(fields) != 1 else ''}" if len(fields) != 5 else
                            "expected a row, `STATE | EVENT | GUARDS | NEXT | ACTIONS`, with no field empty",
                            file=name, line=number, column=column + len(text) - len(text.lstrip()))
    return " | ".join(fields)


def mutate(spec: Spec, jobs: int = 1, baseline: Iterable[str] | None = None, lines: Iterable[int] | None = None,
           kinds: Iterable[str] | None = None, progress: Callable[[int, int], None] | None = None) -> MutationResult:
    """Every mutant of the spec's table judged (`judge`), in `jobs` worker processes when it pays.

    The table must pass `check` (its diagram aside). `lines` and `kinds`
    narrow the mutants; `baseline` names the survivors accepted.
    `progress(done, total)` is called as mutants are judged.
    """
    from gapstate.proof.check import check

    table = spec.require_steppable("mutated")
    base = without_diagram(spec.text)
    found = check(parse_spec(base, spec.path), budget=None).findings
    if found:
        first = found[0]
        raise GapstateError(f"the table must pass `gapstate check` before its mutants can show what the proof misses; "
                       f"it has {len(found)} finding{'s' if len(found) != 1 else ''}, the first {first.kind}: "
                       f"{first.message}", file=spec.path, line=first.line, column=first.column)
    rows = {row.line for row in table.rows}
    if lines is not None:
        for line in lines:
            if line not in rows:
                raise GapstateError("no row of the table is at this line", file=spec.path, line=line)
    todo = list(mutants(base, lines, kinds))
    made = {m.name for m in todo}
    unmade = frozenset() if lines is None and kinds is None else frozenset(
        name for row, kind, became in mistakes(table) if (name := mutant_name(str(row), kind, became)) not in made)
    verdicts = tuple(_judged(base, todo, jobs, progress))
    survivors = tuple(
        Survivor(v.name, v.kind, v.line, tuple(concretize(v.difference.steps)), v.difference.table,
                 v.difference.mutant, False)
        for v in verdicts if v.survives and v.difference is not None
    )
    result = MutationResult(spec.path, verdicts, rule_kills(verdicts), survivors, unmade=unmade)
    return result if baseline is None else result.against(baseline)


# Worker processes ------------------------------------------------------------------------------

_REFERENCE: list[Any] = []  # in a worker: the reference and the mutants, built once by `_start`


def _start(text: str, lines: Any, kinds: Any) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    table = parse_spec(text, "spec").table
    assert table is not None
    _REFERENCE[:] = [Reference(table), list(mutants(text, lines, kinds))]


def _judge_at(index: int) -> Verdict:
    reference, todo = _REFERENCE
    return judge(reference, todo[index])


def _judged(text: str, todo: list[Mutant], jobs: int, progress: Callable[[int, int], None] | None) -> Iterator[Verdict]:
    """Each mutant's verdict, in order: in this process, or from `jobs` workers when there are enough."""
    total = len(todo)
    if jobs <= 1 or total < 4 * jobs:
        table = parse_spec(text, "spec").table
        assert table is not None
        reference = Reference(table)
        for done, mutant in enumerate(todo, 1):
            yield judge(reference, mutant)
            if progress is not None:
                progress(done, total)
        return
    import multiprocessing

    lines = sorted({m.line for m in todo})
    kinds = sorted({m.kind for m in todo})
    # the workers rebuild the same list (the same lines and kinds, in row order) and judge by index
    with multiprocessing.Pool(jobs, initializer=_start, initargs=(text, lines, kinds)) as pool:
        for done, verdict in enumerate(pool.imap(_judge_at, range(total), chunksize=max(1, min(16, total // (jobs * 8)))), 1):
            yield verdict
            if progress is not None:
                progress(done, total)
