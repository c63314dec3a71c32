"""The CI recipes, as text: the pre-commit hook entry and the GitHub workflow, for a spec and a pinned gapstate.

One text for each, filled in here: `gapstate init` writes them, and
docs/ci.md shows them filled in with its placeholders (a test holds the page
to these templates). gapstate is installed from its source at a commit, never
by a bare package name: an index holds no `gapstate` today, and whoever
registered the name would run their code in CI on pull requests.
"""

from __future__ import annotations

import json
import re
import shlex

PRE_COMMIT = """\
# gapstate-check proves the spec on every commit that changes it (docs/ci.md).
repos:
  - repo: @SOURCE@ # gapstate's source: its repository, or a clone's path
    rev: @REV@ # a commit id of it, which cannot move as a branch or tag can
    hooks:
      - id: gapstate-check
        files: @FILES@ # the spec, a regular expression
"""

WORKFLOW = """\
name: gap-state
on:
  pull_request:
    paths:
      - @PATHS@
jobs:
  gapstate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0 # the base branch is needed by `diff --git`
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install gapstate
        run: pip install @REQUIREMENT@
      - name: Prove the table
        run: gapstate check --require-spec --format github -- @SPEC@
      - name: Show what the change does to behaviour
        if: always()
        env:
          BASE: ${{ github.base_ref }}
        run: |
          status=0
          gapstate diff --git "origin/$BASE" -- @SPEC@ > behaviour.txt 2>&1 || status=$?
          cat behaviour.txt
          { echo '### Behaviour changes to the gap-state table'; echo '```'; cat behaviour.txt; echo '```'; } >> "$GITHUB_STEP_SUMMARY"
          test "$status" -le 1
"""


def pre_commit_config(source: str, rev: str, spec: str) -> str:
    """A `.pre-commit-config.yaml` running gapstate-check from `source` at `rev` on `spec` (a path from the repository top)."""
    return _filled(PRE_COMMIT, SOURCE=_yaml(source), REV=_yaml(rev), FILES=_yaml("^" + re.escape(spec) + "$"))


def workflow(source: str, rev: str, spec: str) -> str:
    """A GitHub workflow that installs gapstate from `source` at `rev`, proves `spec` and shows what a pull request changes."""
    glob = re.sub(r"([*?+\[\]!\\])", r"\\\1", spec)  # a workflow's paths filter is a pattern: these are literal
    return _filled(WORKFLOW, PATHS=_yaml(glob), REQUIREMENT=shlex.quote(requirement(source, rev)), SPEC=shlex.quote(spec))


def requirement(source: str, rev: str) -> str:
    """What pip installs: gapstate, from the git repository at `source` (a URL, `user@host:path`, or a local path) at `rev`."""
    if source.startswith("git+"):
        url = source
    elif "://" in source:
        url = "git+" + source
    elif re.fullmatch(r"[\w.-]+@[\w.-]+:.+", source):  # scp-like, as git takes it: git@host:org/repo
        user_host, path = source.split(":", 1)
        url = f"git+ssh://{user_host}/{path.lstrip('/')}"
    else:
        from pathlib import Path

        url = "git+" + Path(source).absolute().as_uri()
    return f"{url}@{rev}"  # not `gapstate @ URL`: pip before 23.3 refuses that form for a git+file URL


def _filled(template: str, **values: str) -> str:
    for key, value in values.items():
        template = template.replace(f"@{key}@", value)
    return template


def _yaml(text: str) -> str:
    """`text` as a YAML scalar: plain when nothing in it means anything to YAML, else a double-quoted (JSON) string."""
    if re.fullmatch(r"[\w^$\\/.~=+:-][\w^$\\/.~=+:@-]*", text) and ": " not in text and not text.endswith(":"):
        return text
    return json.dumps(text)
