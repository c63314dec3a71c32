"""`gapstate check` at the command line: exit codes, text and JSON, one finding a line, a trace to paste into replay."""

from __future__ import annotations

import json

import pytest

from .support import SPEC_TEXT, run, unwrapped, variant


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
    assert result.stdout == ""  # nothing found: the report is empty, the summary line says so on stderr
    assert result.stderr.splitlines()[-1].startswith("gapstate check: ")
    assert ": ok (67 rows, 284 configurations)" in result.stderr


def test_check_json_is_one_document_with_the_contract_keys():
    result = run("check", "--format", "json")
    document = json.loads(result.stdout)
    assert {"ok", "spec", "stats", "rules", "bounds", "findings"} <= set(document)
    assert set(document["bounds"]) == {"sends_per_gap", "commits_per_gap", "commits_per_session", "attempts_per_episode"}
    assert set(document["stats"]) == {"states", "events", "rows", "configurations", "unreachable_allowed"}
    assert document["ok"] is True and document["findings"] == []
    # every rule, with the reachable steps it was tested on: none of the bundled table's rules on none
    assert all(set(entry) == {"rule", "tested"} and entry["tested"] > 0 for entry in document["rules"])


@pytest.mark.parametrize("old, new", [
    ("CLEAR | busy_end | - | = | noop", "CLEAR | busy_endx | - | = | noop"),  # unknown_name
    ("@cap episode_attempts 2", "@cap episode_attempts 0"),  # bad_cap
])
def test_a_table_that_is_not_explored_tests_no_rule_and_has_no_bounds(tmp_path, old, new):
    spec = tmp_path / "spec.md"
    spec.write_text(variant(old, new), encoding="utf-8")
    result = run("check", str(spec), "--format", "json")
    document = json.loads(result.stdout)
    assert result.exit_code == 1 and document["rules"] == [] and document["bounds"] == {}
    assert "not proved until fixed" in result.stderr


def test_check_text_says_which_rules_were_tested_on_no_step(tmp_path):
    path = tmp_path / "spec.md"
    path.write_text(variant("REQUESTED | evidence_turn | post_send | CLEAR | settle",
                            "REQUESTED | evidence_turn | post_send | CLEAR | end_unsettled"), encoding="utf-8")
    result = run("check", str(path))
    assert (f"{path}: note: rule settle-without-evidence was tested on no reachable step: "
            "this table cannot break it, so its passing means nothing") in unwrapped(result.stdout)


def test_check_reports_findings_as_path_line_column_kind(broken_spec):
    result = run("check", "--spec", str(broken_spec))
    assert result.exit_code == 1
    first = unwrapped(result.stdout)[0]
    line = SPEC_TEXT.splitlines().index("OPEN | floor_released | busy | DUE | defer_no_interrupt") + 1
    assert first.startswith(f"{broken_spec}:{line}:1: rule: send-while-busy: ")


def test_a_trace_printed_by_check_pastes_into_replay(broken_spec, tmp_path):
    text = unwrapped(run("check", "--spec", str(broken_spec)).stdout)
    start = next(i for i, line in enumerate(text) if "send-while-busy" in line)
    assert text[start + 1].startswith("  ") and " | " in text[start + 1]  # the row, quoted, then a caret
    trace = []
    for line in text[start + 3 :]:
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


def test_a_spec_that_also_shows_a_shell_snippet_checks_and_replays(tmp_path):
    spec = tmp_path / "spec.md"
    spec.write_text(SPEC_TEXT + "\n```sh\n# replay | count\ngapstate replay t.jsonl | wc -l\n```\n", encoding="utf-8")
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"event": "busy_start"}\n', encoding="utf-8")
    assert run("check", "--spec", str(spec)).exit_code == 0
    result = run("replay", str(trace), "--spec", str(spec))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("old, new", [
    ("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | ="),
    ("OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request",
     "OPNE | floor_released | !busy,budget_left,attempts_left | SENDING | send_request"),
])
def test_after_a_syntax_or_name_finding_the_summary_says_what_was_read_and_that_the_proof_did_not_run(tmp_path, old, new):
    path = tmp_path / "spec.md"
    path.write_text(variant(old, new), encoding="utf-8")
    result = run("check", str(path))
    rows = 67 if new.count("|") == 4 else 66
    assert result.stderr.splitlines()[-1] == (
        f"gapstate check: {path}: 1 finding (read {rows} rows, 2 caps, 3 allowances; not proved until fixed)"
    )
    assert json.loads(run("check", str(path), "--format", "json").stdout)["stats"]["rows"] == rows


def test_the_json_of_many_findings_is_written_in_pieces_and_reads_as_one_indented_document(broken_spec):
    """A big table's findings make a big document: written a piece at a time, the same text `json.dumps` gives."""
    from gapstate.cli.render import json_chunks

    result = run("check", str(broken_spec), "--format", "json")
    document = json.loads(result.stdout)
    assert result.stdout == json.dumps(document, indent=2) + "\n"
    many = {"findings": [document["findings"]] * 400}
    pieces = list(json_chunks(many))
    assert len(pieces) > 1 and "".join(pieces) == json.dumps(many, indent=2)


@pytest.mark.parametrize("cap", ["100000", "100000000000000000000"])
def test_any_cap_is_read_and_a_proof_past_the_budget_is_refused_before_it_starts(tmp_path, cap):
    """A large cap is not a finding: the budget says how many configurations it implies and how to raise it."""
    spec = tmp_path / "big.md"
    spec.write_text(variant("@cap session_requests 3", f"@cap session_requests {cap}"), encoding="utf-8")
    result = run("check", str(spec))
    assert result.exit_code == 2, result.output
    implied = f"{81 * int(cap) + 41:,}"  # 81 configurations per committed request, 41 more at the cap
    assert f"the caps imply up to {implied} configurations" in result.output
    assert "--max-configurations" in result.output


def test_fix_rewrites_nothing_when_the_spec_changed_after_it_was_read(tmp_path, monkeypatch):
    """The diagram was drawn from the table read: a spec changed since (even to bytes that are not UTF-8) is left as it is."""
    from gapstate.proof import check as proof

    spec = tmp_path / "spec.md"
    spec.write_text(SPEC_TEXT.replace('state_CLEAR(["CLEAR"])', 'state_CLEAR(["OLD"])', 1), encoding="utf-8")
    prove = proof.check

    def meanwhile(*args, **kwargs):  # noqa: ANN002, ANN003
        spec.write_bytes(b"\xff changed by someone else\n")
        return prove(*args, **kwargs)

    monkeypatch.setattr(proof, "check", meanwhile)
    result = run("check", "--fix", str(spec))
    assert result.exit_code == 2 and result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "changed while gapstate was reading it; nothing was rewritten" in result.stderr
    assert spec.read_bytes() == b"\xff changed by someone else\n"


@pytest.mark.parametrize("when", ["while proving", "while redrawing"])
@pytest.mark.parametrize("meanwhile", ["rewritten", "removed", "a folder"])
def test_fix_is_exit_2_and_writes_nothing_when_the_spec_changes_or_goes_before_the_fix(tmp_path, monkeypatch, when, meanwhile):
    """Between the read and the rename the spec is rewritten, removed or made a folder: exit 2 saying so, nothing half-written or made again."""
    import os

    from gapstate.proof import check as proof
    from gapstate.table import diagram

    spec = tmp_path / "spec.md"
    spec.write_text(SPEC_TEXT.replace('state_CLEAR(["CLEAR"])', 'state_CLEAR(["OLD"])', 1), encoding="utf-8")

    def act() -> None:
        spec.unlink()
        if meanwhile == "rewritten":
            spec.write_text("theirs\n", encoding="utf-8")
        elif meanwhile == "a folder":
            spec.mkdir()

    def hooked(module, name):
        original = getattr(module, name)

        def meanwhile_too(*args, **kwargs):  # noqa: ANN002, ANN003
            act()
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, meanwhile_too)

    hooked(proof, "check") if when == "while proving" else hooked(diagram, "update")
    result = run("check", "--fix", str(spec))
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert f"{spec}: changed while gapstate was reading it" in result.stderr or f"{spec}: is a directory" in result.stderr
    assert "nothing was rewritten" in result.stderr or "replaces only regular files" in result.stderr
    assert sorted(n for n in os.listdir(tmp_path) if n.startswith(".gapstate-")) == []
    if meanwhile == "rewritten":
        assert spec.read_text(encoding="utf-8") == "theirs\n"  # their edit is kept
    elif meanwhile == "removed":
        assert not os.path.lexists(spec)  # not made again
    else:
        assert spec.is_dir()


LOOPING = SPEC_TEXT.replace("SENDING | send_failed | attempts_left,!candidate_active | DUE | keep_debt",
                            "SENDING | send_failed | attempts_left,!candidate_active | DUE | reopen_gap")


def test_check_bounds_prints_each_bound_in_words():
    result = run("check", "--bounds")
    assert result.exit_code == 0
    assert "  commits_per_gap = 3: a gap can take at most 3 committed requests" in result.stdout.splitlines()
    assert "bounds" not in run("check").stdout


def test_a_retry_loop_follows_from_the_fresh_allowance_that_makes_it_and_keeps_its_lasso_in_json(tmp_path):
    # The failed send that starts a fresh allowance breaks a rule on the step itself; the loop follows from it.
    spec = tmp_path / "looping.md"
    spec.write_text(LOOPING, encoding="utf-8")
    text = run("check", "--spec", str(spec), "--bounds")
    assert text.exit_code == 1
    lines = unwrapped(text.stdout)
    head = next(i for i, line in enumerate(lines) if ": rule: allowance-outside-episode-start: " in line)
    loop_at = next(i for i, line in enumerate(lines) if ": retry_loop: " in line)
    assert head < loop_at and lines[loop_at].startswith("    ") and "  sends_per_gap = unbounded: a gap can take sends without bound" in lines
    document = json.loads(run("check", "--spec", str(spec), "--format", "json").stdout)
    (loop,) = [f for f in document["findings"] if f["kind"] == "retry_loop"]
    assert loop["cause"]["rule"] == "allowance-outside-episode-start" and loop["trace"] and loop["cycle"]
    assert document["bounds"]["sends_per_gap"]["value"] is None
