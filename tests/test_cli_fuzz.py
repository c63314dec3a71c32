"""gapstate/cli/fuzz.py: what the command adds to a campaign: its options, the seed, the trace saved, the exit code.

The campaign is a stand-in that records what the command asked of it and
answers with a real run's result; fuzzing itself, and the command's saving,
piping and refusals, are tested in tests/test_fuzzing_fuzzer.py, its text in
tests/test_cli_render_fuzz.py.
"""

from __future__ import annotations

import functools
import json

import pytest

import gapstate
from gapstate.fuzzing.fuzzer import fuzz

from .support import run, variant

BUSY = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")


@functools.cache
def _failed():
    return fuzz(gapstate.load_spec(BUSY), 20, 1)


@pytest.fixture
def asked(monkeypatch, tmp_path):
    """What the command asked of the campaign: a dict of its arguments."""
    seen: dict = {}

    def campaign(spec, workers, examples, seed, max_size, progress=None, **options):
        seen.update(spec=spec, workers=workers, examples=examples, seed=seed, max_size=max_size, **options)
        return _failed()

    monkeypatch.setattr("gapstate.fuzzing.campaign.campaign", campaign)
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(tmp_path / "hypothesis"))
    return seen


def test_the_defaults_are_500_examples_one_job_and_a_seed_drawn_afresh_each_run(asked):
    result = run("fuzz")
    assert result.exit_code == 1  # the stand-in's run found a failure
    assert (asked["workers"], asked["examples"], asked["duration"], asked["max_size"]) == (1, 500, None, 60)
    assert asked["require_coverage"] is False
    assert str(asked["database_dir"]).endswith("hypothesis/examples")
    first = asked["seed"]
    run("fuzz")
    assert asked["seed"] != first


def test_a_duration_replaces_the_count_of_examples(asked):
    assert run("fuzz", "--duration", "0.5", "--seed", "4").exit_code == 1
    assert (asked["examples"], asked["duration"], asked["seed"]) == (None, 0.5, 4)


@pytest.mark.parametrize("old, new", [(["--workers", "3"], ["--jobs", "3"]), (["--require-coverage"], ["--require-all"])])
def test_the_old_names_of_options_do_what_the_new_ones_do(asked, old, new):
    run("fuzz", "--seed", "1")
    default = dict(asked)
    run("fuzz", "--seed", "1", *new)
    wanted = dict(asked)
    assert wanted != default
    asked.clear()
    run("fuzz", "--seed", "1", *old)
    assert asked == wanted


def test_json_says_where_the_trace_was_saved(asked, tmp_path):
    saved = tmp_path / "found.jsonl"
    result = run("fuzz", "--seed", "1", "--format", "json", "--save", str(saved))
    document = json.loads(result.stdout)
    assert result.exit_code == 1 and document["ok"] is False and document["saved"] == str(saved)
    assert [json.loads(line) for line in saved.read_text(encoding="utf-8").splitlines()] == document["counterexample"]["trace"]
