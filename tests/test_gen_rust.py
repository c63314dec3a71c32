"""`gapstate gen rust`: a crate whose one `match` has an arm per row, built and tested by cargo where it is installed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from gapstate.gen.rust import crate_name, literal

from .gen_support import FEWER_REQUESTS, SPEC, written
from .support import SPEC_PATH, run

CARGO = shutil.which("cargo")
needs_cargo = pytest.mark.skipif(CARGO is None, reason="cargo is not on the PATH (the Rust toolchain is not installed)")


@pytest.fixture(scope="module")
def crate(tmp_path_factory):
    out = tmp_path_factory.mktemp("rust") / "decider"
    return out, written("rust", out)


def _arms(lib: str) -> list[str]:
    step = lib[lib.index("pub fn step"): lib.index("pub fn apply")]
    return re.findall(r"^            \((.*)\) => \{$", step, re.MULTILINE)


def test_the_match_has_one_arm_per_row_and_no_catch_all(crate):
    _, files = crate
    lib = files["src/lib.rs"]
    arms = _arms(lib)
    assert len(arms) == len(SPEC.table.rows)
    assert not any(re.fullmatch(r"[_, ]*", arm) for arm in arms)
    assert "_ =>" not in lib[lib.index("// one arm per row"): lib.index("pub fn apply")]
    assert "#![deny(unreachable_patterns)]" in lib


def test_a_star_row_matches_every_state_and_a_guard_it_does_not_name_either_way(crate):
    _, files = crate
    arms = _arms(files["src/lib.rs"])
    assert "_, Event::LossSilent { .. }, _, _, _, _, _, _, _" in arms
    assert "State::Open, Event::FloorReleased { .. }, _, false, _, true, true, _, _" in arms


def test_the_crate_depends_on_nothing(crate):
    _, files = crate
    toml = files["Cargo.toml"]
    assert toml.split("[dependencies]\n")[1].startswith("\n[profile")
    assert "use " not in files["src/lib.rs"].replace("use std::", "")


def test_the_vectors_are_rust_tests(crate):
    _, files = crate
    assert files["tests/vectors.rs"].count("#[test]") == 74


def test_names_and_text_become_safe_rust():
    assert crate_name("My Decider-2") == "my_decider_2"
    assert crate_name("123") == "gap_state" and crate_name("test") == "test_decider"
    assert literal('a"b\\c\n\u00e9') == '"a\\"b\\\\c\\u{a}\\u{e9}"'


# With the toolchain -----------------------------------------------------------------


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """The bundled table's crate, built once a test session (cargo on two shared cores is slow)."""
    out = tmp_path_factory.mktemp("built") / "decider"
    written("rust", out)
    subprocess.run([CARGO, "build", "--release", "--offline", "--quiet"], cwd=out, check=True, capture_output=True)
    return out


def _edited(built, tmp_path, edit, build: bool = False):
    """A copy of the built crate with src/lib.rs edited by hand (`edit` takes and returns its text); its build's result if `build`."""
    edited = tmp_path / "edited"
    shutil.copytree(built, edited, symlinks=True, ignore=None if not build else shutil.ignore_patterns("target"))
    lib = edited / "src/lib.rs"
    lib.write_text(edit(lib.read_text(encoding="utf-8")), encoding="utf-8")
    if not build:
        return edited
    return subprocess.run([CARGO, "build", "--release", "--offline", "--quiet"], cwd=edited, capture_output=True, text=True)


def _once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


@pytest.mark.slow
@needs_cargo
def test_cargo_test_replays_every_vector(built):
    done = subprocess.run([CARGO, "test", "--release", "--offline", "--quiet"], cwd=built, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "74 passed" in done.stdout


@pytest.mark.slow
@needs_cargo
def test_a_crate_with_an_arm_deleted_does_not_compile(built, tmp_path):
    def delete(lib):
        return lib[: lib.index("            // line 196:")] + lib[lib.index("            // line 197:"):]

    done = _edited(built, tmp_path, delete, build=True)
    assert done.returncode != 0
    assert "E0004" in done.stderr and "non-exhaustive patterns" in done.stderr


@pytest.mark.slow
@needs_cargo
def test_verify_proves_the_built_crate_is_the_table(built):
    result = run("gen", "--verify", str(built), "--spec", str(SPEC_PATH), "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["ok"] and document["target"] == "rust" and document["configurations"] == 284


@pytest.mark.slow
@needs_cargo
def test_conform_drives_the_crates_binary_with_no_adapter_written(built):
    binary = built / "target" / "release" / "decider"
    result = run("conform", "--spec", str(SPEC_PATH), "--examples", "20", "--format", "json", "--", str(binary))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["vectors"] == 74


@pytest.mark.slow
@needs_cargo
def test_an_arm_changed_by_hand_is_the_first_disagreement(built, tmp_path):
    def change(lib):
        arm = lib.index("            // line 213:")
        return lib[:arm] + lib[arm:].replace("self.state = State::Requested;", "self.state = State::Due;", 1)

    edited = _edited(built, tmp_path, change)
    result = run("gen", "--verify", str(edited), "--spec", str(SPEC_PATH), "--format", "json")
    assert result.exit_code == 1, result.output
    found = json.loads(result.stdout)["disagreement"]
    assert found["trace"][-1]["event"] == "send_ok" and found["differs"][0] == "state"
    assert (found["expected"]["state"], found["actual"]["state"]) == ("REQUESTED", "DUE")


@pytest.mark.slow
@needs_cargo
def test_a_guard_dropped_from_an_arm_leaves_the_next_row_unreachable_and_the_crate_does_not_compile(built, tmp_path):
    arm = "(State::Sending, Event::SendOk { .. }, _, _, _, _, _, false, _) =>"  # line 213: !late_loss
    done = _edited(built, tmp_path, lambda lib: _once(lib, arm, arm.replace("false", "_")), build=True)
    assert done.returncode != 0
    assert "unreachable pattern" in done.stderr


@pytest.mark.slow
@needs_cargo
def test_a_guard_read_wrong_by_hand_is_the_first_disagreement_as_a_trace_that_replays(built, tmp_path):
    reading = "probe.found()"
    edited = _edited(built, tmp_path, lambda lib: _once(lib, reading, "false"))
    result = run("gen", "--verify", str(edited), "--spec", str(SPEC_PATH), "--format", "json")
    assert result.exit_code == 1, result.output
    found = json.loads(result.stdout)["disagreement"]
    assert found["trace"][-1]["event"] == "loss_voiced" and found["expected"]["actions"] == ["note_dup"]
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(json.dumps(item) + "\n" for item in found["trace"]), encoding="utf-8")
    replayed = run("replay", str(trace), "--spec", str(SPEC_PATH), "--format", "json")
    assert replayed.exit_code == 0 and json.loads(replayed.stdout)["steps"][-1]["actions"] == ["note_dup"]


@pytest.mark.slow
@needs_cargo
def test_a_mutated_table_leaves_the_old_build_diverging_and_check_reports_its_crate_stale(built, tmp_path, monkeypatch):
    (tmp_path / "gap-state.md").write_text(FEWER_REQUESTS, encoding="utf-8")
    (tmp_path / "gapstate.toml").write_text('spec = "gap-state.md"\ngenerated = ["decider"]\n', encoding="utf-8")
    shutil.copytree(built, tmp_path / "decider", symlinks=True)
    monkeypatch.chdir(tmp_path)
    checked = run("check", "--format", "json")
    assert checked.exit_code == 1
    assert [(f["kind"], f["path"]) for f in json.loads(checked.stdout)["findings"]] == [("stale_generated", "decider")]
    binary = str(tmp_path / "decider" / "target" / "release" / "decider")
    old = run("conform", "--format", "json", "--", binary)
    assert old.exit_code == 1 and json.loads(old.stdout)["divergence"]
    assert run("check", "--fix").exit_code == 0
    subprocess.run([CARGO, "build", "--release", "--offline", "--quiet"], cwd=tmp_path / "decider", check=True, capture_output=True)
    new = run("conform", "--examples", "20", "--", binary)
    assert new.exit_code == 0, new.output


@pytest.mark.slow
@needs_cargo
def test_the_crates_set_of_ids_keeps_thousands_of_ids_of_any_length_through_its_growth(built, tmp_path):
    ids = [f"iv-{n}" + "x" * (n % 40) + ("é" if n % 7 == 0 else "") for n in range(1, 3001)]  # 4 to 46 bytes
    ids[:0] = ["a", "\u0000", "é", "a\u0000", "aaaaaaa", "aaaaaaaa", "aaaaaaaaa", "aaaaaaa\u0000"]  # kept in a slot up to 8 bytes
    trace, t = [], 0
    for n, ident in enumerate(ids):
        for again in (ident, ids[n // 2], ids[(n * 7) % (n + 1)]):  # new, then two repeats of earlier ids
            t += 1
            trace.append({"event": "loss_voiced", "t": t, "id": again})
    path = tmp_path / "ids.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in trace), encoding="utf-8")
    binary = str(built / "target" / "release" / "decider")
    result = run("conform", "--spec", str(SPEC_PATH), "--replay", str(path), "--format", "json", "--", binary)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["events"] == 3 * len(ids)
