"""`gapstate fuzz --jobs N`: workers with seeds S, S+1, ..., coverage merged, the seed that failed named."""

from __future__ import annotations

import json
import re

import pytest

from .fuzzing import DEEP, database, fuzz, write  # noqa: F401  (database: an autouse fixture)


@pytest.mark.slow  # a pool of two worker processes and two more campaigns
def test_workers_merge_coverage_and_name_the_seed_that_failed(tmp_path):
    spec = write(tmp_path, DEEP)
    result = fuzz("--spec", spec, "--seed", "5", "--jobs", "2", "--format", "json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["seeds"] == [5, 6] and document["counterexample"]["seed"] in (5, 6)
    alone = json.loads(fuzz("--spec", spec, "--seed", str(document["counterexample"]["seed"]), "--format", "json").stdout)
    assert alone["counterexample"]["trace"] == document["counterexample"]["trace"]
    text = fuzz("--spec", spec, "--seed", "5", "--jobs", "2")
    assert re.search(r"found by seed [56] after \d+ traces: re-run it alone with --seed [56]", text.stdout)


@pytest.mark.slow  # four campaigns, one with a pool of workers
def test_workers_report_the_union_of_what_each_seed_fired_alone():
    def run(*args):
        return json.loads(fuzz("--examples", "15", "--format", "json", *args).stdout)

    together = run("--seed", "1", "--workers", "2")  # --workers: the old name of --jobs, still taken
    alone = [run("--seed", "1"), run("--seed", "2")]
    assert together["seeds"] == [1, 2] and together["ok"]
    assert together["coverage"]["fired"] == sorted(set(alone[0]["coverage"]["fired"]) | set(alone[1]["coverage"]["fired"]))
    assert together["examples"] == alone[0]["examples"] + alone[1]["examples"]
