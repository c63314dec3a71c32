"""How dependably `gapstate conform` at its defaults catches the bugs of tests/gallery.py, and how fast.

    python bench/conform_gallery.py [SEEDS] [--generated] [--write]

For each buggy room loop of the gallery and each seed (default 0-4): a
whole default run in process (`gapstate.conform(loop, seed=S)`: the
vectors, then generated traces only if every vector agrees), whether it
diverged, and its time (the median over the seeds; shrinking included).
`--generated` adds the same for generated traces alone (a vectors folder
holding one harmless trace), which shows what the default `--duration` of
generated traces finds without the vectors. `--write` puts the table in
bench/RESULTS.md under "## conform gallery". Times depend on the machine's
load; catches do not.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gapstate  # noqa: E402
from tests.gallery import GALLERY  # noqa: E402

HEADING = "## conform gallery"


def seeds(text: str) -> list[int]:
    if "-" in text:
        low, high = text.split("-")
        return list(range(int(low), int(high) + 1))
    return [int(s) for s in text.split(",")]


def measure(make, seed_list, vectors=None) -> tuple[int, float, int]:
    """Catches, median seconds, and median traces over the seeds."""
    caught, times, traces = 0, [], []
    for seed in seed_list:
        start = time.perf_counter()
        result = gapstate.conform(make(), vectors=vectors, seed=seed)
        times.append(time.perf_counter() - start)
        traces.append(result.traces)
        caught += not result.ok
    return caught, statistics.median(times), int(statistics.median(traces))


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    seed_list = seeds(args[0]) if args else list(range(5))
    generated = "--generated" in sys.argv
    gapstate.conform(GALLERY["ActionsReordered"](), examples=0)  # the vectors are planned once per process
    calm = Path(tempfile.mkdtemp()) / "calm.jsonl"
    calm.write_text('{"event": "loss_silent", "t": 0}\n', encoding="utf-8")
    head = "| bug | caught at defaults | median time |" + (" generated traces alone: caught | median time |" if generated else "")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    n = len(seed_list)
    for name, cls in GALLERY.items():
        caught, median, _ = measure(cls, seed_list)
        row = f"| {name} | {caught} of {n} | {median * 1000:.0f} ms |"
        if generated:
            alone, alone_median, traces = measure(cls, seed_list, calm.parent)
            row += f" {alone} of {n} | {alone_median:.1f} s ({traces} traces) |"
        lines.append(row)
        print(row, flush=True)
    if "--write" in sys.argv:
        seeds_text = f"seeds {seed_list[0]}-{seed_list[-1]}" if seed_list == list(range(seed_list[0], seed_list[-1] + 1)) else f"seeds {seed_list}"
        section = [HEADING, "", f"Written by `python bench/conform_gallery.py {' '.join(sys.argv[1:])}`: "
                   f"each bug of tests/gallery.py, {seeds_text}, `gapstate.conform` in process at its defaults.", ""] + lines
        path = ROOT / "bench" / "RESULTS.md"
        text = path.read_text(encoding="utf-8")
        kept = text.split("\n" + HEADING)[0].rstrip("\n")
        path.write_text(kept + "\n\n" + "\n".join(section) + "\n", encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
