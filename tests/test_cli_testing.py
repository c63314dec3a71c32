"""gapstate/cli/testing.py: what `vectors` and `conform` add at the command line: the folder's summary, --replay, --save.

Planning the vectors is tested in tests/test_conformance_vectors.py (the folder
they are written to as well), the conformance run in test_conformance_conform.py
and test_conformance_protocol.py.
"""

from __future__ import annotations

import json

from .support import run, table, unwrapped

# An implementation that never opens a gap: it answers every line alike (a shell loop starts in a millisecond).
NEVER_OPENS = ["sh", "-c", 'while read line; do echo \'{"state": "CLEAR", "actions": ["noop"]}\'; done']


def _trace(path, *events: dict) -> str:
    path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    return str(path)


def test_a_replayed_trace_runs_alone_and_its_shrunk_divergence_saved_replays_to_the_same(tmp_path):
    given = _trace(tmp_path / "given.jsonl", {"event": "busy_start", "t": 5}, {"event": "loss_voiced", "t": 9, "id": "a"})
    saved = tmp_path / "found.jsonl"
    first = run("conform", "--replay", given, "--save", str(saved), "--", *NEVER_OPENS)
    assert first.exit_code == 1
    assert ": seed 0: 1 vector, " in first.stderr.splitlines()[-1] and first.stderr.endswith(": diverges\n")
    assert f"saved to {saved}: `gapstate conform --replay {saved} -- ...` runs it again" in "\n".join(unwrapped(first.stdout))
    shrunk = [json.loads(line) for line in saved.read_text(encoding="utf-8").splitlines()]
    assert shrunk == [{"event": "loss_voiced", "t": 0, "id": "iv-1"}]
    again = run("conform", "--replay", str(saved), "--format", "json", "--", *NEVER_OPENS)
    document = json.loads(again.stdout)
    assert again.exit_code == 1 and document["saved"] is None
    assert document["divergence"]["trace"] == shrunk and document["traces"] == 0  # no generated traces after it


def test_vectors_and_replay_together_are_refused_before_the_implementation_starts(tmp_path):
    given = _trace(tmp_path / "given.jsonl", {"event": "busy_start", "t": 5})
    started = tmp_path / "started"
    result = run("conform", "--vectors", str(tmp_path), "--replay", given, "--", "sh", "-c", f"touch {started}")
    assert (result.exit_code, result.stdout) == (2, "")
    assert "use --vectors or --replay, not both" in result.stderr
    assert not started.exists()


def test_the_vectors_summary_counts_what_was_written(tmp_path):
    spec = tmp_path / "one-state.md"  # a table of one state, planned in a blink
    rows = ["CLEAR | loss_silent | - | = | note_trim", "CLEAR | sdk_unknown | - | = | note_unknown"]
    rows += [f"CLEAR | {e} | - | = | noop" for e in ("busy_start", "busy_end", "candidate_start", "floor_released", "evidence_turn", "session_end")]
    rows += [f"CLEAR | {e} | - | = | invalid" for e in ("loss_voiced", "send_ok", "send_failed", "request_undelivered")]
    spec.write_text(table(*rows), encoding="utf-8")
    out = tmp_path / "suite"
    result = run("vectors", str(out), "--spec", str(spec))
    assert result.exit_code == 0, result.output
    traces = sorted(out.glob("*.jsonl"))
    events = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in traces)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    *report, summary = unwrapped(result.stderr)
    assert summary == f"gapstate vectors: {spec} -> {out}: {len(traces)} traces, {events} events written"
    met = sum(1 for goal in manifest["goals"] if goal["traces"])
    pairs = manifest["pairs"]
    assert report[-1] == (
        f"covered: {len(manifest['reachable_rows'])} reachable rows fired, {pairs['covered']} of {pairs['possible']} pairs of rows, "
        f"{met} of {len(manifest['goals'])} goals, {len(manifest['refused_rows'])} invalid rows refused"
    )
    assert result.stdout == ""


def test_the_command_that_replays_a_saved_divergence_quotes_its_path_for_the_shell(tmp_path):
    given = _trace(tmp_path / "given.jsonl", {"event": "loss_voiced", "t": 9, "id": "a"})
    saved = tmp_path / "it's $HOME; rm -rf x.jsonl"
    result = run("conform", "--replay", given, "--save", str(saved), "--", *NEVER_OPENS)
    assert result.exit_code == 1 and saved.exists()
    import shlex

    [line] = [line for line in unwrapped(result.stdout) if "runs it again" in line]
    pasted = line.split("`")[1]
    assert shlex.split(pasted)[:3] == ["gapstate", "conform", "--replay"] and shlex.split(pasted)[3] == str(saved)
