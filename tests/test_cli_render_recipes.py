"""The CI recipes' text: gapstate installed from a pinned git source, every value quoted for YAML and the shell as it needs."""

from __future__ import annotations

import json

import pytest

from gapstate.cli.render.recipes import pre_commit_config, requirement, workflow

REV = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize("source, url", [
    ("https://example.org/team/gapstate", "git+https://example.org/team/gapstate"),
    ("git+https://example.org/team/gapstate", "git+https://example.org/team/gapstate"),
    ("git@example.org:team/gapstate.git", "git+ssh://git@example.org/team/gapstate.git"),
    ("/srv/clones/gapstate", "git+file:///srv/clones/gapstate"),
])
def test_pip_installs_gapstate_from_the_git_source_at_the_commit(source, url):
    assert requirement(source, REV) == f"{url}@{REV}"


def test_a_value_yaml_would_read_otherwise_is_quoted_and_a_plain_one_is_not():
    text = pre_commit_config("https://example.org/g: x #y", REV, "spec/gap-state.md")
    assert f'  - repo: {json.dumps("https://example.org/g: x #y")} #' in text
    assert f"    rev: {REV} #" in text
    assert "        files: ^spec/gap\\-state\\.md$ #" in text


def test_the_workflow_quotes_the_spec_for_the_shell_and_escapes_it_for_the_paths_filter():
    text = workflow("https://example.org/gapstate", REV, "docs/our table [v2].md")
    assert '      - "docs/our table \\\\[v2\\\\].md"\n' in text  # a paths filter is a pattern: [ and ] are literal
    assert "-- 'docs/our table [v2].md'\n" in text and "-- 'docs/our table [v2].md' > behaviour.txt" in text
    assert f"run: pip install git+https://example.org/gapstate@{REV}\n" in text
