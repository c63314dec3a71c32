"""`--format sarif`: the golden log of a defective spec, the official schema, one rule per kind, several specs."""

from __future__ import annotations

import json
from pathlib import Path

from gapstate import pages

from .support import DATA, DEFECTIVE, golden, in_root


def sarif_document() -> dict:
    result = in_root("check", "--spec", DEFECTIVE, "--format", "sarif")
    assert result.exit_code == 1
    return json.loads(result.stdout)


def test_check_sarif_output_matches_the_golden_file():
    import gapstate as package

    document = sarif_document()
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["version"] == package.__version__
    driver["version"] = "VERSION"  # the golden file survives a release
    for rule in driver["rules"]:  # and an install elsewhere: the installed catalogue page
        assert rule.pop("helpUri") == f"{Path(pages.path('findings')).as_uri()}#{rule['id']}"
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

    findings = json.loads(in_root("check", "--spec", DEFECTIVE, "--format", "json").stdout)["findings"]
    run = sarif_document()["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(KINDS)
    assert all(r["shortDescription"]["text"] and "docs/findings.md" in r["help"]["text"] for r in rules)
    assert len(run["results"]) == len(findings)
    for result, finding in zip(run["results"], findings, strict=True):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == finding["kind"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (finding["line"], finding["column"])
        # a finding that follows from another is a note: fixing its root fixes it
        assert result["level"] == ("error" if finding["cause"] is None else "note")
        assert result["properties"]["cause"] == finding["cause"]
        if finding["kind"] == "rule":
            assert result["properties"] == {"rule": finding["rule"], "trace": finding["trace"], "cause": finding["cause"]}


def test_an_absolute_spec_path_becomes_a_file_uri(tmp_path):
    spec = tmp_path / "my spec.md"
    spec.write_text((DATA / "defective.md").read_text(encoding="utf-8"), encoding="utf-8")
    document = json.loads(in_root("check", "--spec", str(spec), "--format", "sarif").stdout)
    location = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": spec.as_uri()}


def test_a_finding_kind_outside_the_catalogue_still_gets_its_rule():
    from gapstate.findings import CATALOGUE, Finding
    from gapstate.proof.check import CheckResult
    from gapstate.review.sarif import check_sarif

    class Novel(Finding):
        """A kind the catalogue does not list yet."""

        kind = "novel"
        template = "something new"

    result = CheckResult("spec/gap-state.md", {}, (Novel(7, 2),))
    run = check_sarif([result], CATALOGUE, "0")["runs"][0]
    [entry] = run["results"]
    assert run["tool"]["driver"]["rules"][entry["ruleIndex"]]["id"] == "novel"
    assert entry["locations"][0]["physicalLocation"]["region"] == {"startLine": 7, "startColumn": 2}
    assert list(validator().iter_errors(check_sarif([result], CATALOGUE, "0"))) == []


def test_several_specs_are_one_sarif_run_with_a_notification_for_the_unreadable(tmp_path):
    missing = tmp_path / "gone.md"
    other = tmp_path / "other.md"
    other.write_text((DATA / "defective.md").read_text(encoding="utf-8"), encoding="utf-8")
    result = in_root("check", DEFECTIVE, str(other), str(missing), "--format", "sarif")
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
    result = in_root("check", str(missing), "--format", "sarif")
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    assert list(validator().iter_errors(document)) == []
    [run] = document["runs"]
    assert run["results"] == []
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is False
    [note] = invocation["toolExecutionNotifications"]
    assert note["message"]["text"] == "no such file"


def test_a_rule_tested_on_no_step_is_a_note_of_the_run_and_the_log_stays_valid(tmp_path):
    from .support import variant

    spec = tmp_path / "unsettled.md"  # no row settles: settle-without-evidence cannot fail on this table
    spec.write_text(variant("REQUESTED | evidence_turn | post_send | CLEAR | settle",
                            "REQUESTED | evidence_turn | post_send | CLEAR | noop"), encoding="utf-8")
    document = json.loads(in_root("check", str(spec), "--format", "sarif").stdout)
    assert list(validator().iter_errors(document)) == []
    [invocation] = document["runs"][0]["invocations"]
    [note] = invocation["toolExecutionNotifications"]
    assert invocation["executionSuccessful"] is True and note["level"] == "note"
    assert note["message"]["text"].startswith("rule settle-without-evidence was tested on no reachable step")
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("unsettled.md")
