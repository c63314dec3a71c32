"""Text output fits 100 columns: every command, on the bundled and test inputs, in every line of stdout and stderr.

The inputs are those that print the most: findings with consequences, the
notice of the bundled fallback (with a repository table nobody configured),
a stopped replay, classify's repeats, a conform divergence. They run in a
folder laid out as a user's repository, so paths are as short as a user's
(a longer path makes the lines that name it longer; docs/cli.md, Output).
"""

from __future__ import annotations

import shutil
import sys

import pytest

from gapstate.conformance.vectors import build
from gapstate.table.load import parse_spec
from gapstate.words import WIDTH, trace_lines, wrap

from .support import ALLOWED, DATA, REPORT_EXAMPLE, ROOM_LOOP, ROOT, SPEC_TEXT, run, unwrapped, variant


@pytest.fixture(scope="module")
def repository(tmp_path_factory):
    """A git work tree holding the spec (configured nowhere, so commands without --spec fall back and note it)."""
    top = tmp_path_factory.mktemp("repository")
    (top / ".git").mkdir()
    (top / "spec").mkdir()
    (top / "spec" / "gap-state.md").write_text(SPEC_TEXT, encoding="utf-8")
    shutil.copy(DATA / "defective.md", top / "defective.md")
    (top / "written-off.md").write_text(variant(*WRITTEN_OFF), encoding="utf-8")
    (top / "new.md").write_text(SPEC_TEXT.replace(DEFERS[0], DEFERS[1]), encoding="utf-8")
    (top / "recorded").mkdir()  # the bundled table's conformance vectors, as a team's recorded sessions
    for vector in build(parse_spec(SPEC_TEXT, "spec.md")).vectors:
        (top / "recorded" / f"{vector.name}.jsonl").write_text("\n".join(trace_lines(vector.trace)) + "\n", encoding="utf-8")
    assert run("gen", "python", str(top / "decider.py"), "--spec", str(top / "spec" / "gap-state.md")).exit_code == 0
    decider = (top / "decider.py").read_text(encoding="utf-8")  # and one that counts an attempt it did not make:
    assert decider.count(MISCOUNTS[0]) == 1
    (top / "edited.py").write_text(decider.replace(*MISCOUNTS), encoding="utf-8")
    (top / "report.json").write_text(REPORT_EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    (top / "repeat-2.json").write_text(_docs_block("docs/classify.md", "json file=repeat-2.json"), encoding="utf-8")
    (top / "trace.jsonl").write_text("\n".join(TRACE) + "\n", encoding="utf-8")
    (top / "stops.jsonl").write_text("\n".join(TRACE[:2] + ['{"event": "send_ok", "t": 300}']) + "\n", encoding="utf-8")
    return top


TRACE = [  # a guard decided by an id and one by speech_start
    '{"event": "loss_voiced", "t": 120, "id": "iv-1"}', '{"event": "loss_voiced", "t": 130, "id": "iv-1"}',
    '{"event": "floor_released", "t": 300}', '{"event": "send_ok", "t": 420}',
    '{"event": "evidence_turn", "t": 900, "speech_start": 650}',
]


# docs/fuzz.md's table that writes a gap off without saying how it ended
WRITTEN_OFF = ("DUE | floor_released | !busy,!budget_left | CLEAR | unrepaired_budget",
               "DUE | floor_released | !busy,!budget_left | CLEAR | noop")
SPEC = ("--spec", "spec/gap-state.md")
LONGEST = "REQUESTED | request_undelivered | attempts_left,candidate_active | OPEN | keep_budget_spent,supersede"
MISCOUNTS = ("(195, 'DUE', ('defer_no_interrupt',), s.session_requests, s.episode_attempts,",
             "(195, 'DUE', ('defer_no_interrupt',), s.session_requests, s.episode_attempts + 1,")
# docs/diff.md's change for --traces: a busy release with the budget spent now writes the gap off
DEFERS = ("OPEN | floor_released | busy | DUE | defer_no_interrupt\n",
          "OPEN | floor_released | busy,budget_left | DUE | defer_no_interrupt\n"
          "OPEN | floor_released | busy,!budget_left | CLEAR | unrepaired_budget\n")


def _docs_block(page: str, info: str) -> str:
    """The body of the fenced block that opens with ```INFO on the page."""
    text = (ROOT / page).read_text(encoding="utf-8")
    start = text.index(f"```{info}\n") + len(info) + 4
    return text[start : text.index("```", start)]

CASES = {
    "check, findings and their consequences": ("check", "defective.md", "--bounds"),
    "check, the bundled fallback": ("check",),
    "check, several specs": ("check", "spec/gap-state.md", "defective.md"),
    "witness, the bundled fallback": ("witness", "196"),
    "mutate, the survivors of a row with its longest name": ("mutate", *SPEC, "--line", str(next(
        n for n, line in enumerate(SPEC_TEXT.splitlines(), 1) if line.startswith("REQUESTED | request_undelivered | attempts_left,candidate_active"))),
        "--kind", "next_changed", "--jobs", "1"),
    "replay": ("replay", *SPEC, "trace.jsonl"),
    "replay, stopped": ("replay", *SPEC, "stops.jsonl"),
    "replay --summary, the bundled fallback": ("replay", "--summary", "stops.jsonl"),
    "coverage, of traces that fire few rows and one that stops": ("coverage", *SPEC, "trace.jsonl", "stops.jsonl"),
    "vectors": ("vectors", *SPEC, "suite"),
    "diff --traces": ("diff", "spec/gap-state.md", "new.md", "--traces", "recorded", "stops.jsonl", "--jobs", "1"),
    "conform, a divergence shrunk and saved": ("conform", *SPEC, "--examples", "0", "--save", "found.jsonl", "--",
                                               sys.executable, str(ROOM_LOOP)),
    "gen python": ("gen", "python", "written.py", *SPEC),
    "gen --verify, agreeing": ("gen", "--verify", "decider.py", *SPEC),
    "gen --verify, disagreeing": ("gen", "--verify", "edited.py", *SPEC),
    "explain, a row that never fires, and why": ("explain", *SPEC, ALLOWED[0]),
    "explain, the longest row": ("explain", *SPEC, LONGEST),
    "classify": ("classify", "report.json"),
    "classify, repeats with an overflow and unmet conditions": ("classify", "report.json", "repeat-2.json", "report.json"),
    "fuzz, a failure with the rows and goals never met": ("fuzz", "--spec", "written-off.md", "--seed", "1"),
    "fuzz, a campaign's failed coverage gate": ("fuzz", *SPEC, "--examples", "2", "--jobs", "2", "--seed", "1",
                                                "--require-all"),
}


# gen --verify streams its 5,060 cases through a Python decider whether it agrees or not: seconds of CPU a run
SLOW = {"gen --verify, agreeing", "gen --verify, disagreeing"}


@pytest.mark.parametrize("args", [
    pytest.param(args, id=name, marks=[pytest.mark.slow] if name in SLOW else []) for name, args in CASES.items()
])
def test_every_line_of_text_output_fits_the_width(repository, monkeypatch, args):
    monkeypatch.chdir(repository)
    monkeypatch.setenv("ROOM_LOOP_BUG", "send_while_busy")  # docs/conformance.md's divergence; nothing else reads it
    result = run(*args)
    assert result.exit_code in (0, 1), result.output
    wide = [line for line in result.stdout.splitlines() + result.stderr.splitlines() if len(line) > WIDTH]
    assert not wide, "\n".join(f"{len(line)}: {line}" for line in wide)


def test_a_wrapped_line_goes_on_indented_and_joins_back_into_what_it_was():
    line = "spec.md:12:1: rule: send-while-busy: " + " ".join(f"word{i}" for i in range(40))
    lines = wrap(line, keep=len("spec.md:12:1: rule: send-while-busy:"))
    assert len(lines) > 1 and all(len(part) <= WIDTH for part in lines)
    assert lines[0].startswith("spec.md:12:1: rule: send-while-busy: word0")
    assert all(part.startswith("    ") and not part.startswith("     ") for part in lines[1:])
    assert unwrapped("\n".join(lines)) == [line]


def test_what_is_quoted_in_backticks_and_a_word_wider_than_the_room_stay_whole():
    quoted = "`DUE | busy_end | !budget_left | ? | ?`"
    lines = wrap("x" * 80 + " add the row " + quoted)
    assert lines[-1] == "    " + quoted
    assert wrap("y" * 150 + " z") == ["y" * 150, "    z"]
