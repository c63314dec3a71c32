"""Mutation testing of `gapstate check`: does every one-line mistake in the bundled table get caught?

    python bench/mutants.py                 # the counts, the CPU seconds, and the survivors grouped by row
    python bench/mutants.py --jobs=2        # the same in two worker processes (their CPU counted too)
    python bench/mutants.py --json          # every mutant, as JSON Lines
    python bench/mutants.py --roots         # also: how many findings each killed mutant gets, and its roots
    python bench/mutants.py --only=deleted  # only mutants of one kind (repeat for more)

The mutants, whether each changes behaviour and which checks kill it are
`gapstate mutate`'s (`gapstate.proof.mutation`, where the definitions are);
this script prints the figure bench/RESULTS.md quotes, the CPU seconds of
the whole set, user and system, of this process and its workers, and with
`--roots` checks each behaviour-changing mutant again in full to count its
root findings. The counts depend on nothing but the code.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gapstate.proof import mutation  # noqa: E402
from gapstate.proof.check import check  # noqa: E402
from gapstate.proof.mutation import KINDS, Mutant, Reference, row_mutations, without_diagram  # noqa: E402, F401
from gapstate.table.load import parse_spec  # noqa: E402

SPEC = ROOT / "spec" / "gap-state.md"


def mutants(text: str | None = None) -> Iterator[Mutant]:
    """Every mutant of a spec's table (the bundled spec's by default), in row order."""
    return mutation.mutants(SPEC.read_text(encoding="utf-8") if text is None else text)


class Verdict(NamedTuple):
    mutant: Mutant
    changes: bool  # behaviour differs from the bundled table's
    findings: tuple  # check's findings on it (the proof's records)
    roots: tuple = ()  # those of them that follow from no other

    @property
    def killed(self) -> bool:
        return bool(self.findings)


def judge(reference: Reference, mutant: Mutant) -> Verdict:
    """The mutant's verdict, with check's findings and roots in full (what `--roots` counts)."""
    spec = parse_spec(mutant.text, "spec.md")
    result = check(spec)
    if spec.table is None or not spec.steppable:
        changes = True  # it does not even parse or speak the vocabulary: a change, and killed
    else:
        changes = reference.compare(spec.table, mutant.line)[1] is not None
    return Verdict(mutant, changes, result.findings, tuple(result.roots()))


def run(text: str | None = None, only: tuple[str, ...] | None = None) -> Iterator[Verdict]:
    base = without_diagram(SPEC.read_text(encoding="utf-8") if text is None else text)
    spec = parse_spec(base, "spec.md")
    assert spec.table is not None and not check(spec).findings, "the reference table must check clean"
    reference = Reference(spec.table)
    for mutant in mutation.mutants(base):
        if only is None or mutant.kind in only:
            yield judge(reference, mutant)


def one_root(verdict: Verdict) -> bool:
    """True when exactly one finding is a root, and it is at the changed row or the hole a deleted row left."""
    if len(verdict.roots) != 1:
        return False
    root, mutant = verdict.roots[0], verdict.mutant
    if mutant.kind == "deleted":
        table = parse_spec(without_diagram(SPEC.read_text(encoding="utf-8")), "spec.md").table
        assert table is not None
        row = next(r for r in table.rows if r.line == mutant.line)  # the hole is where the row was
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


def summary(result: mutation.MutationResult) -> str:
    verdicts = result.verdicts
    changing = [v for v in verdicts if v.changes]
    killed = [v for v in changing if v.killed]
    lines = [
        f"mutants: {len(verdicts)}; behaviour-changing: {len(changing)}; killed by check: {len(killed)}; "
        f"survivors: {len(result.survivors)}",
        "by kind (changing / killed): "
        + ", ".join(f"{kind} {sum(v.kind == kind for v in changing)}/{sum(v.kind == kind for v in killed)}" for kind in KINDS),
        f"quiet but harmless (no behaviour change, no finding): {len(verdicts) - len(changing)}",
    ]
    by_row: dict[int, list[mutation.Survivor]] = {}
    for survivor in result.survivors:
        by_row.setdefault(survivor.line, []).append(survivor)
    if by_row:
        lines.append(f"survivors over {len(by_row)} rows:")
    for line, group in sorted(by_row.items()):
        kinds = Counter(s.kind for s in group)
        lines.append(f"  {line}: {group[0].name.split(' -> ')[0]}  ({', '.join(f'{k} {n}' for k, n in kinds.items())})")
        lines.extend(f"      -> {s.name.split(' -> ', 1)[1]}" for s in group)
    return "\n".join(lines)


def cpu_seconds() -> float:
    """User and system CPU of this process and of its children that have ended (the workers)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def options(argv: list[str]) -> argparse.Namespace:
    """The options the module's docstring shows; `--help` prints them, a typo exits 2 naming it."""
    parser = argparse.ArgumentParser(prog="python bench/mutants.py", description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (their CPU counted too); default 1")
    parser.add_argument("--json", action="store_true", help="every mutant, as JSON Lines")
    parser.add_argument("--roots", action="store_true",
                        help="also: how many findings each killed mutant gets, and its roots")
    parser.add_argument("--only", action="append", choices=KINDS, metavar="KIND",
                        help=f"only mutants of one kind (repeat for more): {', '.join(KINDS)}")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = options(argv)
    only = tuple(args.only) if args.only else None
    jobs = args.jobs
    if args.roots:
        print(roots_summary([v for v in run(only=only) if v.changes]))
        return 0
    start, wall = cpu_seconds(), os.times().elapsed
    result = mutation.mutate(parse_spec(SPEC.read_text(encoding="utf-8"), "spec/gap-state.md"), jobs, kinds=only)
    cpu, elapsed = cpu_seconds() - start, os.times().elapsed - wall
    if args.json:
        for v in result.verdicts:
            print(json.dumps({"kind": v.kind, "line": v.line, "mutant": v.name, "changes": v.changes,
                              "killed": v.killed, "killers": sorted(v.killers)}))
        return 0
    print(summary(result))
    print(f"({len(result.verdicts)} mutants judged in {cpu:.1f} s of CPU, {elapsed:.1f} s wall, --jobs={jobs})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
