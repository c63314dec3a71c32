"""diff --traces: the recorded sessions a change makes behave differently, checked against replaying both tables."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gapstate
from gapstate.conformance.vectors import build
from gapstate.review.diff import behaviour_changes
from gapstate.review.sessions import replay_sessions
from gapstate.table.load import parse_spec
from gapstate.table.vocabulary import STATES

from .support import SPEC_TEXT, line_of, run, slow_but, unwrapped, variant
from .test_review_diff import ROWS, with_rows

SPEC = parse_spec(SPEC_TEXT, "old.md")
_SUITE = build(SPEC)
CORPUS = [list(v.trace) for v in _SUITE.vectors]  # fire every reachable row, refuse every invalid one


def corpus_folder(tmp_path_factory, traces: list[list[dict]]):
    folder = tmp_path_factory.mktemp("traces")
    for n, trace in enumerate(traces):
        (folder / f"s{n:03d}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in trace), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The vectors, and each one cut short at a few places: sessions that stop in every state."""
    rng = random.Random(3)
    cut = [trace[: rng.randint(1, len(trace))] for trace in CORPUS for _ in range(4)]
    return corpus_folder(tmp_path_factory, CORPUS + cut)


def sessions(old_text: str, new_text: str, paths: list[str], jobs: int = 1, split_by: str | None = None):
    old, new = parse_spec(old_text, "old.md"), parse_spec(new_text, "new.md")
    return replay_sessions(old, new, tuple(behaviour_changes(old.table, new.table)), paths, jobs, split_by)


def traces_in(folder) -> list[str]:
    return sorted(str(p) for p in folder.glob("*.jsonl"))


def first_difference(old_spec, new_spec, events: list[dict]):
    """Where two tables' replays of a trace first differ, from `gapstate.replay` of each: (index, old, new) or None."""
    old = gapstate.replay(old_spec, events)
    new = gapstate.replay(new_spec, events)
    as_dicts = {id(result): [s.to_dict() for s in result.steps] for result in (old, new)}  # once, not once an index

    def at(result, index):
        steps = as_dicts[id(result)]
        error = result.error
        if index < len(steps):
            step = steps[index]
            shown = (step["to"], step["actions"], step["counters"])
            return shown, (error.kind if error is not None and error.index == index else None)
        if error is not None and error.index == index:
            return None, error.kind
        return None, None

    for index in range(len(events)):
        was, now = at(old, index), at(new, index)
        if was != now:
            return index, was, now
        if was[1] is not None:  # both stopped here alike
            return None
    return None


# a behaviour-identical rewrite -------------------------------------------------------------


@pytest.mark.slow  # eight rewritten tables against every session; test_review_diff.py proves both rewrites no change fast
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(order=st.permutations(range(len(ROWS))), split=st.integers(min_value=0, max_value=len(ROWS) - 1))
def test_reordering_rows_and_splitting_one_affects_no_session(folder, order, split):
    row = ROWS[split]
    state, event, guards, nxt, actions = (cell.strip() for cell in row.split("|"))
    literals = guards.split(",") if guards != "-" else []
    guard = next(g for g in ("busy", "budget_left", "late_loss", "candidate_active") if g not in guards)
    halves = [f"{state} | {event} | {','.join(literals + [lit])} | {nxt} | {actions}" for lit in (guard, "!" + guard)]
    # CLEAR's first row stays first only to keep the split below simple: any order starts in CLEAR
    rows = [ROWS[3]] + [ROWS[i] for i in order if i not in (3, split)] + (halves if split != 3 else [])
    if split == 3:
        rows[0:1] = halves
    result = sessions(SPEC_TEXT, with_rows(rows), traces_in(folder))
    assert (result.read, result.affected, result.groups, result.unreached) == (len(traces_in(folder)), (), (), ())
    assert result.events == sum(len(line) > 0 for path in traces_in(folder) for line in open(path, encoding="utf-8"))


# a changed row -------------------------------------------------------------------------------


def changed(row: str, how: str) -> str:
    """The row with its next state moved elsewhere, or an action added."""
    state, event, guards, nxt, actions = (cell.strip() for cell in row.split("|"))
    if how == "next":
        nxt = next(s for s in STATES if s not in (nxt, state))
        actions = "noop" if actions == "invalid" else actions
    else:
        actions = "noop" if actions == "invalid" else actions + ",noop"
    return f"{state} | {event} | {guards} | {nxt} | {actions}"


# The first row with its next state moved in the fast suite; every row, both ways, under `pytest -m slow`.
EVERY_ROW = slow_but(range(len(ROWS)), 0)


@pytest.mark.parametrize("how", slow_but(["next", "actions"], "next"))
@pytest.mark.parametrize("index", EVERY_ROW)
def test_a_changed_row_affects_exactly_the_sessions_whose_replays_differ(folder, index, how):
    new_text = with_rows(ROWS[:index] + [changed(ROWS[index], how)] + ROWS[index + 1 :])
    paths = traces_in(folder)
    result = sessions(SPEC_TEXT, new_text, paths)
    expected = {}
    new_spec = parse_spec(new_text, "new.md")
    for path in paths:
        events = [json.loads(line) for line in open(path, encoding="utf-8")]
        found = first_difference(SPEC, new_spec, events)
        if found is not None:
            expected[path] = found
    assert {one.trace: one.index for one in result.affected} == {path: found[0] for path, found in expected.items()}
    for one in result.affected:
        _, was, now = expected[one.trace]
        for step, (shown, stop) in ((one.old, was), (one.new, now)):
            assert step.get("stopped") == stop
            if shown is not None:
                assert (step["to"], step["actions"], step["counters"]) == shown
    assert sum(group.traces for group in result.groups) == len(result.affected)
    assert [group.traces for group in result.groups] == sorted((group.traces for group in result.groups), reverse=True)
    # a session arriving at a changed valuation differs there (the caps are the same): the changed
    # valuations no session arrives at are those where none first differs
    changes = behaviour_changes(SPEC.table, new_spec.table)
    keys = {
        (c.state, c.event, tuple(g if v else f"!{g}" for g, v in valuation)) for c in changes for case in c.cases for valuation in case.valuations
    }
    first = {(group.state, group.event, group.guards) for group in result.groups}
    assert first <= keys
    assert {(u.state, u.event, u.guards) for u in result.unreached} == keys - first


def test_a_change_no_session_reaches_is_listed_until_one_does(tmp_path):
    new_text = variant("OPEN | loss_voiced | dup | = | note_dup", "OPEN | loss_voiced | dup | = | note_dup,noop")
    path = tmp_path / "a.jsonl"
    path.write_text('{"event": "loss_voiced", "t": 1, "id": "a"}\n{"event": "loss_voiced", "t": 2, "id": "b"}\n', encoding="utf-8")
    result = sessions(SPEC_TEXT, new_text, [str(path)])
    assert result.affected == ()
    line = line_of(new_text, "OPEN | loss_voiced | dup |")
    assert [(u.state, u.event, u.guards, u.new_row) for u in result.unreached] == [("OPEN", "loss_voiced", ("dup",), line)]
    path.write_text('{"event": "loss_voiced", "t": 1, "id": "a"}\n{"event": "loss_voiced", "t": 2, "id": "a"}\n', encoding="utf-8")
    result = sessions(SPEC_TEXT, new_text, [str(path)])
    assert [(one.index, one.old["actions"], one.new["actions"]) for one in result.affected] == [(1, ["note_dup"], ["note_dup", "noop"])]
    assert result.unreached == ()
    [group] = result.groups
    assert (group.state, group.event, group.guards, group.old_row, group.new_row, group.traces) == ("OPEN", "loss_voiced", ("dup",), line, line, 1)


# the same sessions, read other ways ---------------------------------------------------------

SPLIT = with_rows(ROWS[:25] + [changed(ROWS[25], "next")] + ROWS[26:])  # OPEN | floor_released | busy


def test_workers_and_a_log_split_by_session_give_what_separate_files_give(folder, tmp_path):
    paths = traces_in(folder)
    alone = sessions(SPEC_TEXT, SPLIT, paths)
    assert alone.affected and sessions(SPEC_TEXT, SPLIT, paths, jobs=2) == alone
    log = tmp_path / "log.jsonl"
    with open(log, "w", encoding="utf-8") as out:  # round robin: every session interleaved with the others
        queues = [[json.loads(line) for line in open(path, encoding="utf-8")] for path in paths]
        while any(queues):
            for key, queue in enumerate(queues):
                if queue:
                    out.write(json.dumps({"session": key, **queue.pop(0)}) + "\n")
    split = sessions(SPEC_TEXT, SPLIT, [str(log)], split_by="session")
    names = {f"{log}#{key}": path for key, path in enumerate(paths)}
    assert [(names[one.trace], one.index, one.old, one.new) for one in split.affected] == [
        (one.trace, one.index, one.old, one.new) for one in alone.affected
    ]
    assert [g.to_dict() | {"example": None} for g in split.groups] == [g.to_dict() | {"example": None} for g in alone.groups]
    assert (split.read, split.events, split.unreached) == (alone.read, alone.events, alone.unreached)


def test_a_table_that_names_another_state_first_still_starts_every_session_in_clear(tmp_path):
    ahead = "OPEN | loss_voiced | dup | = | note_dup"
    moved = with_rows([ahead] + [row for row in ROWS if row != ahead])  # OPEN is named first
    path = tmp_path / "a.jsonl"
    path.write_text('{"event": "busy_start", "t": 1}\n', encoding="utf-8")
    result = sessions(SPEC_TEXT, moved, [str(path)])
    assert (result.read, result.affected, result.groups) == (1, (), ())


# from the command line ----------------------------------------------------------------------


def write_specs(tmp_path, new_text: str) -> tuple[str, str]:
    (tmp_path / "old.md").write_text(SPEC_TEXT, encoding="utf-8")
    (tmp_path / "new.md").write_text(new_text, encoding="utf-8")
    return str(tmp_path / "old.md"), str(tmp_path / "new.md")


def test_json_adds_the_sessions_to_the_diff_document_and_exit_1_when_some_differ(folder, tmp_path):
    old, new = write_specs(tmp_path, SPLIT)
    result = run("diff", old, new, "--traces", str(folder), "--format", "json", "--jobs", "1")
    assert result.exit_code == 1, result.output
    document = json.loads(result.stdout)
    assert set(document) == {"ok", "same", "old", "new", "changes", "traces"} and document["ok"] is False
    traces = document["traces"]
    assert set(traces) == {"read", "events", "affected", "groups", "affected_traces", "unreached"}
    assert traces["read"] == len(traces_in(folder)) and traces["affected"] == len(traces["affected_traces"]) > 0
    for group in traces["groups"]:
        assert set(group) == {"state", "event", "guards", "old_row", "new_row", "traces", "example"}
        assert set(group["example"]) == {"trace", "index"}
    for one in traces["affected_traces"]:
        assert set(one) == {"trace", "index", "old", "new"}
        assert one["old"]["index"] == one["new"]["index"] == one["index"]


def test_text_is_a_summary_a_line_per_group_with_its_example_and_the_untested_changes(folder, tmp_path):
    old, new = write_specs(tmp_path, SPLIT)
    result = sessions(SPEC_TEXT, SPLIT, traces_in(folder))
    said = run("diff", old, new, "--traces", str(folder))
    text = said.stdout.splitlines()
    assert f"recorded sessions: {len(result.affected)} of {result.read} behave differently ({result.events} events read)" in text
    group = result.groups[0]
    line = next(n for n, said in enumerate(text) if said.lstrip().startswith(f"{group.traces} sessions  {group.state} | {group.event} |"))
    assert f"e.g. {group.example.trace}, the " in unwrapped("\n".join(text[line:]))[0]  # after the steps, on one line or more
    assert said.stderr.splitlines()[-1].endswith(f"; {len(result.affected)} of {result.read} recorded sessions behave differently")
    if result.unreached:
        assert any(said.startswith("untested by recorded traffic: ") for said in text)


def test_github_annotates_the_changed_rows_of_the_new_table_with_the_sessions_they_affect(folder, tmp_path):
    old, new = write_specs(tmp_path, SPLIT)
    result = sessions(SPEC_TEXT, SPLIT, traces_in(folder))
    shown = run("diff", old, new, "--traces", str(folder), "--format", "github").stdout.splitlines()
    for group in result.groups:
        [note] = [s for s in shown if s.startswith(f"::warning file={new},line={group.new_row},")]
        assert f"{group.traces} of {result.read} recorded sessions behave differently here" in note
    assert all(s.startswith(("::warning ", "::notice ")) for s in shown)


def test_identical_tables_exit_0_and_a_malformed_trace_exits_2_naming_it(tmp_path):
    old, new = write_specs(tmp_path, SPEC_TEXT)
    good = tmp_path / "good.jsonl"
    good.write_text('{"event": "busy_start"}\n', encoding="utf-8")
    assert run("diff", old, new, "--traces", str(good)).exit_code == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"event": "busy_start"}\n{"event": "nap"}\n', encoding="utf-8")
    result = run("diff", old, new, "--traces", str(good), str(bad))
    assert result.exit_code == 2 and f"{bad}:2:" in result.stderr and "unknown event 'nap'" in result.stderr
    assert run("diff", old, new, "extra.jsonl").exit_code == 2  # a third path only with --traces
    assert run("diff", old, new, "--split-by", "session").exit_code == 2


def test_github_without_traces_notes_each_changed_row_and_a_removed_one_on_the_file(tmp_path):
    removed = "SENDING | busy_end | - | = | noop"
    old, new = write_specs(tmp_path, with_rows([changed(row, "actions") if row == ROWS[3] else row for row in ROWS if row != removed]))
    shown = run("diff", old, new, "--format", "github").stdout.splitlines()
    assert shown[0] == f"::notice file={new},title=behaviour change::behaviour: SENDING | busy_end always: old line {line_of(SPEC_TEXT, removed)}: SENDING | noop -> no row (new)"
    row = line_of(with_rows(ROWS), ROWS[3])
    assert shown[1] == f"::notice file={new},line={row},title=behaviour change::behaviour: CLEAR | loss_voiced when dup: old line {row}: CLEAR | note_dup -> new line {row}: CLEAR | note_dup,noop"
    assert len(shown) == 2


def test_past_the_listed_sessions_each_is_counted_in_its_group_and_the_cut_is_said(tmp_path, monkeypatch):
    """900,000 differing sessions were each kept to the end (1.7 GB); now the first LISTED are, and the groups count all."""
    from gapstate.review import sessions as module

    monkeypatch.setattr(module, "LISTED", 5)
    log = tmp_path / "log.jsonl"
    log.write_text("".join(f'{{"event":"busy_end","session":"s{n}"}}\n' for n in range(300)), encoding="utf-8")
    old, new = tmp_path / "old.md", tmp_path / "new.md"
    old.write_text(SPEC_TEXT, encoding="utf-8")
    new.write_text(variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | invalid"), encoding="utf-8")
    result = run("diff", str(old), str(new), "--traces", str(log), "--split-by", "session", "--jobs", "1", "--format", "json")
    assert result.exit_code == 1, result.output
    traces = json.loads(result.stdout)["traces"]
    assert (traces["read"], traces["affected"], len(traces["affected_traces"])) == (300, 300, 5)
    assert [t["trace"] for t in traces["affected_traces"]] == [f"{log}#s{n}" for n in range(5)]
    [group] = traces["groups"]
    assert group["traces"] == 300 and group["example"]["trace"] == f"{log}#s0"
    assert "300 sessions behave differently; affected_traces lists the first 5" in result.stderr


def test_a_trace_folder_link_leading_out_of_it_is_exit_2_naming_it(tmp_path):
    old, new = write_specs(tmp_path, SPEC_TEXT)
    folder, elsewhere = tmp_path / "traces", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (folder / "good.jsonl").write_text('{"event": "busy_start"}\n', encoding="utf-8")
    (elsewhere / "other.jsonl").write_text('{"event": "busy_start"}\n', encoding="utf-8")
    (folder / "out").symlink_to(elsewhere)
    result = run("diff", old, new, "--traces", str(folder))
    assert result.exit_code == 2, result.output
    assert f"{folder / 'out'}: a symbolic link leading out of {folder}, the folder given" in result.stderr
