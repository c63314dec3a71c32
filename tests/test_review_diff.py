"""gapstate diff: behaviour per (state, event, valuation), caps, names, allow-list, reachability."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from gapstate.cli import main
from gapstate.review.diff import diff
from gapstate.table.load import parse_spec

from .support import SPEC_TEXT, git, line_of, slow_but, variant

LINES = SPEC_TEXT.splitlines()
FIRST = LINES.index("# state | event | guards | next | actions")
LAST = FIRST + LINES[FIRST:].index("```")
ROWS = [line for line in LINES[FIRST + 1 : LAST] if line and not line.startswith(("@", "#"))]


def with_rows(rows: list[str], text: str = SPEC_TEXT) -> str:
    """The spec with its rows replaced by `rows` (directives and prose untouched)."""
    lines = text.splitlines()
    head = [line for line in lines[FIRST + 1 : LAST] if not line or line.startswith(("@", "#"))]
    return "\n".join(lines[: FIRST + 1] + head + rows + lines[LAST:]) + "\n"


def block_line(line: str) -> int:
    """The 1-based spec line of a line of the table block (the prose may quote it too)."""
    return FIRST + LINES[FIRST:].index(line) + 1


def compare(old: str, new: str):
    return diff(parse_spec(old, "old.md"), parse_spec(new, "new.md"))


def kinds(result) -> list[str]:
    return [change.kind for change in result.changes]


def run(tmp_path, old: str, new: str, *options: str):
    (tmp_path / "old.md").write_text(old, encoding="utf-8")
    (tmp_path / "new.md").write_text(new, encoding="utf-8")
    return CliRunner().invoke(main, ["diff", str(tmp_path / "old.md"), str(tmp_path / "new.md"), *options])


# no change -----------------------------------------------------------------


def test_identical_specs_are_the_same_and_exit_0(tmp_path):
    result = run(tmp_path, SPEC_TEXT, SPEC_TEXT, "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document == {"ok": True, "same": True, "old": str(tmp_path / "old.md"), "new": str(tmp_path / "new.md"), "changes": []}


def test_reordered_rows_are_no_change_even_when_another_state_is_named_first():
    """Sessions start in CLEAR whatever order the rows are in."""
    assert compare(SPEC_TEXT, with_rows(ROWS[::-1])).same


def test_reformatting_and_reordered_guards_are_no_change():
    def reformat(row: str) -> str:
        state, event, guards, nxt, actions = (cell.strip() for cell in row.split("|"))
        guards = ",  ".join(reversed(guards.split(",")))
        # `=` written as the state itself stays put just the same
        nxt = state if nxt == "=" and state != "*" and actions != "invalid" else nxt
        return f"  {state}|{event} |   {guards}|{nxt} | {actions.replace(',', ' , ')}  "

    new = with_rows([reformat(row) for row in ROWS])
    assert new != SPEC_TEXT
    assert compare(SPEC_TEXT, new).same


@pytest.mark.parametrize("index", slow_but(range(0, len(ROWS), 9), 9))  # one row fast, every ninth under `pytest -m slow`
def test_splitting_a_row_on_a_guard_it_does_not_name_is_no_change(index):
    row = ROWS[index]
    state, event, guards, nxt, actions = (cell.strip() for cell in row.split("|"))
    literals = guards.split(",") if guards != "-" else []
    guard = next(g for g in ("busy", "budget_left", "late_loss", "candidate_active") if g not in guards)
    halves = [f"{state} | {event} | {','.join(literals + [lit])} | {nxt} | {actions}" for lit in (guard, "!" + guard)]
    rows = ROWS[:index] + halves + ROWS[index + 1 :]
    assert compare(SPEC_TEXT, with_rows(rows)).same
    assert compare(with_rows(rows), SPEC_TEXT).same


def test_a_star_row_written_out_per_state_is_no_change():
    star = "* | busy_start | - | = | noop"
    states = ["CLEAR", "OPEN", "DUE", "SENDING", "REQUESTED"]
    rows = [r for r in ROWS if r != star] + [f"{s} | busy_start | - | = | noop" for s in states]
    assert compare(SPEC_TEXT, with_rows(rows)).same


# changes -------------------------------------------------------------------

BUSY_RELEASE = "OPEN | floor_released | busy | DUE | defer_no_interrupt"


def test_a_changed_next_state_is_reported_with_both_lines(tmp_path):
    new = variant(BUSY_RELEASE, "OPEN | floor_released | busy | = | defer_no_interrupt")
    result = run(tmp_path, SPEC_TEXT, new, "--format", "json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["same"] is False and document["ok"] is False  # ok, as every document has it: exit 0 or not
    [change] = [c for c in document["changes"] if c["kind"] == "behaviour"]
    line = line_of(SPEC_TEXT, BUSY_RELEASE)
    assert (change["state"], change["event"]) == ("OPEN", "floor_released")
    [case] = change["cases"]
    assert case["old"] == {"line": line, "next": "DUE", "actions": ["defer_no_interrupt"]}
    assert case["new"] == {"line": line, "next": "OPEN", "actions": ["defer_no_interrupt"]}
    # every valuation with busy, over the four guards the pair's rows name
    assert len(case["valuations"]) == 4 and all(v["busy"] for v in case["valuations"])


def test_a_changed_action_is_reported_and_the_text_names_the_lines(tmp_path):
    new = variant(BUSY_RELEASE, "OPEN | floor_released | busy | DUE | noop")
    result = run(tmp_path, SPEC_TEXT, new)
    assert result.exit_code == 1
    line = line_of(SPEC_TEXT, BUSY_RELEASE)
    assert "behaviour: OPEN | floor_released" in result.stdout
    assert f"when busy: old line {line}: DUE | defer_no_interrupt -> new line {line}: DUE | noop" in result.stdout
    assert result.stderr.splitlines()[-1].endswith(": 1 change")


def test_reordered_actions_are_a_change():
    row = "CLEAR | loss_voiced | !dup | OPEN | open_gap,preserve_debt"
    assert kinds(compare(SPEC_TEXT, variant(row, "CLEAR | loss_voiced | !dup | OPEN | preserve_debt,open_gap"))) == ["behaviour"]


def test_a_new_row_that_takes_over_a_valuation_is_reported_at_its_line():
    narrowed = variant(BUSY_RELEASE, "OPEN | floor_released | busy,budget_left | DUE | defer_no_interrupt")
    new = variant(
        "OPEN | floor_released | busy,budget_left | DUE | defer_no_interrupt",
        "OPEN | floor_released | busy,budget_left | DUE | defer_no_interrupt\n"
        "OPEN | floor_released | busy,!budget_left | CLEAR | unrepaired_budget",
        narrowed,
    )
    [change] = [c for c in compare(SPEC_TEXT, new).changes if c.kind == "behaviour"]
    [case] = change.cases
    assert case.old.line == line_of(SPEC_TEXT, BUSY_RELEASE)
    assert case.new.line == line_of(new, "OPEN | floor_released | busy,!budget_left")
    assert (case.new.next, case.new.actions) == ("CLEAR", ("unrepaired_budget",))
    assert all(dict(v) == {**dict(v), "busy": True, "budget_left": False} for v in case.valuations)


def test_a_removed_row_leaves_its_valuations_with_no_row():
    row = "DUE | busy_end | !budget_left | CLEAR | unrepaired_budget"
    result = compare(SPEC_TEXT, variant(row, ""))
    [change] = [c for c in result.changes if c.kind == "behaviour"]
    [case] = change.cases
    assert case.old.line == line_of(SPEC_TEXT, row) and case.new is None
    assert change.to_dict()["cases"][0]["new"] is None


def test_a_changed_cap_is_reported_with_its_lines():
    new = variant("@cap session_requests 3", "@cap session_requests 4")
    caps = [c for c in compare(SPEC_TEXT, new).changes if c.kind == "cap"]
    line = block_line("@cap session_requests 3")
    assert [c.to_dict() for c in caps] == [
        {"kind": "cap", "counter": "session_requests", "old": 3, "new": 4, "old_line": line, "new_line": line}
    ]


def test_allow_list_entries_added_and_removed_are_reported():
    entry = "@unreachable DUE | busy_end | budget_left,!attempts_left"
    removed = compare(SPEC_TEXT, variant(entry, ""))
    assert [c.to_dict() for c in removed.changes] == [
        {"kind": "allowance_removed", "state": "DUE", "event": "busy_end", "guards": "budget_left,!attempts_left", "line": block_line(entry)}
    ]
    added = compare(variant(entry, ""), SPEC_TEXT)
    assert kinds(added) == ["allowance_added"] and added.changes[0].line == block_line(entry)
    # the same entry with its guards reordered is the same entry
    assert compare(SPEC_TEXT, variant(entry, "@unreachable DUE | busy_end | !attempts_left , budget_left")).same


def test_a_row_that_no_longer_fires_is_a_reachability_change():
    late = "SENDING | loss_voiced | !dup | = | merge_gap,mark_late"
    new = variant(late, "SENDING | loss_voiced | !dup | = | merge_gap")
    reach = [c for c in compare(SPEC_TEXT, new).changes if c.kind == "reachability"]
    row = "SENDING | send_ok | late_loss | OPEN | commit_request,reopen_gap"
    assert [(c.state, c.event, c.guards, c.old_line, c.reachable) for c in reach] == [
        ("SENDING", "send_ok", "late_loss", line_of(SPEC_TEXT, row), False)
    ]
    back = [c for c in compare(new, SPEC_TEXT).changes if c.kind == "reachability"]
    assert [c.reachable for c in back] == [True]


def test_a_guard_no_longer_named_is_a_name_change():
    rows = [r for r in ROWS if not r.startswith("SENDING | send_ok | ")] + ["SENDING | send_ok | - | REQUESTED | commit_request"]
    result = compare(SPEC_TEXT, with_rows(rows))
    removed = [(c.role, c.name) for c in result.changes if c.kind == "name_removed"]
    assert removed == [("guard", "late_loss")]
    added = compare(with_rows(rows), SPEC_TEXT)
    assert [(c.role, c.name) for c in added.changes if c.kind == "name_added"] == [("guard", "late_loss")]


# unusable input --------------------------------------------------------------


@pytest.mark.parametrize("side", ["old", "new"])
def test_a_table_that_does_not_parse_exits_2_naming_its_file(tmp_path, side):
    broken = variant(BUSY_RELEASE, "OPEN | floor_released | busy | DUE")
    old, new = (broken, SPEC_TEXT) if side == "old" else (SPEC_TEXT, broken)
    result = run(tmp_path, old, new, "--format", "json")
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert error["file"] == str(tmp_path / f"{side}.md")
    assert error["line"] == line_of(SPEC_TEXT, BUSY_RELEASE)
    assert "parse_error" in result.stderr and "Traceback" not in result.output


def test_diff_needs_two_paths_or_git_and_one():
    assert CliRunner().invoke(main, ["diff", "a.md"]).exit_code == 2
    assert CliRunner().invoke(main, ["diff", "--git", "HEAD", "a.md", "b.md"]).exit_code == 2


# --git ---------------------------------------------------------------------

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "spec").mkdir()
    spec = tmp_path / "spec" / "gap-state.md"
    spec.write_text(SPEC_TEXT, encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "spec")
    return tmp_path


@needs_git
def test_git_compares_the_revision_with_the_working_tree(repo, monkeypatch):
    spec = repo / "spec" / "gap-state.md"
    monkeypatch.chdir(repo)
    same = CliRunner().invoke(main, ["diff", "--git", "HEAD", "spec/gap-state.md"])
    assert same.exit_code == 0, same.output
    spec.write_text(variant("@cap episode_attempts 2", "@cap episode_attempts 1"), encoding="utf-8")
    changed = CliRunner().invoke(main, ["diff", "--git", "HEAD", "spec/gap-state.md", "--format", "json"])
    assert changed.exit_code == 1, changed.output
    document = json.loads(changed.stdout)
    assert (document["old"], document["new"]) == ("HEAD:spec/gap-state.md", "spec/gap-state.md")
    assert {"kind": "cap", "counter": "episode_attempts", "old": 2, "new": 1}.items() <= document["changes"][0].items()
    # a path from another folder works as well: git runs beside the file
    monkeypatch.chdir(repo.parent)
    assert CliRunner().invoke(main, ["diff", "--git", "HEAD", str(spec)]).exit_code == 1


@needs_git
def test_git_without_a_path_compares_the_configured_spec(repo, monkeypatch):
    monkeypatch.chdir(repo)
    unset = CliRunner().invoke(main, ["diff", "--git", "HEAD"])
    assert unset.exit_code == 2 and "name PATH" in unset.output  # no [tool.gapstate] spec: the bundled one has no history here
    (repo / "pyproject.toml").write_text('[tool.gapstate]\nspec = "spec/gap-state.md"\n', encoding="utf-8")
    assert CliRunner().invoke(main, ["diff", "--git", "HEAD"]).exit_code == 0
    (repo / "spec" / "gap-state.md").write_text(variant("@cap episode_attempts 2", "@cap episode_attempts 1"), encoding="utf-8")
    changed = CliRunner().invoke(main, ["diff", "--git", "HEAD", "--format", "json"])
    assert changed.exit_code == 1, changed.output
    assert json.loads(changed.stdout)["new"] == "spec/gap-state.md"


@needs_git
def test_git_with_an_unknown_revision_or_outside_a_repository_exits_2(repo, tmp_path_factory):
    spec = repo / "spec" / "gap-state.md"
    unknown = CliRunner().invoke(main, ["diff", "--git", "no-such-rev", str(spec)])
    assert unknown.exit_code == 2 and f"no-such-rev:{spec}" in unknown.stderr
    outside = tmp_path_factory.mktemp("plain") / "gap-state.md"
    outside.write_text(SPEC_TEXT, encoding="utf-8")
    result = CliRunner().invoke(main, ["diff", "--git", "HEAD", str(outside)])
    assert result.exit_code == 2 and "not a git repository" in result.stderr


@needs_git
def test_git_takes_any_commit_git_names_and_ranges_as_git_diff_does(repo, monkeypatch):
    monkeypatch.chdir(repo)
    spec = repo / "spec" / "gap-state.md"
    spec.write_text(variant("@cap episode_attempts 2", "@cap episode_attempts 1"), encoding="utf-8")
    git(repo, "commit", "-q", "-am", "one attempt")
    git(repo, "tag", "v2")
    path = "spec/gap-state.md"
    for revision, old, new, code in [
        ("HEAD~1", "HEAD~1:spec/gap-state.md", path, 1),  # against the working tree
        ("v2", "v2:spec/gap-state.md", path, 0),
        ("HEAD~1..v2", "HEAD~1:spec/gap-state.md", "v2:spec/gap-state.md", 1),  # A..B: A against B, as git diff
        ("v2..", "v2:spec/gap-state.md", "HEAD:spec/gap-state.md", 0),
        ("HEAD~1...HEAD", "HEAD~1...HEAD:spec/gap-state.md", "HEAD:spec/gap-state.md", 1),  # from the merge base
    ]:
        result = CliRunner().invoke(main, ["diff", "--git", revision, path, "--format", "json"])
        assert result.exit_code == code, (revision, result.output)
        document = json.loads(result.stdout)
        assert (document["old"], document["new"]) == (old, new), revision


@needs_git
@pytest.mark.parametrize("revision", ["HEAD^{tree}", "HEAD:spec/gap-state.md"])
def test_git_refuses_a_revision_that_names_no_commit(repo, monkeypatch, revision):
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(main, ["diff", "--git", revision, "spec/gap-state.md"])
    assert result.exit_code == 2, result.output
    assert f"'{revision}' names no commit" in result.stderr


@needs_git
def test_git_missing_exits_2_saying_so(repo, monkeypatch):
    monkeypatch.setenv("PATH", "")
    result = CliRunner().invoke(main, ["diff", "--git", "HEAD", str(repo / "spec" / "gap-state.md")])
    assert result.exit_code == 2 and "git is not installed" in result.stderr


@needs_git
def test_git_never_follows_a_link_to_the_tracked_file_it_names(repo):
    """PATH is compared as git tracks it; a link in the working tree is refused, naming what to pass instead."""
    link = repo / "link.md"
    link.symlink_to(repo / "spec" / "gap-state.md")
    result = CliRunner().invoke(main, ["diff", "--git", "HEAD", str(link)])
    assert result.exit_code == 2 and "is a symbolic link in the working tree" in result.stderr, result.output
    assert "name the file itself" in result.stderr


@needs_git
def test_a_spec_turned_into_a_link_to_another_tracked_file_is_reported_not_passed(repo, monkeypatch):
    """The pull request's table lives in copy.md, same as the old spec, and gap-state.md leads there: not "no change"."""
    monkeypatch.chdir(repo)
    spec = repo / "spec" / "gap-state.md"
    (repo / "spec" / "copy.md").write_text(SPEC_TEXT, encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "copy")
    spec.unlink()
    spec.symlink_to("copy.md")
    for revision in ("HEAD", "HEAD.."):  # against the working tree, and against a commit that holds the link
        if revision == "HEAD..":
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", "the spec becomes a link")
            revision = "HEAD~1..HEAD"
        result = CliRunner().invoke(main, ["diff", "--git", revision, "spec/gap-state.md"])
        assert result.exit_code == 2, (revision, result.output)
        assert "symbolic link" in result.stderr and "no change" not in result.output, result.output


@needs_git
def test_git_reads_the_revision_side_from_the_repository_top_through_a_linked_folder(repo, monkeypatch):
    """A folder outside the work tree that links into it: the path is still the one git tracks, relative to the top."""
    monkeypatch.chdir(repo.parent)
    linked = repo.parent / f"{repo.name}-link"
    linked.symlink_to(repo)
    result = CliRunner().invoke(main, ["diff", "--git", "HEAD", str(linked / "spec" / "gap-state.md")])
    assert result.exit_code == 0, result.output


def test_a_changed_bound_is_a_change_in_every_format(tmp_path):
    old, new = tmp_path / "old.md", tmp_path / "new.md"
    old.write_text(SPEC_TEXT, encoding="utf-8")
    new.write_text(SPEC_TEXT.replace("@cap session_requests 3", "@cap session_requests 4"), encoding="utf-8")
    bounds = [c for c in diff(parse_spec(SPEC_TEXT, "old.md"), parse_spec(new.read_text(), "new.md")).changes
              if c.kind == "bound"]
    assert [(c.name, c.old, c.new) for c in bounds] == [
        ("sends_per_gap", 6, 8), ("commits_per_gap", 3, 4), ("commits_per_session", 3, 4)]
    runner = CliRunner()
    text = runner.invoke(main, ["diff", str(old), str(new)])
    assert text.exit_code == 1 and "bound: commits_per_gap: a gap can now take 4 committed requests, was 3" in text.stdout
    document = json.loads(runner.invoke(main, ["diff", str(old), str(new), "--format", "json"]).stdout)
    assert {"kind": "bound", "name": "commits_per_gap", "old": 3, "new": 4} in document["changes"]
    github = runner.invoke(main, ["diff", str(old), str(new), "--format", "github"]).stdout
    assert "bound: commits_per_session: a session can now take 4 committed requests, was 3" in github
