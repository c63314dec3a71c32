"""How `classify` grows with the problems of a report it refuses: ten times the problems, about ten times the time.

Reports whose answer keys hold 20,000 and 200,000 numbers (each a problem:
turn names are strings) are refused, the first 1,000 problems listed; the two
commands run alternately, pair after pair (bench/timing.py), and the figure is
the median ratio of their times. Linear work gives a ratio near 10 (a little
less: both pay the same start-up); the quadratic positions of old gave over 50.

    python bench/classify_problems.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from timing import GAPSTATE, Comparison, compare, environment, start_launcher  # noqa: E402

SMALL, LARGE = 20_000, 200_000


def measure(runs: int) -> Comparison:
    """`runs` alternated pairs: classify of the large report against classify of the small one (both exit 2)."""
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for size in (SMALL, LARGE):
            paths[size] = os.path.join(folder, f"problems-{size}.json")
            with open(paths[size], "w", encoding="utf-8") as out:
                json.dump({"answer_key": list(range(size)), "arms": []}, out, indent=1)
        env = environment(folder)
        start_launcher()  # its processes' stderr (each refusal's thousand lines) goes nowhere
        c = compare(GAPSTATE + ["classify", paths[LARGE]], GAPSTATE + ["classify", paths[SMALL]], runs, env)
    assert set(c.codes) == {2}, c.codes
    return c


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    c = measure(parser.parse_args().runs)
    print(f"classify, {LARGE:,} problems / {SMALL:,} problems: {c.ratio.median:.1f} x "
          f"({c.ratio.low:.1f} - {c.ratio.high:.1f}; {c.runs} pairs); "
          f"{c.command.median:.2f} s against {c.baseline.median:.2f} s, peak {c.peak_mib.median:.0f} MiB")


if __name__ == "__main__":
    main()
