"""Opening the files gapstate reads, and writing what it writes, with one set of messages.

A path of `-` is standard input. Every failure is a GapstateError naming the
file, and for a byte that is not UTF-8 its line and column. A file or a
folder is written whole or not at all.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, BinaryIO

from gapstate.errors import GapstateError

if TYPE_CHECKING:  # pathlib costs a few ms at startup, which classify (no spec) avoids
    from pathlib import Path

STDIN = "-"


def label(path: str | Path) -> str:
    """How messages name the input."""
    return "<stdin>" if str(path) == STDIN else str(path)


def open_binary(path: str | Path) -> BinaryIO:
    name = str(path)
    if name == STDIN:
        return sys.stdin.buffer
    if not name:
        raise GapstateError("an empty path names no file", file="''")
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise GapstateError("no such file", file=name) from None
    except IsADirectoryError:
        raise GapstateError("is a directory, not a file", file=name) from None
    except OSError as error:
        raise GapstateError(f"cannot read: {error.strerror}", file=name) from None


def not_utf8(data: bytes, error: UnicodeDecodeError, name: str, first_line: int = 1) -> GapstateError:
    """The error for undecodable bytes, at the line and column of the first bad byte."""
    at = error.start
    line = first_line + data.count(b"\n", 0, at)
    column = at - (data.rfind(b"\n", 0, at) + 1) + 1
    return GapstateError(f"not UTF-8: byte 0x{data[at]:02x} cannot be decoded", file=name, line=line, column=column)


def read_text(path: str | Path) -> str:
    """The whole file as text; a byte-order mark is accepted and dropped."""
    return decode_text(read_bytes(path), label(path))


def decode_text(data: bytes, name: str) -> str:
    """A file's bytes as text (a byte-order mark dropped); GapstateError at the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise not_utf8(data, error, name) from None


def write_atomically(path: str | Path, data: bytes) -> None:
    """Replace the file's bytes all at once: a temporary file beside it, then a rename.

    A reader sees the old file or the new one, never half of either. A
    symbolic link is followed, so the file it names is replaced and the link
    stays; the file's permissions are kept.
    """
    import os
    import tempfile

    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    try:
        handle, temporary = tempfile.mkstemp(prefix=".gapstate-", suffix=".tmp", dir=folder)
    except OSError as error:
        raise GapstateError(f"cannot write beside it: {error.strerror}", file=str(path)) from None
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        try:
            mode = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:  # a new file: as open() would make it, not mkstemp's 0600
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except OSError as error:
        os.unlink(temporary) if os.path.exists(temporary) else None
        raise GapstateError(f"cannot write: {error.strerror}", file=str(path)) from None


def read_bytes(path: str | Path) -> bytes:
    """The whole file as bytes."""
    handle = open_binary(path)
    try:
        return handle.read()
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()


def write_folder(outdir: str | Path, files: dict[str, str], force: bool) -> None:
    """Write `files` (name -> text) into a temporary folder beside `outdir`, then rename it into place.

    A failure leaves nothing half-written. An existing `outdir` that is not
    empty is refused unless `force`; then it is renamed aside, the new one
    renamed in, and only then is the old one removed.
    """
    import os
    import shutil
    import tempfile
    from pathlib import Path  # here, not at the top: classify starts without pathlib

    name = str(outdir)
    target = Path(outdir)
    if target.exists() or target.is_symlink():
        if not target.is_dir():
            raise GapstateError("exists and is not a folder", file=name)
        if any(target.iterdir()) and not force:
            raise GapstateError("exists and is not empty (--force replaces it)", file=name)
    parent = target.absolute().parent
    if not parent.is_dir():
        raise GapstateError(f"cannot write here: {parent} is not a folder", file=name)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=parent))
    except OSError as error:
        raise GapstateError(f"cannot write here: {error.strerror}", file=name) from None
    try:
        mask = os.umask(0)
        os.umask(mask)
        staging.chmod(0o777 & ~mask)  # mkdtemp makes it private; the suite is not
        for file, text in files.items():
            (staging / file).write_text(text, encoding="utf-8")
        if target.exists() and any(target.iterdir()):
            aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=parent))
            os.replace(target, aside)  # onto the empty folder mkdtemp made
            try:
                os.replace(staging, target)
            except OSError:
                os.replace(aside, target)
                raise
            shutil.rmtree(aside, ignore_errors=True)
        else:
            os.replace(staging, target)  # over an empty folder too
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise GapstateError(f"cannot write: {error.strerror or error}", file=name) from None


def read_revision(revision: str, path: str | Path) -> tuple[str, str]:
    """`path` as it was at git `revision`: (a label such as `origin/main:spec/gap-state.md`, its text).

    git runs in the file's folder, with the path relative to it, so any
    path inside a work tree works; a symbolic link is followed to the file
    git tracks. No git, no repository, an unknown revision or a file the
    revision lacks is a GapstateError.
    """
    import subprocess
    from pathlib import Path  # here, not at the top: classify starts without pathlib

    target = Path(path).resolve()
    name = f"{revision}:{path}"
    if revision.startswith("-") or not revision:
        raise GapstateError(f"'{revision}' is not a revision", file=name)
    if not target.parent.is_dir():
        raise GapstateError(f"no such folder '{target.parent}'", file=name)
    try:
        done = subprocess.run(["git", "show", f"{revision}:./{target.name}"], cwd=target.parent, capture_output=True)
    except FileNotFoundError:
        raise GapstateError("git is not installed (or not on PATH); `diff --git` needs it", file=name) from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GapstateError(f"git cannot show it: {reason[-1] if reason else f'git exited {done.returncode}'}", file=name)
    try:
        return name, done.stdout.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise not_utf8(done.stdout, error, name) from None
