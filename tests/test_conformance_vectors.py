"""gapstate vectors: few long traces that fire every reachable row and refuse every invalid one."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import gapstate
from gapstate.cli import main
from gapstate.conformance import vectors
from gapstate.table.load import parse_spec

from .support import SPEC_PATH, SPEC_TEXT, variant


def test_the_vectors_fire_every_row_that_is_neither_invalid_nor_allowed_unreachable():
    spec = gapstate.load_spec()
    suite = vectors.build(spec)
    table = spec.table
    allowed = {r.line for r in table.rows for a in table.allowances if a.names(r)}
    expected = {r.line for r in table.rows if not r.invalid and r.line not in allowed}
    fired = {line for vector in suite.vectors for line in vector.rows}
    assert fired == expected == set(suite.reachable)


def _ending(vector):
    """The goal a trace ends at: its refusal or after-end goal, its last pair into session_end, or None."""
    if vector.result.error is not None:
        return vector.goals[-1] if vector.goals else None
    steps = vector.result.steps
    if steps and steps[-1].event == "session_end" and len(steps) > 1:
        return (steps[-2].row, steps[-1].row)
    return None


def test_traces_end_at_distinct_goals_so_none_could_be_merged_with_another():
    # each trace ends once: on a pair into a session_end row, or on a refusal
    suite = vectors.build(gapstate.load_spec())
    ends = [_ending(vector) for vector in suite.vectors]
    met = [end for end in ends if end is not None]
    assert len(set(met)) == len(met)
    assert len(ends) - len(met) <= len(ends) // 20  # the few tours that ran out of goals before an ending


def test_every_pair_of_rows_that_can_follow_each_other_fires_in_some_vector():
    suite = vectors.build(gapstate.load_spec())
    assert suite.pairs == suite.possible_pairs
    assert len(suite.possible_pairs) > 10 * len(suite.reachable)


def test_every_boundary_goal_is_met_on_the_bundled_table():
    suite = vectors.build(gapstate.load_spec())
    assert suite.unmet == ()
    names = {name for name, _ in suite.goals}
    assert {"post_send:at", "id:written_off:CLEAR", "episode_attempts:fresh-from-REQUESTED-after-2", "refuse:224"} <= names


def test_evidence_in_the_vectors_speaks_before_at_and_just_after_the_commit():
    spec = gapstate.load_spec()
    seen = set()
    for vector in vectors.build(spec).vectors:
        commit = None
        for event, step in zip(vector.trace, vector.result.steps, strict=False):  # a refused vector stops early
            if step.event == "send_ok":
                commit = event["t"]
            if step.event == "evidence_turn" and step.source == "REQUESTED" and commit is not None:
                seen.add((event["speech_start"] - commit, step.actions))
    assert {(-1, ("noop",)), (0, ("noop",)), (1, ("settle",))} <= seen


def test_every_invalid_row_is_refused_by_the_last_event_of_some_trace():
    spec = gapstate.load_spec()
    suite = vectors.build(spec)
    refused = set()
    for vector in suite.vectors:
        error = vector.result.error
        if error is not None:
            assert error.index == len(vector.trace) - 1  # the refusal ends the trace
            if error.kind == "invalid_event":
                refused.add(vector.refused_row)
    assert refused == {r.line for r in spec.table.rows if r.invalid}


def test_some_trace_sends_an_event_after_session_end():
    suite = vectors.build(gapstate.load_spec())
    ends = [v for v in suite.vectors if v.result.error and v.result.error.kind == "after_session_end"]
    assert ends
    trace = ends[0].trace
    assert [e["event"] for e in trace].index("session_end") == len(trace) - 2


def test_each_vector_replays_to_its_recorded_result_and_carries_t_on_every_event():
    spec = gapstate.load_spec()
    for vector in vectors.build(spec).vectors:
        assert all("t" in event for event in vector.trace)
        assert gapstate.replay(spec, list(vector.trace)).to_dict() == vector.result.to_dict()


def test_two_builds_plan_the_same_traces_and_manifest():
    first, second = (vectors.build(gapstate.load_spec()) for _ in range(2))
    assert [v.trace for v in first.vectors] == [v.trace for v in second.vectors]
    assert first.manifest("x", "1") == second.manifest("x", "1")


def test_the_manifest_lists_each_trace_with_its_rows_and_the_spec():
    suite = vectors.build(gapstate.load_spec())
    manifest = suite.manifest("abc", "9.9")
    assert manifest["gapstate"] == "9.9"
    assert manifest["spec"] == {"path": suite.spec, "sha256": "abc"}
    names = [entry["name"] for entry in manifest["traces"]]
    assert len(set(names)) == len(names) == len(suite.vectors)
    first = manifest["traces"][0]
    assert first["trace"] == f"{first['name']}.jsonl" and first["expected"] == f"{first['name']}.expected.json"
    assert first["rows"] == sorted({step.row for step in suite.vectors[0].result.steps})


def test_a_table_with_other_caps_gets_its_own_cover():
    text = variant("@cap session_requests 3", "@cap session_requests 1", SPEC_TEXT)
    spec = parse_spec(text, "one-request.md")
    suite = vectors.build(spec)
    fired = {line for vector in suite.vectors for line in vector.rows}
    assert fired == set(suite.reachable)
    assert suite.pairs == suite.possible_pairs


# the command -------------------------------------------------------------------


def vectors_cli(*args: str):
    return CliRunner().invoke(main, ["vectors", *args])


def test_the_command_writes_traces_expected_documents_and_a_manifest(tmp_path):
    out = tmp_path / "suite"
    result = vectors_cli(str(out))
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["gapstate"] == gapstate.__version__
    used = json.loads(CliRunner().invoke(main, ["check", "--format", "json"]).stdout)["spec"]  # the spec --spec would default to
    assert manifest["spec"] == {"path": os.path.relpath(used, out), "sha256": hashlib.sha256(Path(used).read_bytes()).hexdigest()}
    assert (out / manifest["spec"]["path"]).resolve() == Path(used).resolve()  # relative to the manifest's folder
    listed = {entry["trace"] for entry in manifest["traces"]} | {entry["expected"] for entry in manifest["traces"]}
    assert listed | {"manifest.json"} == {path.name for path in out.iterdir()}
    for entry in manifest["traces"]:
        replayed = CliRunner().invoke(main, ["replay", "--format", "json", str(out / entry["trace"])])
        assert replayed.stdout == (out / entry["expected"]).read_text(encoding="utf-8")
        assert replayed.exit_code == (0 if entry["refusal"] is None else 1)


def test_two_runs_write_byte_identical_folders(tmp_path):
    for name in ("a", "b"):
        assert vectors_cli(str(tmp_path / name), "--spec", str(SPEC_PATH)).exit_code == 0
    files = sorted(path.name for path in (tmp_path / "a").iterdir())
    assert files == sorted(path.name for path in (tmp_path / "b").iterdir())
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_a_folder_that_is_not_empty_is_kept_unless_forced_and_a_suite_gapstate_wrote(tmp_path):
    out = tmp_path / "suite"
    out.mkdir()
    (out / "mine.txt").write_text("keep me", encoding="utf-8")
    refused = vectors_cli(str(out))
    assert refused.exit_code == 2 and "not empty" in refused.stderr
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    foreign = vectors_cli(str(out), "--force")  # --force replaces only a suite gapstate wrote
    assert foreign.exit_code == 2 and "was not written by gapstate" in foreign.stderr
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    (out / "mine.txt").unlink()
    assert vectors_cli(str(out)).exit_code == 0
    (out / "manifest.json").write_text((out / "manifest.json").read_text(encoding="utf-8").replace("send_", "SEND_"), encoding="utf-8")
    forced = vectors_cli(str(out), "--force")
    assert forced.exit_code == 0, forced.output
    assert "SEND_" not in (out / "manifest.json").read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite"]  # nothing left beside it


@pytest.mark.parametrize("where", [".", "..", "~", "/", "link"])
def test_force_never_replaces_the_working_folder_one_above_home_root_or_a_link(tmp_path, monkeypatch, where):
    work, home = tmp_path / "work", tmp_path / "home"
    for folder in (work, home):
        folder.mkdir()
        (folder / "keep.txt").write_text("x", encoding="utf-8")
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))
    target = {"~": str(home), "link": str(tmp_path / "link")}.get(where, where)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = vectors_cli(target, "--force")
    assert result.exit_code == 2, result.output
    assert any(words in result.stderr for words in ("never replaces it", "symbolic link"))
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert [p.name for p in work.iterdir()] == [p.name for p in home.iterdir()] == ["keep.txt"]
    assert (tmp_path / "link").is_symlink() and not any((tmp_path / "real").iterdir())


def test_an_empty_folder_is_filled_without_force(tmp_path):
    out = tmp_path / "suite"
    out.mkdir()
    assert vectors_cli(str(out)).exit_code == 0
    assert (out / "manifest.json").exists()


@pytest.mark.slow  # a whole proof and plan of a broken table, a second of CPU
def test_a_table_whose_row_fires_only_by_breaking_a_rule_gets_no_suite(tmp_path):
    """Vectors walk only clean steps; a suite that skipped the row would claim more than it fires."""
    spec = tmp_path / "busy.md"
    spec.write_text(
        variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request"),
        encoding="utf-8",
    )
    line = SPEC_TEXT.splitlines().index("OPEN | floor_released | busy | DUE | defer_no_interrupt") + 1
    result = vectors_cli(str(tmp_path / "suite"), "--spec", str(spec))
    assert result.exit_code == 1
    assert f"rows at lines {line} fire only on steps that break a rule" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["busy.md"]


def test_a_file_in_the_way_is_unusable(tmp_path):
    (tmp_path / "suite").write_text("x", encoding="utf-8")
    result = vectors_cli(str(tmp_path / "suite"), "--force")
    assert result.exit_code == 2 and "not a folder" in result.stderr


def test_a_spec_on_standard_input_is_read_once_and_its_bytes_hashed(tmp_path):
    out = tmp_path / "suite"
    result = CliRunner().invoke(main, ["vectors", str(out), "--spec", "-"], input=SPEC_PATH.read_bytes())
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["spec"] == {"path": "<stdin>", "sha256": hashlib.sha256(SPEC_PATH.read_bytes()).hexdigest()}
