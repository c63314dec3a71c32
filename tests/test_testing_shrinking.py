"""gapstate.testing.shrinking: a failing fuzz trace becomes the shortest way to the same failure."""

from __future__ import annotations

import json

from .fuzzing import DEEP, database, fuzz, replay_document, write  # noqa: F401  (database: an autouse fixture)


def test_the_shrunk_trace_keeps_no_event_the_failure_does_not_need(tmp_path):
    spec = write(tmp_path, DEEP)
    trace = json.loads(fuzz("--spec", spec, "--seed", "3", "--format", "json").stdout)["counterexample"]["trace"]
    found = json.loads(fuzz("--spec", spec, "--seed", "3", "--format", "json").stdout)["counterexample"]
    assert replay_document(tmp_path, trace, spec)["error"]["message"] == found["message"]
    for index in range(len(trace) - 1):
        shorter = trace[:index] + trace[index + 1 :]
        error = replay_document(tmp_path, shorter, spec)["error"]
        assert not (error and error["message"] == found["message"] and error["index"] == len(shorter) - 1)


