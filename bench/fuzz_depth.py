"""How thorough `gapstate fuzz` is at its default settings, and how fast.

    python bench/fuzz_depth.py gate [SEEDS]      # default 1-10
    python bench/fuzz_depth.py defects [SEEDS]   # default 1-3
    python bench/fuzz_depth.py mutants [SEEDS]   # default 1
    python bench/fuzz_depth.py goals [SEEDS]     # default 1-5

- `gate`: `gapstate fuzz --require-all --seed S` on the bundled spec, as
  whole processes, nothing else on the command line: the exit code, the
  traces and events replayed, how many traces it took to fire every
  reachable row, the boundary goals and pairs of rows the traces met; then
  the same run in process, timed (the traces drawn
  differ a little: Hypothesis mixes in constants from the loaded modules).
- `defects`: the defective tables of `tests/defects.py`, each fuzzed at the
  default settings: what fuzz reports and its trace length against the
  trace `gapstate check` gives for the same rule and row (for a hole, the
  shortest way to it), and the traces it took to find it.
- `mutants`: the same for every table that differs from the bundled one in
  one row (its actions made `noop`, its next state `=` or CLEAR, the row
  deleted) and that `check` finds a rule broken in, or a hole.
- `goals`: the default run on the bundled spec in process, heading for rows
  only and then for rows and boundary goals: the goals and pairs of rows
  its traces met, and the traces it took to fire every reachable row.

SEEDS is `1-10` or `1,4,7`. Times depend on the machine's load; counts do not.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gapstate  # noqa: E402
from gapstate.fuzzing.fuzzer import fuzz  # noqa: E402
from gapstate.fuzzing.guide import guide_for  # noqa: E402
from gapstate.run.replayer import machine_for  # noqa: E402
from tests.defects import DEFECTS  # noqa: E402

SPEC_TEXT = (ROOT / "spec" / "gap-state.md").read_text(encoding="utf-8")
BROKE = re.compile(r"row at line (\d+) breaks (.*)")


def seeds(text: str) -> list[int]:
    if "-" in text:
        low, high = text.split("-")
        return list(range(int(low), int(high) + 1))
    return [int(s) for s in text.split(",")]


def variant(old: str, new: str) -> str:
    lines = SPEC_TEXT.splitlines(keepends=True)
    index = [i for i, line in enumerate(lines) if line.rstrip("\n") == old]
    assert len(index) == 1, old
    lines[index[0]] = new + "\n" if new else ""
    return "".join(lines)


def timed_run(spec, seed: int) -> tuple[object, float, float | None]:
    """A default fuzz run in process: the result, its seconds, and the seconds until every reachable row fired."""
    stamps: list[float] = []
    start = time.perf_counter()
    result = fuzz(spec, 500, seed, progress=lambda: stamps.append(time.perf_counter() - start))
    elapsed = time.perf_counter() - start
    complete = stamps[result.complete_after - 1] if result.complete_after else None
    return result, elapsed, complete


def goals(document: dict) -> str:
    met = document["coverage"]["goals"]
    return f"{len(met['met'])}/{len(met['met']) + len(met['missed'])}"


def pairs(document: dict) -> str:
    counted = document["coverage"]["goals"]["pairs"]
    return f"{counted['covered']}/{counted['possible']}"


def gate(chosen: list[int]) -> None:
    spec = gapstate.load_spec()
    guide_for(machine_for(spec))
    print("whole process (`gapstate fuzz --require-all --seed S`), then the same run in this process")
    print(f"{'seed':>5} {'exit':>4} {'traces':>6} {'events':>7} {'full after':>10} {'goals':>6} {'pairs':>7} {'s':>6}   "
          f"{'full after':>10} {'at s':>5} {'traces/s':>8} {'events/s':>8}")
    passed = 0
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "HYPOTHESIS_STORAGE_DIRECTORY": home, "PYTHONPATH": str(ROOT)}
        for seed in chosen:
            start = time.perf_counter()
            run = subprocess.run(
                [sys.executable, "-m", "gapstate", "fuzz", "--require-all", "--seed", str(seed), "--format", "json"],
                capture_output=True, text=True, env=env, cwd=home,
            )
            wall = time.perf_counter() - start
            document = json.loads(run.stdout)
            passed += run.returncode == 0
            result, elapsed, complete = timed_run(spec, seed)  # the same run in process, for the clock
            print(
                f"{seed:>5} {run.returncode:>4} {document['examples']:>6} {document['events']:>7} "
                f"{str(document['coverage']['complete_after']):>10} {goals(document):>6} {pairs(document):>7} {wall:>6.2f}   "
                f"{str(result.complete_after):>10} {complete if complete is None else round(complete, 2)!s:>5} "
                f"{result.examples / elapsed:>8.0f} {result.events / elapsed:>8.0f}"
            )
    print(f"{passed} of {len(chosen)} seeds passed the coverage gate")


def compare(name: str, text: str, chosen: list[int]) -> list[tuple]:
    """Fuzz one defective table with each seed; rows of (name, seed, what fuzz found, its length, check's length, traces)."""
    spec = gapstate.load_spec(text)
    checked = gapstate.check(spec)
    rules = {(f.rule, f.line): len(f.trace) for f in checked.findings if f.kind == "rule"}
    holes = [f for f in checked.findings if f.kind == "not_total"]
    out = []
    for seed in chosen:
        result = fuzz(spec, 500, seed)
        found = result.counterexample
        if found is None:
            out.append((name, seed, "NOTHING FOUND", None, min(rules.values(), default=None), result.examples))
            continue
        if found.kind == "rule":
            line, broken = BROKE.match(found.message).groups()
            ids = [part.split(":")[0].strip() for part in broken.split("; ")]
            wanted = min((rules[(rule, int(line))] for rule in ids if (rule, int(line)) in rules), default=None)
            what = f"{','.join(ids)}@{line}"
        else:
            guide = guide_for(machine_for(spec))
            config = guide.roadmap.initial
            state, event = found.message.split(" in ")[1].split(":")[0], found.message.split()[3]
            wanted = guide.distance(config, (state, event))
            what = f"hole {state}/{event}" + ("" if holes else " (check: none?)")
        out.append((name, seed, what, len(found.trace), wanted, found.after))
    return out


def show(rows: list[tuple]) -> None:
    print(f"{'table':<44} {'seed':>4}  {'fuzz found':<40} {'fuzz':>4} {'check':>5} {'traces':>6}")
    excess = []
    for name, seed, what, length, wanted, traces in rows:
        print(f"{name[:44]:<44} {seed:>4}  {what[:40]:<40} {length!s:>4} {wanted!s:>5} {traces:>6}")
        if length is not None and wanted is not None:
            excess.append(length - wanted)
    missed = sum(1 for row in rows if row[3] is None)
    found = sorted(row[5] for row in rows if row[3] is not None)
    print(f"{len(rows)} runs: {missed} found nothing; fuzz trace minus check's: at most {max(excess, default=None)}; "
          f"traces to find it: median {found[len(found) // 2] if found else None}, most {found[-1] if found else None}")


def goal_runs(chosen: list[int]) -> None:
    spec = gapstate.load_spec()
    print(f"{'seed':>4}  {'goals (rows only, with goals)':>30}  {'pairs':>15}  {'full after':>12}")
    totals = {False: [], True: []}
    for seed in chosen:
        runs = {heading: fuzz(spec, 500, seed, goals=heading) for heading in (False, True)}
        cells = {h: (len(r.goal_coverage["met"]), len(r.goals), r.goal_coverage["pairs"]["covered"], r.complete_after) for h, r in runs.items()}
        for heading, cell in cells.items():
            totals[heading].append(cell)
        (g0, n, p0, c0), (g1, _, p1, c1) = cells[False], cells[True]
        print(f"{seed:>4}  {f'{g0}/{n} -> {g1}/{n}':>30}  {f'{p0} -> {p1}':>15}  {f'{c0} -> {c1}':>12}")
    for heading, cells in totals.items():
        met = sorted(c[0] for c in cells)
        full = sorted(c[3] or 10**6 for c in cells)
        print(f"{'with goals' if heading else 'rows only'}: goals met median {met[len(met) // 2]} (least {met[0]}) of {cells[0][1]}; "
              f"every row fired after median {full[len(full) // 2]} traces")


def mutants() -> list[tuple[str, str]]:
    """Every one-row change of the bundled table that check finds a broken rule or a hole in."""
    table = SPEC_TEXT.split("# state | event | guards | next | actions")[1].split("```")[0]
    rows = [line for line in table.splitlines() if line.count("|") == 4]
    out = []
    for row in rows:
        state, event, guards, target, actions = (part.strip() for part in row.split("|"))
        changes = {
            "noop": f"{state} | {event} | {guards} | {target} | noop",
            "stay": f"{state} | {event} | {guards} | = | {actions}",
            "clear": f"{state} | {event} | {guards} | CLEAR | {actions}",
            "delete": "",
        }
        for how, new in changes.items():
            if new.replace(" ", "") == row.replace(" ", ""):
                continue
            text = variant(row, new)
            spec = gapstate.load_spec(text)
            findings = gapstate.check(spec).findings
            broken = any(f.kind == "rule" for f in findings)
            hole = any(f.kind == "not_total" for f in findings) and guide_for(machine_for(spec)).roadmap.holes
            if broken or hole:  # a hole only the unreachable (allow-listed) rows lead to is no defect fuzz can meet
                out.append((f"{how}: {row.strip()}", text))
    return out


def main() -> None:
    what = sys.argv[1] if len(sys.argv) > 1 else "gate"
    if what == "gate":
        gate(seeds(sys.argv[2] if len(sys.argv) > 2 else "1-10"))
    elif what == "defects":
        chosen = seeds(sys.argv[2] if len(sys.argv) > 2 else "1-3")
        rows = []
        for name, old, new in DEFECTS:
            rows += compare(name, variant(old, new), chosen)
        show(rows)
    elif what == "goals":
        goal_runs(seeds(sys.argv[2] if len(sys.argv) > 2 else "1-5"))
    elif what == "mutants":
        chosen = seeds(sys.argv[2] if len(sys.argv) > 2 else "1")
        rows = []
        for name, text in mutants():
            rows += compare(name, text, chosen)
        show(rows)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
