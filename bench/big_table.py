"""A large generated table: the bundled one's gap states copied, chained copy to copy.

    python bench/big_table.py COPIES [--breaking] > big.md

Copy k of OPEN, DUE, SENDING and REQUESTED is OPEN_k, ...; a fresh voiced
loss in OPEN_k leads to OPEN_k+1 instead of merging, so every copy is
reachable and the table stays total and unambiguous (the prose's rules grew
since: a copy breaks some of them even so). With `--breaking`, every copy
also has one row that breaks a rule (a send on `candidate_start`), and
each copy adds 50 findings: 185 copies make 10,003 rows, 29,824
configurations and 9,265 findings (`pytest -m slow` holds the pages that
say so to what check finds).
"""

from __future__ import annotations

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gapstate.table.load import bundled_path  # noqa: E402

GAP_STATES = ("OPEN", "DUE", "SENDING", "REQUESTED")
_NAME = re.compile(r"\b(" + "|".join(GAP_STATES) + r")\b")


def big_table(copies: int, breaking: bool = False) -> str:
    """The markdown of a table with `copies` copies of the gap states (54 rows and 3 allowances each)."""
    with open(bundled_path(), encoding="utf-8") as handle:
        text = handle.read()
    block = text[text.index("```gapstate"):]
    block = block[block.index("\n") + 1:block.index("```", 4)]
    shared, per_copy, allowances = [], [], []
    for line in block.splitlines():
        if line.startswith("@unreachable"):
            allowances.append(line)
        elif line.startswith(("#", "@", "*", "CLEAR")) or not line.strip():
            shared.append(line)
        else:
            per_copy.append(line)
    lines = ["# A generated table", "", "```gapstate"]
    for line in shared:
        lines.append(_NAME.sub(lambda m: m.group(1) + "_0", line) if line.startswith("CLEAR") else line)
    for k in range(copies):
        def rename(line: str, k: int = k) -> str:
            return _NAME.sub(lambda m: f"{m.group(1)}_{k}", line)

        lines.extend(rename(line) for line in allowances)
        for line in per_copy:
            if k + 1 < copies and line.startswith("OPEN | loss_voiced | !dup |"):
                line = f"OPEN | loss_voiced | !dup | OPEN_{k + 1} | merge_gap"
            if breaking and line.startswith("OPEN | candidate_start"):
                line = "OPEN | candidate_start | - | = | noop,send_request"
            lines.append(rename(line))
    lines.append("```")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("copies", type=int)
    parser.add_argument("--breaking", action="store_true", help="one rule-breaking row per copy")
    args = parser.parse_args()
    sys.stdout.write(big_table(args.copies, args.breaking))


if __name__ == "__main__":
    main()
