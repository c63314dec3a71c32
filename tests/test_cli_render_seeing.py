"""gapstate/cli/render/seeing.py: witness, coverage and explain results in words, and their summary lines."""

from __future__ import annotations

import dataclasses
import functools

import gapstate
from gapstate.cli.render.seeing import (
    coverage_lines,
    coverage_summary,
    explain_summary,
    explain_text,
    witness_summary,
)
from gapstate.seeing.coverage import coverage
from gapstate.seeing.explain import explain
from gapstate.seeing.witness import Ways, locate, witness
from gapstate.words import WIDTH

from .support import ALLOWED, SPEC_TEXT, line_of, unwrapped, variant

SENDS = line_of(SPEC_TEXT, "OPEN | floor_released | !busy,budget_left,attempts_left | SENDING")
NEVER = line_of(SPEC_TEXT, ALLOWED[0])
REFUSED = line_of(SPEC_TEXT, "OPEN | send_ok | - | = | invalid")
BUSY = ("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")


@functools.cache
def _ways(text: str = SPEC_TEXT) -> Ways:
    return Ways(gapstate.load_spec(text))


def _row(line: int, text: str = SPEC_TEXT):
    ways = _ways(text)
    return ways, locate(ways.spec.table, str(line), ways.spec.path)


def _witness(line: int):
    ways, found = _row(line)
    return witness(ways, *found)


def _explained(line: int, text: str = SPEC_TEXT):
    ways, found = _row(line, text)
    return explain(ways, *found)


def test_the_witness_summary_says_how_long_the_trace_is_or_why_there_is_none():
    head = f"gapstate witness: s.md: row at line {SENDS}"
    assert witness_summary(_witness(SENDS), "s.md") == f"{head}: fired by the last of 2 events"
    assert witness_summary(dataclasses.replace(_witness(SENDS), detour=True), "s.md") == (
        f"{head}: every way there breaks a rule first; the shortest regardless: 2 events"
    )
    never = witness_summary(_witness(NEVER), "s.md")
    assert never.startswith(f"gapstate witness: s.md: row at line {NEVER}: ") and ": `!attempts_left` never holds on floor_released" in never


def test_a_row_that_fires_is_explained_when_what_and_which_rules_it_keeps_with_a_trace():
    lines = explain_text(_explained(SENDS)).split("\n")
    assert lines[0].endswith(f":{SENDS}: OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request")
    assert lines[1] == "fires on 9 reachable configurations (9 reachable steps)"
    assert lines[2:4] == ["when:", "  !busy: the interviewer is idle"]
    assert "  send-while-busy: kept on all 9 reachable steps that fire it: the row requires `!busy`" in lines
    assert "  exit-unnamed (checked on every step): kept on all 9 reachable steps that fire it" in lines
    assert lines[-3:] == ["shortest trace that fires it (2 events):", '  {"event": "loss_voiced", "t": 100, "id": "iv-1"}',
                          '  {"event": "floor_released", "t": 200}']
    assert explain_summary(_explained(SENDS)).endswith(f": row at line {SENDS}: fires")


def test_a_row_that_never_fires_says_whether_it_is_allowed_and_has_no_trace():
    said = _explained(NEVER)
    lines = explain_text(said).split("\n")
    assert lines[1].startswith("never fires (allowed with @unreachable): `!attempts_left` never holds")
    assert "  write-off-before-cap: nothing to check: the row never fires" in lines
    assert not any(line.startswith("shortest trace") for line in lines)
    assert "NOT allowed: `gapstate check` reports it" in explain_text(dataclasses.replace(said, allowed=False))
    assert explain_summary(said).endswith(": never fires")


def test_an_invalid_row_refuses_its_event_and_its_trace_ends_on_the_refusal():
    lines = unwrapped(explain_text(_explained(REFUSED)))  # 103 columns, wrapped
    assert lines[1] == "refuses send_ok on 24 reachable configurations: the event cannot occur there and the replay fails on it"
    assert lines[2] == "when: always, on send_ok (no guards)"
    assert "shortest trace that ends on its refusal (2 events):" in lines
    assert explain_summary(_explained(REFUSED)).endswith(": refuses its event")


def test_a_broken_rule_is_said_to_be_broken_on_how_many_steps():
    text = variant(*BUSY)
    lines = unwrapped(explain_text(_explained(line_of(text, BUSY[1]), text)))
    broken = [line for line in lines if line.startswith("  send-while-busy")]
    assert len(broken) == 1 and " BROKEN on " in broken[0] and broken[0].endswith("(see `gapstate check`)")


def test_coverage_lists_every_reachable_row_then_those_never_fired_the_stopped_and_the_unusable(tmp_path):
    spec = _ways().spec
    (tmp_path / "a.jsonl").write_text('{"event":"loss_voiced","t":1,"id":"x"}\n{"event":"send_ok","t":2}\n', encoding="utf-8")
    (tmp_path / "b\x1b.jsonl").write_text('{"event":"nope"}\n', encoding="utf-8")
    (tmp_path / "c.jsonl").write_text('{"event":"busy_start"}\n', encoding="utf-8")
    result = coverage(spec, spec.text, sorted(str(p) for p in tmp_path.iterdir()), 1, keep_going=True)
    drawn = list(coverage_lines(result, {row.line: str(row) for row in spec.table.rows}))
    assert all(len(line) <= WIDTH for line in drawn if str(tmp_path) not in line)
    lines = unwrapped("\n".join(drawn))
    opened = line_of(SPEC_TEXT, "CLEAR | loss_voiced | !dup")
    assert f"  row {opened:<4} 1  CLEAR | loss_voiced | !dup | OPEN | open_gap,preserve_debt" in lines
    sends = f"  row {SENDS:<4} 0  OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request"
    assert f"{sends} never" in lines  # 101 columns: the mark went on under the row (joined back with one space)
    tail = lines[lines.index(next(line for line in lines if line.startswith("never fired: "))):]
    assert tail[1:3] == ["stopped: 1 trace (the steps before the stop are counted)",
                         f"  {tmp_path}/a.jsonl:2: the 2nd event: invalid_event: send_ok cannot occur in OPEN (row at line {REFUSED} marks it invalid)"]
    assert tail[3] == "unusable: 1 trace could not be read (not counted)"
    assert tail[4].startswith(f"  {tmp_path}/b\\x1b.jsonl:1: unknown event 'nope'")
    assert coverage_summary(result, "s\n.md") == f"gapstate coverage: s\\n.md: 2 traces, 3 events: fired 2 of {len(result.reachable)} reachable rows"
