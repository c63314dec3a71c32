"""`gapstate init`: the settings naming the spec, the hook entry and the workflow, pinned; never overwriting a file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib

import pytest

from gapstate.cli import init as _registered  # noqa: F401  (the command's module: importing it registers `init`)
from gapstate.cli.init import installed_source
from gapstate.cli.render.recipes import pre_commit_config, workflow

from .support import ROOT, SPEC_TEXT, git, run

PIN = ["--source", "https://example.org/gapstate.git", "--rev", "0123456789abcdef0123456789abcdef01234567"]
TOOLS = os.path.dirname(sys.executable)


@pytest.fixture
def team(tmp_path, monkeypatch):
    """A git repository holding one spec and no settings, the working folder one below its top."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "gap-state.md").write_text(SPEC_TEXT, encoding="utf-8")
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    return tmp_path


def files(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file() and ".git" not in p.parts}


def test_init_writes_gapstate_toml_at_the_top_naming_the_one_table_and_check_then_reads_it(team):
    result = run("init")
    assert result.exit_code == 0, result.output
    written = tomllib.loads((team / "gapstate.toml").read_text(encoding="utf-8"))
    assert written == {"spec": "spec/gap-state.md"}
    assert result.stdout.startswith('../gapstate.toml:\n  # gapstate\'s settings') and '  spec = "spec/gap-state.md"\n' in result.stdout
    assert result.stderr.splitlines()[-1] == "gapstate init: ../spec/gap-state.md: wrote ../gapstate.toml"
    checked = run("check", "--require-spec")
    assert checked.exit_code == 0 and "warning" not in checked.stderr
    assert checked.stderr.splitlines()[-1].startswith("gapstate check: ../spec/gap-state.md: ok (")


def test_init_adds_a_gapstate_table_to_a_pyproject_without_one_keeping_every_byte_of_it(team):
    before = b'[project]\nname = "team"\n\n[tool.ruff]\nline-length = 100'  # no final line end
    (team / "pyproject.toml").write_bytes(before)
    assert run("init").exit_code == 0
    after = (team / "pyproject.toml").read_bytes()
    assert after.startswith(before + b"\n")
    assert tomllib.loads(after.decode())["tool"] == {"ruff": {"line-length": 100}, "gapstate": {"spec": "spec/gap-state.md"}}
    assert not (team / "gapstate.toml").exists()


@pytest.mark.parametrize("there, named", [
    ("gapstate.toml", "../gapstate.toml: is there already"),
    (".gapstate.toml", "../.gapstate.toml: is there already"),
    ("pyproject.toml", "../pyproject.toml: has a [tool.gapstate] table already"),
    (".pre-commit-config.yaml", "../.pre-commit-config.yaml: is there already"),
    (".github/workflows/gapstate.yml", "../.github/workflows/gapstate.yml: is there already"),
])
def test_init_never_overwrites_a_file_exits_2_naming_it_and_writes_nothing(team, there, named):
    (team / there).parent.mkdir(parents=True, exist_ok=True)
    (team / there).write_text("[tool.gapstate]\n" if there == "pyproject.toml" else "# ours\n", encoding="utf-8")
    before = files(team)
    result = run("init", "--pre-commit", "--github", *PIN)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"gapstate: error: {named}") and result.stdout == ""
    assert files(team) == before


def test_a_pyproject_that_cannot_take_a_table_at_its_end_is_left_as_it_was(team):
    (team / "pyproject.toml").write_text('tool = { ruff = { line-length = 100 } }\n', encoding="utf-8")
    result = run("init")
    assert result.exit_code == 2 and "add `spec = \"spec/gap-state.md\"` to it by hand" in result.stderr
    assert (team / "pyproject.toml").read_text(encoding="utf-8") == 'tool = { ruff = { line-length = 100 } }\n'


def test_init_writes_the_hook_entry_and_the_workflow_of_docs_ci_pinned(team):
    result = run("init", "--pre-commit", "--github", *PIN)
    assert result.exit_code == 0, result.output
    source, rev = PIN[1], PIN[3]
    assert (team / ".pre-commit-config.yaml").read_text(encoding="utf-8") == pre_commit_config(source, rev, "spec/gap-state.md")
    assert (team / ".github" / "workflows" / "gapstate.yml").read_text(encoding="utf-8") == workflow(source, rev, "spec/gap-state.md")
    assert f"pip install git+{source}@{rev}\n" in (team / ".github" / "workflows" / "gapstate.yml").read_text(encoding="utf-8")
    assert result.stderr.splitlines()[-1] == (
        "gapstate init: ../spec/gap-state.md: wrote ../gapstate.toml, ../.pre-commit-config.yaml, "
        f"../.github/workflows/gapstate.yml (gapstate pinned at {rev} of {source})"
    )
    for name in ("../gapstate.toml:", "../.pre-commit-config.yaml:", "../.github/workflows/gapstate.yml:"):
        assert name in result.stdout.splitlines()


def test_a_table_whose_name_needs_escaping_is_matched_by_the_hook_and_quoted_in_the_workflow(team):
    (team / "spec" / "gap-state.md").rename(team / "spec" / "our table [v2].md")
    assert run("init", "--pre-commit", "--github", *PIN).exit_code == 0
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((team / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hook = config["repos"][0]["hooks"][0]
    import re

    assert re.fullmatch(hook["files"], "spec/our table [v2].md") and not re.fullmatch(hook["files"], "spec/our table v.md")
    flow = yaml.safe_load((team / ".github" / "workflows" / "gapstate.yml").read_text(encoding="utf-8"))
    assert "-- 'spec/our table [v2].md'" in flow["jobs"]["gapstate"]["steps"][3]["run"]


@pytest.mark.slow  # pre-commit and check-jsonschema run as processes: about 0.7 s of CPU
@pytest.mark.skipif(shutil.which("check-jsonschema", path=TOOLS) is None or shutil.which("pre-commit", path=TOOLS) is None,
                    reason="needs check-jsonschema and pre-commit")
def test_what_init_writes_is_valid_for_pre_commit_and_for_github(team):
    (team / "spec" / "gap-state.md").rename(team / "spec" / "our table [v2].md")  # a name that needs escaping
    assert run("init", "--pre-commit", "--github", *PIN).exit_code == 0
    config = team / ".pre-commit-config.yaml"
    done = subprocess.run([shutil.which("pre-commit", path=TOOLS), "validate-config", str(config)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    flow = team / ".github" / "workflows" / "gapstate.yml"
    done = subprocess.run([shutil.which("check-jsonschema", path=TOOLS), "--builtin-schema", "vendor.github-workflows", str(flow)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_spec_can_be_named_and_must_be_in_the_repository(team, tmp_path_factory):
    (team / "spec" / "other.md").write_text(SPEC_TEXT, encoding="utf-8")
    several = run("init")
    assert several.exit_code == 2 and "several files hold a gap-state table" in several.stderr and "--spec PATH" in several.stderr
    assert run("init", "--spec", "../spec/other.md").exit_code == 0
    assert tomllib.loads((team / "gapstate.toml").read_text(encoding="utf-8")) == {"spec": "spec/other.md"}
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "gap.md"
    elsewhere.write_text(SPEC_TEXT, encoding="utf-8")
    (team / "gapstate.toml").unlink()
    outside = run("init", "--spec", str(elsewhere))
    assert outside.exit_code == 2 and "is outside the repository" in outside.stderr and not (team / "gapstate.toml").exists()


def test_without_a_table_in_the_repository_init_asks_for_the_spec(team):
    (team / "spec" / "gap-state.md").write_text("No table here.\n", encoding="utf-8")
    result = run("init")
    assert result.exit_code == 2 and "no markdown file in the repository holds a gap-state table" in result.stderr


def test_source_and_rev_go_with_the_recipes(team):
    assert run("init", *PIN).exit_code == 2


class _Installed:
    def __init__(self, recorded):
        self.recorded = recorded

    def read_text(self, name):
        return json.dumps(self.recorded) if name == "direct_url.json" and self.recorded is not None else None


@pytest.fixture
def installed(monkeypatch):
    """Make `importlib.metadata` say gapstate was installed as `recorded` (a direct_url.json document, or None)."""
    from importlib import metadata

    def as_installed(recorded):
        monkeypatch.setattr(metadata, "distributions", lambda name: [_Installed(recorded)])

    return as_installed


def test_the_pin_is_the_url_and_commit_pip_recorded_for_a_git_install(installed):
    installed({"url": "https://example.org/gapstate.git", "vcs_info": {"vcs": "git", "commit_id": "ab" * 20, "requested_revision": "main"}})
    assert installed_source() == ("https://example.org/gapstate.git", "ab" * 20, "")


def test_the_pin_of_a_clone_is_its_head_at_its_origin_else_its_path(installed, tmp_path):
    clone = tmp_path / "clone"
    clone.mkdir()
    (clone / "a").write_text("a\n", encoding="utf-8")
    git(clone, "init", "-q")
    git(clone, "add", ".")
    git(clone, "commit", "-q", "-m", "a")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True).stdout.strip()
    installed({"url": clone.as_uri(), "dir_info": {"editable": True}})
    assert installed_source() == (str(clone), head, "")
    (clone / "a").write_text("changed\n", encoding="utf-8")
    assert "has uncommitted changes; the pin is its HEAD commit, which lacks them" in installed_source()[2]
    git(clone, "remote", "add", "origin", "https://example.org/team/gapstate.git")
    source, rev, note = installed_source()
    assert (source, rev) == ("https://example.org/team/gapstate.git", head) and "that commit must be pushed there" in note


def test_a_gapstate_installed_from_a_package_cannot_pin_itself_and_says_how(team, installed):
    installed(None)
    result = run("init", "--pre-commit")
    assert result.exit_code == 2 and "pin one with --source URL --rev COMMIT" in result.stderr
    assert not (team / "gapstate.toml").exists()


def test_the_gapstate_running_here_pins_the_commit_of_the_checkout_it_was_installed_from():
    found = installed_source()
    if found is None or not (ROOT / ".git").exists():
        pytest.skip("this gapstate was not installed from a git checkout")
    # the checkout's own HEAD: found[0] may be its `origin`, which can have moved on since the clone
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert found[1] == head and len(head) == 40


@pytest.mark.parametrize("kind", ["link", "file"])
def test_init_writes_nothing_through_a_github_folder_that_is_a_link_or_a_file(team, tmp_path_factory, kind):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    if kind == "link":
        (team / ".github").symlink_to(elsewhere)
    else:
        (team / ".github").write_text("not a folder\n", encoding="utf-8")
    before = files(team)
    result = run("init", "--pre-commit", "--github", *PIN)
    assert result.exit_code == 2 and result.stderr.startswith("gapstate: error: ../.github: is a link or a file, not a folder")
    assert files(team) == before and list(elsewhere.iterdir()) == []


def test_init_writes_nothing_when_the_pyproject_it_would_extend_is_a_link(team):
    (team / "real.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    (team / "pyproject.toml").symlink_to(team / "real.toml")
    before = files(team)
    result = run("init", "--pre-commit", *PIN)
    assert result.exit_code == 2 and "../pyproject.toml: is a symbolic link" in result.stderr
    assert files(team) == before
