"""The stamp a generated file carries, and what each target writes."""

from __future__ import annotations

from gapstate.gen.targets import command, stamp, target_of

from .gen_support import SHA, written


def test_a_generated_file_stamp_reads_back(tmp_path):
    files = written("python", tmp_path / "decider.py")
    found = stamp(files[""][:4096])
    assert found == ("python", SHA, "spec/gap-state.md")


def test_a_crate_carries_its_stamp_in_its_library(tmp_path):
    files = written("rust", tmp_path / "decider")
    assert set(files) == {"Cargo.toml", "src/lib.rs", "src/main.rs", "tests/vectors.rs", ".gitignore"}
    assert stamp(files["src/lib.rs"][:4096]).target == "rust"


def test_a_file_gapstate_did_not_write_has_no_stamp():
    assert stamp("import os\n# spec: x\n") is None
    assert stamp(f"gapstate-generated: target=cobol spec-sha256={SHA}") is None


def test_a_folder_is_a_crate_and_a_py_file_a_module():
    assert target_of("out/decider.py", is_dir=False) == "python"
    assert target_of("out/decider", is_dir=True) == "rust"


def test_the_regenerating_command_quotes_what_a_shell_would_split():
    assert command("python", "my dir/d.py", "spec.md") == "gapstate gen python 'my dir/d.py' --spec spec.md"
