"""`--format github`: escaping as GitHub reads it back, the golden annotations of a defective spec, fuzz and several specs."""

from __future__ import annotations

import json
import re

import pytest

from gapstate.cli.render.github import command, escape_data, escape_property

from .support import DEFECTIVE, ROOT, golden, in_root, variant


def unescape(text: str, prop: bool = False) -> str:
    """What GitHub's runner reads back (actions/runner ActionCommand.UnescapeValue), in its order."""
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else []) + [("%25", "%")]
    for escaped, plain in pairs:
        text = text.replace(escaped, plain)
    return text


def parse(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command split as the runner splits it: level, properties, message."""
    match = re.fullmatch(r"::(\w+)(?: ([^:]*))?::(.*)", line)
    assert match, line
    level, props, message = match.groups()
    properties = dict(p.split("=", 1) for p in props.split(",")) if props else {}
    return level, {k: unescape(v, prop=True) for k, v in properties.items()}, unescape(message)


@pytest.mark.parametrize("text", ["plain", "50% of it", "a\nb\r\nc", "%0A is not a newline", "a:b,c=d", ""])
def test_escaped_messages_and_properties_read_back_unchanged(text):
    assert unescape(escape_data(text)) == text
    assert unescape(escape_property(text), prop=True) == text
    assert "\n" not in escape_data(text) and "\r" not in escape_data(text)
    assert ":" not in escape_property(text) and "," not in escape_property(text)


def test_a_command_with_awkward_properties_parses_back():
    line = command("error", "two\nlines, 100%", file="dir,with:odd/gap-state.md", line=3, col=None, title="rule")
    assert "\n" not in line
    assert parse(line) == ("error", {"file": "dir,with:odd/gap-state.md", "line": "3", "title": "rule"}, "two\nlines, 100%")


# golden outputs of a defective spec -------------------------------------------

def test_check_github_output_matches_the_golden_file():
    result = in_root("check", "--spec", DEFECTIVE, "--format", "github")
    assert result.exit_code == 1
    assert result.stdout == golden("defective.github.txt", result.stdout)


def test_check_github_gives_one_annotation_per_finding_at_its_line_an_error_for_each_root():
    findings = json.loads(in_root("check", "--spec", DEFECTIVE, "--format", "json").stdout)["findings"]
    commands = [parse(line) for line in in_root("check", "--spec", DEFECTIVE, "--format", "github").stdout.splitlines()]
    assert len(commands) == len(findings) > 3
    assert {level for level, _, _ in commands} == {"error", "notice"}
    for (level, props, message), finding in zip(commands, findings, strict=True):
        assert level == ("error" if finding["cause"] is None else "notice")  # a consequence of a root is a notice
        assert props == {"file": DEFECTIVE, "line": str(finding["line"]), "col": str(finding["column"]), "title": finding["kind"]}
        first, *rest = message.split("\n")
        assert first == finding["message"]
        if finding["kind"] == "rule":  # the trace follows, one event a line, as check prints it
            assert [json.loads(line) for line in rest[1:]] == finding["trace"]


def test_check_github_gives_a_notice_for_a_rule_tested_on_no_step(tmp_path):
    # no row settles: settle-without-evidence cannot fail on this table, and the CI log says so as text does
    spec = tmp_path / "unsettled.md"
    spec.write_text(variant("REQUESTED | evidence_turn | post_send | CLEAR | settle",
                            "REQUESTED | evidence_turn | post_send | CLEAR | noop"), encoding="utf-8")
    findings = json.loads(in_root("check", str(spec), "--format", "json").stdout)["findings"]
    commands = [parse(line) for line in in_root("check", str(spec), "--format", "github").stdout.splitlines()]
    assert len(commands) == len(findings) + 1
    level, props, message = commands[-1]
    assert (level, props) == ("notice", {"file": str(spec), "title": "untested rule"})
    assert message.startswith("rule settle-without-evidence was tested on no reachable step: this table cannot break it")


def test_check_github_prints_nothing_on_a_clean_spec():
    result = in_root("check", "--format", "github")
    assert result.exit_code == 0 and result.stdout == ""


def test_check_github_on_unusable_input_exits_2_with_one_annotation(tmp_path):
    spec = tmp_path / "gap-state.md"
    spec.write_bytes(b"# Gap\n\xff\n")
    result = in_root("check", "--spec", str(spec), "--format", "github")
    assert result.exit_code == 2
    [(level, props, message)] = [parse(line) for line in result.stdout.splitlines()]
    assert (level, props) == ("error", {"file": str(spec), "line": "2", "col": "1", "title": "unusable input"})
    assert "not UTF-8" in message


# fuzz --format github --------------------------------------------------------------


def test_fuzz_github_annotates_the_row_that_broke_a_rule_with_the_shrunk_trace():
    busy = "OPEN | floor_released | busy | SENDING | send_request"
    text = (ROOT / DEFECTIVE).read_text(encoding="utf-8")
    row = text.splitlines().index(busy) + 1
    result = in_root("fuzz", "--spec", DEFECTIVE, "--seed", "3", "--examples", "300", "--format", "github")
    assert result.exit_code == 1
    [(level, props, message)] = [parse(line) for line in result.stdout.splitlines()]
    assert (level, props) == ("error", {"file": DEFECTIVE, "line": str(row), "title": "rule"})
    assert "--seed 3" in message.split("\n")[0]
    trace = [json.loads(line) for line in message.split("\n")[2:]]
    assert trace and trace[-1]["event"] in ("floor_released", "busy_end")


def test_fuzz_github_with_require_coverage_annotates_each_row_never_fired():
    result = in_root("fuzz", "--seed", "1", "--examples", "3", "--max-events", "3", "--require-coverage", "--format", "github")
    document = json.loads(in_root("fuzz", "--seed", "1", "--examples", "3", "--max-events", "3", "--format", "json").stdout)
    missed = document["coverage"]["missed"]
    assert result.exit_code == 1 and missed
    commands = [parse(line) for line in result.stdout.splitlines()]
    assert [(level, props["title"], int(props["line"])) for level, props, _ in commands] == [("error", "coverage", line) for line in missed]


# several specs -------------------------------------------------------------------


def test_several_specs_annotate_each_and_one_that_cannot_be_read(tmp_path):
    good = tmp_path / "good" / "gap-state.md"
    good.parent.mkdir()
    good.write_text((ROOT / "spec" / "gap-state.md").read_text(encoding="utf-8"), encoding="utf-8")
    missing = tmp_path / "gone.md"
    result = in_root("check", DEFECTIVE, str(good), str(missing), "--format", "github")
    assert result.exit_code == 2  # the worst: one spec cannot be read
    commands = [parse(line) for line in result.stdout.splitlines()]
    expected = in_root("check", DEFECTIVE, "--format", "github").stdout.splitlines()
    assert len(commands) == len(expected) + 1
    assert {props["file"] for _, props, _ in commands[:-1]} == {DEFECTIVE}
    assert commands[-1][1] == {"file": str(missing), "title": "unusable input"}


def test_diff_github_gives_each_case_of_a_change_one_annotation_however_the_terminal_wraps_it(tmp_path, monkeypatch):
    """A case too long for 100 columns wraps in text; its annotation joins it back onto one line."""
    from .support import SPEC_TEXT, run

    old, new = "OPEN | floor_released | busy | DUE | defer_no_interrupt", (
        "OPEN | floor_released | busy,budget_left | DUE | defer_no_interrupt\n"
        "OPEN | floor_released | busy,!budget_left | CLEAR | unrepaired_budget")
    (tmp_path / "old.md").write_text(SPEC_TEXT, encoding="utf-8")
    (tmp_path / "new.md").write_text(SPEC_TEXT.replace(old + "\n", new + "\n", 1), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    text = run("diff", "old.md", "new.md")
    assert any(line.startswith("        ") for line in text.stdout.splitlines())  # a case wrapped in text
    result = run("diff", "old.md", "new.md", "--format", "github")
    assert result.exit_code == 1, result.stderr
    notes = [line for line in result.stdout.splitlines() if line.startswith("::")]
    behaviour = [line for line in notes if "behaviour: OPEN | floor_released" in line]
    assert behaviour and all("\n" not in line and "        " not in line for line in behaviour)
