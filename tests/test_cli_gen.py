"""The `gen` command group: writing a decider, refusing an unsound table or a file not its own, --verify."""

from __future__ import annotations

import json

import pytest

from .support import SPEC_PATH, run, variant


def test_gen_python_writes_a_stamped_module_and_says_so(tmp_path):
    out = tmp_path / "decider.py"
    result = run("gen", "python", str(out), "--spec", str(SPEC_PATH))
    assert result.exit_code == 0, result.output
    assert "decider.py: python decider, 67 rows (spec sha256 " in result.stderr
    text = out.read_text(encoding="utf-8")
    assert "gapstate-generated: target=python" in text and f"--spec {SPEC_PATH}" in text


def test_a_table_that_does_not_check_clean_is_refused_and_nothing_written(tmp_path):
    spec = tmp_path / "broken.md"
    spec.write_text(variant("OPEN | floor_released | busy | DUE | defer_no_interrupt",
                            "OPEN | floor_released | busy | SENDING | send_request"), encoding="utf-8")
    out = tmp_path / "decider.py"
    result = run("gen", "python", str(out), "--spec", str(spec))
    assert result.exit_code == 1
    assert "rule: send-while-busy" in result.stdout and "does not check clean" in result.stderr
    assert not out.exists()


def test_a_file_gapstate_did_not_write_is_never_overwritten(tmp_path):
    out = tmp_path / "mine.py"
    out.write_text("print('mine')\n", encoding="utf-8")
    result = run("gen", "python", str(out), "--spec", str(SPEC_PATH))
    assert result.exit_code == 2 and "not a file gapstate generated" in result.stderr
    assert out.read_text(encoding="utf-8") == "print('mine')\n"
    folder = tmp_path / "crate"
    folder.mkdir()
    (folder / "notes.txt").write_text("x", encoding="utf-8")
    assert run("gen", "rust", str(folder), "--spec", str(SPEC_PATH)).exit_code == 2


def test_verify_needs_a_generated_decider(tmp_path):
    other = tmp_path / "other.py"
    other.write_text("x = 1\n", encoding="utf-8")
    result = run("gen", "--verify", str(other), "--spec", str(SPEC_PATH))
    assert result.exit_code == 2 and "not a decider gapstate generated" in result.stderr
    assert run("gen", "--verify", str(tmp_path / "missing.py")).exit_code == 2


def test_gen_alone_shows_its_help_naming_the_page():
    result = run("gen")
    assert result.exit_code == 2 and "docs/gen.md" in result.stdout
    assert "docs/gen.md" in run("gen", "rust", "--help").stdout


@pytest.mark.slow
def test_verify_of_a_fresh_module_agrees_and_says_how_much_it_compared(tmp_path):
    out = tmp_path / "decider.py"
    run("gen", "python", str(out), "--spec", str(SPEC_PATH))
    result = run("gen", "--verify", str(out), "--spec", str(SPEC_PATH), "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert (document["ok"], document["configurations"], document["cases"]) == (True, 284, 5060)
    assert "284 configurations" in result.stderr


@pytest.mark.slow
def test_conform_drives_the_generated_module(tmp_path):
    import sys

    out = tmp_path / "decider.py"
    run("gen", "python", str(out), "--spec", str(SPEC_PATH))
    result = run("conform", "--spec", str(SPEC_PATH), "--examples", "20", "--", sys.executable, str(out))
    assert result.exit_code == 0, result.output


@pytest.mark.slow
def test_verify_of_a_module_with_an_arm_changed_by_hand_prints_a_trace_replay_reads(tmp_path):
    out = tmp_path / "decider.py"
    run("gen", "python", str(out), "--spec", str(SPEC_PATH))
    text = out.read_text(encoding="utf-8")
    arm = text.index("# line 213:")
    edited = tmp_path / "edited.py"
    edited.write_text(text[:arm] + text[arm:].replace("        s.session_requests += 1\n", "", 1), encoding="utf-8")
    result = run("gen", "--verify", str(edited), "--spec", str(SPEC_PATH))
    assert result.exit_code == 1
    assert "edited.py disagrees with the table" in result.stderr
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("disagrees at event")) + 1
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(line + "\n" for line in lines[start:] if line.startswith("{")), encoding="utf-8")
    assert json.loads(trace.read_text(encoding="utf-8").splitlines()[-1])["event"] == "send_ok"
    assert "counters" in next(line for line in lines if line.strip().startswith("differs:"))
    assert run("replay", str(trace), "--spec", str(SPEC_PATH)).exit_code == 0
