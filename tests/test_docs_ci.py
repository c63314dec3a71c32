"""docs/ci.md: its GitHub Actions workflow is valid against the GitHub workflow schema (needs check-jsonschema)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from .support import ROOT

PAGE = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
SECTION = PAGE.split("## A GitHub Actions workflow", 1)[1]
WORKFLOW = re.search(r"```yaml\n(.*?)```\n", SECTION, flags=re.S).group(1)
CHECK_JSONSCHEMA = shutil.which("check-jsonschema")


def test_the_workflow_runs_check_with_github_annotations_and_the_git_diff():
    """File names after `--`, so a file named like an option is read as a file; never a green check of the example."""
    assert "gapstate check --require-spec --format github -- spec/gap-state.md" in WORKFLOW
    assert "gapstate diff --git origin/main -- spec/gap-state.md" in WORKFLOW
    assert re.search(r"pull_request:\n\s+paths:\n\s+- spec/gap-state.md", WORKFLOW)


@pytest.mark.skipif(CHECK_JSONSCHEMA is None, reason="check-jsonschema is not installed")
def test_the_workflow_is_valid_against_the_github_workflow_schema(tmp_path):
    workflow = tmp_path / "gapstate.yml"
    workflow.write_text(WORKFLOW, encoding="utf-8")
    done = subprocess.run(
        [CHECK_JSONSCHEMA, "--builtin-schema", "vendor.github-workflows", str(workflow)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(CHECK_JSONSCHEMA is None, reason="check-jsonschema is not installed")
def test_the_schema_check_does_reject_a_broken_workflow(tmp_path):
    # guards the test above against a schema that accepts anything
    workflow = tmp_path / "broken.yml"
    workflow.write_text(WORKFLOW.replace("runs-on:", "runs_on:"), encoding="utf-8")
    done = subprocess.run([CHECK_JSONSCHEMA, "--builtin-schema", "vendor.github-workflows", str(workflow)], capture_output=True)
    assert done.returncode == 1
