"""What gapstate prints: text from input is shown as escapes, never obeyed by a terminal or GitHub."""

from __future__ import annotations

import json
import re

import pytest

from gapstate.cli.output import escape

from .support import SPEC_TEXT, in_root, run, variant, write_trace

# The id from a hostile trace: retitles a terminal, then starts a line with a workflow command.
INJECTED = "a\x1b]0;x\x07\r\n::error::pwned"
RAW = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def obeys_nothing(*streams: str) -> None:
    for stream in streams:
        assert not RAW.search(stream), stream
        assert not any(line.startswith("::") for line in stream.split("\n")), stream


def test_a_replayed_id_cannot_start_a_line_or_a_workflow_command(tmp_path):
    trace = write_trace(tmp_path, json.dumps({"event": "loss_voiced", "t": 1, "id": INJECTED}))
    result = run("replay", str(trace))
    assert result.exit_code == 0, result.output
    obeys_nothing(result.stdout, result.stderr)
    assert "id a\\x1b]0;x\\x07\\r\\n::error::pwned new" in result.stdout


def test_arm_and_turn_names_are_escaped_in_the_verdict_table(tmp_path):
    report = {
        "answer_key": [INJECTED],
        "arms": [
            {"name": f"control{INJECTED}", "kind": "control", "turns": {INJECTED: {"status": "present"}}},
            {"name": f"stall{INJECTED}", "kind": "stall", "turns": {INJECTED: {"status": "present"}}},
        ],
    }
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    result = run("classify", str(path))
    assert result.exit_code == 0, result.output
    obeys_nothing(result.stdout, result.stderr)
    assert f"arm {escape('stall' + INJECTED)}:" in result.stdout


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_a_hostile_spec_name_opens_no_workflow_command_of_its_own(tmp_path, fmt):
    spec = tmp_path / f"x{INJECTED}.md"
    spec.write_text(variant("@cap episode_attempts 2", "@cap episode_attempts 0"), encoding="utf-8")
    result = run("check", str(spec), "--format", fmt)
    assert result.exit_code == 1, result.output
    lines = result.stdout.split("\n")
    if fmt == "github":  # exactly the one annotation gapstate wrote, its file property escaped as GitHub reads it
        [annotation] = [line for line in lines if line.startswith("::")]
        assert annotation.startswith(f"::error file={str(tmp_path).replace(':', '%3A')}/xa\\x1b]0;x\\x07%0D%0A%3A%3Aerror%3A%3Apwned.md,line=")
        assert not RAW.search(result.stdout) and not RAW.search(result.stderr)
    else:
        obeys_nothing(result.stdout, result.stderr)


def test_a_usage_error_quoting_the_argument_escapes_it():
    result = run("fuzz", "--seed", f"1{INJECTED}")
    assert result.exit_code == 2
    obeys_nothing(result.stdout, result.stderr)
    assert "\\x1b]0;x\\x07" in result.stderr


def test_a_file_name_that_is_not_utf8_is_a_valid_uri_in_sarif_and_an_escape_in_text(tmp_path, monkeypatch):
    import os

    monkeypatch.chdir(tmp_path)
    name = os.fsdecode(b"spec\xff.md")
    with open(os.fsencode(name), "w", encoding="utf-8") as out:
        out.write(variant("@cap episode_attempts 2", "@cap episode_attempts 0"))
    sarif = run("check", name, "--format", "sarif")
    assert sarif.exit_code == 1 and "Traceback" not in sarif.output
    [result] = json.loads(sarif.stdout)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "spec%FF.md"
    text = run("check", name)
    assert text.exit_code == 1 and "spec\\udcff.md:" in text.stdout
    obeys_nothing(text.stdout, text.stderr)


def test_error_messages_quote_a_hostile_event_name_escaped(tmp_path):
    trace = write_trace(tmp_path, json.dumps({"event": INJECTED}))
    result = run("replay", str(trace))
    assert result.exit_code == 2
    obeys_nothing(result.stdout, result.stderr)
    assert "unknown event 'a\\x1b]0;x\\x07\\r\\n::error::pwned'" in result.stderr


# output that grows with the input is written as it goes ---------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gapstate.cli.output import say, say_lines  # noqa: E402


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(alphabet="a\x1b\n", max_size=5), max_size=40), st.integers(1, 8))
def test_lines_said_a_few_at_a_time_are_the_joined_text_byte_for_byte(capsys, lines, chunk):
    capsys.readouterr()  # the fixture is shared between examples: start each from nothing
    say("\n".join(lines))
    joined = capsys.readouterr().out
    say_lines(iter(lines), chunk=chunk)
    assert capsys.readouterr().out == joined


def _grown(tmp_path, command: str, count: int) -> list[str]:
    """Arguments of `command` on an input with `count` items of the output that grows with it.

    coverage: a log of `count` sessions that each stop (an event after
    session_end); diff --traces: `count` sessions that each behave differently;
    classify: a report of `count` turns.
    """
    if command == "classify":
        turns = {f"q{n}": {"status": "present"} for n in range(count)}
        report = {"answer_key": list(turns), "arms": [{"name": "control", "kind": "control", "turns": turns},
                                                      {"name": "stall", "kind": "stall", "turns": turns}]}
        path = tmp_path / "report.json"
        path.write_text(json.dumps(report, indent=1), encoding="utf-8")  # gapstate reads lines of at most 1 MiB
        return ["classify", str(path)]
    log = tmp_path / "log.jsonl"
    with log.open("w", encoding="utf-8") as out:
        for n in range(count):
            if command == "coverage":
                out.write(f'{{"event":"session_end","session":"s{n}"}}\n{{"event":"busy_start","session":"s{n}"}}\n')
            else:
                out.write(f'{{"event":"busy_end","session":"s{n}"}}\n')
    if command == "coverage":
        return ["coverage", "--split-by", "session", "--jobs", "1", str(log)]
    new = tmp_path / "new.md"
    new.write_text(variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | invalid"), encoding="utf-8")
    old = tmp_path / "old.md"
    old.write_text(variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | noop"), encoding="utf-8")
    return ["diff", str(old), str(new), "--traces", str(log), "--split-by", "session", "--jobs", "1", "--format", "json"]


GROWN = ["coverage", "diff", "classify"]
RENDERERS = {"coverage": "gapstate.cli.render.seeing.coverage_lines", "classify": "gapstate.cli.render.classify.classify_lines"}


@pytest.mark.parametrize("command", GROWN)
def test_a_reader_gone_after_the_first_write_stops_the_rendering_there(tmp_path, monkeypatch, command):
    """The first piece is written before the rest is rendered or encoded, and a closed pipe (141) ends it there."""
    args = _grown(tmp_path, command, {"coverage": 2000, "diff": 500, "classify": 1000}[command])
    whole = run(*args).stdout
    assert whole.count("\n") > 2000
    drawn = []
    if command in RENDERERS:
        module, name = RENDERERS[command].rsplit(".", 1)
        lines = getattr(__import__(module, fromlist=[name]), name)

        def counted(*a, **k):
            for line in lines(*a, **k):
                drawn.append(line)
                yield line

        monkeypatch.setattr(RENDERERS[command], counted)
    written = []

    def echo(message=None, file=None, nl=True, err=False, color=None):
        if err:
            return
        written.append(message)
        raise BrokenPipeError

    monkeypatch.setattr("gapstate.cli.output.click.echo", echo)
    assert run(*args).exit_code == 141
    assert len(written) == 1 and whole.startswith(written[0]) and len(written[0]) < len(whole) * 0.6
    if command in RENDERERS:
        assert 0 < len(drawn) < whole.count("\n") * 0.6


@pytest.mark.slow
@pytest.mark.parametrize("command", GROWN)
def test_head_3_on_a_big_input_gets_its_lines_and_the_command_exits_141(tmp_path, command):
    """`gapstate ... | head -3` as a shell runs it: head gets its three lines, gapstate ends quietly with 141."""
    import subprocess
    import sys

    args = _grown(tmp_path, command, 100_000)
    process = subprocess.Popen([sys.executable, "-m", "gapstate", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    head = [process.stdout.readline() for _ in range(3)]
    process.stdout.close()
    error = process.stderr.read()
    assert process.wait() == 141
    assert error == b"" and all(line.endswith(b"\n") for line in head)
    assert head[0].startswith({"coverage": b"  row ", "diff": b"{",
                               "classify": b"arm "}[command])


# every command, every input from a folder whose name starts a workflow command -----------------

def _hostile_runs(folder):
    """Each command once (twice where a second path of its output quotes other input), on files in `folder`."""
    from .support import REPORT_EXAMPLE, line_of

    folder.mkdir()
    spec = folder / "spec.md"
    spec.write_text(SPEC_TEXT, encoding="utf-8")
    broken = folder / "broken.md"
    broken.write_text(variant("@cap episode_attempts 2", "@cap episode_attempts 0"), encoding="utf-8")
    changed = folder / "changed.md"  # steps, and breaks a rule: busy_end in CLEAR refused
    changed.write_text(variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | invalid"), encoding="utf-8")
    row = str(line_of(SPEC_TEXT, "CLEAR | busy_end | - | = | noop"))
    stale = folder / "stale.md"
    stale.write_text(SPEC_TEXT.replace('state_CLEAR(["CLEAR"])', 'state_CLEAR(["OLD"])', 1), encoding="utf-8")
    trace = folder / "trace.jsonl"
    trace.write_text('{"event": "busy_start", "t": 1}\n{"event": "session_end", "t": 2}\n{"event": "busy_end", "t": 3}\n',
                     encoding="utf-8")
    report = folder / "report.json"
    report.write_text(REPORT_EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    suite = folder / "suite"
    never = ["sh", "-c", 'while read line; do echo \'{"state": "CLEAR", "actions": ["noop"]}\'; done']
    return {
        "check": ["check", str(spec)],
        "check-findings": ["check", str(broken)],
        "check-fix": ["check", "--fix", str(stale)],
        "classify": ["classify", str(report)],
        "fuzz": ["fuzz", "--spec", str(changed), "--seed", "1", "--examples", "20", "--save", str(folder / "found.jsonl")],
        "replay": ["replay", str(trace)],
        "diff": ["diff", str(spec), str(changed), "--traces", str(trace), "--jobs", "1"],
        "witness": ["witness", row, "--spec", str(spec)],
        "explain": ["explain", row, "--spec", str(spec)],
        "graph": ["graph", "--spec", str(spec)],
        "graph-update": ["graph", "--update", "--spec", str(stale)],
        "coverage": ["coverage", str(folder), "--spec", str(spec), "--jobs", "1"],
        "vectors": ["vectors", str(suite), "--spec", str(spec)],
        "conform": ["conform", "--vectors", str(suite), "--examples", "0", "--save", str(folder / "diverged.jsonl"),
                    "--spec", str(spec), "--", *never],
    }


def test_no_line_any_command_writes_from_input_can_start_a_workflow_command(tmp_path):
    """A folder named `x\\n::error::pwned` (a pull request can name one so): no command's stdout or stderr line starts with `::`."""
    runs = _hostile_runs(tmp_path / f"x{INJECTED}")
    outputs = {}
    for name, args in runs.items():  # in this order: conform reads the suite vectors wrote
        result = run(*args)
        assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit), (
            name, result.output)
        outputs[name] = (result.stdout, result.stderr)
        obeys_nothing(result.stdout, result.stderr)
    assert "\\n::error::pwned" in outputs["vectors"][1]  # the folder was named, escaped
    folder = tmp_path / f"x{INJECTED}"
    (folder / "pyproject.toml").write_text('[tool.gapstate]\nspec = "s\\n::error::set.md"\n', encoding="utf-8")
    for present in (False, True):  # the setting's spec missing, then there
        if present:
            (folder / "s\n::error::set.md").write_text(SPEC_TEXT, encoding="utf-8")
        for args in (["check"], ["vectors", str(folder / f"set-{present}")]):
            result = in_root(*args, cwd=folder)
            assert result.exit_code == (0 if present else 2), result.output
            obeys_nothing(result.stdout, result.stderr)
