"""Recorded sessions: a log of interleaved sessions (--split-by) reads as the same sessions in separate files."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gapstate
from gapstate.errors import GapstateError
from gapstate.seeing.coverage import coverage
from gapstate.strategies import traces

from .support import SPEC_TEXT, run

SPEC = gapstate.load_spec(SPEC_TEXT)


def write_jsonl(path, events) -> str:
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return str(path)


def interleave(sessions: dict, order: list[int], field: str = "session") -> list[dict]:
    """The sessions' events as one log: `order` says, line by line, which session speaks next (file order kept)."""
    queues = {key: list(events) for key, events in sessions.items()}
    keys = list(sessions)
    log = []
    for pick in order:
        live = [k for k in keys if queues[k]]
        if not live:
            break
        key = live[pick % len(live)]
        log.append({field: key, **queues[key].pop(0)})
    for key in keys:
        log.extend({field: key, **event} for event in queues[key])
    return log


def renamed(document: dict, names: dict[str, str]) -> dict:
    """A coverage document with its trace names mapped through `names`."""
    out = dict(document)
    out["stopped"] = [{**stop, "trace": names[stop["trace"]]} for stop in document["stopped"]]
    return out


@pytest.mark.slow  # 25 generated logs, a second and a half of CPU; the example below names split sessions fast
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    sessions=st.lists(traces(SPEC, max_size=25).filter(bool), min_size=1, max_size=5),  # a log has no empty session
    order=st.lists(st.integers(min_value=0, max_value=7), max_size=80),
    integer_keys=st.booleans(),
)
def test_a_log_split_by_a_field_counts_as_the_same_sessions_in_separate_files(tmp_path_factory, sessions, order, integer_keys):
    folder = tmp_path_factory.mktemp("split")
    keyed = {(n if integer_keys else f"s-{n}"): events for n, events in enumerate(sessions)}
    log = write_jsonl(folder / "log.jsonl", interleave(keyed, order))
    files = [write_jsonl(folder / f"{key}.jsonl", events) for key, events in keyed.items()]
    split = coverage(SPEC, SPEC_TEXT, [log], 1, split_by="session").to_dict()
    apart = coverage(SPEC, SPEC_TEXT, files, 1).to_dict()
    names = {f"{log}#{key}": path for key, path in zip(keyed, files, strict=True)}
    assert renamed(split, names) == apart


def test_sessions_are_named_path_hash_value_in_order_of_first_appearance_and_stops_name_the_log_line(tmp_path):
    log = write_jsonl(tmp_path / "log.jsonl", [
        {"sid": "b", "event": "busy_start", "t": 1},
        {"sid": 7, "event": "session_end", "t": 2},
        {"sid": "b", "event": "busy_end", "t": 3},
        {"sid": "7", "event": "busy_start", "t": 4},  # the same session as 7: names are what tell sessions apart
    ])
    result = coverage(SPEC, SPEC_TEXT, [log], 1, split_by="sid")
    assert result.traces == 2 and result.events == 4
    [stop] = result.stopped
    assert (stop.trace, stop.error.index, stop.error.kind, stop.error.line) == (f"{log}#7", 1, "after_session_end", 4)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"event": "busy_end", "t": 3}', "no 'sid' field: with --split-by sid every line names its session"),
        ('{"sid": true, "event": "busy_end"}', "'sid' must be a string or an integer (the session), not true/false"),
        ('{"sid": "a", "event": "busy_end", "mood": 1}', "unknown field 'mood'"),
        ('{"sid": "a", "event": "nap"}', "session a: unknown event 'nap'"),
        ('{"sid": "a", "event": "busy_end", "t": 0}', "session a: 't' goes back in time: 0 after 2"),
        ("not json", "not valid JSON"),
        ('{"sid": "a\\u001b[2J", "event": "busy_end"}', "'sid' holds a character that cannot be printed"),
        ('{"sid": "' + "x" * 201 + '", "event": "busy_end"}', "'sid' is longer than 200 characters"),
    ],
)
def test_a_bad_line_of_a_log_is_unusable_input_naming_the_file_and_line(tmp_path, line, said):
    path = tmp_path / "log.jsonl"
    path.write_text('{"sid": "a", "event": "busy_start", "t": 2}\n{"sid": "b", "event": "busy_start"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(GapstateError) as error:
        coverage(SPEC, SPEC_TEXT, [str(path)], 1, split_by="sid")
    assert (error.value.file, error.value.line) == (str(path), 3)
    assert said in error.value.message


def test_keep_going_drops_only_the_session_a_bad_line_names_or_the_whole_log_when_it_names_none(tmp_path):
    head = '{"sid": "a", "event": "busy_start", "t": 2}\n{"sid": "b", "event": "busy_start"}\n'
    named = tmp_path / "named.jsonl"
    named.write_text(head + '{"sid": "a", "event": "nap"}\n{"sid": "a", "event": "busy_end"}\n', encoding="utf-8")
    nameless = tmp_path / "nameless.jsonl"
    nameless.write_text(head + '{"event": "busy_end"}\n', encoding="utf-8")
    result = coverage(SPEC, SPEC_TEXT, [str(named), str(nameless)], 1, split_by="sid", keep_going=True)
    assert result.traces == 1 and result.events == 1  # named.jsonl#b alone
    assert [u.to_dict() for u in result.unusable] == [
        {"trace": f"{named}#a", "line": 3, "message": "session a: unknown event 'nap'; expected one of: "
         + ", ".join(gapstate.table.vocabulary.EVENTS)},
        {"trace": str(nameless), "line": 3, "message": "no 'sid' field: with --split-by sid every line names its session"},
    ]


def test_split_by_an_event_field_is_a_bad_option(tmp_path):
    path = write_jsonl(tmp_path / "log.jsonl", [{"event": "busy_start"}])
    result = run("coverage", "--split-by", "id", path)
    assert result.exit_code == 2 and "'id' is a field of the events themselves" in result.stderr


@pytest.mark.parametrize("field", ['call"id', "call\\id", "call\nid", "call\tid", "call\x00", "call\x7f", "a\n::error::pwned"])
@pytest.mark.parametrize("command", ["coverage", "diff"])
def test_split_by_a_field_holding_a_control_character_a_quote_or_a_backslash_is_a_bad_option_escaped(tmp_path, field, command):
    path = write_jsonl(tmp_path / "log.jsonl", [{"event": "busy_start"}])
    spec = tmp_path / "spec.md"
    spec.write_text(SPEC_TEXT, encoding="utf-8")
    args = ["coverage", path] if command == "coverage" else ["diff", str(spec), str(spec), "--traces", path]
    result = run(*args, "--split-by", field)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and not [line for line in result.stderr.splitlines() if line.startswith("::")]
    from gapstate.words import escape

    assert f"'{escape(field)}' holds a control character, `\"` or `\\`" in result.stderr


def test_the_reader_refuses_such_a_field_too_with_the_one_error_of_the_package(tmp_path):
    path = write_jsonl(tmp_path / "log.jsonl", [{"event": "busy_start"}])
    with pytest.raises(GapstateError, match="holds a control character"):
        coverage(SPEC, SPEC_TEXT, [path], 1, split_by='call"id')
    assert run("coverage", path, "--split-by", "").exit_code == 2
