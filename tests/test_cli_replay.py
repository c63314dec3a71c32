"""`gapstate replay` at the command line: the JSON document, the transcript for people, streaming, standard input."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

import gapstate
from gapstate.cli import main

from .support import SPEC_TEXT, line_of, replay, unwrapped, write_trace

GOOD = '{"event": "loss_voiced", "t": 120, "id": "iv-1"}'


def test_replay_json_has_the_contract_shape(tmp_path):
    path = write_trace(tmp_path, GOOD, '{"event": "floor_released", "t": 300}', '{"event": "evidence_turn", "t": 900, "speech_start": 650}')
    result = replay(path, "--format", "json")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert set(document) == {"ok", "steps", "final", "error"}
    assert set(document["steps"][0]) == {"index", "event", "from", "to", "row", "guards", "actions", "counters"}
    assert set(document["final"]) == {"state", "counters", "debt_owed", "ended"}
    assert document["error"] is None


def test_replay_summary_prints_only_the_final_configuration_and_the_error(tmp_path):
    path = write_trace(tmp_path, GOOD, '{"event": "send_ok", "t": 300}')
    text = replay(path, "--summary")
    assert text.exit_code == 1
    assert "loss_voiced" not in text.stdout
    assert "invalid_event" in text.stdout and len(unwrapped(text.stdout)) == 2  # the stop and the final configuration
    assert text.stderr.splitlines()[-1].startswith("gapstate replay: ")
    document = json.loads(replay(path, "--summary", "--format", "json").stdout)
    assert "steps" not in document and document["error"]["kind"] == "invalid_event"


def test_replay_text_reads_like_a_transcript_with_the_failing_step_marked(tmp_path):
    path = write_trace(tmp_path, GOOD, '{"event": "send_ok", "t": 300}')
    lines = unwrapped(replay(path).stdout)  # a step a line
    assert "loss_voiced" in lines[0] and "CLEAR" in lines[0] and "OPEN" in lines[0]
    assert lines[1].startswith("!")
    assert "send_ok cannot occur in OPEN" in lines[1]


def test_replay_against_a_spec_with_a_syntax_error_is_unusable(tmp_path):
    spec = tmp_path / "spec.md"
    spec.write_text("```\n# state | event | guards | next | actions\nCLEAR | busy_end\n```\n", encoding="utf-8")
    result = replay(write_trace(tmp_path, GOOD), "--spec", str(spec))
    assert result.exit_code == 2
    assert f"{spec}:3:" in result.stderr and "parse_error" in result.stderr


def test_a_trace_can_come_from_standard_input():
    result = CliRunner().invoke(main, ["replay", "-", "--format", "json"], input=GOOD + "\n")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["final"]["state"] == "OPEN"


def test_a_byte_order_mark_on_the_first_line_is_accepted(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode() + b"\n")
    assert replay(path).exit_code == 0


def test_a_line_that_is_not_utf8_says_so_with_its_column(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_bytes(GOOD.encode() + b'\n{"event": "busy_start\xff"}\n')
    assert f"{path}:2:22: not UTF-8" in replay(path).stderr


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_streamed_output_is_what_the_result_renders(tmp_path, fmt):
    from gapstate.cli.render.replay import replay_json, replay_step_line, replay_tail

    lines = [GOOD, '{"event": "floor_released", "t": 300}', '{"event": "send_ok", "t": 400}', '{"event": "send_ok", "t": 500}']
    path = write_trace(tmp_path, *lines)
    api = gapstate.replay(gapstate.load_spec(), [json.loads(line) for line in lines])
    cli = replay(path, "--format", fmt).stdout
    if fmt == "json":
        assert cli == "".join(replay_json(api)) + "\n"
        assert json.loads(cli) == api.to_dict()
    else:
        caps = {"session_requests": 3, "episode_attempts": 2}
        assert cli == "".join(replay_step_line(step, caps) + "\n" for step in api.steps) + replay_tail(api, caps, str(path)) + "\n"


@pytest.mark.slow  # 80,000 events, two seconds of CPU; a short trace on standard input is replayed above
def test_a_long_trace_on_standard_input_passes_through_the_spool(tmp_path):
    # Standard input cannot be read twice; 80,000 transcript lines pass the spool's 8 MiB in memory, so it moves to a file.
    result = CliRunner().invoke(main, ["replay", "-"], input="".join(['{"event": "loss_silent"}\n'] * 80000))
    assert result.exit_code == 0
    assert result.stdout.count("\n") == 2 * 80000 + 1  # the steps, two lines each, and the final configuration


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_trace_file_is_checked_whole_then_its_steps_are_printed_as_it_is_read_again(tmp_path, monkeypatch, fmt):
    import click

    import gapstate.run.trace as trace

    count = 20000
    path = write_trace(tmp_path, *(['{"event": "loss_silent"}'] * count))
    read: list[int] = []  # events handed on, per reading of the trace
    real = trace.read_trace

    class Counted:
        def __init__(self, events: Any):
            self.events, self.reading = events, len(read)
            read.append(0)

        def __iter__(self) -> Any:
            for event in self.events:
                read[self.reading] += 1
                yield event

        def line_of(self, index: int) -> int:
            return self.events.line_of(index)

    monkeypatch.setattr(trace, "read_trace", lambda p: Counted(real(p)))
    when: list[list[int]] = []  # how much was read at each write of steps
    echo = click.echo
    monkeypatch.setattr(click, "echo", lambda text=None, *a, **k: (when.append(list(read)) if "loss_silent" in str(text) else None, echo(text, *a, **k))[1])
    result = replay(path, "--format", fmt)
    assert result.exit_code == 0
    assert result.stdout.count("loss_silent") == count
    assert when[0][0] == count and when[0][1] < count  # the first pass read it all; the second had just begun

    read.clear()
    when.clear()
    bad = write_trace(tmp_path, *(['{"event": "loss_silent"}'] * count + ["{not json"]))
    result = replay(bad, "--format", fmt)
    assert result.exit_code == 2 and "loss_silent" not in result.stdout and not when


def test_replay_text_names_trace_lines_not_indexes_and_json_keeps_the_index(tmp_path):
    path = write_trace(tmp_path, GOOD, "", '{"event": "loss_voiced", "t": 130, "id": "iv-1"}', '{"event": "send_ok", "t": 300}')
    lines = unwrapped(replay(path).stdout)
    assert lines[0].startswith("line 1 ") and lines[1].startswith("line 3 ")
    assert lines[2] == f"! {path}:4: invalid_event: send_ok cannot occur in OPEN (row at line {line_of(SPEC_TEXT, 'OPEN | send_ok')} marks it invalid)"
    assert lines[-1].startswith("final: ")
    assert replay(path).stderr.splitlines()[-1] == f"gapstate replay: spec/gap-state.md: {path}: 3 events: invalid_event at line 4"
    document = json.loads(replay(path, "--format", "json").stdout)
    assert [step["index"] for step in document["steps"]] == [0, 1] and document["error"]["index"] == 2


def test_replay_text_shows_the_fields_that_decide_a_guard(tmp_path):
    path = write_trace(
        tmp_path,
        GOOD,
        '{"event": "loss_voiced", "t": 130, "id": "iv-1"}',
        '{"event": "floor_released", "t": 300}',
        '{"event": "send_ok", "t": 420}',
        '{"event": "evidence_turn", "t": 500, "speech_start": 400}',
        '{"event": "evidence_turn", "t": 900, "speech_start": 650}',
    )
    lines = unwrapped(replay(path).stdout)
    assert "t=120" in lines[0] and "!dup (id iv-1 new)" in lines[0]
    assert "dup (id iv-1 seen before)" in lines[1]
    assert "!post_send (speech_start=400 <= 420)" in lines[4]
    assert "post_send (speech_start=650 > 420)" in lines[5]


def test_replay_says_one_event_not_one_events(tmp_path):
    path = write_trace(tmp_path, '{"event": "busy_start"}')
    assert replay(path).stderr.splitlines()[-1] == f"gapstate replay: spec/gap-state.md: {path}: 1 event: ok"


# the events, listed where a newcomer looks ----------------------------------------


def _event_table() -> list[str]:
    """docs/replay.md's table of the events, as the vocabulary gives them."""
    from gapstate.table.vocabulary import EVENTS, PAYLOADS

    rows = ["| event | what it means | field it needs |", "|---|---|---|"]
    for name, event in EVENTS.items():
        payload = PAYLOADS.get(name)
        needs = f"`{payload.field}` ({payload.says})" if payload else "-"
        rows.append(f"| `{name}` | {event.meaning} | {needs} |")
    return rows


def test_the_replay_page_lists_every_event_with_its_meaning_as_the_vocabulary_says():
    from .support import ROOT

    page = (ROOT / "docs" / "replay.md").read_text(encoding="utf-8")
    expected = "\n".join(_event_table())
    assert expected in page, f"docs/replay.md should hold, as the vocabulary has it:\n{expected}"


def test_replay_help_lists_every_event_with_its_meaning_and_the_field_it_needs():
    from gapstate.table.vocabulary import EVENTS, PAYLOADS

    help_text = CliRunner().invoke(main, ["replay", "--help"]).output
    listed = help_text[help_text.index(f"The {len(EVENTS)} events") : help_text.index("Options:")]
    flat = " ".join(listed.split())
    for name, event in EVENTS.items():
        payload = PAYLOADS.get(name)
        assert f"{name} {event.meaning}" + (f"; needs '{payload.field}'" if payload else "") in flat
    assert max(map(len, listed.splitlines())) <= 80


def test_a_step_shows_its_rows_guards_as_the_row_writes_them_so_grep_finds_the_row(tmp_path):
    """`attempts_left,!candidate_active` is not in the vocabulary's order: the transcript keeps the row's."""
    written = "SENDING | send_failed | attempts_left,!candidate_active | DUE | keep_debt"
    assert written in SPEC_TEXT
    path = write_trace(tmp_path, GOOD, '{"event": "floor_released", "t": 300}', '{"event": "send_failed", "t": 400}')
    result = replay(path)
    assert result.exit_code == 0
    last = unwrapped(result.stdout)[2]
    assert f"row {line_of(SPEC_TEXT, written)} " in last and " attempts_left,!candidate_active " in last
    step = json.loads(replay(path, "--format", "json").stdout)["steps"][2]
    assert list(step["guards"]) == ["attempts_left", "candidate_active"]


@pytest.mark.slow  # a memory test over a 5 MB trace, traced: about 0.4 s of CPU
def test_steps_with_long_ids_are_written_a_few_at_a_time_however_long_each_line(tmp_path, monkeypatch):
    """The writer gathered 1,024 lines before each write: a trace of 1 MiB ids held some 3 GB. Now about 64 KiB at a time."""
    import tracemalloc

    trace = tmp_path / "ids.jsonl"
    with trace.open("w", encoding="utf-8") as out:
        for n in range(1000):
            out.write(json.dumps({"event": "loss_voiced", "t": n, "id": "x" * 5000}) + "\n")  # seen once, held once
    written = []
    monkeypatch.setattr("gapstate.cli.output.click.echo", lambda message=None, **kwargs: written.append(len(message or "")))
    tracemalloc.start()
    try:
        result = replay(trace)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.output
    assert sum(written) > 1000 * 5000 and max(written) < (1 << 16) + 6000
    # The reader's own blocks of 1 MiB and what they decode to: about 10 MB; with 1,024 lines gathered, 25 MB.
    assert peak < 16_000_000, peak
