"""How fast the deciders `gapstate gen` writes are, and what proving and conforming them costs, in one run.

- the generated Rust decider's steps per CPU second over a decoded
  million-event trace held in memory (goal: at least 50,000,000 on one
  core), beside a bare `match` loop over the same events (the floor), pass
  by pass (bench/gen_speed.rs, a crate depending on the generated one).
  Twice: the million events as one session (the replay benchmark's walk,
  which gives some 88,000 distinct interval ids to remember), and as 1,000
  sessions of 1,000 events (about 90 ids each);
- the generated Python decider's steps per CPU second against
  `gapstate.replay(spec, events)` (the public function, every step kept)
  and the interpreter's own loop (`replay(..., keep_steps=False)`, no step
  kept, its answers memoised), on the same 300,000 decoded events;
- `gapstate gen --verify` of the bundled table, the whole command, on the
  generated module and on the built crate (goal: under 5 s);
- `conform` against the generated Rust adapter once it is up: the harness's
  own CPU per event over at least 100,000 events of generated traces (goal:
  at least 25,000 events per CPU second), beside the vectors alone (the
  same checking with no trace to generate).

    python bench/gen_speed.py [--passes N] [--examples N] [--only conform] [--write]

Needs cargo for the Rust figures (they are left out, saying so, without
it). With --write, the figures go into bench/RESULTS.md under "## gen speed";
with --only conform, only the conform figure is measured (the crate built
for it), and --write replaces only its two lines there, saying when.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from timing import GAPSTATE, ROOT, rates, write_section
from walks import write_trace

sys.path.insert(0, ROOT)

import gapstate  # noqa: E402
from gapstate.conformance.conform import conform  # noqa: E402
from gapstate.conformance.protocol import Child  # noqa: E402
from gapstate.conformance.vectors import build  # noqa: E402
from gapstate.run.replayer import replay  # noqa: E402
from gapstate.run.trace import read_trace  # noqa: E402

EVENTS = 1_000_000
IN_PYTHON = 300_000  # events of the Python figures: gapstate.replay keeps a step for each
SESSIONS = 1_000  # the second Rust figure: this many walks of EVENTS // SESSIONS events
CARGO = shutil.which("cargo")
BENCH_TOML = """[package]
name = "gen_speed"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
decider = { path = "../decider" }

[profile.release]
codegen-units = 1
panic = "abort"
"""


def tsv(path: str, items: list[dict]) -> None:
    """The events for the Rust harness: one `name<TAB>t<TAB>id<TAB>speech_start` line each."""
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(f"{e['event']}\t{e['t']}\t{e.get('id', '')}\t{e.get('speech_start', '')}\n" for e in items)


def gen(*args: str) -> None:
    subprocess.run([*GAPSTATE, "gen", *args], check=True, capture_output=True)


def rust(folder: str, passes: int, trace: str) -> list[str]:
    """The Rust figures, as lines."""
    gen("rust", os.path.join(folder, "decider"))
    bench = os.path.join(folder, "bench")
    os.makedirs(os.path.join(bench, "src"))
    with open(os.path.join(bench, "Cargo.toml"), "w", encoding="utf-8") as out:
        out.write(BENCH_TOML)
    shutil.copy(os.path.join(ROOT, "bench", "gen_speed.rs"), os.path.join(bench, "src", "main.rs"))
    subprocess.run([CARGO, "build", "--release", "--offline", "--quiet"], cwd=bench, check=True)
    binary = os.path.join(bench, "target", "release", "gen_speed")
    one = os.path.join(folder, "one.tsv")
    with open(trace, encoding="utf-8") as handle:
        tsv(one, [json.loads(line) for line in handle])
    many = os.path.join(folder, "many.tsv")
    walks: list[dict] = []
    walk = os.path.join(folder, "walk.jsonl")
    for seed in range(SESSIONS):
        write_trace(walk, EVENTS // SESSIONS, seed=seed)
        with open(walk, encoding="utf-8") as handle:
            walks += [json.loads(line) for line in handle]
    tsv(many, walks)
    lines = []
    for label, path, length in (("one session", one, EVENTS), (f"{SESSIONS:,} sessions of {EVENTS // SESSIONS:,}", many, EVENTS // SESSIONS)):
        done = subprocess.run([binary, path, str(passes), str(length)], check=True, capture_output=True, text=True)
        runs = [json.loads(line) for line in done.stdout.splitlines()]
        assert all(r["refused"] == 0 and r["events"] == EVENTS for r in runs), runs[0]  # every event is a step taken
        decider = statistics.median(r["events"] / r["decider"] for r in runs)
        bare = statistics.median(r["events"] / r["floor"] for r in runs)
        ratio = statistics.median(r["decider"] / r["floor"] for r in runs)
        lines.append(f"Rust decider, {EVENTS:,} events, {label}: {decider:14,.0f} steps per CPU s"
                     f"  (goal >= 50,000,000; {decider / 50e6:.2f} of it; median of {passes})")
        lines.append(f"  bare match loop, the same events:   {bare:14,.0f} steps per CPU s"
                     f"  (the decider takes {ratio:.1f} x its time, pass by pass)")
    return lines


def python(folder: str, trace: str, runs: int) -> list[str]:
    """The Python figures, as lines."""
    path = os.path.join(folder, "decider.py")
    gen("python", path)
    found = importlib.util.spec_from_file_location("decider", path)
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    spec = gapstate.load_spec()
    events = list(read_trace(trace))[:IN_PYTHON]

    def generated() -> None:
        step = module.Session().step
        for event in events:
            step(event)

    assert all(type(module.Session().step(e)).__name__ == "Decision" for e in events[:1])
    replay(spec, events[:1000], keep_steps=False)  # compile the table and warm its memo
    decider = rates(generated, len(events), runs)
    public = rates(lambda: gapstate.replay(spec, events), len(events), runs)
    loop = rates(lambda: replay(spec, events, keep_steps=False), len(events), runs)
    return [
        f"Python decider, {len(events):,} events:             {decider.median:12,.0f} steps per CPU s"
        f"  ({decider.low:,.0f} - {decider.high:,.0f}; median of {runs})",
        f"  gapstate.replay(spec, events), every step kept: {public.median:12,.0f} steps per CPU s"
        f"  (goal: decider >= it; {decider.median / public.median:.2f} x)",
        f"  the interpreter's loop, no step kept, memoised: {loop.median:12,.0f} steps per CPU s"
        f"  ({decider.median / loop.median:.2f} x)",
    ]


def verify(folder: str, runs: int) -> list[str]:
    """`gen --verify` of each target, the whole command (the crate built beforehand), as lines."""
    lines = []
    targets = [("module", os.path.join(folder, "decider.py"))]
    if CARGO is not None:
        targets.append(("crate, built", os.path.join(folder, "decider")))
    for label, path in targets:
        walls, cpus = [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run([*GAPSTATE, "gen", "--verify", path, "--format", "json"], capture_output=True, text=True)
            walls.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            assert done.returncode == 0, done.stderr
        document = json.loads(done.stdout)
        lines.append(f"gen --verify, {label}: {statistics.median(walls):5.2f} s wall, {statistics.median(cpus):5.2f} s CPU"
                     f" (gapstate and the decider; goal < 5 s; median of {runs}); {document['cases']:,} cases,"
                     f" {document['answers']:,} answers")
    return lines


def conforming(folder: str, examples: int) -> list[str]:
    """conform against the built crate's binary, the harness's CPU only, as lines."""
    spec = gapstate.load_spec()
    suite = [(v.name, v.trace) for v in build(spec).vectors]
    binary = os.path.join(folder, "decider", "target", "release", "decider")
    with Child([binary]) as child:
        child.reset()  # the adapter is up: its start-up is not part of the rate
        conform(spec, child, suite, examples=5, seed=1, duration=None)  # nor Hypothesis' import and the strategies' set-up
        start = time.process_time()
        alone = conform(spec, child, suite, examples=0, seed=0, duration=None)
        vectors_cpu = time.process_time() - start
        start = time.process_time()
        result = conform(spec, child, suite, examples=examples, seed=0, duration=None)
        cpu = time.process_time() - start
    assert result.ok and alone.ok, result.divergence
    generated = result.events - alone.events
    rate = generated / (cpu - vectors_cpu)
    return [
        f"conform, Rust adapter, {examples:,} generated traces ({generated:,} events): {rate:10,.0f} events per harness"
        f" CPU s  (goal >= 25,000; {rate / 25_000:.2f} of it; {cpu:.1f} s CPU in all)",
        f"  the vectors alone ({alone.events:,} events, nothing generated):  {alone.events / vectors_cpu:10,.0f} events per"
        " harness CPU s",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passes", type=int, default=9, help="passes of each Rust figure (default 9)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each Python and --verify figure (default 5)")
    parser.add_argument("--examples", type=int, default=4500,
                        help="generated traces for the conform figure (default 4,500: over 100,000 events)")
    parser.add_argument("--write", action="store_true", help="write the figures into bench/RESULTS.md")
    parser.add_argument("--only", choices=["conform"], help="measure only the conform figure")
    args = parser.parse_args()
    if args.only:
        conform_only(args)
        return
    with tempfile.TemporaryDirectory() as folder:
        trace = os.path.join(folder, "trace.jsonl")
        write_trace(trace, EVENTS)
        said = python(folder, trace, args.runs)
        print("\n".join(said), flush=True)
        if CARGO is None:
            said.append("Rust figures left out: cargo is not on the PATH")
        else:
            lines = rust(folder, args.passes, trace)
            print("\n".join(lines), flush=True)
            said += lines
        lines = verify(folder, args.runs)
        print("\n".join(lines), flush=True)
        said += lines
        if CARGO is not None:
            lines = conforming(folder, args.examples)
            print("\n".join(lines), flush=True)
            said += lines
    if args.write:
        stamp = datetime.datetime.now(datetime.UTC)
        load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
        command = " ".join(["python bench/gen_speed.py", *sys.argv[1:]])
        print("wrote " + write_section("## gen speed", [
            "",
            f"Written by `{command}` at {stamp:%Y-%m-%d %H:%M} UTC (load average {load} after; rates per CPU second,"
            " ratios pass by pass):",
            "",
            *["    " + line for line in said],
        ]))


def conform_only(args: argparse.Namespace) -> None:
    """The conform figure alone; with --write, its lines put in place of the section's own."""
    if CARGO is None:
        sys.exit("gen_speed: the conform figure needs cargo")
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    with tempfile.TemporaryDirectory() as folder:
        crate = os.path.join(folder, "decider")
        gen("rust", crate)
        subprocess.run([CARGO, "build", "--release", "--offline", "--quiet"], cwd=crate, check=True)
        lines = conforming(folder, args.examples)
    print("\n".join(lines), flush=True)
    if not args.write:
        return
    path = os.path.join(ROOT, "bench", "RESULTS.md")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    start = text.index("\n## gen speed\n")
    end = text.find("\n## ", start + 1)
    section = text[start:] if end < 0 else text[start:end]
    old = [line for line in section.splitlines() if line.startswith(("    conform, Rust adapter", "      the vectors alone"))]
    assert len(old) == 2, "the section holds the conform figure's two lines"
    stamp = datetime.datetime.now(datetime.UTC)
    code = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    note = (f"The two conform lines are from `python bench/gen_speed.py {' '.join(sys.argv[1:])}` at {stamp:%Y-%m-%d %H:%M} UTC"
            f" on code {code}, load average {load} before and {', '.join(f'{v:.2f}' for v in os.getloadavg())} after.")
    kept = [line for line in section.splitlines() if not line.startswith("The two conform lines are from ")]
    body = "\n".join(kept).replace(old[0], "    " + lines[0]).replace(old[1], "    " + lines[1])
    body = body.replace("\n\n    Python decider", f"\n\n{note}\n\n    Python decider", 1)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(text[:start] + body + ("" if end < 0 else text[end:]))
    os.replace(path + ".tmp", path)
    print("wrote bench/RESULTS.md")


if __name__ == "__main__":
    main()
