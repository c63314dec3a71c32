"""`gapstate init`: configure a repository for gapstate, and when asked its pre-commit hook and GitHub workflow.

Everything goes at the top of the repository (the git work tree's, else the
working folder), where pre-commit and GitHub look. Every file is checked
before any is written, so a refusal leaves nothing half-done; no file is
ever replaced.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from gapstate.cli.base import main, reports_errors
from gapstate.cli.config import is_utf8, repository_top, settings_target, shown_path, tables_below
from gapstate.cli.output import say, summarize
from gapstate.errors import GapstateError
from gapstate.files.source import inside_tree

WORKFLOW_PATH = ".github/workflows/gapstate.yml"
PRE_COMMIT_PATH = ".pre-commit-config.yaml"


@main.command()
@click.option("--spec", "spec_path", metavar="PATH", default=None,
              help="The spec to configure. Default: the one markdown file of the repository that holds a gap-state table.")
@click.option("--pre-commit", "pre_commit", is_flag=True, help=f"Also write {PRE_COMMIT_PATH} with the gapstate-check hook.")
@click.option("--github", is_flag=True, help=f"Also write the GitHub workflow {WORKFLOW_PATH}.")
@click.option("--source", metavar="URL", default=None,
              help="Where the hook and the workflow install gapstate from (a git repository). "
              "Default: the source this gapstate was installed from, when known.")
@click.option("--rev", metavar="COMMIT", default=None,
              help="The commit of --source to pin (a commit id, or a tag your releases make). Default: the installed commit.")
@reports_errors
def init(spec_path: str | None, pre_commit: bool, github: bool, source: str | None, rev: str | None) -> int:
    """Write the settings (gapstate.toml, or [tool.gapstate] in an existing pyproject.toml) naming the spec.

    With --pre-commit and --github, also the hook entry and a workflow that
    install gapstate from a pinned source: --source and --rev, else the git
    repository and commit this gapstate was installed from. Prints what it
    wrote. Exit 2, writing nothing, when a file it would write is there
    (it never overwrites one), when the spec cannot be told, or when the pin
    cannot be told.
    """
    from gapstate.cli.render.recipes import pre_commit_config, workflow

    start = Path.cwd()
    top = repository_top(start)
    spec = _spec(spec_path, top, start)
    plan: list[tuple[Path, bytes, str]] = [settings_target(top, spec, start)]  # (where, all its bytes, what to show)
    if pre_commit or github:
        pin_source, pin_rev = _pin(source, rev)
        if pre_commit:
            text = pre_commit_config(pin_source, pin_rev, spec)
            plan.append((top / PRE_COMMIT_PATH, text.encode("utf-8"), text))
        if github:
            text = workflow(pin_source, pin_rev, spec)
            plan.append((top / WORKFLOW_PATH, text.encode("utf-8"), text))
    elif source is not None or rev is not None:
        raise click.UsageError("--source and --rev pin the hook and the workflow: add --pre-commit or --github")
    from gapstate.files.writer import writable, write_atomically

    for number, (path, _, _) in enumerate(plan):  # every refusal before anything is written
        if number and os.path.lexists(path):
            raise GapstateError("is there already; gapstate init never overwrites a file "
                                "(docs/ci.md shows what to add to it by hand)", file=shown_path(path, start))
        _folders_ours(path.parent, top, start)
        with _named(path, start):
            writable(path, follow_links=False)
    for path, data, _ in reversed(plan):  # the settings last: a failure before leaves the repository unconfigured
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise GapstateError(f"cannot make this folder: {error.strerror}", file=shown_path(path.parent, start)) from None
        with _named(path, start):
            write_atomically(path, data, follow_links=False)
    for path, _, shown in plan:
        say(f"{shown_path(path, start)}:")
        say("".join(f"  {line}\n" for line in shown.splitlines()), nl=False)
    names = ", ".join(shown_path(path, start) for path, _, _ in plan)
    pinned = f" (gapstate pinned at {pin_rev} of {pin_source})" if pre_commit or github else ""
    summarize(f"gapstate init: {shown_path(top / spec, start)}: wrote {names}{pinned}")
    return 0


@contextmanager
def _named(path: Path, start: Path) -> Iterator[None]:
    """A GapstateError about `path` names it as the user would type it from `start`, not by its absolute path."""
    try:
        yield
    except GapstateError as error:
        raise error.replaced(file=shown_path(path, start)) from None


def _folders_ours(folder: Path, top: Path, start: Path) -> None:
    """Refuse to write below `folder` when it, or a folder between it and `top`, is a file or a link (which could lead out)."""
    while folder != top and folder != folder.parent:
        if os.path.islink(folder) or (os.path.lexists(folder) and not folder.is_dir()):
            raise GapstateError("is a link or a file, not a folder; gapstate init writes only into folders of the repository",
                                file=shown_path(folder, start))
        folder = folder.parent


def _spec(given: str | None, top: Path, start: Path) -> str:
    """The spec to configure, as a path from the repository top: `given`, else the one table the repository holds."""

    if given is not None:
        path = start / given
        if not is_utf8(given):
            raise GapstateError("its name is not UTF-8, so no settings file can name it", file=given)
        if not path.is_file():
            raise GapstateError("no such file (or not a regular file): init configures a spec that is there", file=given)
        if not inside_tree(path, top):
            raise GapstateError(f"is outside the repository ({shown_path(top, start)}); the spec must be in it", file=given)
        return Path(os.path.relpath(path, top)).as_posix()
    found = tables_below(top)
    if len(found) != 1:
        listed = "; ".join(shown_path(path, start) for path in found[:3]) + ("; ..." if len(found) > 3 else "")
        why = "no markdown file in the repository holds a gap-state table" if not found else f"several files hold a gap-state table ({listed})"
        raise GapstateError(f"{why}: name the spec with `gapstate init --spec PATH`", file=shown_path(top, start))
    return Path(os.path.relpath(found[0], top)).as_posix()


def _pin(source: str | None, rev: str | None) -> tuple[str, str]:
    """The source and commit the hook and the workflow install gapstate from: as given, else as this gapstate was installed."""
    if source is not None and rev is not None:
        return source, rev
    found = installed_source()
    if found is None:
        raise GapstateError(
            "cannot tell which source this gapstate was installed from (it came from a package, not a git repository): "
            "pin one with --source URL --rev COMMIT"
        )
    said_source, said_rev, note = found
    if note and source is None and rev is None:
        say(f"gapstate init: note: {note}", err=True)
    return source or said_source, rev or said_rev


def installed_source() -> tuple[str, str, str] | None:
    """(the git repository, the commit, a note or "") this gapstate was installed from, or None when that cannot be told.

    pip records it (direct_url.json, PEP 610): for `pip install git+URL@REV`
    the URL and the commit it resolved; for a local folder (`pip install .`,
    editable or not) its path, whose commit is its git HEAD, and whose
    `origin` remote, when it has one, is where others can reach that commit.
    """
    import json
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    # The first gapstate on the path that pip recorded: a source folder's gapstate.egg-info, which
    # a build leaves there and which has no record, can come first when gapstate runs in that folder.
    recorded = next(filter(None, (found.read_text("direct_url.json") for found in metadata.distributions(name="gapstate"))), None)
    try:
        direct: Any = json.loads(recorded or "null")
    except ValueError:
        return None
    if not isinstance(direct, dict) or not isinstance(direct.get("url"), str):
        return None
    vcs = direct.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and isinstance(vcs.get("commit_id"), str):
        return direct["url"], vcs["commit_id"], ""
    parsed = urlparse(direct["url"])
    if "dir_info" not in direct or parsed.scheme != "file":
        return None
    folder = unquote(parsed.path)
    head = _git(folder, "rev-parse", "--verify", "HEAD")
    if head is None:
        return None
    notes = []
    if _git(folder, "status", "--porcelain", "--untracked-files=no"):
        notes.append(f"{folder} has uncommitted changes; the pin is its HEAD commit, which lacks them")
    remote = _git(folder, "remote", "get-url", "origin")
    if remote:
        notes.append(f"pinned to {head} of {remote}, the origin of {folder}: that commit must be pushed there")
        return remote, head, "; ".join(notes)
    return folder, head, "; ".join(notes)


def _git(folder: str, *args: str) -> str | None:
    """What `git -C folder ARGS` prints, stripped; None when git is missing or fails."""
    import subprocess

    try:
        done = subprocess.run(["git", "-C", folder, *args], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
