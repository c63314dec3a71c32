"""Coverage: the rows recorded traces fire, counted exactly as replaying them one by one."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import gapstate
from gapstate.errors import GapstateError
from gapstate.run.replayer import replay
from gapstate.run.trace import read_trace
from gapstate.seeing.coverage import coverage, trace_files
from gapstate.seeing.witness import Ways, witness

from .support import SPEC_TEXT, line_of, run, unwrapped

SPEC = gapstate.load_spec(SPEC_TEXT)


def joined(first: list[dict], second: list[dict]) -> list[dict]:
    """Two traces one after the other, the second's times moved past the first's."""
    shift = first[-1]["t"] if first else 0
    return first + [{**event, "t": event["t"] + shift} for event in second]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Traces that fire every row and refuse every invalid one, alone and in pairs (many stop midway)."""
    ways = Ways(SPEC)
    witnesses = [list(w.trace) for w in (witness(ways, row) for row in SPEC.table.rows) if w.trace]
    traces = witnesses + [joined(a, b) for a in witnesses[::5] for b in witnesses[::3]]
    root = tmp_path_factory.mktemp("sessions")
    for n, trace in enumerate(traces):
        sub = root / f"day{n % 3}"
        sub.mkdir(exist_ok=True)
        (sub / f"s{n:04d}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in trace), encoding="utf-8")
    (root / "notes.txt").write_text("not a trace\n", encoding="utf-8")
    return root


def one_by_one(paths: list[str]):
    fired, events, stopped = Counter(), 0, []
    for path in paths:
        result = replay(SPEC, read_trace(path))
        fired.update(step.row for step in result.steps)
        events += result.events
        if result.error:
            stopped.append({"trace": path, "index": result.error.index, "kind": result.error.kind})
    return fired, events, stopped


@pytest.mark.parametrize("jobs", [1, 2])
def test_counts_equal_replaying_the_traces_one_by_one(folder, jobs):
    paths = list(trace_files([str(folder)]))
    result = coverage(SPEC, SPEC_TEXT, paths, jobs).to_dict()
    fired, events, stopped = one_by_one(paths)
    assert result["traces"] == len(paths) and result["events"] == events
    assert {int(line): n for line, n in result["fired"].items() if n} == dict(fired)
    assert result["stopped"] == stopped and stopped  # some traces do stop
    assert result["never"] == []  # the witnesses fire every reachable row
    assert result["reachable"] == len(result["fired"]) == len(SPEC.table.rows) - 3 - sum(r.invalid for r in SPEC.table.rows)


def test_rows_no_trace_fired_are_listed_as_never(folder):
    paths = [p for p in trace_files([str(folder)]) if p.endswith(("s0000.jsonl", "s0001.jsonl"))]
    result = coverage(SPEC, SPEC_TEXT, paths, 1).to_dict()
    fired = {int(line) for line, n in result["fired"].items() if n}
    assert fired and set(result["never"]) == {int(line) for line in result["fired"]} - fired
    assert result["never"] == sorted(result["never"])


def test_folders_are_read_recursively_for_jsonl_files_in_sorted_order(folder, tmp_path):
    paths = list(trace_files([str(folder)]))
    assert paths == sorted(paths) and all(p.endswith(".jsonl") for p in paths)
    with pytest.raises(GapstateError, match="no trace files"):
        list(trace_files([str(tmp_path)]))


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_first_malformed_trace_is_unusable_input_naming_it_and_its_line(folder, tmp_path, jobs):
    paths = list(trace_files([str(folder)]))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"event": "loss_silent"}\n{"event": "loss_voiced"}\n', encoding="utf-8")
    worse = tmp_path / "worse.jsonl"
    worse.write_text("not json\n", encoding="utf-8")
    with pytest.raises(GapstateError) as error:
        coverage(SPEC, SPEC_TEXT, paths[:7] + [str(bad)] + paths[7:] + [str(worse)], jobs)
    assert (error.value.file, error.value.line) == (str(bad), 2)
    assert "needs an 'id'" in error.value.message


# from the command line --------------------------------------------------------------


def test_coverage_json_has_the_contract_shape_and_require_all_gates(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"event": "loss_voiced", "t": 1, "id": "a"}\n{"event": "send_ok"}\n', encoding="utf-8")
    (tmp_path / "b.jsonl").write_text('{"event": "busy_start"}\n', encoding="utf-8")
    result = run("coverage", str(tmp_path), "--format", "json", "--jobs", "1")
    assert result.exit_code == 1  # a.jsonl stops on an invalid event: read, and it breaks the table
    document = json.loads(result.stdout)
    assert set(document) == {"ok", "traces", "events", "fired", "never", "reachable", "stopped"}
    assert document["ok"] is False  # "ok" says what the exit code says
    assert (document["traces"], document["events"], document["reachable"]) == (2, 3, 52)
    loss = str(line_of(SPEC_TEXT, "CLEAR | loss_voiced | !dup"))
    assert document["fired"][loss] == 1 and int(loss) not in document["never"]
    assert document["stopped"] == [{"trace": str(tmp_path / "a.jsonl"), "index": 1, "kind": "invalid_event"}]
    assert len(document["never"]) == 50
    assert run("coverage", str(tmp_path), "--require-all").exit_code == 1
    # text for people counts events from 1 (the JSON keeps the 0-based index)
    text = run("coverage", str(tmp_path), "--jobs", "1").stdout
    assert f"  {tmp_path / 'a.jsonl'}:2: the 2nd event: invalid_event: send_ok" in "\n".join(unwrapped(text))
    (tmp_path / "a.jsonl").unlink()
    assert json.loads(run("coverage", str(tmp_path), "--format", "json").stdout)["ok"] is True
    assert json.loads(run("coverage", str(tmp_path), "--format", "json", "--require-all").stdout)["ok"] is False


def test_coverage_exits_0_when_every_trace_replays_and_1_with_require_all_when_a_row_never_fired(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"event": "loss_voiced", "t": 1, "id": "a"}\n{"event": "session_end"}\n', encoding="utf-8")
    assert run("coverage", str(tmp_path)).exit_code == 0
    assert run("coverage", str(tmp_path), "--require-all").exit_code == 1
    (tmp_path / "b.jsonl").write_text('{"event": "session_end"}\n{"event": "session_end"}\n', encoding="utf-8")
    result = run("coverage", str(tmp_path), "--format", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["stopped"] == [{"trace": str(tmp_path / "b.jsonl"), "index": 1, "kind": "after_session_end"}]


def test_coverage_of_a_malformed_trace_exits_2_naming_it_and_its_line(tmp_path):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text('{"event": "busy_start"}\n', encoding="utf-8")
    bad.write_text('{"event": "busy_start"}\n{"event": "nap"}\n', encoding="utf-8")
    result = run("coverage", str(good), str(bad))
    assert result.exit_code == 2 and f"{bad}:2:" in result.stderr and "unknown event 'nap'" in result.stderr
    assert run("coverage", str(tmp_path / "missing.jsonl")).exit_code == 2


def test_keep_going_lists_unusable_traces_counts_the_rest_and_exits_1(tmp_path):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text('{"event": "busy_start"}\n{"event": "busy_end"}\n', encoding="utf-8")
    bad.write_text('{"event": "busy_start"}\n{"event": "nap"}\n', encoding="utf-8")
    missing = str(tmp_path / "missing.jsonl")
    result = run("coverage", str(good), str(bad), missing, "--keep-going", "--format", "json")
    assert result.exit_code == 1  # never 0: some of the traffic was not looked at
    document = json.loads(result.stdout)
    assert (document["traces"], document["events"], document["stopped"]) == (1, 2, [])
    assert [(u["trace"], u["line"]) for u in document["unusable"]] == [(str(bad), 2), (missing, None)]
    assert "unknown event 'nap'" in document["unusable"][0]["message"] and document["unusable"][1]["message"] == "no such file"
    text = run("coverage", str(good), str(bad), "--keep-going").stdout
    assert f"  {bad}:2: unknown event 'nap'" in text
    assert run("coverage", str(good), "--keep-going").exit_code == 0  # nothing unusable: as without it


def test_a_link_to_nothing_in_a_folder_is_named_not_skipped(tmp_path):
    (tmp_path / "good.jsonl").write_text('{"event": "busy_start"}\n', encoding="utf-8")
    (tmp_path / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    result = run("coverage", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'gone.jsonl'}: a symbolic link to nothing" in result.stderr


def test_a_subfolder_that_cannot_be_listed_is_named_not_skipped(tmp_path, monkeypatch):
    import os

    (tmp_path / "good.jsonl").write_text('{"event": "busy_start"}\n', encoding="utf-8")
    (tmp_path / "locked").mkdir()
    listing = os.scandir

    def scandir(path="."):  # as chmod 000 would, for a user other than root
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = run("coverage", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'locked'}: cannot list this folder: Permission denied" in result.stderr


@pytest.mark.parametrize("kind", ["folder", "file", "dangling"])
def test_a_link_leading_out_of_the_folder_given_is_exit_2_naming_it_and_nothing_out_there_is_read(tmp_path, kind):
    given, elsewhere = tmp_path / "traces", tmp_path / "elsewhere"
    (given / "sub").mkdir(parents=True)
    elsewhere.mkdir()
    (given / "good.jsonl").write_text('{"event": "busy_start"}\n', encoding="utf-8")
    (elsewhere / "secret.jsonl").write_text('{"event": "password"}\n', encoding="utf-8")
    link = given / "sub" / ("out" if kind == "folder" else "out.jsonl")
    link.symlink_to({"folder": elsewhere, "file": elsewhere / "secret.jsonl", "dangling": elsewhere / "gone.jsonl"}[kind])
    result = run("coverage", str(given))
    assert result.exit_code == 2, result.output
    assert f"gapstate: error: {link}: a symbolic link leading out of {given}, the folder given" in result.stderr
    assert "password" not in result.output
    with pytest.raises(GapstateError, match="leading out of"):
        list(trace_files([str(given)]))


def test_links_that_stay_inside_the_folder_given_are_followed_and_each_folder_read_once(tmp_path):
    given = tmp_path / "traces"
    (given / "sub").mkdir(parents=True)
    (given / "good.jsonl").write_text('{"event": "busy_start"}\n', encoding="utf-8")
    (given / "sub" / "again.jsonl").symlink_to(given / "good.jsonl")
    (given / "sub" / "up").symlink_to(given)  # a loop back up: read once
    (tmp_path / "named").symlink_to(given)  # the folder given may itself be a link
    assert sorted(trace_files([str(tmp_path / "named")])) == [str(tmp_path / "named" / "good.jsonl"),
                                                             str(tmp_path / "named" / "sub" / "again.jsonl")]
    assert run("coverage", str(tmp_path / "named")).exit_code == 0
