"""The command line: exit codes, output formats, and clear errors instead of tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from gapstate.cli import main

from .support import SPEC_TEXT, variant


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def broken_spec(tmp_path):
    path = tmp_path / "broken.md"
    path.write_text(
        variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request"),
        encoding="utf-8",
    )
    return path


def test_check_passes_on_the_bundled_spec():
    result = run("check")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1].startswith("gapstate check: ")
    assert ": ok (5 states, 12 events, 67 rows," in result.stdout


def test_check_json_is_one_document_with_the_contract_keys():
    result = run("check", "--format", "json")
    document = json.loads(result.stdout)
    assert set(document) == {"ok", "spec", "stats", "findings"}
    assert set(document["stats"]) == {"states", "events", "rows", "configurations", "unreachable_allowed"}
    assert document["ok"] is True and document["findings"] == []


def test_check_reports_findings_as_path_line_column_kind(broken_spec):
    result = run("check", "--spec", str(broken_spec))
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    line = SPEC_TEXT.splitlines().index("OPEN | floor_released | busy | DUE | defer_no_interrupt") + 1
    assert first.startswith(f"{broken_spec}:{line}:1: rule: send-while-busy: ")


def test_a_trace_printed_by_check_pastes_into_replay(broken_spec, tmp_path):
    text = run("check", "--spec", str(broken_spec)).stdout.splitlines()
    start = next(i for i, line in enumerate(text) if "send-while-busy" in line)
    trace = []
    for line in text[start + 1 :]:
        if not line.startswith("    "):
            break
        trace.append(line.strip())
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(trace) + "\n", encoding="utf-8")
    replayed = run("replay", str(path), "--spec", str(broken_spec), "--format", "json")
    assert replayed.exit_code == 1
    error = json.loads(replayed.stdout)["error"]
    assert error["kind"] == "rule" and "send-while-busy" in error["message"]


def test_check_output_is_byte_identical_between_runs(broken_spec):
    first = run("check", "--spec", str(broken_spec), "--format", "json").stdout
    assert first == run("check", "--spec", str(broken_spec), "--format", "json").stdout
    assert run("check", "--spec", str(broken_spec)).stdout == run("check", "--spec", str(broken_spec)).stdout


def test_a_spec_without_a_table_exits_1_with_a_parse_error(tmp_path):
    path = tmp_path / "empty.md"
    path.write_text("# Nothing here\n", encoding="utf-8")
    result = run("check", "--spec", str(path), "--format", "json")
    assert result.exit_code == 1
    [finding] = json.loads(result.stdout)["findings"]
    assert (finding["kind"], finding["line"], finding["column"]) == ("parse_error", 1, 1)


@pytest.mark.parametrize("make, words", [
    (lambda p: p / "missing.md", "no such file"),
    (lambda p: p, "is a directory"),
])
def test_an_unreadable_spec_exits_2_naming_it(tmp_path, make, words):
    path = make(tmp_path)
    result = run("check", "--spec", str(path))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert str(path) in result.stderr and words in result.stderr
    assert "Traceback" not in result.stderr


def test_a_spec_that_is_not_utf8_exits_2_with_its_line(tmp_path):
    path = tmp_path / "latin.md"
    path.write_bytes(b"line one\nline two \xe9\n")
    result = run("check", "--spec", str(path))
    assert result.exit_code == 2
    assert f"{path}:2:10: not UTF-8" in result.stderr


def test_a_bad_option_exits_2():
    assert run("check", "--format", "yaml").exit_code == 2
    assert run("check", "--no-such-option").exit_code == 2


def test_python_dash_m_runs_the_same_command():
    result = subprocess.run([sys.executable, "-m", "gapstate", "check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert ": ok (" in result.stdout


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print(' '.join(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True,
    ).stdout
    return set(out.split())


def test_importing_gapstate_loads_neither_lark_nor_networkx():
    loaded = _modules_after("import gapstate, gapstate.cli")
    assert "lark" not in loaded and "networkx" not in loaded


def test_replaying_does_not_load_networkx():
    loaded = _modules_after(
        "import gapstate\n"
        "gapstate.replay(gapstate.load_spec(), [{'event': 'loss_voiced', 'id': 'a'}])"
    )
    assert "networkx" not in loaded
    assert "lark" in loaded  # the spec was parsed


@pytest.mark.parametrize("command", [["check", "--spec"], ["replay", "trace.jsonl", "--spec"], ["fuzz", "--spec"]])
def test_with_json_format_unusable_input_still_prints_one_json_document(tmp_path, command):
    (tmp_path / "trace.jsonl").write_text('{"event": "busy_start"}\n', encoding="utf-8")
    args = [str(tmp_path / a) if a == "trace.jsonl" else a for a in command]
    result = run(*args, str(tmp_path / "missing.md"), "--format", "json")
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    assert document["ok"] is False
    assert document["error"]["file"] == str(tmp_path / "missing.md")
    assert document["error"]["message"] == "no such file"


def test_an_empty_spec_path_says_so():
    result = run("check", "--spec", "")
    assert result.exit_code == 2 and "an empty path names no file" in result.stderr


def test_load_spec_refuses_what_is_neither_a_path_nor_text():
    import gapstate

    with pytest.raises(gapstate.GapstateError):
        gapstate.load_spec(5)
