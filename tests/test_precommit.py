"""The gapstate-check pre-commit hook, run through the real `pre-commit try-repo` (skipped without pre-commit)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from .support import ROOT, SPEC_TEXT, git, run, variant

PRE_COMMIT = shutil.which("pre-commit") or shutil.which("pre-commit", path=os.path.dirname(sys.executable))
needs_pre_commit = pytest.mark.skipif(
    PRE_COMMIT is None or shutil.which("git") is None or not (ROOT / ".git").exists(),
    reason="needs pre-commit, git and a git checkout of gapstate",
)
MANIFEST = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")


def manifest_value(key: str) -> str:
    [value] = re.findall(rf"^  {key}: (.*)$", MANIFEST, flags=re.M)
    return value


def test_the_manifest_declares_gapstate_check_on_files_named_gap_state_md():
    assert re.search(r"^- id: gapstate-check$", MANIFEST, flags=re.M)
    assert manifest_value("language") == "python"
    assert manifest_value("entry").startswith("gapstate check --require-spec")  # never a green check of the example
    files = re.compile(manifest_value("files"))
    assert [bool(files.search(p)) for p in ("gap-state.md", "spec/gap-state.md", "my-gap-state.md", "gap-state.md.bak")] == [
        True,
        True,
        False,
        False,
    ]



@pytest.mark.parametrize("folder", ["--exit-zero", "--spec=elsewhere", "-h"])
def test_staged_files_named_like_options_are_checked_as_files(tmp_path, monkeypatch, folder):
    """What pre-commit runs: the entry, then the staged file names."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / folder).mkdir()
    staged = f"{folder}/gap-state.md"
    (tmp_path / staged).write_text(variant("@cap episode_attempts 2", "@cap episode_attempts 0"), encoding="utf-8")
    result = run(*manifest_value("entry").split()[1:], staged)
    assert result.exit_code == 1, result.output  # its finding, never an option's effect
    assert f"{staged}:" in result.stdout and "bad_cap" in result.stdout


def try_repo(cwd, home) -> subprocess.CompletedProcess:
    """`pre-commit try-repo ROOT gapstate-check --all-files` in `cwd` (uncommitted changes of ROOT included)."""
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    return subprocess.run(
        [PRE_COMMIT, "try-repo", str(ROOT), "gapstate-check", "--all-files"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )


@pytest.mark.slow  # pre-commit installs gapstate and its dependencies into an environment of its own: some 20 s
@needs_pre_commit
def test_the_hook_checks_files_named_gap_state_md_and_fails_on_findings(tmp_path):
    project, home = tmp_path / "project", tmp_path / "cache"
    (project / "spec").mkdir(parents=True)
    spec = project / "spec" / "gap-state.md"
    spec.write_text(SPEC_TEXT, encoding="utf-8")
    # a defective table under another name is not the hook's business by default
    (project / "notes.md").write_text(variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | ="), encoding="utf-8")
    git(project, "init", "-q")
    git(project, "add", ".")
    good = try_repo(project, home)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "gapstate check" in good.stdout and "Passed" in good.stdout

    spec.write_text(
        variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request"),
        encoding="utf-8",
    )
    git(project, "add", ".")
    # a second spec, fine, in another folder: both are passed to one `gapstate check`
    (project / "other").mkdir()
    (project / "other" / "gap-state.md").write_text(SPEC_TEXT, encoding="utf-8")
    git(project, "add", ".")
    bad = try_repo(project, home)
    assert bad.returncode == 1
    assert "Failed" in bad.stdout
    assert "spec/gap-state.md:" in bad.stdout and ": rule: send-while-busy:" in bad.stdout
    assert "other/gap-state.md: ok (" in bad.stdout  # each spec's verdict; pre-commit shows stderr too:
    assert "gapstate check: 2 specs: 1 ok, 1 with findings" in bad.stdout
    assert "notes.md" not in bad.stdout


@pytest.mark.slow  # pre-commit validates both as two processes: about 0.4 s of CPU
@needs_pre_commit
def test_the_manifest_and_the_docs_snippet_are_valid_for_pre_commit(tmp_path):
    assert subprocess.run([PRE_COMMIT, "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")]).returncode == 0
    section = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8").split("## A pre-commit hook", 1)[1]
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(re.search(r"```yaml\n(.*?)```\n", section, flags=re.S).group(1), encoding="utf-8")
    done = subprocess.run([PRE_COMMIT, "validate-config", str(config)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "id: gapstate-check" in config.read_text(encoding="utf-8")
