"""The public face, `gapstate`: exactly `__all__`, each name what the docs say, and cheap to import."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys

import gapstate

from .support import PACKAGE, variant

BROKEN = variant("* | busy_start | - | = | noop", "")  # a hole in every state

FUNCTIONS = {"load_spec", "check", "replay", "classify", "conform", "conform_report"}
TYPES = {
    "Spec", "CheckResult", "Finding", "Cause", "ReplayResult", "Step", "ReplayError",
    "ClassifyResult", "ConformResult", "Divergence", "Implementation", "GapstateError", "Problem",
}


def test_all_is_the_functions_and_the_types_a_caller_meets():
    """A name joins or leaves the face on purpose: this set changes with it."""
    assert len(gapstate.__all__) == len(set(gapstate.__all__))
    assert set(gapstate.__all__) == FUNCTIONS | TYPES


def test_every_function_the_face_defines_is_in_all():
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")}
    assert defined == FUNCTIONS


def test_each_exported_type_is_the_implementations_own_and_listed_by_dir():
    for name in TYPES:
        value = getattr(gapstate, name)
        assert inspect.isclass(value) and value.__name__ == name and value.__module__.startswith("gapstate."), name
    assert set(gapstate.__all__) <= set(dir(gapstate))


def test_what_the_functions_return_is_what_the_face_exports():
    spec = gapstate.load_spec()
    assert isinstance(spec, gapstate.Spec)
    result = gapstate.check(spec)
    assert isinstance(result, gapstate.CheckResult)
    run = gapstate.replay(spec, [{"event": "loss_voiced", "t": 1, "id": "iv-1"}, {"event": "session_end", "t": 2},
                                 {"event": "loss_voiced", "t": 3, "id": "iv-2"}])
    assert isinstance(run, gapstate.ReplayResult) and isinstance(run.steps[0], gapstate.Step)
    assert isinstance(run.error, gapstate.ReplayError)
    findings = gapstate.check(BROKEN).findings
    assert findings and all(isinstance(finding, gapstate.Finding) for finding in findings)


def test_a_name_the_face_does_not_have_is_an_attribute_error():
    try:
        gapstate.NoSuchThing  # noqa: B018
    except AttributeError as error:
        assert "NoSuchThing" in str(error)
    else:
        raise AssertionError("gapstate.NoSuchThing resolved")


def test_importing_the_face_and_naming_a_result_type_loads_no_parser_or_graph_library():
    code = "import sys, gapstate; gapstate.ClassifyResult; gapstate.Problem; print('lark' in sys.modules, 'networkx' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]
