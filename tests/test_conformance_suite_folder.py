"""gapstate.conformance.suite_folder: reading a vectors folder, and telling a suite gapstate wrote from one a person keeps."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gapstate.cli import main
from gapstate.conformance.suite_folder import MANIFEST, is_suite, load
from gapstate.errors import GapstateError


@pytest.fixture
def suite(tmp_path):
    out = tmp_path / "suite"
    assert CliRunner().invoke(main, ["vectors", str(out)]).exit_code == 0
    return out


def test_a_written_suite_loads_in_its_manifest_order_with_every_event_timed(suite):
    manifest = json.loads((suite / MANIFEST).read_text(encoding="utf-8"))
    traces = load(suite)
    assert [name for name, _ in traces] == [entry["name"] for entry in manifest["traces"]]
    assert all("t" in event for _, trace in traces for event in trace)


def test_a_suite_gapstate_wrote_is_one_and_a_stray_file_makes_it_not(suite):
    assert is_suite(suite)
    (suite / "notes.txt").write_text("mine", encoding="utf-8")
    assert not is_suite(suite)


def test_a_manifest_that_names_a_file_outside_its_folder_is_refused_at_its_line(suite, tmp_path):
    (tmp_path / "secret.jsonl").write_text('{"event": "busy_start", "t": 0}\n', encoding="utf-8")
    manifest = json.loads((suite / MANIFEST).read_text(encoding="utf-8"))
    manifest["traces"][0]["trace"] = "../secret.jsonl"
    (suite / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    with pytest.raises(GapstateError, match=r"traces\[0\]\.trace: .* is not a file inside the suite's folder"):
        load(suite)


def test_a_folder_without_a_manifest_loads_its_traces_by_name(tmp_path):
    for name in ("b", "a"):
        (tmp_path / f"{name}.jsonl").write_text('{"event": "busy_start", "t": 0}\n', encoding="utf-8")
    assert [name for name, _ in load(tmp_path)] == ["a", "b"]
    with pytest.raises(GapstateError, match="no such folder"):
        load(tmp_path / "missing")


def test_a_folder_without_a_manifest_refuses_a_trace_link_leading_out_of_it_and_reads_nothing_of_it(tmp_path):
    folder, elsewhere = tmp_path / "vectors", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (elsewhere / "secret.jsonl").write_text('{"event": "password"}\n', encoding="utf-8")
    (folder / "a.jsonl").symlink_to(elsewhere / "secret.jsonl")
    with pytest.raises(GapstateError, match="leads out of the suite's folder") as refused:
        load(folder)
    assert refused.value.file == str(folder) and "password" not in str(refused.value)
    result = CliRunner().invoke(main, ["conform", "--vectors", str(folder), "--", "true"])
    assert result.exit_code == 2 and '"a.jsonl" leads out of the suite\'s folder' in result.stderr
    assert "password" not in result.output


def test_a_manifest_that_is_a_named_pipe_makes_no_suite_and_is_never_opened(tmp_path):
    import os

    os.mkfifo(tmp_path / MANIFEST)  # opening it would wait for a writer that never comes
    assert not is_suite(tmp_path)
