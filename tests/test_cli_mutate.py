"""gapstate/cli/mutate.py: `gapstate mutate` as CI runs it: the baseline ratchet's exit codes, its file, bad input."""

from __future__ import annotations

import json

import pytest

from gapstate.proof.mutation import read_baseline

from .support import ROOT, SPEC_PATH, SPEC_TEXT, line_of, run

REOPEN_LINE = line_of(SPEC_TEXT, "REQUESTED | loss_voiced | !dup | OPEN | reopen_gap")
# the mutants of one row that replace an action: some survive (`open_gap` for `reopen_gap`), most are killed
ONE_ROW = [str(SPEC_PATH), "--line", str(REOPEN_LINE), "--kind", "action_replaced", "--jobs", "1"]


def test_the_ratchet_fails_on_a_survivor_outside_the_baseline_and_passes_once_it_is_listed(tmp_path):
    baseline = tmp_path / "mutants.baseline"
    first = run("mutate", *ONE_ROW, "--save-baseline", str(baseline))
    assert first.exit_code == 1, first.output  # no baseline was given: every survivor counts
    saved = baseline.read_text(encoding="utf-8").splitlines()
    names = [line for line in saved if not line.startswith("#")]
    assert names and first.stdout.count(": survivor (") == len(names)
    assert "| open_gap" in "\n".join(names)
    listed = run("mutate", *ONE_ROW, "--baseline", str(baseline), "--format", "json")
    assert listed.exit_code == 0, listed.output
    document = json.loads(listed.stdout)
    assert document["ok"] is True and all(s["baseline"] for s in document["survivors"])
    assert {s["mutant"] for s in document["survivors"]} == set(names)
    baseline.write_text("\n".join(saved[:-1]) + "\n", encoding="utf-8")  # the last survivor taken out
    unlisted = run("mutate", *ONE_ROW, "--baseline", str(baseline))
    assert unlisted.exit_code == 1
    assert unlisted.stdout.count(": survivor (") == 1 and names[-1].split(" -> ")[1] in unlisted.stdout
    assert unlisted.stderr.splitlines()[-1].startswith(f"gapstate mutate: {SPEC_PATH}: ")
    assert "; 1 outside the baseline" in unlisted.stderr


def test_a_run_of_one_row_keeps_what_the_baseline_says_of_the_others(tmp_path):
    # a whole run's baseline, read and saved again by a run of one row: the other rows' survivors stay accepted
    whole = (ROOT / "spec" / "mutants.txt").read_text(encoding="utf-8")
    baseline = tmp_path / "mutants.txt"
    baseline.write_text(whole, encoding="utf-8")
    result = run("mutate", *ONE_ROW, "--baseline", str(baseline), "--save-baseline", str(baseline))
    assert result.exit_code == 0, result.output
    assert "no survivor here" not in result.stdout
    again = baseline.read_text(encoding="utf-8")
    assert read_baseline(again, "after") == read_baseline(whole, "before")


def test_a_bad_baseline_exits_2_at_its_line_and_column_before_any_work(tmp_path):
    baseline = tmp_path / "b\x1b[31m.txt"
    baseline.write_text("# ok\nCLEAR | busy_end | - | = | noop\n", encoding="utf-8")
    result = run("mutate", str(SPEC_PATH), "--baseline", str(baseline), "--format", "json")
    assert result.exit_code == 2
    assert "b\\x1b[31m.txt:2:1: expected a mutant" in result.stderr and "\x1b" not in result.output
    assert json.loads(result.stdout)["ok"] is False
    missing = run("mutate", str(SPEC_PATH), "--baseline", str(tmp_path / "none"))
    assert missing.exit_code == 2 and "no such file" in missing.stderr and missing.stdout == ""


def test_the_spec_is_named_once():
    result = run("mutate", str(SPEC_PATH), "--spec", str(SPEC_PATH))
    assert result.exit_code == 2 and "name the spec once" in result.stderr


def test_a_line_with_no_row_exits_2_naming_it():
    result = run("mutate", str(SPEC_PATH), "--line", "1")
    assert result.exit_code == 2 and f"{SPEC_PATH}:1: no row of the table is at this line" in result.stderr


@pytest.mark.slow
def test_every_survivor_of_the_bundled_table_is_one_its_baseline_explains():
    # spec/mutants.txt lists each survivor with why the prose leaves it open; a rule lost lets a new one through
    baseline = ROOT / "spec" / "mutants.txt"
    result = run("mutate", "--jobs", "2", "--baseline", str(baseline), "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["killed"] >= 1650 and document["unused_baseline"] == []
    assert all(survivor["baseline"] and survivor["reason"] for survivor in document["survivors"])


def test_no_more_workers_are_started_than_there_are_cores(monkeypatch):
    # each worker holds the table's exploration and every mutant's text (about 90 MiB on the bundled table):
    # --jobs 400 on two cores would start 400 of them and gain nothing
    from gapstate.cli import mutate as command
    from gapstate.proof import mutation

    asked = []

    def judged(spec, jobs, *rest):
        asked.append(jobs)
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "jobs_default", lambda: 2)
    monkeypatch.setattr(mutation, "mutate", judged)
    for jobs in ("400", "2", "1"):
        run("mutate", str(SPEC_PATH), "--jobs", jobs)
    run("mutate", str(SPEC_PATH))
    assert asked == [2, 2, 1, 2]


def test_a_save_target_that_cannot_be_written_says_why_before_any_work(tmp_path):
    dangling = tmp_path / "mutants.txt"
    dangling.symlink_to(tmp_path / "gone" / "mutants.txt")
    cases = {str(dangling): "is a symbolic link", str(tmp_path): "is a folder, not a file",
             str(tmp_path / "no" / "mutants.txt"): "no folder"}
    for target, why in cases.items():
        result = run("mutate", *ONE_ROW, "--save-baseline", target)
        assert result.exit_code == 2 and result.stdout == "", target
        assert why in result.stderr, result.stderr
