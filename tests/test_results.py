"""Results: `result[key]` for the API's users, and `ok` without building the document."""

from __future__ import annotations

import ast

import gapstate
from gapstate.run.replayer import ReplayResult

from .support import package_nodes


def test_ok_and_the_summary_keys_of_a_replay_build_no_step(monkeypatch):
    result = gapstate.replay(None, [{"event": "busy_start", "t": 0}, {"event": "busy_end", "t": 5}])
    monkeypatch.setattr(type(result.steps[0]), "to_dict", lambda step: (_ for _ in ()).throw(AssertionError("built")))
    assert result["ok"] is True
    assert result["final"]["state"] == result.final.state
    assert result["error"] is None


def test_a_key_builds_the_document_once(monkeypatch):
    result = gapstate.replay(None, [{"event": "busy_start", "t": 0}])
    built = []
    original = ReplayResult.to_dict
    monkeypatch.setattr(ReplayResult, "to_dict", lambda self, **kw: built.append(1) or original(self, **kw))
    assert result["steps"] == result["steps"] == original(result)["steps"]
    assert len(built) == 1


def test_only_the_command_line_group_exits():
    exits = []
    for name, nodes in package_nodes():
        for node in nodes:
            if isinstance(node, ast.Attribute) and node.attr == "exit" and getattr(node.value, "id", None) == "sys":
                exits.append(f"{name}:{node.lineno}")
    assert [place.split(":")[0] for place in exits] == ["cli/base.py"], exits
