"""gapstate/cli/render/replay.py: the transcript a step a line, its tail, the summary line, and the one writer of the replay document.

How the command streams these is tested in tests/test_cli_replay.py.
"""

from __future__ import annotations

import dataclasses
import functools
import json

import gapstate
from gapstate.cli.render.replay import (
    replay_json,
    replay_json_ends,
    replay_step_line,
    replay_summary,
    replay_tail,
    step_json,
)

TRACE = [
    {"event": "loss_voiced", "t": 120, "id": "iv-1"},
    {"event": "floor_released", "t": 300},
    {"event": "send_ok", "t": 420},
    {"event": "evidence_turn", "t": 500, "speech_start": 400},
    {"event": "send_ok", "t": 600},  # refused in REQUESTED: the replay stops here
]
CAPS = {"session_requests": 3, "episode_attempts": 2}


@functools.cache
def _replayed():
    return gapstate.replay(gapstate.load_spec(), TRACE)


def test_a_step_line_gives_line_time_event_states_row_guards_actions_and_counters_after():
    lines = [replay_step_line(step, CAPS) for step in _replayed().steps]
    head, under = lines[1].split("\n")
    assert head.split() == ["line", "2", "t=300", "floor_released", "OPEN", "->", "SENDING", "row", "196", "send_request"]
    assert under.split() == ["!busy,budget_left,attempts_left", "[session_requests", "0/3,", "episode_attempts", "1/2]"]
    assert under.startswith(" " * 10 + "!busy")  # under the t
    assert "!dup (id iv-1 new)" in lines[0]
    assert "!post_send (speech_start=400 <= 420)" in lines[3]


def test_a_counter_without_a_cap_shows_a_question_mark():
    assert "[session_requests 1/?, episode_attempts 1/?]" in replay_step_line(_replayed().steps[2], {})


def test_the_tail_marks_the_stop_and_gives_the_final_configuration():
    tail = replay_tail(_replayed(), CAPS, "t\x1b.jsonl").split("\n")
    assert tail[0].startswith("! t\\x1b.jsonl:5: invalid_event: send_ok cannot occur in REQUESTED")
    assert tail[1] == "final: REQUESTED [session_requests 1/3, episode_attempts 1/2], debt owed: yes, session ended: no"
    clean = dataclasses.replace(_replayed(), error=None)
    assert replay_tail(clean, CAPS, "t.jsonl").startswith("final: ")


def test_the_summary_counts_the_events_and_says_where_the_replay_stopped():
    assert replay_summary(_replayed(), "s.md", "t.jsonl") == "gapstate replay: s.md: t.jsonl: 5 events: invalid_event at line 5"
    assert replay_summary(dataclasses.replace(_replayed(), error=None, events=1), "s.md", "t.jsonl") == "gapstate replay: s.md: t.jsonl: 1 event: ok"


def test_the_document_is_the_result_s_dict_with_a_step_a_line():
    text = "".join(replay_json(_replayed()))
    assert json.loads(text) == _replayed().to_dict()
    assert list(json.loads(text)) == ["ok", "steps", "final", "error"]
    step_lines = [line for line in text.split("\n") if line.startswith('  {"index"')]
    assert [json.loads(line.rstrip(",")) for line in step_lines] == [step.to_dict() for step in _replayed().steps]
    assert step_lines[0] == step_json(_replayed().steps[0]) + ","


def test_streamed_steps_between_the_ends_make_the_same_document():
    head, tail = replay_json_ends(_replayed())
    body = ",\n".join(step_json(step) for step in _replayed().steps)
    assert head + body + tail == "".join(replay_json(_replayed()))
    assert "".join(replay_json(_replayed(), body=iter([body]))) == head + body + tail


def test_without_steps_the_document_has_no_steps_key():
    summary = dataclasses.replace(_replayed(), steps=None)
    document = json.loads("".join(replay_json(summary)))
    assert list(document) == ["ok", "final", "error"] and document["error"]["kind"] == "invalid_event"
