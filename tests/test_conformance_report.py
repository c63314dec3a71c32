"""gapstate/conformance/report.py: the text of a conformance result, where it diverged and why, and its summary line."""

from __future__ import annotations

import dataclasses
import json

import gapstate
from gapstate.conformance.answers import table_answer
from gapstate.conformance.conform import conform
from gapstate.conformance.report import conform_summary, conform_text
from gapstate.run.replayer import Session, machine_for

from .support import unwrapped

VECTOR = [{"event": "busy_start", "t": 1}, {"event": "loss_voiced", "t": 2, "id": "a"}]


class TheTable:
    """An implementation that answers as the table does: it conforms by construction."""

    def reset(self):
        self.session = Session(machine_for(gapstate.load_spec()))

    def step(self, event):
        return table_answer(self.session, event)[0]


class NeverOpens(TheTable):
    def step(self, event):
        answer = super().step(event)
        return {**answer, "state": "CLEAR", "actions": ["noop"], "debt_owed": False} if "state" in answer else answer


def _run(implementation, name="v1"):
    return conform(gapstate.load_spec(), implementation, [(name, VECTOR)], examples=0)


def test_a_conforming_result_has_no_text_and_its_summary_says_so():
    result = _run(TheTable())
    assert conform_text(result) == ""
    assert conform_summary(result).endswith(": seed 0: 1 vector, 2 events: conforms")


def test_a_divergence_gives_the_shrunk_trace_the_row_its_reasons_and_each_differing_field():
    result = _run(NeverOpens(), name="v\x1b1")
    lines = unwrapped(conform_text(result, saved="found.jsonl"))  # wrapped to 100 columns, joined back
    assert lines[0] == ("diverges at event 1 of 1 (loss_voiced), found in vector v\\x1b1 of 2 events and shrunk to 1; "
                        "the trace, for `gapstate replay`:")
    assert json.loads(lines[1]) == result.divergence.trace[0]  # paste-ready JSON Lines
    assert lines[2] == "  the table fires line 178: CLEAR | loss_voiced | !dup | OPEN | open_gap,preserve_debt"
    assert lines[3] == "    dup is false: id 'iv-1' was not yet seen this session"
    assert lines[4:7] == [  # aligned on the longest field name
        '  state:     expected "OPEN", actual "CLEAR"',
        '  actions:   expected ["open_gap", "preserve_debt"], actual ["noop"]',
        "  debt_owed: expected true, actual false",
    ]
    assert lines[7].startswith("  expected: {") and lines[8].startswith("  actual:   {")
    assert lines[9] == "  saved to found.jsonl: `gapstate conform --replay found.jsonl -- ...` runs it again"
    assert conform_summary(result).endswith(": diverges")


def test_a_divergence_in_a_generated_trace_says_so_and_nothing_saved_is_not_mentioned():
    found = _run(NeverOpens())
    generated = dataclasses.replace(found, divergence=dataclasses.replace(found.divergence, source="generated"))
    text = conform_text(generated)
    assert "found in a generated trace of 2 events" in text and "saved to" not in text


def test_the_summary_escapes_the_spec_name_and_counts_with_plurals():
    result = dataclasses.replace(_run(TheTable()), spec="my\nspec.md", vectors=2, traces=1, events=1)
    assert conform_summary(result) == "gapstate conform: my\\nspec.md: seed 0: 2 vectors, 1 trace, 1 event: conforms"
