"""`--format github` and `--format sarif`: escaping, golden outputs of a defective spec, the SARIF schema."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from gapstate import reference
from gapstate.review.github import command, escape_data, escape_property

from .support import ROOT

DATA = ROOT / "tests" / "data"


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

WRITE = os.environ.get("GAPSTATE_GOLDEN") == "write"
DEFECTIVE = "tests/data/defective.md"  # relative, as CI passes it: annotations need the path from the checkout


def gapstate(*args: str, cwd=ROOT):
    from click.testing import CliRunner

    from gapstate.cli import main

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        return CliRunner().invoke(main, list(args))


def golden(name: str, actual: str) -> str:
    path = DATA / name
    if WRITE:
        path.write_text(actual, encoding="utf-8")
    return path.read_text(encoding="utf-8")


def test_check_github_output_matches_the_golden_file():
    result = gapstate("check", "--spec", DEFECTIVE, "--format", "github")
    assert result.exit_code == 1
    assert result.stdout == golden("defective.github.txt", result.stdout)


def test_check_github_gives_one_annotation_per_finding_at_its_line():
    findings = json.loads(gapstate("check", "--spec", DEFECTIVE, "--format", "json").stdout)["findings"]
    commands = [parse(line) for line in gapstate("check", "--spec", DEFECTIVE, "--format", "github").stdout.splitlines()]
    assert len(commands) == len(findings) > 3
    for (level, props, message), finding in zip(commands, findings):
        assert level == "error"
        assert props == {"file": DEFECTIVE, "line": str(finding["line"]), "col": str(finding["column"]), "title": finding["kind"]}
        first, *rest = message.split("\n")
        assert first == finding["message"]
        if finding["kind"] == "rule":  # the trace follows, one event a line, as check prints it
            assert [json.loads(line) for line in rest[1:]] == finding["trace"]


def test_check_github_prints_nothing_on_a_clean_spec():
    result = gapstate("check", "--format", "github")
    assert result.exit_code == 0 and result.stdout == ""


def test_check_github_on_unusable_input_exits_2_with_one_annotation(tmp_path):
    spec = tmp_path / "gap-state.md"
    spec.write_bytes(b"# Gap\n\xff\n")
    result = gapstate("check", "--spec", str(spec), "--format", "github")
    assert result.exit_code == 2
    [(level, props, message)] = [parse(line) for line in result.stdout.splitlines()]
    assert (level, props) == ("error", {"file": str(spec), "line": "2", "col": "1", "title": "unusable input"})
    assert "not UTF-8" in message


def sarif_document() -> dict:
    result = gapstate("check", "--spec", DEFECTIVE, "--format", "sarif")
    assert result.exit_code == 1
    return json.loads(result.stdout)


def test_check_sarif_output_matches_the_golden_file():
    import gapstate as package

    document = sarif_document()
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["version"] == package.__version__
    driver["version"] = "VERSION"  # the golden file survives a release
    for rule in driver["rules"]:  # and an install elsewhere: the installed catalogue page
        assert rule.pop("helpUri") == f"{Path(reference.path('findings')).as_uri()}#{rule['id']}"
    text = json.dumps(document, indent=2) + "\n"
    assert text == golden("defective.sarif.json", text)


def validator():
    import jsonschema

    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def test_check_sarif_is_valid_against_the_official_schema():
    assert list(validator().iter_errors(sarif_document())) == []


def test_the_schema_does_reject_a_broken_sarif_log():
    # guards the test above against a schema that accepts anything
    document = sarif_document()
    document["runs"][0]["results"][0]["level"] = "fatal"
    del document["version"]
    assert len(list(validator().iter_errors(document))) == 2


def test_check_sarif_has_one_rule_per_kind_and_one_result_per_finding():
    from gapstate.findings import KINDS

    findings = json.loads(gapstate("check", "--spec", DEFECTIVE, "--format", "json").stdout)["findings"]
    run = sarif_document()["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(KINDS)
    assert all(r["shortDescription"]["text"] and "docs/findings.md" in r["help"]["text"] for r in rules)
    assert len(run["results"]) == len(findings)
    for result, finding in zip(run["results"], findings):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == finding["kind"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (finding["line"], finding["column"])
        if finding["kind"] == "rule":
            assert result["properties"] == {"rule": finding["rule"], "trace": finding["trace"]}


def test_an_absolute_spec_path_becomes_a_file_uri(tmp_path):
    spec = tmp_path / "my spec.md"
    spec.write_text((DATA / "defective.md").read_text(encoding="utf-8"), encoding="utf-8")
    document = json.loads(gapstate("check", "--spec", str(spec), "--format", "sarif").stdout)
    location = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": spec.as_uri()}


# fuzz --format github --------------------------------------------------------------


def test_fuzz_github_annotates_the_row_that_broke_a_rule_with_the_shrunk_trace():
    busy = "OPEN | floor_released | busy | SENDING | send_request"
    text = (ROOT / DEFECTIVE).read_text(encoding="utf-8")
    row = text.splitlines().index(busy) + 1
    result = gapstate("fuzz", "--spec", DEFECTIVE, "--seed", "3", "--examples", "300", "--format", "github")
    assert result.exit_code == 1
    [(level, props, message)] = [parse(line) for line in result.stdout.splitlines()]
    assert (level, props) == ("error", {"file": DEFECTIVE, "line": str(row), "title": "rule"})
    assert "--seed 3" in message.split("\n")[0]
    trace = [json.loads(line) for line in message.split("\n")[2:]]
    assert trace and trace[-1]["event"] in ("floor_released", "busy_end")


def test_fuzz_github_with_require_coverage_annotates_each_row_never_fired():
    result = gapstate("fuzz", "--seed", "1", "--examples", "3", "--max-events", "3", "--require-coverage", "--format", "github")
    document = json.loads(gapstate("fuzz", "--seed", "1", "--examples", "3", "--max-events", "3", "--format", "json").stdout)
    missed = document["coverage"]["missed"]
    assert result.exit_code == 1 and missed
    commands = [parse(line) for line in result.stdout.splitlines()]
    assert [(level, props["title"], int(props["line"])) for level, props, _ in commands] == [("error", "coverage", line) for line in missed]


def test_a_finding_kind_outside_the_catalogue_still_gets_its_rule():
    from types import SimpleNamespace

    from gapstate.findings import CATALOGUE, Finding
    from gapstate.review.sarif import check_sarif

    class Novel(Finding):
        """A kind the catalogue does not list yet."""

        kind = "novel"
        template = "something new"
        __slots__ = ()

    result = SimpleNamespace(spec="spec/gap-state.md", stats={}, findings=(Novel(7, 2),))
    run = check_sarif([result], CATALOGUE, "0")["runs"][0]
    [entry] = run["results"]
    assert run["tool"]["driver"]["rules"][entry["ruleIndex"]]["id"] == "novel"
    assert entry["locations"][0]["physicalLocation"]["region"] == {"startLine": 7, "startColumn": 2}
    assert list(validator().iter_errors(check_sarif([result], CATALOGUE, "0"))) == []


# several specs -------------------------------------------------------------------


def test_several_specs_annotate_each_and_one_that_cannot_be_read(tmp_path):
    good = tmp_path / "good" / "gap-state.md"
    good.parent.mkdir()
    good.write_text((ROOT / "spec" / "gap-state.md").read_text(encoding="utf-8"), encoding="utf-8")
    missing = tmp_path / "gone.md"
    result = gapstate("check", DEFECTIVE, str(good), str(missing), "--format", "github")
    assert result.exit_code == 2  # the worst: one spec cannot be read
    commands = [parse(line) for line in result.stdout.splitlines()]
    expected = gapstate("check", DEFECTIVE, "--format", "github").stdout.splitlines()
    assert len(commands) == len(expected) + 1
    assert {props["file"] for _, props, _ in commands[:-1]} == {DEFECTIVE}
    assert commands[-1][1] == {"file": str(missing), "title": "unusable input"}


def test_several_specs_are_one_sarif_run_with_a_notification_for_the_unreadable(tmp_path):
    missing = tmp_path / "gone.md"
    other = tmp_path / "other.md"
    other.write_text((DATA / "defective.md").read_text(encoding="utf-8"), encoding="utf-8")
    result = gapstate("check", DEFECTIVE, str(other), str(missing), "--format", "sarif")
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    assert list(validator().iter_errors(document)) == []
    [run] = document["runs"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]]
    half = len(uris) // 2
    assert uris[:half] == ["tests/data/defective.md"] * half and uris[half:] == [other.as_uri()] * half
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is False
    [note] = invocation["toolExecutionNotifications"]
    assert note["message"]["text"] == "no such file"
    assert note["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": missing.as_uri()}


def test_one_unreadable_spec_is_still_a_sarif_log_that_code_scanning_can_read(tmp_path):
    missing = tmp_path / "gone.md"
    result = gapstate("check", str(missing), "--format", "sarif")
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    assert list(validator().iter_errors(document)) == []
    [run] = document["runs"]
    assert run["results"] == []
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is False
    [note] = invocation["toolExecutionNotifications"]
    assert note["message"]["text"] == "no such file"
