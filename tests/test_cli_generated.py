"""The `generated` setting under `check`: a stale, missing or foreign generated file is a finding; `--fix` regenerates."""

from __future__ import annotations

import json
import sys

import pytest

from .gen_support import FEWER_REQUESTS
from .support import SPEC_TEXT, run, unwrapped, variant


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A folder with the bundled spec, settings listing `decider.py`, and that module generated from the spec."""
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "gap-state.md").write_text(SPEC_TEXT, encoding="utf-8")
    (tmp_path / "gapstate.toml").write_text('spec = "spec/gap-state.md"\ngenerated = ["decider.py"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert run("gen", "python", "decider.py").exit_code == 0
    return tmp_path


def _stale(result) -> list[dict]:
    return [f for f in json.loads(result.stdout)["findings"] if f["kind"] == "stale_generated"]


def test_a_decider_generated_from_the_spec_as_it_is_is_no_finding(project):
    result = run("check")
    assert result.exit_code == 0, result.output


def test_a_changed_spec_makes_the_decider_stale_and_fix_regenerates_it(project):
    (project / "spec" / "gap-state.md").write_text(FEWER_REQUESTS, encoding="utf-8")
    result = run("check", "--format", "json")
    assert result.exit_code == 1
    [finding] = _stale(result)
    assert (finding["path"], finding["target"]) == ("decider.py", "python")
    assert "generated from another version of this spec" in finding["message"]
    before = (project / "decider.py").read_text(encoding="utf-8")
    fixed = run("check", "--fix")
    assert fixed.exit_code == 0, fixed.output
    assert "gapstate check --fix: decider.py: regenerated" in fixed.stderr
    assert (project / "decider.py").read_text(encoding="utf-8") != before
    assert run("check").exit_code == 0


def test_a_listed_file_that_is_missing_is_reported_and_fix_writes_it(project):
    (project / "gapstate.toml").write_text('spec = "spec/gap-state.md"\ngenerated = ["decider.py", "crates/gap"]\n',
                                           encoding="utf-8")
    [finding] = _stale(run("check", "--format", "json"))
    assert (finding["path"], finding["target"]) == ("crates/gap", "rust")
    assert "is not there" in finding["message"]
    assert run("check", "--fix").exit_code == 0
    assert "gapstate-generated: target=rust" in (project / "crates" / "gap" / "src" / "lib.rs").read_text(encoding="utf-8")


def test_a_listed_file_gapstate_did_not_write_is_reported_and_never_overwritten(project):
    (project / "decider.py").write_text("print('mine')\n", encoding="utf-8")
    result = run("check", "--fix")
    assert result.exit_code == 1
    assert "decider.py is listed in `generated` but carries no stamp" in "\n".join(unwrapped(result.stdout))
    assert (project / "decider.py").read_text(encoding="utf-8") == "print('mine')\n"


def test_fix_regenerates_nothing_from_a_table_that_does_not_check_clean(project):
    broken = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt",
                     "OPEN | floor_released | busy | SENDING | send_request")
    (project / "spec" / "gap-state.md").write_text(broken, encoding="utf-8")
    before = (project / "decider.py").read_text(encoding="utf-8")
    result = run("check", "--fix")
    assert result.exit_code == 1 and "stale_generated" in result.stdout
    assert "generated files not regenerated: the table does not check clean" in result.stderr
    assert (project / "decider.py").read_text(encoding="utf-8") == before


def test_the_list_belongs_to_the_configured_spec_only(project, tmp_path):
    other = project / "other.md"
    other.write_text(FEWER_REQUESTS, encoding="utf-8")
    assert run("check", "other.md").exit_code == 0


def test_a_listed_path_is_printed_escaped(project):
    (project / "gapstate.toml").write_text('spec = "spec/gap-state.md"\ngenerated = ["de\\u001b[2Jcider.py"]\n',
                                           encoding="utf-8")
    result = run("check")
    assert result.exit_code == 1
    assert "de\\x1b[2Jcider.py is listed in `generated` but is not there" in "\n".join(unwrapped(result.stdout))
    assert "\x1b" not in result.output


@pytest.mark.slow
def test_a_mutated_table_regenerated_leaves_the_old_decider_diverging_and_stale(project):
    """The drift `stale_generated` exists for: the decider built before the change no longer conforms."""
    (project / "old.py").write_bytes((project / "decider.py").read_bytes())
    (project / "spec" / "gap-state.md").write_text(FEWER_REQUESTS, encoding="utf-8")
    assert [f["path"] for f in _stale(run("check", "--format", "json"))] == ["decider.py"]
    assert run("check", "--fix").exit_code == 0
    old = run("conform", "--format", "json", "--", sys.executable, "old.py")
    assert old.exit_code == 1 and json.loads(old.stdout)["divergence"]
    new = run("conform", "--examples", "20", "--", sys.executable, "decider.py")
    assert new.exit_code == 0, new.output


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes are POSIX")
def test_a_listed_file_that_is_a_named_pipe_is_never_opened_it_is_foreign(project):
    import os

    (project / "decider.py").unlink()
    os.mkfifo(project / "decider.py")  # opening it would wait for a writer that never comes
    result = run("check", "--format", "json")
    assert result.exit_code == 1
    assert [(f["path"], "carries no stamp" in f["message"]) for f in _stale(result)] == [("decider.py", True)]
