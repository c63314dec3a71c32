"""Which spec a command reads: paths or --spec, else [tool.gapstate] in the nearest pyproject.toml, else the bundled spec."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gapstate.cli.config import (
    BUNDLED,
    GIVEN,
    PROJECT,
    max_configurations,
    resolve_spec_path,
)
from gapstate.errors import GapstateError
from gapstate.table.load import BUNDLED_NAME, bundled_path

from .support import SPEC_TEXT, line_of, run, unwrapped, variant

BROKEN = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A clone-like folder: pyproject.toml naming tables/gap.md (a broken table), the working folder below it."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.gapstate]\nspec = "tables/gap.md"\n', encoding="utf-8")
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "gap.md").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "src" / "deep")
    return tmp_path


def test_without_a_path_check_reads_the_spec_setting_of_the_nearest_pyproject(project):
    result = run("check")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith("../../tables/gap.md:")
    assert "bundled" not in result.stdout


def test_a_command_reads_its_settings_file_once_and_the_next_command_afresh(project, monkeypatch):
    from gapstate.cli import config

    read = []
    real = config._settings_table
    monkeypatch.setattr(config, "_settings_table", lambda *args: read.append(args[0]) or real(*args))
    assert run("check").exit_code == 1  # the spec, the budget and the generated files each ask
    assert read == [project / "pyproject.toml"]
    (project / "pyproject.toml").write_text('[tool.gapstate]\nspec = "tables/other.md"\n', encoding="utf-8")
    assert "tables/other.md" in run("check").stderr and len(read) == 2


def test_the_setting_is_relative_to_the_pyproject_folder_not_the_working_one(project):
    choice = resolve_spec_path()
    assert choice.origin == PROJECT
    assert (project / "src" / "deep" / choice.path).resolve() == (project / "tables" / "gap.md").resolve()
    assert choice.setting == "[tool.gapstate] in ../../pyproject.toml"


def test_a_pyproject_without_a_gapstate_table_is_passed_over(project):
    (project / "src" / "pyproject.toml").write_text('[tool.ruff]\nline-length = 100\n', encoding="utf-8")
    assert resolve_spec_path().origin == PROJECT


def test_without_any_setting_the_bundled_spec_is_checked_and_the_summary_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_spec_path() == (bundled_path(), BUNDLED, None)
    result = run("check")
    assert result.exit_code == 0
    assert result.stderr.splitlines()[-1].startswith(f"gapstate check: {BUNDLED_NAME} (the bundled spec): ok (")


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_checking_the_bundled_example_unasked_says_so_on_stderr_in_every_format(tmp_path, monkeypatch, fmt):
    monkeypatch.chdir(tmp_path)
    result = run("check", "--format", fmt)
    assert result.exit_code == 0
    said = unwrapped(result.stderr)
    assert "checks the example bundled with gapstate, not your spec" in said[0]
    assert "gapstate.toml" in said[0] and "gapstate check spec/gap-state.md" in said[0]
    assert said[0].startswith("gapstate: warning: ") and said[-1].startswith("gapstate check: gapstate:spec/gap-state.md (the bundled spec): ")
    assert sum(line.startswith("gapstate check: ") for line in said) == 1  # the warning is not a second summary


def test_require_spec_refuses_the_bundled_example_and_passes_a_given_or_configured_spec(project, tmp_path_factory, monkeypatch):
    good = project / "good.md"
    good.write_text(SPEC_TEXT, encoding="utf-8")
    assert run("check", "--require-spec", str(good)).exit_code == 0
    assert run("check", "--require-spec").exit_code == 1  # the configured (broken) spec, not the bundled one
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
    result = run("check", "--require-spec")
    assert result.exit_code == 2 and "--require-spec" in result.stderr and result.stdout == ""
    assert json.loads(run("check", "--require-spec", "--format", "json").stdout)["ok"] is False


def test_a_given_spec_is_checked_without_the_bundled_example_note(project):
    good = project / "good.md"
    good.write_text(SPEC_TEXT, encoding="utf-8")
    assert "bundled" not in run("check", str(good)).stderr


def test_a_gapstate_table_without_spec_means_the_bundled_spec(project):
    (project / "pyproject.toml").write_text("[tool.gapstate]\n", encoding="utf-8")
    assert resolve_spec_path().origin == BUNDLED


def test_table_and_paths_win_over_the_setting(project):
    good = project / "good.md"
    good.write_text(SPEC_TEXT, encoding="utf-8")
    assert resolve_spec_path(str(good)) == (str(good), GIVEN, None)
    assert run("check", str(good)).exit_code == 0
    assert run("check", "--spec", str(good)).exit_code == 0


def test_every_command_with_spec_follows_the_setting(project):
    (project / "tables" / "gap.md").write_text("No table here.\n", encoding="utf-8")
    trace = project / "t.jsonl"
    trace.write_text('{"event": "busy_start"}\n', encoding="utf-8")
    for args in (
        ["replay", str(trace)],
        ["fuzz", "--examples", "1", "--seed", "1"],
        ["witness", "CLEAR|busy_end|-"],
        ["explain", "CLEAR|busy_end|-"],
        ["coverage", str(trace)],
        ["graph"],
    ):
        result = run(*args)
        assert result.exit_code == 2, args
        assert "../../tables/gap.md:1:1: the table cannot be replayed" in result.stderr


def test_a_setting_naming_a_missing_file_exits_2_and_says_where_it_was_set(project):
    (project / "tables" / "gap.md").unlink()
    result = run("check")
    assert result.exit_code == 2
    assert "../../tables/gap.md: no such file (the spec setting of [tool.gapstate] in ../../pyproject.toml)" in result.stderr


@pytest.mark.parametrize("text, where", [
    ("[tool.gapstate\nspec = 1\n", "../../pyproject.toml:1:"),
    ("[tool.gapstate]\nspec = 3\n", "../../pyproject.toml:2: [tool.gapstate] spec must be a non-empty string"),
])
def test_an_unusable_pyproject_exits_2_naming_it(project, text, where):
    (project / "pyproject.toml").write_text(text, encoding="utf-8")
    result = run("check", "--format", "json")
    assert result.exit_code == 2
    assert where in result.stderr
    assert json.loads(result.stdout)["ok"] is False


def test_check_takes_several_paths_and_exits_with_the_worst(project):
    good = project / "good.md"
    good.write_text(SPEC_TEXT, encoding="utf-8")
    broken = project / "tables" / "gap.md"
    result = run("check", str(good), str(broken))
    assert result.exit_code == 1
    verdicts = [line for line in result.stdout.splitlines() if line.startswith((f"{good}: ", f"{broken}: "))]
    assert verdicts[0].startswith(f"{good}: ok") and verdicts[1].startswith(f"{broken}: ") and " findings" in verdicts[1]
    assert result.stderr.splitlines()[-1] == "gapstate check: 2 specs: 1 ok, 1 with findings"
    assert run("check", str(good), str(project / "missing.md")).exit_code == 2


def test_several_paths_give_one_json_document_holding_each_spec(project):
    good = project / "good.md"
    good.write_text(SPEC_TEXT, encoding="utf-8")
    missing = project / "missing.md"
    result = run("check", str(good), str(project / "tables" / "gap.md"), str(missing), "--format", "json")
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    assert set(document) == {"ok", "specs"} and document["ok"] is False
    first, second, third = document["specs"]
    assert first["ok"] is True and {"ok", "spec", "stats", "rules", "bounds", "findings"} <= set(first)
    assert second["ok"] is False and {f["kind"] for f in second["findings"]} == {"rule"}
    assert third == {"ok": False, "spec": str(missing), "error": {"file": str(missing), "line": None, "column": None, "message": "no such file"}}


def test_one_path_gives_the_contract_document(project):
    document = json.loads(run("check", str(project / "tables" / "gap.md"), "--format", "json").stdout)
    assert {"ok", "spec", "stats", "rules", "bounds", "findings"} <= set(document)


def test_exit_zero_reports_the_findings_and_exits_0(project):
    result = run("check", "--exit-zero")
    assert result.exit_code == 0
    assert ": rule: send-while-busy: " in result.stdout
    assert run("check", "--exit-zero", str(project / "missing.md")).exit_code == 2


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(flag):
    import gapstate

    result = run(flag)
    assert result.exit_code == 0
    assert result.stdout.strip() == f"gapstate, version {gapstate.__version__}"


def test_the_project_itself_names_its_spec():
    from .support import ROOT

    choice = resolve_spec_path(cwd=ROOT / "tests")
    assert (choice.origin, (ROOT / "tests" / choice.path).resolve()) == (PROJECT, ROOT / "spec" / "gap-state.md")


def test_past_the_exploration_budget_check_exits_2_at_the_largest_cap_saying_how_to_raise_it(project):
    spec = project / "tables" / "gap.md"
    text = variant("@cap session_requests 3", "@cap session_requests 100")
    spec.write_text(variant("@cap episode_attempts 2", "@cap episode_attempts 1000", text), encoding="utf-8")
    result = run("check", "--format", "json")
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert error["file"] == "../../tables/gap.md" and error["line"] == line_of(spec.read_text(), "@cap episode_attempts 1000")
    assert "the caps imply up to 3,612,917 configurations, more than the exploration budget of 2,500,000" in error["message"]
    assert "--max-configurations N" in error["message"] and "max-configurations = N under [tool.gapstate]" in error["message"]


def test_the_budget_comes_from_the_option_else_the_setting(project):
    (project / "tables" / "gap.md").write_text(variant("@cap session_requests 3", "@cap session_requests 30"), encoding="utf-8")
    assert run("check").exit_code == 0  # 2,471 configurations, well inside the default
    assert run("check", "--max-configurations", "2470").exit_code == 2
    assert run("check", "--max-configurations", "2471").exit_code == 0
    with (project / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write("max-configurations = 1000\n")
    result = run("check")
    assert result.exit_code == 2 and "more than the exploration budget of 1,000" in result.stderr
    assert run("check", "--max-configurations", "3000").exit_code == 0


@pytest.mark.parametrize("value", ["0", '"many"', "true", "1.5"])
def test_a_budget_setting_that_is_not_a_positive_integer_exits_2_naming_the_file(project, value):
    with (project / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write(f"max-configurations = {value}\n")
    result = run("check")
    assert result.exit_code == 2
    assert "../../pyproject.toml:6: [tool.gapstate] max-configurations must be a positive integer" in result.stderr


def test_conform_and_vectors_name_the_bundled_spec_as_check_does_not_by_its_installed_path(tmp_path, monkeypatch):
    """Output that names a path deep in site-packages differs per machine; the bundled spec's name does not."""
    import sys

    from .support import ROOM_LOOP

    monkeypatch.chdir(tmp_path)
    written = run("vectors", "suite")
    assert written.exit_code == 0, written.output
    assert written.stderr.splitlines()[-1].startswith(f"gapstate vectors: {BUNDLED_NAME} -> suite: ")
    manifest = json.loads((tmp_path / "suite" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["spec"]["path"] == BUNDLED_NAME
    ran = run("conform", "--vectors", "suite", "--examples", "0", "--timeout", "60", "--", sys.executable, str(ROOM_LOOP))
    assert ran.exit_code == 0, ran.output
    assert ran.stderr.splitlines()[-1].startswith(f"gapstate conform: {BUNDLED_NAME}: seed 0: ")
    for said in (written.output, ran.output, json.dumps(manifest)):
        assert bundled_path() not in said and "site-packages" not in said


@pytest.mark.parametrize("name", ["gapstate.toml", ".gapstate.toml"])
def test_a_gapstate_toml_configures_a_repository_without_python(tmp_path, monkeypatch, name):
    (tmp_path / name).write_text('spec = "tables/gap.md"\nmax-configurations = 1000\n', encoding="utf-8")
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "gap.md").write_text(SPEC_TEXT, encoding="utf-8")
    (tmp_path / "deep").mkdir()
    monkeypatch.chdir(tmp_path / "deep")
    choice = resolve_spec_path()
    assert (choice.path, choice.origin, choice.setting) == ("../tables/gap.md", PROJECT, f"../{name}")
    result = run("check")
    assert result.exit_code == 0 and "bundled" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith("gapstate check: ../tables/gap.md: ok (")
    assert max_configurations(None) == 1000


def test_the_nearest_settings_file_wins_and_in_one_folder_dot_gapstate_toml_then_gapstate_toml_then_pyproject(project):
    (project / "src" / "gapstate.toml").write_text('spec = "mine.md"\n', encoding="utf-8")
    assert resolve_spec_path().path == "../mine.md"  # nearer than ../../pyproject.toml
    (project / "src" / ".gapstate.toml").write_text('spec = "hidden.md"\n', encoding="utf-8")
    assert resolve_spec_path().path == "../hidden.md"
    (project / "src" / ".gapstate.toml").unlink()
    (project / "src" / "pyproject.toml").write_text('[tool.gapstate]\nspec = "py.md"\n', encoding="utf-8")
    assert resolve_spec_path().path == "../mine.md"


def test_an_empty_gapstate_toml_is_gapstates_file_and_means_the_bundled_spec(project):
    (project / "src" / "deep" / "gapstate.toml").write_text("", encoding="utf-8")
    assert resolve_spec_path().origin == BUNDLED  # it stops the search: ../../pyproject.toml is not read


def test_a_setting_gapstate_does_not_know_exits_2_at_its_line(project):
    (project / "gapstate.toml").write_text('# gapstate\nspce = "tables/gap.md"\n', encoding="utf-8")
    result = run("check")
    assert result.exit_code == 2
    assert "../../gapstate.toml:2: spce is not a setting of gapstate (it reads spec, max-configurations, generated)" in result.stderr


@pytest.mark.parametrize("value", ["10000001", "1" + "0" * 30])
def test_a_settings_file_cannot_lift_the_budget_past_the_ceiling_only_the_command_line_can(project, value):
    from gapstate.cli.config import CEILING

    assert CEILING == 10_000_000
    with (project / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write(f"max-configurations = {value}\n")
    result = run("check", "--format", "json")
    assert result.exit_code == 2 and json.loads(result.stdout)["ok"] is False
    assert "../../pyproject.toml:6: [tool.gapstate] max-configurations is " in result.stderr
    assert "more than 10,000,000, the most a settings file may set (pass --max-configurations N" in result.stderr
    assert max_configurations(50_000_000) == 50_000_000  # the command line may
    (project / "pyproject.toml").write_text('[tool.gapstate]\nspec = "tables/gap.md"\nmax-configurations = 10000000\n', encoding="utf-8")
    assert max_configurations(None) == 10_000_000


def test_running_out_of_memory_is_exit_2_with_a_message_not_a_traceback(project, monkeypatch):
    import gapstate.proof.check

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(gapstate.proof.check, "check", exhausted)
    result = run("check", "--format", "json")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("gapstate: error: ran out of memory: ") and "Traceback" not in result.output
    assert json.loads(result.stdout)["ok"] is False


OUTSIDE = "This first line is a secret\n"


@pytest.fixture
def outside(tmp_path):
    """A repository folder, and a file beside it (outside it) that must never be quoted."""
    repo = tmp_path / "repo"
    (repo / "spec").mkdir(parents=True)
    (tmp_path / "credentials").write_text(OUTSIDE, encoding="utf-8")
    return repo


@pytest.mark.parametrize("setting", ["spec", "generated"])
@pytest.mark.parametrize("kind", ["dotdot", "absolute", "link", "linked-folder"])
def test_a_setting_that_resolves_outside_the_settings_file_folder_exits_2_naming_it_and_reads_nothing_there(
        outside, monkeypatch, setting, kind):
    repo = outside
    target = {"dotdot": "../credentials", "absolute": str(repo.parent / "credentials"), "link": "spec/gap-state.md",
              "linked-folder": "spec/up/credentials"}[kind]
    if kind == "link":
        (repo / "spec" / "gap-state.md").symlink_to(repo.parent / "credentials")
    if kind == "linked-folder":
        (repo / "spec" / "up").symlink_to(repo.parent)
    value = json.dumps(target) if setting == "spec" else f"[{json.dumps(target)}]"
    (repo / "gapstate.toml").write_text(f"{setting} = {value}\n", encoding="utf-8")
    monkeypatch.chdir(repo)
    for args in (["check"], ["replay", "-"], ["graph"]):
        result = run(*args, "--format", "json") if args != ["graph"] else run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert f"gapstate.toml:1: {setting} names a file outside the folder of gapstate.toml (links followed)" in result.stderr
        assert "secret" not in result.output


def test_paths_inside_the_folder_tree_are_read_relative_to_the_settings_file_links_included(outside, monkeypatch):
    from gapstate.cli.config import settings

    repo = outside
    (repo / "spec" / "gap-state.md").write_text(SPEC_TEXT, encoding="utf-8")
    (repo / "table.md").symlink_to(repo / "spec" / "gap-state.md")  # a link that stays inside
    (repo / "gapstate.toml").write_text('spec = "table.md"\ngenerated = ["src/decider.rs", "py/decider.py"]\n', encoding="utf-8")
    (repo / "src").mkdir()
    monkeypatch.chdir(repo / "src")
    assert resolve_spec_path().path == "../table.md"
    assert settings().generated == ("decider.rs", "../py/decider.py")
    result = run("check")  # the spec is read; the generated files, listed but not written yet, are findings
    assert result.exit_code == 1
    assert "../py/decider.py is listed in `generated` but is not there" in result.stdout


@pytest.mark.parametrize("value", ['"src/decider.rs"', "[1]", '[""]'])
def test_generated_must_be_a_list_of_paths(outside, monkeypatch, value):
    from gapstate.cli.config import settings

    (outside / "gapstate.toml").write_text(f"generated = {value}\n", encoding="utf-8")
    monkeypatch.chdir(outside)
    with pytest.raises(GapstateError, match="generated must be"):
        settings()


@pytest.mark.parametrize("name", ["pyproject.toml", "gapstate.toml", ".gapstate.toml"])
@pytest.mark.parametrize("kind", ["folder", "fifo", "dangling"])
def test_a_settings_file_that_is_a_folder_a_fifo_or_a_link_to_nothing_is_an_error_not_passed_over(project, name, kind):
    import os

    where = project / "src" / name
    if kind == "folder":
        where.mkdir()
    elif kind == "fifo":
        os.mkfifo(where)
    else:
        where.symlink_to(project / "nothing")
    result = run("check")  # a FIFO is never opened for reading: that could block
    assert result.exit_code == 2
    why = {"folder": "is a directory, not a file", "fifo": "is a named pipe (FIFO)", "dangling": "a symbolic link to nothing"}
    assert result.stderr.startswith(f"gapstate: error: ../{name}: {why[kind]}")


def _spec_commands(folder):
    """Each command that reads a spec, as a user runs it in `folder` without naming one."""
    import sys

    from .support import ROOM_LOOP

    trace = folder / "t.jsonl"
    trace.write_text('{"event": "busy_start"}\n', encoding="utf-8")
    return {
        "check": ["check"],
        "replay": ["replay", str(trace)],
        "fuzz": ["fuzz", "--examples", "1", "--seed", "1"],
        "witness": ["witness", "CLEAR|busy_end|-"],
        "explain": ["explain", "CLEAR|busy_end|-"],
        "coverage": ["coverage", str(trace)],
        "graph": ["graph"],
        "vectors": ["vectors", str(folder / "out")],
        "conform": ["conform", "--replay", str(trace), "--", sys.executable, str(ROOM_LOOP)],
        "gen": ["gen", "python", str(folder / "decider.py")],
        # a copy never fires: nothing to check; and in process, with no pool of workers started for it
        "mutate": ["mutate", "--kind", "duplicated", "--jobs", "1"],
    }


def test_every_command_that_takes_spec_takes_require_spec(tmp_path):
    import click

    from gapstate.cli import main

    context = click.Context(main)
    takes = {}
    for name in main.list_commands(context):
        options = {option for param in main.get_command(context, name).params for option in param.opts}
        if "--spec" in options and name != "init":  # init's --spec names the spec to configure: it reads none
            takes[name] = "--require-spec" in options
    assert set(takes) == set(_spec_commands(tmp_path))  # so the tests below run each of them
    assert takes and all(takes.values()), takes


def test_every_command_says_on_stderr_that_it_read_the_bundled_example_and_names_it_in_its_summary(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, args in _spec_commands(tmp_path).items():
        result = run(*args)
        assert result.exit_code == 0, (name, result.output)
        said = unwrapped(result.stderr)
        assert said[0].startswith("gapstate: warning: no spec given and none configured, so this "), name
        assert "the example bundled with gapstate, not your spec" in said[0], name
        assert said[-1].startswith(f"gapstate {name}: {BUNDLED_NAME}"), (name, said[-1])
        assert sum(line.startswith(f"gapstate {name}: ") for line in said) == 1  # the warning is no second summary
        refused = run(*args[:1], "--require-spec", *args[1:])
        assert refused.exit_code == 2, name
        assert refused.stdout == "" and "--require-spec refuses to read the bundled example" in refused.stderr, name


def test_a_given_or_configured_spec_is_named_in_the_summary_without_a_warning(project):
    (project / "tables" / "gap.md").write_text(SPEC_TEXT, encoding="utf-8")
    for name, args in _spec_commands(project).items():
        result = run(*args[:1], "--require-spec", *args[1:])
        assert result.exit_code == 0, (name, result.output)
        assert "warning" not in result.stderr and "bundled" not in result.stderr, name
        assert result.stderr.splitlines()[-1].startswith(f"gapstate {name}: ../../tables/gap.md"), name


def test_a_table_in_the_repository_that_nothing_configures_is_named_with_the_line_to_add(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "gap-state.md").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "README.md").write_text("Prose, and a code block:\n\n```\nmake\n```\n", encoding="utf-8")
    (tmp_path / ".venv" / "lib").mkdir(parents=True)  # an install's copy is nobody's spec
    (tmp_path / ".venv" / "lib" / "gap-state.md").write_text(SPEC_TEXT, encoding="utf-8")
    (tmp_path / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "src" / "deep")
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"event": "busy_start"}\n', encoding="utf-8")
    result = run("replay", str(trace))
    notes = [line for line in unwrapped(result.stderr) if line.startswith("gapstate: note: ")]
    assert notes == [("gapstate: note: ../../spec/gap-state.md holds a gap-state table that no setting names; "
                      'to read it, add `spec = "spec/gap-state.md"` to ../../gapstate.toml')]
    (tmp_path / "gapstate.toml").write_text('spec = "spec/gap-state.md"\n', encoding="utf-8")  # as the note says
    assert run("check").exit_code == 1  # now the repository's (broken) table, not the bundled one
    assert "note" not in run("check").stderr


def test_the_line_to_add_goes_into_the_settings_file_that_names_no_spec(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.gapstate]\nmax-configurations = 1000\n', encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / 'a "quoted" table.md').write_text(SPEC_TEXT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    notes = [line for line in unwrapped(run("graph").stderr) if line.startswith("gapstate: note: ")]
    assert notes == [('gapstate: note: docs/a "quoted" table.md holds a gap-state table that no setting names; '
                      'to read it, add `spec = "docs/a \\"quoted\\" table.md"` to [tool.gapstate] in pyproject.toml')]


def test_the_fallback_example_on_the_cli_page_is_what_replay_says(tmp_path, monkeypatch):
    import re

    from .support import ROOT

    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    block = re.search(r"```console fragment\n\$ gapstate replay trace.jsonl\n(.*?)```\n", page, flags=re.DOTALL)[1]
    (tmp_path / ".git").mkdir()
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "gap-state.md").write_text(SPEC_TEXT, encoding="utf-8")
    (tmp_path / "trace.jsonl").write_text('{"event": "busy_start"}\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    said = run("replay", "trace.jsonl").stderr.splitlines()
    assert said[:-1] == block.splitlines()


def test_a_table_outside_the_folder_of_the_settings_file_there_is_named_with_spec_instead(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "gap-state.md").write_text(SPEC_TEXT, encoding="utf-8")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "gapstate.toml").write_text("max-configurations = 1000\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "app")
    notes = [line for line in unwrapped(run("graph").stderr) if line.startswith("gapstate: note: ")]
    assert notes == [("gapstate: note: ../spec/gap-state.md holds a gap-state table that no setting names; "
                      "to read it, pass --spec ../spec/gap-state.md")]  # app/gapstate.toml may not name a file above it


def test_the_settings_example_on_the_cli_page_is_read_as_it_says(tmp_path, monkeypatch):
    import re

    from gapstate.cli.config import settings

    from .support import ROOT

    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    example = re.search(r"```toml\n(# gapstate.toml\n.*?)```\n", page, flags=re.DOTALL)[1]
    (tmp_path / "gapstate.toml").write_text(example, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert settings().spec == "spec/gap-state.md" and max_configurations(None) == 5_000_000
    assert settings().generated == ("src/decider.rs",)


@given(st.text(st.characters(blacklist_categories=("Cs",))))
def test_toml_string_reads_back_as_the_text(text):
    import tomllib

    from gapstate.cli.config import toml_string

    assert tomllib.loads(f"spec = {toml_string(text)}\n") == {"spec": text}


def test_a_table_whose_name_is_not_utf8_is_passed_over_not_a_crash(tmp_path, monkeypatch):
    import os

    (tmp_path / ".git").mkdir()
    os.makedirs(os.fsencode(tmp_path) + b"/sp\xffec")
    with open(os.fsencode(tmp_path) + b"/sp\xffec/gap-state.md", "w", encoding="utf-8") as handle:
        handle.write(SPEC_TEXT)
    monkeypatch.chdir(tmp_path)
    result = run("graph")
    assert result.exit_code == 0 and "note" not in result.stderr


def test_a_number_too_long_for_python_in_a_settings_file_exits_2_at_its_line(tmp_path, monkeypatch):
    (tmp_path / "gapstate.toml").write_text('spec = "x.md"\nmax-configurations = 1' + "0" * 5000 + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("check")
    assert result.exit_code == 2
    assert result.stderr.startswith("gapstate: error: gapstate.toml:2: not usable TOML: a number of 4,300 digits or more")
