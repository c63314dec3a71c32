"""What gapstate writes: only regular files that are its to replace, whole, keeping mode, owner and line endings."""

from __future__ import annotations

import os
import signal
import stat

import pytest

from gapstate.errors import GapstateError
from gapstate.files.writer import write_atomically

from .support import SPEC_TEXT, run, variant

BUSY = variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")


def leftovers(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.startswith(".gapstate-"))


@pytest.mark.parametrize("make, words", [
    (lambda p: (os.mkfifo(p / "pipe"), p / "pipe")[1], "is a named pipe"),
    (lambda p: "/dev/null", "is a device"),
])
def test_a_device_or_fifo_is_refused_and_left_as_it_was_also_for_root(tmp_path, make, words):
    path = make(tmp_path)
    before = os.stat(path)
    with pytest.raises(GapstateError, match=words):
        write_atomically(path, b"data")
    after = os.stat(path)
    assert (stat.S_IFMT(after.st_mode), after.st_ino) == (stat.S_IFMT(before.st_mode), before.st_ino)
    assert leftovers(tmp_path) == []


def test_a_link_is_followed_to_its_file_when_asked_and_refused_otherwise(tmp_path):
    (tmp_path / "real.txt").write_text("old", encoding="utf-8")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    write_atomically(tmp_path / "link.txt", b"new")
    assert (tmp_path / "link.txt").is_symlink() and (tmp_path / "real.txt").read_text(encoding="utf-8") == "new"
    with pytest.raises(GapstateError, match="symbolic link"):
        write_atomically(tmp_path / "link.txt", b"newer", follow_links=False)
    (tmp_path / "dangling.txt").symlink_to(tmp_path / "nowhere.txt")
    with pytest.raises(GapstateError, match="a symbolic link to nothing"):
        write_atomically(tmp_path / "dangling.txt", b"x")
    assert not (tmp_path / "nowhere.txt").exists()


def test_a_read_only_file_is_refused_as_an_editor_would_also_for_root(tmp_path):
    path = tmp_path / "spec.md"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o444)
    with pytest.raises(GapstateError, match="is read-only"):
        write_atomically(path, b"new")
    assert path.read_text(encoding="utf-8") == "old"


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another owner")
def test_the_mode_and_owner_are_kept(tmp_path):
    path = tmp_path / "spec.md"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o640)
    os.chown(path, 4321, 4322)
    write_atomically(path, b"new")
    after = os.stat(path)
    assert (stat.S_IMODE(after.st_mode), after.st_uid, after.st_gid) == (0o640, 4321, 4322)


def test_a_ctrl_c_while_writing_waits_for_the_rename_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "out.txt"
    path.write_text("old", encoding="utf-8")
    sync = os.fsync

    def interrupted(fd: int) -> None:  # the Ctrl-C lands while the temporary file exists
        os.kill(os.getpid(), signal.SIGINT)
        sync(fd)

    monkeypatch.setattr(os, "fsync", interrupted)
    # Ctrl-C as in a terminal: a run started as a background job (`pytest &`
    # without job control, as CI runners do) inherits SIGINT ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            write_atomically(path, b"new")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert path.read_text(encoding="utf-8") == "new" and leftovers(tmp_path) == []


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_graph_update_keeps_the_line_endings(tmp_path, newline):
    spec = tmp_path / "spec.md"
    text = SPEC_TEXT.replace("\n", newline) + newline + "<!-- gapstate:graph -->" + newline
    spec.write_bytes(text.encode("utf-8"))
    result = run("graph", "--spec", str(spec), "--update")
    assert result.exit_code == 0, result.output
    written = spec.read_bytes().decode("utf-8")
    assert "```mermaid" in written
    if newline == "\r\n":
        assert written.count("\n") == written.count("\r\n")  # the new block's lines too
    elif newline == "\r":  # classic Mac OS: no LF comes in, and the spec still reads the same
        assert "\n" not in written and written.count("\r") > text.count("\r")
        assert run("check", "--spec", str(spec)).exit_code == 0
    else:
        assert "\r" not in written


def test_fuzz_save_refuses_a_device_before_the_run_and_a_failed_save_still_prints_the_trace(tmp_path, monkeypatch):
    spec = tmp_path / "busy.md"
    spec.write_text(BUSY, encoding="utf-8")
    refused = run("fuzz", "--spec", str(spec), "--seed", "1", "--save", "/dev/null")
    assert refused.exit_code == 2 and "is a device" in refused.stderr and refused.stdout == ""

    import gapstate.files.writer

    def full(path, data, follow_links=True):
        raise GapstateError("cannot write: No space left on device", file=str(path))

    monkeypatch.setattr(gapstate.files.writer, "write_atomically", full)
    result = run("fuzz", "--spec", str(spec), "--seed", "1", "--save", str(tmp_path / "found.jsonl"))
    assert result.exit_code == 2
    assert "shrunk trace" in result.stdout and '{"event"' in result.stdout  # the counterexample is not lost
    assert "No space left on device" in result.stderr


@pytest.mark.parametrize("meanwhile", ["rewritten", "removed", "a folder", "a fifo"])
def test_a_write_made_from_bytes_the_file_no_longer_holds_is_refused_just_before_the_rename(tmp_path, monkeypatch, meanwhile):
    import tempfile

    path = tmp_path / "spec.md"
    path.write_bytes(b"old\n")
    making = tempfile.mkstemp

    def mkstemp(*args, **kwargs):  # the temporary file is made: someone else acts on the file meanwhile
        made = making(*args, **kwargs)
        path.unlink()
        if meanwhile == "rewritten":
            path.write_bytes(b"theirs\n")
        elif meanwhile == "a folder":
            path.mkdir()
        elif meanwhile == "a fifo":
            os.mkfifo(path)  # never opened: that would block
        return made

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    with pytest.raises(GapstateError, match="changed while gapstate was reading it.*nothing was rewritten"):
        write_atomically(path, b"new\n", expected=b"old\n")
    assert leftovers(tmp_path) == []
    if meanwhile == "rewritten":
        assert path.read_bytes() == b"theirs\n"
    elif meanwhile == "removed":
        assert not os.path.lexists(path)  # not made again
    else:
        assert not path.is_file()
