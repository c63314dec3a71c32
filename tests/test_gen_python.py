"""`gapstate gen python`: one standard-library module that is the table's rows, written out."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

from .gen_support import SHA, SPEC, imported, written


@pytest.fixture(scope="module")
def decider(tmp_path_factory):
    path = tmp_path_factory.mktemp("gen") / "decider.py"
    written("python", path)
    return path


def test_the_module_imports_only_the_standard_library(decider):
    tree = ast.parse(decider.read_text(encoding="utf-8"))
    imports = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imports |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imports <= set(sys.stdlib_module_names)


def test_it_carries_the_spec_its_sha256_and_the_version(decider):
    module = imported(decider)
    assert (module.SPEC, module.SPEC_SHA256) == ("spec/gap-state.md", SHA)
    assert module.GAPSTATE_VERSION and module.CAP_SESSION_REQUESTS == 3


def test_each_row_is_written_out_once_per_state_it_applies_to(decider):
    text = decider.read_text(encoding="utf-8")
    for row in SPEC.table.rows:
        written_for = text.count(f"# line {row.line}: ")
        assert written_for == (len(SPEC.table.states) if row.state == "*" else 1), row


def test_a_session_steps_as_replay_does(decider):
    module = imported(decider)
    session = module.Session()
    E = module.Event
    opened = session.step(E("loss_voiced", 100, id="iv-1"))
    assert opened == module.Decision(178, "OPEN", ("open_gap", "preserve_debt"), 0, 0, True)
    assert session.step(E("floor_released", 200)).state == "SENDING"
    committed = session.step(E("send_ok", 300))
    assert (committed.state, committed.counters) == ("REQUESTED", {"session_requests": 1, "episode_attempts": 1})
    assert session.step(E("evidence_turn", 400, speech_start=300)).actions == ("noop",)  # not after the commit
    assert session.step(E("evidence_turn", 500, speech_start=301)).actions == ("settle",)
    assert session.step(E("send_ok", 600)) == module.Refusal("invalid_event", 210)
    session.step(E("session_end", 700))
    assert session.step(E("busy_start", 800)) == module.Refusal("after_session_end")


def test_apply_calls_one_effect_per_action_in_order(decider):
    module = imported(decider)
    called = []

    class Room:
        def __getattr__(self, name):
            return lambda decision: called.append((name, decision.row))

    session = module.Session()
    decision = session.step(module.Event("loss_voiced", 0, id="iv-1"))
    session.apply(decision, Room())
    assert called == [("open_gap", 178), ("preserve_debt", 178)]


def test_run_as_a_script_it_speaks_the_line_protocol(decider):
    lines = [{"reset": True}, {"event": "loss_voiced", "t": 5, "id": "iv-1"}, {"event": "send_ok", "t": 6}]
    done = subprocess.run([sys.executable, str(decider)], input="".join(json.dumps(m) + "\n" for m in lines),
                          capture_output=True, text=True, check=True)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0] == {"ok": True}
    assert answers[1]["state"] == "OPEN" and answers[1]["counters"] == {"session_requests": 0, "episode_attempts": 0}
    assert answers[2] == {"refused": "invalid_event"}
