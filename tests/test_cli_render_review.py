"""gapstate/cli/render/review.py: a change of the table in a reviewer's words, the recorded sessions it changes, the summary line."""

from __future__ import annotations

import dataclasses
import functools

import gapstate
from gapstate.cli.render.review import change_lines, diff_lines, diff_summary, sessions_lines, when_text
from gapstate.review.diff import AllowanceChanged, CapChanged, NameChanged, ReachabilityChanged, diff
from gapstate.review.sessions import replay_sessions

from .support import SPEC_TEXT, unwrapped, variant

REFUSES_BUSY_END = ("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | invalid")
DEFERS = ("OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request",
          "OPEN | floor_released | !busy,budget_left,attempts_left | DUE | defer_no_interrupt")


@functools.cache
def _compared():
    """The bundled table against one that refuses busy_end in CLEAR and defers a release it used to send on."""
    old, new = gapstate.load_spec(SPEC_TEXT), gapstate.load_spec(variant(*DEFERS, variant(*REFUSES_BUSY_END)))
    return old, new, diff(old, new)


def test_each_behaviour_change_is_a_head_and_a_line_per_case_from_old_row_to_new():
    assert list(diff_lines(_compared()[2])) == [
        "behaviour: CLEAR | busy_end",
        "    always: old line 203: CLEAR | noop -> new line 203: CLEAR | invalid",
        "behaviour: OPEN | floor_released",
        "    when !busy,budget_left,attempts_left: old line 196: SENDING | send_request",  # 119 columns in one
        "        -> new line 196: DUE | defer_no_interrupt",
    ]


def test_valuations_are_written_as_the_literals_they_share_when_they_cover_the_rest():
    busy, idle = (("busy", True),), (("busy", False),)
    assert when_text([busy, idle]) == "always"
    assert when_text([(("busy", True), ("late_loss", True)), (("busy", True), ("late_loss", False))]) == "when busy"
    assert when_text([(("busy", True), ("late_loss", True)), (("busy", False), ("late_loss", False))]) == (
        "when busy,late_loss or !busy,!late_loss"
    )
    assert when_text([idle]) == "when !busy"


def test_every_other_kind_of_change_is_one_line_naming_both_sides():
    assert change_lines(CapChanged("episode_attempts", 2, None, 169, None)) == ["cap: episode_attempts 2 (old line 169) -> none"]
    assert change_lines(NameChanged("name_added", "state", "PAUSED", 180)) == ["name_added: state PAUSED (new line 180)"]
    assert change_lines(NameChanged("name_removed", "event", "sdk_unknown", 175)) == ["name_removed: event sdk_unknown (old line 175)"]
    assert change_lines(AllowanceChanged("allowance_removed", "DUE", "busy_end", "budget_left,!attempts_left", 172)) == [
        "allowance_removed: @unreachable DUE | busy_end | budget_left,!attempts_left (old line 172)"
    ]
    assert change_lines(ReachabilityChanged("OPEN", "send_ok", "-", 211, 212, True)) == [
        "reachability: row OPEN | send_ok | - now fires (old line 211, new line 212)"
    ]


def test_the_summary_counts_changes_or_says_there_is_none():
    old, _, result = _compared()
    assert diff_summary(result) == "gapstate diff: <text> -> <text>: 2 changes"
    same = diff(old, old)
    assert diff_summary(dataclasses.replace(same, old="a.md")) == (
        "gapstate diff: a.md -> <text>: no change in behaviour, caps, names, allow-list, reachability or bounds"
    )


def test_recorded_sessions_are_grouped_by_their_first_differing_step_and_the_changes_none_reach_listed(tmp_path):
    old, new, result = _compared()
    log = tmp_path / "log.jsonl"
    log.write_text('{"event":"busy_end","session":"s1"}\n{"event":"busy_start","session":"s2"}\n'
                   '{"event":"busy_end","session":"s3"}\n', encoding="utf-8")
    sessions = replay_sessions(old, new, result.changes, [str(log)], 1, "session")
    assert unwrapped("\n".join(sessions_lines(sessions))) == [  # the example's path is as long as tmp_path makes it
        "recorded sessions: 2 of 3 behave differently (3 events read)",
        f"  2 sessions  CLEAR | busy_end | -: old line 203: CLEAR | noop -> new: stops (invalid_event) e.g. {log}#s1, the 1st event",
        "untested by recorded traffic: no recorded session reaches 1 changed valuation:",
        "  OPEN | floor_released when !busy,budget_left,attempts_left: old line 196 -> new line 196",
    ]
    with_traces = dataclasses.replace(result, traces=sessions)
    assert list(diff_lines(with_traces))[5:] == list(sessions_lines(sessions))
    assert diff_summary(with_traces).endswith(": 2 changes; 2 of 3 recorded sessions behave differently")
