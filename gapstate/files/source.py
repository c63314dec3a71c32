"""Opening the files gapstate reads, with one set of messages.

A path of `-` is standard input. Every failure is a GapstateError naming the
file, and for a byte that is not UTF-8 its line and column. Only regular
files are read (a FIFO or a device such as /dev/zero could block or never
end), and no line may run past MAX_LINE bytes, found without holding more
than that of it. Lines are counted as editors and `grep -n` count them: LF
ends a line (a CR before it is part of the line end), and a lone CR, a form
feed, U+0085 or U+2028 inside a line does not end it. One exception: a file
with CRs and no LF at all has classic Mac OS line ends, and there each CR
ends a line (`cr_ended`, `as_lf`), in every reader alike. Writing is
`files.writer`'s.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, AnyStr, BinaryIO

from gapstate.errors import GapstateError

if TYPE_CHECKING:  # pathlib costs a few ms at startup, which classify (no spec) avoids
    from pathlib import Path

STDIN = "-"

# The longest line gapstate reads (spec, trace, report, manifest, answer):
# a file or stream with no line end can neither fill memory nor run forever.
MAX_LINE = 1 << 20
_BLOCK = 1 << 20  # bytes read at once


def too_long(name: str, line: int, limit: int = MAX_LINE) -> GapstateError:
    """The error for a line past `limit` bytes."""
    return GapstateError(f"this line runs past {limit} bytes, the longest line gapstate reads", file=name, line=line)


def cr_ended(data: AnyStr) -> bool:
    """Whether `data` holds a CR and no LF: a file with classic Mac OS line ends, where CR ends a line."""
    cr, lf = ("\r", "\n") if isinstance(data, str) else (b"\r", b"\n")
    return cr in data and lf not in data


def as_lf(data: AnyStr) -> AnyStr:
    """A CR-ended file (`cr_ended`) with its CRs made LFs; any other file as it is.

    Only the line ends change, so every line keeps its number and its
    columns, and a reader that splits at LF alone reads both kinds.
    """
    if not cr_ended(data):
        return data
    return data.replace("\r", "\n") if isinstance(data, str) else data.replace(b"\r", b"\n")


def text_lines(text: str) -> list[str]:
    """The lines of a text as editors and `grep -n` number them: split at LF only, a CR before it dropped.

    `str.splitlines` also breaks at a lone CR, form feed, U+0085, U+2028 and
    others, which would shift every later line number. A CR-ended text
    (`cr_ended`) is split at its CRs.
    """
    lines = as_lf(text).split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def label(path: str | Path) -> str:
    """How messages name the input."""
    return "<stdin>" if str(path) == STDIN else str(path)


def inside_tree(path: str | Path, folder: str | Path) -> bool:
    """Whether `path` resolves, links followed, inside the folder tree of `folder` (itself included).

    The one test of "inside" for what input names: a setting's path, a
    manifest's entry, a trace folder's links.
    """
    try:
        real, top = os.path.realpath(path), os.path.realpath(folder)
        return os.path.commonpath([top, real]) == top
    except ValueError:  # a NUL in it, or another drive
        return False


def _not_regular(mode: int) -> str | None:
    """Why a file of this mode cannot be read as input, or None for a regular file."""
    import stat

    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory, not a file"
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO), not a regular file (`-` reads standard input)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file"
    return "is not a regular file"


def open_binary(path: str | Path) -> BinaryIO:
    """A regular file opened for reading (`-`: standard input); GapstateError naming it otherwise.

    The type is checked before opening (opening a FIFO blocks until a writer
    comes, opening some devices acts on them) and again on what was opened.
    """
    import os

    name = str(path)
    if name == STDIN:
        return sys.stdin.buffer
    if not name:
        raise GapstateError("an empty path names no file", file="''")
    try:
        why = _not_regular(os.stat(path).st_mode)
        if why is None:
            handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
            why = _not_regular(os.fstat(handle).st_mode)
            if why is not None:
                os.close(handle)
    except FileNotFoundError:
        raise GapstateError("a symbolic link to nothing" if os.path.islink(name) else "no such file", file=name) from None
    except NotADirectoryError:
        raise GapstateError("no such file (a folder on its path is a file)", file=name) from None
    except (ValueError, OSError) as error:  # ValueError: a NUL in the path
        raise GapstateError(f"cannot read: {getattr(error, 'strerror', None) or error}", file=name) from None
    if why is not None:
        raise GapstateError(why, file=name)
    os.set_blocking(handle, True)
    return os.fdopen(handle, "rb")


def open_lines(path: str | Path, limit: int = MAX_LINE) -> Any:
    """`open_binary`, read with LF line ends also when the file's are CR alone (`cr_ended`)."""
    return _LineEnds(open_binary(path), label(path), limit)


class _LineEnds:
    """A stream read as LF-ended: a CR-ended one (CRs and no LF) has its CRs read as LFs.

    Which it is shows by the first LF, the end, or more than `limit` bytes
    with a CR and no LF (then, by LF's rule, the first line is too long, so
    only a CR-ended file can still be usable: an LF found later makes it that
    too-long line after all). Until then the bytes are held, at most `limit`
    and a block; then they are handed on a block at a time.
    """

    def __init__(self, handle: BinaryIO, name: str, limit: int):
        self.handle, self.name, self.limit = handle, name, limit
        self.cr: bool | None = None
        self.held = b""

    def read(self, size: int = -1) -> bytes:
        size = size if size > 0 else self.limit
        while self.cr is None:
            block = self.handle.read(size)
            self.held += block
            if b"\n" in self.held:
                self.cr = False
            elif not block or len(self.held) > self.limit:
                self.cr = b"\r" in self.held
        if self.held:
            out, self.held = self.held[:size], self.held[size:]
        else:
            out = self.handle.read(size)
        if not self.cr:
            return out
        if b"\n" in out:
            raise too_long(self.name, 1, self.limit)
        return out.replace(b"\r", b"\n")

    def close(self) -> None:
        if self.handle is not sys.stdin.buffer:
            self.handle.close()


def not_utf8(data: bytes, error: UnicodeDecodeError, name: str, first_line: int = 1) -> GapstateError:
    """The error for undecodable bytes, at the line and column of the first bad byte."""
    at = error.start
    before = as_lf(data)[:at] if cr_ended(data) else data[:at]
    line = first_line + before.count(b"\n")
    column = len(before) - (before.rfind(b"\n") + 1) + 1
    return GapstateError(f"not UTF-8: byte 0x{data[at]:02x} cannot be decoded", file=name, line=line, column=column)


def long_number(text: str) -> int | None:
    """The offset of the first run of more digits than Python converts (4,300), if there is one."""
    import re

    digits = sys.get_int_max_str_digits()
    found = re.search(rf"(?<![0-9])[0-9]{{{digits + 1}}}", text) if digits else None  # each run tried once
    return found.start() if found else None


def parse_json(text: str, name: str) -> Any:
    """A JSON document (report, manifest); GapstateError at the line and column where it cannot be used."""
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise GapstateError(f"not valid JSON: {error.msg}", name, error.lineno, error.colno) from None
    except RecursionError:
        raise GapstateError("not usable JSON: nested too deeply", name, 1, 1) from None
    except ValueError:  # a number Python will not convert
        at = long_number(text) or 0
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        raise GapstateError("not usable JSON: a number too long to be read", name, line, column) from None


def read_text(path: str | Path) -> str:
    """The whole file as text; a byte-order mark is accepted and dropped, CR line ends are made LF (`as_lf`)."""
    return decode_text(read_bytes(path), label(path))


def decode_text(data: bytes, name: str) -> str:
    """A file's bytes as text (a byte-order mark dropped, CR line ends made LF: `as_lf`); GapstateError at the first byte that is not UTF-8."""
    try:
        return as_lf(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise not_utf8(data, error, name) from None


def read_bytes(path: str | Path, limit: int = MAX_LINE) -> bytes:
    """The whole file as bytes; GapstateError at the first line longer than `limit` bytes."""
    handle = open_binary(path)
    try:
        return read_bounded(handle, label(path), limit)
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()


def read_bounded(handle: BinaryIO, name: str, limit: int = MAX_LINE) -> bytes:
    """Everything `handle` holds, a block at a time, stopping at the first line past `limit` bytes.

    The check is on each block's pieces between line ends, so a line with no
    end (/dev/zero on standard input) is refused once `limit` bytes of it
    are read, never held whole. The line end is LF, or CR in a file with no
    LF (`cr_ended`): a first line too long by LF's count is counted again by
    CR's, and an LF found after that makes it too long after all.
    """
    blocks: list[bytes] = []
    line, pending, end = 1, 0, b"\n"  # the line the unfinished piece belongs to, the bytes of it read so far
    while True:
        block = handle.read(_BLOCK)
        if not block:
            return b"".join(blocks)
        if end == b"\r" and b"\n" in block:
            raise too_long(name, 1, limit)
        blocks.append(block)
        try:
            line, pending = _bounded(block, end, line, pending, name, limit)
        except GapstateError:
            if end == b"\r" or line != 1 or b"\n" in block or not any(b"\r" in held for held in blocks):
                raise
            end = b"\r"
            line, pending = _bounded(b"".join(blocks), end, 1, 0, name, limit)


def _bounded(block: bytes, end: bytes, line: int, pending: int, name: str, limit: int) -> tuple[int, int]:
    """After `block`: the line the unfinished piece belongs to and its length; too_long for a line past `limit`."""
    pieces = block.split(end)
    if len(pieces) == 1:
        pending += len(block)
    else:
        if pending + len(pieces[0]) > limit:
            raise too_long(name, line, limit)
        if max(map(len, pieces[1:-1]), default=0) > limit:
            offset = next(n for n, piece in enumerate(pieces[1:-1], start=1) if len(piece) > limit)
            raise too_long(name, line + offset, limit)
        line += len(pieces) - 1
        pending = len(pieces[-1])
    if pending > limit:
        raise too_long(name, line, limit)
    return line, pending


def _git(args: list[str], cwd: Any, name: str) -> Any:
    import subprocess

    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True)
    except FileNotFoundError:
        raise GapstateError("git is not installed (or not on PATH); `diff --git` needs it", file=name) from None


def _git_reason(done: Any) -> str:
    said = done.stderr.decode("utf-8", "replace").strip().split("\n")
    return said[-1] if said and said[-1] else f"git exited {done.returncode}"


def split_range(revision: str) -> tuple[str, str | None]:
    """`A..B` (or `A...B`, from their merge base) as git diff reads it: (old, new); one revision: (it, None).

    An empty side is HEAD, as in git. The new side None means the working tree.
    """
    for dots in ("...", ".."):
        if dots in revision:
            old, new = revision.split(dots, 1)
            return (f"{old or 'HEAD'}{dots}{new or 'HEAD'}" if dots == "..." else old or "HEAD"), new or "HEAD"
    return revision, None


def read_revision(revision: str, path: str | Path, tree: bool = False) -> tuple[str, str]:
    """`path` as it was at git `revision`: (a label such as `origin/main:spec/gap-state.md`, its text).

    `revision` is anything `git rev-parse` takes for a commit (`HEAD~1`, a
    tag, a hash), or `A...B` for the merge base of A and B; it is checked
    with `git rev-parse --verify REV^{commit}`, so a tree or a blob is
    refused. git is asked for `REV:PATH`, PATH taken relative to the top of
    the work tree that holds its folder (the folders on the way resolved,
    PATH's own last part never), so any path inside a work tree works. PATH
    must be a file at the revision, and with `tree` (the other side is the
    working tree) in the working tree too: a symbolic link on either side is
    refused, as a pull request could make the spec a link to another file
    and the file it names compared with itself. No git, no repository, a
    revision that names no commit or a file the revision lacks is a
    GapstateError.
    """
    from pathlib import Path  # here, not at the top: classify starts without pathlib

    given = Path(path)
    folder = given.absolute().parent.resolve()
    name = f"{revision}:{path}"
    if revision.startswith("-") or not revision:
        raise GapstateError(f"'{revision}' is not a revision", file=name)
    if not folder.is_dir():
        raise GapstateError(f"no such folder '{folder}'", file=name)
    if tree and given.is_symlink():
        raise GapstateError("is a symbolic link in the working tree; `diff --git` compares a file as git tracks it: "
                            "name the file itself (or compare two files with `diff OLD NEW`)", file=str(path))
    if "..." in revision:  # A...B: the commit where B left A
        done = _git(["merge-base", "--", *revision.split("...", 1)], folder, name)
        if done.returncode != 0:
            raise GapstateError(f"git finds no merge base: {_git_reason(done)}", file=name)
        commit = done.stdout.decode("ascii", "replace").strip()
    else:
        done = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], folder, name)
        if done.returncode != 0:
            reason = _git_reason(done) if done.stderr.strip() else f"git rev-parse --verify '{revision}^{{commit}}' finds none"
            raise GapstateError(f"'{revision}' names no commit: {reason}", file=name)
        commit = done.stdout.decode("ascii", "replace").strip()
    done = _git(["rev-parse", "--show-toplevel"], folder, name)
    if done.returncode != 0:
        raise GapstateError(f"git finds no work tree: {_git_reason(done)}", file=name)
    top = Path(os.fsdecode(done.stdout.rstrip(b"\n"))).resolve()
    try:
        inside = (folder / given.name).relative_to(top).as_posix()
    except ValueError:
        raise GapstateError(f"is not inside the work tree at '{top}'", file=name) from None
    listed = _git(["ls-tree", "-z", "--full-tree", commit, "--", inside], top, name)
    kind = listed.stdout.split(b" ", 1)[0] if listed.returncode == 0 else b""
    if kind in _NOT_A_FILE:
        raise GapstateError(f"is {_NOT_A_FILE[kind]} at {revision}, not a file; `diff --git` compares a file as git "
                            "tracks it: name the file itself", file=name)
    done = _git(["show", f"{commit}:{inside}"], top, name)
    if done.returncode != 0:
        raise GapstateError(f"git cannot show it: {_git_reason(done)}", file=name)
    try:
        return name, done.stdout.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise not_utf8(done.stdout, error, name) from None


_NOT_A_FILE = {b"120000": "a symbolic link", b"040000": "a folder", b"160000": "a submodule"}  # git's modes
