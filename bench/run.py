"""Every benchmark figure of gapstate, each beside its goal, in one run.

    python bench/run.py [--runs N] [--events N] [--only PART,...] [--skip PART,...] [--no-write]

Each figure belongs to a part (`--only head,ids` runs those alone; the
parts are listed by `--help`). A run of some parts replaces their rows of
bench/RESULTS.md and keeps the others, each row saying which run measured it.

Generates the traces it needs (a random walk over the bundled table, written
compactly, about 35 bytes a line), then measures:

- whole processes, alternated with their floor pair after pair (median,
  min and max of the per-pair ratios): `check` against importing lark,
  networkx and click; `classify` against importing click; `replay --summary`
  of the 1,000,000-event trace against a text-mode `json.loads` loop over
  the same file (and its peak memory); `check` of the bundled table with
  `@cap session_requests 1000` against `check` of the bundled table;
- in process: interpreter steps a second on decoded events, and the Python
  API `gapstate.replay(spec, events)` keeping every step, per CPU second (and, reported,
  turning those steps into the JSON document);
- what grows with the input (bench/scale.py): a 10,003-row table, caps
  whose configurations pass the exploration budget, `replay | head -3` on
  the long trace, a million distinct ids, and the conform transport with a
  trivial answering process;
- `conform` and `coverage` events a second, when those commands exist;
- `diff --traces` against `coverage` on the same 2,000 sessions of 200
  events (bench/diff_speed.py), alternated pair after pair.

It prints the figures and writes bench/RESULTS.md (machine, load, date,
command, figures). Nothing here is a test: a missed goal is reported, and
the exit code is 0 unless a measured command failed outright.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from typing import Any, NamedTuple

from scale import PARTS as SCALE_PARTS
from timing import GAPSTATE, ROOT, Spread, compare, environment, rates, start_launcher

start_launcher()  # before the runner grows: its children's peak memory must be their own

sys.path.insert(0, ROOT)

from diff_speed import measure  # noqa: E402
from walks import write_trace  # noqa: E402

import gapstate  # noqa: E402
from gapstate.run.replayer import replay  # noqa: E402
from gapstate.run.trace import read_trace  # noqa: E402
from gapstate.table.load import bundled_path, load_spec  # noqa: E402

SESSIONS, SESSION_EVENTS = 2000, 200  # the recorded sessions `diff --traces` and `coverage` both replay

IMPORTS = "import lark, networkx, click"
JSON_LOOP = "import json, sys\nfor line in open(sys.argv[1]):\n    json.loads(line)\n"

# One control and two stall arms over three turns: the shape of spec/classify-example.json.
REPORT = {
    "answer_key": ["q1", "q2", "q3"],
    "arms": [
        {"name": "control", "kind": "control",
         "turns": {"q1": {"status": "present"}, "q2": {"status": "present"}, "q3": {"status": "present"}}},
        {"name": "stall-2s", "kind": "stall",
         "counters": {"ingress_dropped_bytes": 6400},
         "intervals": [{"kind": "drop", "start": 12400, "end": 14400, "voiced": True}],
         "turns": {"q1": {"status": "present"},
                   "q2": {"status": "absent", "transmitted": True, "audio": [11800, 16900]},
                   "q3": {"status": "late"}}},
        {"name": "stall-5s", "kind": "stall", "transcript_received": False,
         "turns": {"q1": {"status": "absent"}, "q2": {"status": "absent"}, "q3": {"status": "repeated"}}},
    ],
}


class Figure(NamedTuple):
    name: str
    value: Spread | None  # None: not measured
    unit: str  # "x" for a ratio
    goal: str  # e.g. "<= 1.2"
    detail: str = ""

    @property
    def met(self) -> bool | None:
        if self.value is None or not self.goal:
            return None
        op, bound = self.goal.split()
        bound_value = float(bound.replace(",", ""))
        return {"<=": self.value.median <= bound_value, "<": self.value.median < bound_value,
                ">=": self.value.median >= bound_value}[op]

    def cells(self) -> tuple[str, str, str, str]:
        if self.value is None:
            return self.name, "not measured", self.goal or "-", self.detail
        v = self.value
        text = f"{_num(v.median, self.unit)} ({_num(v.low, self.unit)} - {_num(v.high, self.unit)})"
        verdict = {True: "met", False: "NOT MET", None: "reported"}[self.met]
        return self.name, text, f"{self.goal} {self.unit}".strip() if self.goal else "-", (
            verdict + (f"; {self.detail}" if self.detail else ""))


def _num(value: float, unit: str) -> str:
    if unit in ("x", "s"):
        return f"{value:.2f}"
    if value >= 1000:
        return f"{value:,.0f}"
    return f"{value:.1f}"


def has_command(name: str, env: dict[str, str]) -> bool:
    return subprocess.run(GAPSTATE + [name, "--help"], capture_output=True, env=env, cwd=ROOT).returncode == 0


PARTS = ("startup", "replay", "in-process", "cap1000", "budget", "head", "ids", "transport", "classify-problems",
         "commands", "diff", "big-table")
NEEDS_TRACE = {"replay", "in-process", "head", "commands"}


def _parts(text: str) -> set[str]:
    names = {name.strip() for name in text.split(",") if name.strip()}
    unknown = names - set(PARTS)
    if unknown:
        raise argparse.ArgumentTypeError(f"no part {', '.join(sorted(unknown))}; the parts: {', '.join(PARTS)}")
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="alternated pairs for the startup figures (default 15)")
    parser.add_argument("--events", type=int, default=1_000_000, help="events of the replay trace (default 1,000,000)")
    parser.add_argument("--only", type=_parts, default=None, metavar="PART,...", help="run these parts: " + ", ".join(PARTS))
    parser.add_argument("--skip", type=_parts, default=set(), metavar="PART,...", help="run every part but these")
    parser.add_argument("--no-write", action="store_true", help="print only; leave bench/RESULTS.md alone")
    args = parser.parse_args()
    chosen = [part for part in PARTS if (args.only is None or part in args.only) and part not in args.skip]
    runs, heavy = args.runs, max(3, args.runs // 3)
    started = datetime.datetime.now(datetime.UTC)
    load_before = os.getloadavg()
    figures: list[tuple[str, Figure]] = []
    current = [""]

    def show(figure: Figure) -> None:
        figures.append((current[0], figure))
        name, value, goal, verdict = figure.cells()
        print(f"{name:<58} {value:<34} goal {goal:<14} {verdict}", flush=True)

    with tempfile.TemporaryDirectory() as folder:
        env = environment(folder)
        trace = os.path.join(folder, "trace.jsonl")
        api_trace = os.path.join(folder, "api.jsonl")
        api_events: list[dict] = []
        if NEEDS_TRACE & set(chosen):
            start = time.perf_counter()
            write_trace(trace, args.events)
            with open(trace, encoding="utf-8") as handle:
                api_events = [json.loads(next(handle)) for _ in range(min(300_000, args.events))]
            with open(api_trace, "w", encoding="utf-8") as handle:
                handle.writelines(json.dumps(e, separators=(",", ":")) + "\n" for e in api_events)
            size = os.path.getsize(trace)
            print(f"traces: {args.events:,} events, {size / 2**20:.1f} MiB ({size / args.events:.0f} bytes a line), "
                  f"generated in {time.perf_counter() - start:.1f} s; {runs} pairs a startup figure, {heavy} otherwise")
        with open(bundled_path(), encoding="utf-8") as src:
            text = src.read()
        context = {"folder": folder, "env": env, "runs": runs, "heavy": heavy, "trace": trace, "api_trace": api_trace,
                   "api_events": api_events, "events": args.events, "text": text}
        for part in chosen:
            current[0] = part
            if part in SCALE_PARTS:
                SCALE_PARTS[part](folder=folder, env=env, runs=heavy, show=show, figure=Figure, spec_text=text,
                                  trace=trace, events=args.events, floor=[sys.executable, "-c", JSON_LOOP])
            else:
                globals()["_" + part.replace("-", "_")](context, show)

    load_after = os.getloadavg()
    if not args.no_write:
        command = "python bench/run.py" + "".join(
            f" --{k.replace('_', '-')} {v}" for k, v in (("runs", args.runs), ("events", args.events))
            if v != {"runs": 15, "events": 1_000_000}[k])
        if args.only is not None:
            command += " --only " + ",".join(part for part in PARTS if part in args.only)
        if args.skip:
            command += " --skip " + ",".join(part for part in PARTS if part in args.skip)
        write_results(figures, chosen, started, load_before, load_after, command)
    print(f"load average (1, 5, 15 min): before {_load(load_before)}, after {_load(load_after)}")


def _startup(c: dict[str, Any], show: Any) -> None:
    runs, env = c["runs"], c["env"]
    report = os.path.join(c["folder"], "report.json")
    with open(report, "w", encoding="utf-8") as handle:
        json.dump(REPORT, handle)
    r = compare(GAPSTATE + ["check"], [sys.executable, "-c", IMPORTS], runs, env)
    show(Figure("check / import lark, networkx, click", r.ratio, "x", "<= 1.2",
                f"{r.command.median * 1000:.0f} ms against {r.baseline.median * 1000:.0f} ms"))
    r = compare(GAPSTATE + ["classify", report], [sys.executable, "-c", "import click"], runs, env)
    show(Figure("classify / import click", r.ratio, "x", "<= 1.2",
                f"{r.command.median * 1000:.0f} ms against {r.baseline.median * 1000:.0f} ms"))


def _replay(c: dict[str, Any], show: Any) -> None:
    trace = c["trace"]
    r = compare(GAPSTATE + ["replay", "--summary", trace], [sys.executable, "-c", JSON_LOOP, trace], c["heavy"], c["env"])
    ok = set(r.codes) == {0}
    show(Figure(f"replay --summary / json.loads loop ({c['events']:,} events)", r.ratio, "x", "<= 0.6",
                f"{r.command.median:.2f} s against {r.baseline.median:.2f} s" + ("" if ok else f"; exit {r.codes}")))
    show(Figure("replay --summary peak memory", r.peak_mib, "MiB", "< 60"))


def _in_process(c: dict[str, Any], show: Any) -> None:
    heavy, api_events = c["heavy"], c["api_events"]
    spec = load_spec()
    events = list(read_trace(c["trace"]))
    replay(spec, events[:1000], keep_steps=False)  # compile the table and warm its memo
    result = replay(spec, events, keep_steps=False)
    assert result.ok and result.events == len(events), result.error
    show(Figure("interpreter steps per CPU s in process (decoded events)",
                rates(lambda events=events: replay(spec, events, keep_steps=False), len(events), heavy), "/s", ">= 3,000,000"))
    del events
    kept = gapstate.replay(spec, api_events)
    assert kept.ok and len(kept.steps) == len(api_events)
    show(Figure(f"gapstate.replay(spec, events) per CPU s, every step kept ({len(api_events):,} events)",
                rates(lambda: gapstate.replay(spec, api_events), len(api_events), heavy), "/s", ">= 1,000,000"))
    show(Figure("the same result .to_dict(), every step as JSON (steps per CPU s)", rates(kept.to_dict, len(api_events), heavy), "/s", ""))


def _cap1000(c: dict[str, Any], show: Any) -> None:
    capped = os.path.join(c["folder"], "cap1000.md")
    assert "@cap session_requests 3\n" in c["text"]
    with open(capped, "w", encoding="utf-8") as dst:
        dst.write(c["text"].replace("@cap session_requests 3\n", "@cap session_requests 1000\n"))
    r = compare(GAPSTATE + ["check", "--spec", capped], GAPSTATE + ["check"], c["heavy"], c["env"])
    show(Figure("check @cap session_requests 1000 / check bundled", r.ratio, "x", "<= 12",
                f"{r.command.median:.2f} s against {r.baseline.median:.2f} s; exit {sorted(set(r.codes))}"))
    show(Figure("check @cap session_requests 1000 peak memory", r.peak_mib, "MiB", "< 250"))


def _commands(c: dict[str, Any], show: Any) -> None:
    env, heavy = c["env"], c["heavy"]
    # conform drives the example room loop (plain Python, no gapstate import) when the
    # project has one, else bench/reference_impl.py (gapstate's own Session behind the protocol)
    implementation = os.path.join(ROOT, "examples", "room_loop.py")
    if not os.path.exists(implementation):
        implementation = os.path.join(ROOT, "bench", "reference_impl.py")
    for name, command in (
        ("coverage", GAPSTATE + ["coverage", "--format", "json", c["api_trace"]]),
        ("conform", GAPSTATE + ["conform", "--examples", "200", "--seed", "1", "--format", "json", "--",
                                sys.executable, implementation]),
    ):
        if not has_command(name, env):
            show(Figure(f"{name} events/s", None, "/s", "", "no `gapstate " + name + "` command on this branch"))
            continue
        values = []
        for _ in range(heavy):
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
            seconds = time.perf_counter() - start
            try:
                count = json.loads(done.stdout)["events"]
            except (ValueError, KeyError, TypeError):
                count = None
            if count is None:
                break
            values.append(count / seconds)
        if values:
            what = f"{count:,} events" + (f", {os.path.relpath(implementation, ROOT)}" if name == "conform" else "")
            show(Figure(f"{name} events/s (whole process, {what})", Spread.of(values), "/s", ""))
        else:
            show(Figure(f"{name} events/s", None, "/s", "",
                        f"`{' '.join(command[2:4])}` gave no events count (exit {done.returncode})"))


def _diff(c: dict[str, Any], show: Any) -> None:
    r, found = measure(c["folder"], SESSIONS, SESSION_EVENTS, c["heavy"])
    show(Figure(f"diff --traces / coverage, the same {found['read']:,} sessions ({found['events']:,} events)",
                r.ratio, "x", "<= 2", f"{r.command.median:.2f} s against {r.baseline.median:.2f} s; "
                f"{found['affected']:,} sessions differ; bench/diff_speed.py"))


def _load(values: tuple[float, float, float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


def _machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            model = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), model)
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def _revision() -> str:
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"
    return head + (" (with uncommitted changes)" if dirty else "")


def write_results(figures: list[tuple[str, Figure]], chosen: list[str], started: datetime.datetime, before: tuple,
                  after: tuple, command: str) -> None:
    """Write bench/RESULTS.md: this run's rows, and the rows of the parts it did not run as the last run left them."""
    path = os.path.join(ROOT, "bench", "RESULTS.md")
    with open(path, encoding="utf-8") as handle:
        sections = handle.read().split("\n## ", 1)  # other scripts' sections (conform_gallery.py) stay
    runs, rows = _previous(sections[0]) if len(chosen) < len(PARTS) else ({}, [])
    rows = [(part, tag, cells) for part, tag, cells in rows if part not in chosen]
    tag = f"r{1 + max((int(t[1:]) for t in runs), default=0)}"
    runs = {t: line for t, line in runs.items() if any(t == kept for _, kept, _ in rows)}
    runs[tag] = (f"`{command}`: {started:%Y-%m-%d %H:%M} UTC, code {_revision()}, "
                 f"load {_load(before)} before, {_load(after)} after")
    rows += [(part, tag, list(figure.cells())) for part, figure in figures]
    rows.sort(key=lambda row: PARTS.index(row[0]) if row[0] in PARTS else len(PARTS))  # stable: each part's own order
    lines = [
        "# Benchmark results",
        "",
        "Written by `python bench/run.py`, whole or in parts (`--only`, `--skip`); do not edit by hand. Every",
        "ratio is the median of alternated whole-process runs (command, floor, floor, command, ...) with",
        "the min and max of the per-pair ratios; rates are medians of in-process runs, per CPU second. The last column",
        "names the run that measured the row.",
        "",
        f"- machine: {_machine()}",
        f"- date: {started:%Y-%m-%d %H:%M} UTC",
        "- runs, with the load average (1, 5, 15 min) before and after each: the machine is shared (other",
        "  work ran beside these), so absolute times drift; the ratios, measured pair by pair, hold better",
        *[f"  - {t}: {line}" for t, line in sorted(runs.items(), key=lambda item: int(item[0][1:]))],
        "",
        "| figure | median (min - max) | goal | verdict | run |",
        "|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join([*cells, f"{t} ({part})"]) + " |" for part, t, cells in rows]
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n" + ("\n## " + sections[1] if len(sections) > 1 else ""))
    os.replace(temporary, path)
    print(f"wrote {os.path.relpath(path)}")
    _quote_in_docs(f"{started:%Y-%m-%d %H:%M} UTC", [line for line in lines if line.startswith("|")])
    _quote_in_readme(["| figure | median (min - max) | goal |", "|---|---|---|"] +
                     ["| " + " | ".join(cells[:3]) + " |" for _, _, cells in rows])


def _previous(text: str) -> tuple[dict[str, str], list[tuple[str, str, list[str]]]]:
    """The runs (tag -> what it was) and the rows (part, tag, cells) of the table bench/RESULTS.md holds."""
    runs: dict[str, str] = {}
    rows: list[tuple[str, str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("  - r") and ": " in line:
            tag, what = line[4:].split(": ", 1)
            runs[tag] = what
        elif line.startswith("| ") and not line.startswith("| figure |"):
            cells = [cell.strip() for cell in line.strip("|").split(" | ")]
            if len(cells) == 5 and " (" in cells[4]:
                tag, part = cells[4].rstrip(")").split(" (", 1)
                rows.append((part, tag, cells[:4]))
    return runs, rows


def _quote_in_docs(date: str, table: list[str]) -> None:
    """Put the same table in docs/performance.md, so its figures are the last run's (a test checks)."""
    path = os.path.join(ROOT, "docs", "performance.md")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    start = text.find("Last run (")
    if start < 0:
        return
    end = text.index("\n\n", text.index("\n\n", start) + 2)  # the intro line, a blank, the table
    quoted = f"Last run ({date}, quoted from bench/RESULTS.md, which also gives the machine and its load):\n\n"
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text[:start] + quoted + "\n".join(table) + text[end:])
    os.replace(temporary, path)
    print(f"updated {os.path.relpath(path)}")


def _quote_in_readme(table: list[str]) -> None:
    """The README's speed table: each figure, its median and its goal, as bench/RESULTS.md has them (a test checks)."""
    path = os.path.join(ROOT, "README.md")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    start = text.find("| figure | median (min - max) | goal |\n")
    if start < 0:
        return
    end = text.index("\n\n", start)
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text[:start] + "\n".join(table) + text[end:])
    os.replace(temporary, path)
    print(f"updated {os.path.relpath(path)}")


if __name__ == "__main__":
    main()
