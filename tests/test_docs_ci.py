"""docs/ci.md: its two recipes are `gapstate init`'s, install gapstate pinned, and work copied, run by the real tools.

The real-tool tests do what a user does: a fresh git repository holding a
spec (no Python project), the recipe copied from the page with only the
source filled in (a clone of this repository at a commit), then pre-commit,
or the workflow's steps as a script. They need pre-commit, check-jsonschema
or git (in the test extras; skipped without them) and reach a package index,
as pre-commit and the workflow do, to install gapstate's dependencies.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from gapstate.cli.render.recipes import pre_commit_config, workflow

from .support import ROOT, SPEC_TEXT, git, variant

PAGE = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
PRE_COMMIT_BLOCK = re.search(r"```yaml\n(.*?)```\n", PAGE.split("## A pre-commit hook", 1)[1], flags=re.DOTALL)[1]
WORKFLOW = re.search(r"```yaml\n(.*?)```\n", PAGE.split("## A GitHub Actions workflow", 1)[1], flags=re.DOTALL)[1]
DIFF_PAGE = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
DIFF_WORKFLOW = re.search(r"```yaml\n(.*?)```\n", DIFF_PAGE.split("### In a pull request", 1)[1], flags=re.DOTALL)[1]
SOURCE, COMMIT = "https://github.com/your-org/gapstate", "COMMIT"  # the page's placeholders, all a user fills in
CHECK_JSONSCHEMA = shutil.which("check-jsonschema") or shutil.which("check-jsonschema", path=os.path.dirname(sys.executable))
PRE_COMMIT = shutil.which("pre-commit") or shutil.which("pre-commit", path=os.path.dirname(sys.executable))
BROKEN = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")
needs_git = pytest.mark.skipif(shutil.which("git") is None or shutil.which("bash") is None, reason="needs git and bash")


def test_the_page_shows_what_gapstate_init_writes_with_only_the_source_left_to_fill_in():
    assert PRE_COMMIT_BLOCK == pre_commit_config(SOURCE, COMMIT, "spec/gap-state.md")
    assert WORKFLOW == workflow(SOURCE, COMMIT, "spec/gap-state.md")


def test_both_pages_install_gapstate_the_same_pinned_way_never_by_a_bare_name():
    install = f"run: pip install git+{SOURCE}@{COMMIT}"
    for recipe in (WORKFLOW, DIFF_WORKFLOW):
        [line] = [line.strip() for line in recipe.splitlines() if "pip install" in line]
        assert line == install
    assert f"repo: {SOURCE} " in PRE_COMMIT_BLOCK and f"rev: {COMMIT} " in PRE_COMMIT_BLOCK
    blocks = re.findall(r"```yaml\n(.*?)```\n", PAGE + DIFF_PAGE, flags=re.DOTALL)
    assert len(blocks) == 3 and not any(re.search(r"pip install (gapstate|\.)\b", block) for block in blocks)


def test_the_workflow_runs_check_with_github_annotations_and_the_git_diff_against_the_base_branch():
    """File names after `--`, so a file named like an option is read as a file; never a green check of the example."""
    assert "gapstate check --require-spec --format github -- spec/gap-state.md" in WORKFLOW
    assert 'gapstate diff --git "origin/$BASE" -- spec/gap-state.md' in WORKFLOW
    assert "BASE: ${{ github.base_ref }}" in WORKFLOW and "${{" not in WORKFLOW.split("run: |", 1)[1]  # no expression in a script
    assert re.search(r"pull_request:\n\s+paths:\n\s+- spec/gap-state.md", WORKFLOW)


def _schema_check(*paths) -> subprocess.CompletedProcess:
    return subprocess.run([CHECK_JSONSCHEMA, "--builtin-schema", "vendor.github-workflows", *map(str, paths)],
                          capture_output=True, text=True)


@pytest.mark.slow  # check-jsonschema runs twice as a process: about 1 s of CPU
@pytest.mark.skipif(CHECK_JSONSCHEMA is None, reason="check-jsonschema is not installed")
def test_the_workflows_are_valid_against_the_github_workflow_schema(tmp_path):
    for name, text in (("ci.yml", WORKFLOW), ("diff.yml", DIFF_WORKFLOW)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    done = _schema_check(tmp_path / "ci.yml", tmp_path / "diff.yml")  # one process checks both: it names any that fails
    assert done.returncode == 0, done.stdout + done.stderr
    # guards the check above against a schema that accepts anything
    (tmp_path / "broken.yml").write_text(WORKFLOW.replace("runs-on:", "runs_on:"), encoding="utf-8")
    assert _schema_check(tmp_path / "broken.yml").returncode == 1


def gapstate_at_a_commit(folder) -> tuple[str, str]:
    """A git repository holding this checkout's files as they are now, committed: (its file URL, the commit id).

    The files git tracks or would track (uncommitted changes included, the
    ignored left out), so the recipes install the code under test.
    """
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source, target = ROOT / name, folder / name
        if not os.path.lexists(source):  # deleted in the working tree
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target)
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "gapstate as tested")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True, check=True).stdout.strip()
    return folder.as_uri(), commit


def team_repository(folder):
    """A fresh git repository with a spec and nothing of Python: no pyproject.toml, no setup.py."""
    (folder / "spec").mkdir(parents=True)
    (folder / "spec" / "gap-state.md").write_text(SPEC_TEXT, encoding="utf-8")
    (folder / "src").mkdir()
    (folder / "src" / "main.rs").write_text("fn main() {}\n", encoding="utf-8")
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "the team's repository")
    return folder


@pytest.mark.slow  # pre-commit clones gapstate and installs it with its dependencies: some 20 s
@needs_git
@pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed")
def test_the_pre_commit_recipe_copied_passes_then_fails_on_a_broken_table(tmp_path):
    url, commit = gapstate_at_a_commit(tmp_path / "gapstate")
    project = team_repository(tmp_path / "team")
    (project / ".pre-commit-config.yaml").write_text(PRE_COMMIT_BLOCK.replace(SOURCE, url).replace(COMMIT, commit), encoding="utf-8")
    git(project, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}

    def pre_commit() -> subprocess.CompletedProcess:
        return subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=project, env=env, capture_output=True, text=True)

    good = pre_commit()
    assert good.returncode == 0, good.stdout + good.stderr
    assert re.search(r"^gapstate check\.+Passed$", good.stdout, flags=re.MULTILINE)
    (project / "spec" / "gap-state.md").write_text(BROKEN, encoding="utf-8")
    git(project, "add", ".")
    bad = pre_commit()
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert re.search(r"^gapstate check\.+Failed$", bad.stdout, flags=re.MULTILINE)
    assert "spec/gap-state.md:" in bad.stdout and ": rule: send-while-busy:" in bad.stdout


def run_steps(recipe: str, cwd, env: dict[str, str]) -> tuple[int, str]:
    """The workflow's `run:` steps as the runner runs them (`bash -e`, each step's env, `if: always()` after a failure).

    The `uses:` steps are what the caller already did: the checkout is `cwd`,
    the Python is the one first on env's PATH. Returns the job's exit status
    (the first failing step's) and what the steps printed.
    """
    yaml = pytest.importorskip("yaml")
    [job] = yaml.safe_load(recipe)["jobs"].values()
    status, said = 0, []
    for step in job["steps"]:
        if "run" not in step or (status and step.get("if") != "always()"):
            continue
        variables = {key: str(value).replace("${{ github.base_ref }}", "main") for key, value in step.get("env", {}).items()}
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=cwd, env={**env, **variables}, capture_output=True, text=True)
        said.append(done.stdout + done.stderr)
        status = status or done.returncode
    return status, "".join(said)


@pytest.mark.slow  # a fresh virtual environment into which pip installs gapstate and its dependencies: some 30 s
@needs_git
def test_the_workflow_recipe_copied_passes_then_fails_on_a_broken_table(tmp_path):
    url, commit = gapstate_at_a_commit(tmp_path / "gapstate")
    origin = team_repository(tmp_path / "origin")
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(origin), str(checkout))  # actions/checkout, fetch-depth 0: origin/main is there
    venv = tmp_path / "python"  # actions/setup-python: a Python with nothing installed
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    summary = tmp_path / "summary.md"
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "GITHUB_STEP_SUMMARY": str(summary)}
    env.pop("PYTHONPATH", None)
    recipe = WORKFLOW.replace(SOURCE, url).replace(COMMIT, commit)
    # the pull request edits the spec's prose: the table still proves, and behaves the same
    (checkout / "spec" / "gap-state.md").write_text(SPEC_TEXT.replace("\n", "\nA new sentence.\n", 1), encoding="utf-8")
    status, said = run_steps(recipe, checkout, env)
    assert status == 0, said
    assert "gapstate check: spec/gap-state.md: ok (" in said
    assert "no change in behaviour" in summary.read_text(encoding="utf-8")
    (checkout / "spec" / "gap-state.md").write_text(BROKEN, encoding="utf-8")
    status, said = run_steps(recipe, checkout, env)
    assert status == 1, said
    assert re.search(r"^::error file=spec/gap-state\.md,line=\d+", said, flags=re.MULTILINE)  # the annotation at the row
    assert "origin/main:spec/gap-state.md -> spec/gap-state.md: " in said  # the diff step ran after the failure
