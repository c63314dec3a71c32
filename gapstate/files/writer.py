"""Writing what gapstate writes: whole or not at all, and only over what is ours to replace.

A file is written to a temporary file beside it, then renamed over it; a
suite folder is built beside its target and swapped in. Only a regular file
is ever replaced (a device, FIFO or socket is refused, also for root); a
read-only file is refused as an editor would; the mode and owner are kept.
While a temporary file or folder exists, SIGINT and SIGTERM wait (in the
main thread, where Python handles them), so a Ctrl-C or a kill leaves the
old file or the new one and nothing beside it (only SIGKILL can leave a
`.gapstate-*` file, which nothing ever reads).
"""

from __future__ import annotations

import os
import signal
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from gapstate.errors import GapstateError
from gapstate.files.source import _not_regular

if TYPE_CHECKING:
    from pathlib import Path

_HELD = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block is done, then arrive as they would have.

    Python runs signal handlers in the main thread only, so there the
    handlers are swapped for one that notes the signal, and it is raised
    again after; in another thread (the API, called from one) nothing is held.
    """
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {held: signal.signal(held, lambda signum, frame: caught.append(signum)) for held in _HELD}
    try:
        yield
    finally:
        for held, handler in previous.items():
            signal.signal(held, handler if handler is not None else signal.SIG_DFL)
        for signum in caught[:1]:
            signal.raise_signal(signum)


def writable(path: str | Path, follow_links: bool = True) -> tuple[str, os.stat_result | None]:
    """Where writing `path` lands, and what is there now (None: nothing); GapstateError when it may not be replaced.

    A symbolic link is followed to the regular file it names when
    `follow_links` (the spec `graph --update` edits); otherwise it is refused
    (a new output such as `fuzz --save`: a link planted where the output goes
    must not send it elsewhere). A link to nothing is refused either way.
    """
    name = str(path)
    try:
        link = os.lstat(path)
    except FileNotFoundError:
        return os.path.abspath(path), None
    except (OSError, ValueError) as error:
        raise GapstateError(f"cannot write: {getattr(error, 'strerror', None) or error}", file=name) from None
    target = os.path.abspath(path)
    if stat.S_ISLNK(link.st_mode):
        if not follow_links:
            raise GapstateError("is a symbolic link; gapstate writes this output only to a regular file, not through a link", file=name)
        target = os.path.realpath(path)
        try:
            link = os.stat(target)
        except FileNotFoundError:
            raise GapstateError("is a symbolic link to nothing; gapstate does not create files through a link", file=name) from None
    why = _not_regular(link.st_mode)
    if why is not None:
        raise GapstateError(f"{why}; gapstate replaces only regular files", file=name)
    if not link.st_mode & 0o222 or not os.access(target, os.W_OK):
        raise GapstateError("is read-only; gapstate replaces only a file you may write (make it writable first)", file=name)
    return target, link


def unchanged(path: str | Path, expected: bytes) -> None:
    """GapstateError unless the file at `path` still holds `expected`, the bytes what is written was made from.

    A file rewritten, removed or replaced by a folder, a FIFO (never opened:
    `files.source`) or a link to nothing since it was read is said the same
    way, with what it is now when it cannot be read.
    """
    from gapstate.files.source import read_bytes

    try:
        now = read_bytes(path)
    except GapstateError as error:
        raise GapstateError(f"changed while gapstate was reading it ({_now(error.message)}); nothing was "
                            "rewritten: run again", file=str(path)) from None
    if now != expected:
        raise GapstateError("changed while gapstate was reading it; nothing was rewritten: run again", file=str(path))


def _now(message: str) -> str:
    """A reader's message about a file, said of what it is now: `no such file` -> `it is no longer there`."""
    if message.startswith("no such file"):
        return "it is no longer there"
    if message.startswith("is "):
        return f"it {message}"
    return f"it is {message}" if message.startswith("a ") else f"now: {message}"


def write_atomically(path: str | Path, data: bytes, follow_links: bool = True, expected: bytes | None = None) -> None:
    """Replace the file's bytes all at once: a temporary file beside it, then a rename.

    A reader sees the old file or the new one, never half of either. What
    may be replaced is `writable`'s rule; the file's mode and owner are kept.
    With `expected` (the bytes `data` was made from), the file must still
    hold them once the temporary file is written, just before the rename
    (`unchanged`): an edit made meanwhile is kept and nothing is written.
    """
    import tempfile

    name = str(path)
    target, now = writable(path, follow_links)
    folder = os.path.dirname(target) or "."
    with _signals_held():
        try:
            handle, temporary = tempfile.mkstemp(prefix=".gapstate-", suffix=".tmp", dir=folder)
        except OSError as error:
            raise GapstateError(f"cannot write beside it: {error.strerror}", file=name) from None
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            if now is None:  # a new file: as open() would make it, not mkstemp's 0600
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(temporary, 0o666 & ~umask)
            else:
                os.chmod(temporary, stat.S_IMODE(now.st_mode))
                if (now.st_uid, now.st_gid) != (os.geteuid(), os.getegid()):
                    try:
                        os.chown(temporary, now.st_uid, now.st_gid)
                    except PermissionError:
                        raise GapstateError("cannot keep its owner, so it is left as it was", file=name) from None
            if expected is not None:
                unchanged(target, expected)
            os.replace(temporary, target)
        except BaseException as error:
            os.unlink(temporary) if os.path.exists(temporary) else None
            if isinstance(error, OSError):
                raise GapstateError(f"cannot write: {error.strerror or error}", file=name) from None
            raise


def _special(folder: str) -> str | None:
    """Why `folder` may never be replaced (/, the home folder, the working folder or one above it), or None."""
    real = os.path.realpath(folder)
    if real == os.path.realpath(os.sep):
        return "is the root folder"
    if real == os.path.realpath(os.path.expanduser("~")):
        return "is the home folder"
    here = os.path.realpath(os.getcwd())
    if here == real or here.startswith(real.rstrip(os.sep) + os.sep):
        return "holds the working folder"
    return None


def _exchange(first: str, second: str) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where the system cannot."""
    import ctypes
    import errno

    try:
        swap = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    here, exchange = -100, 2  # AT_FDCWD, RENAME_EXCHANGE
    if swap(here, os.fsencode(first), here, os.fsencode(second), exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):  # an old kernel, or a file system without it
        return False
    raise OSError(code, os.strerror(code), second)


def write_folder(outdir: str | Path, files: dict[str, str], force: bool, ours: Callable[[Path], bool]) -> None:
    """Write `files` (name -> text) into a temporary folder beside `outdir`, then swap it into place.

    A failure leaves nothing half-written. An existing `outdir` that is not
    empty is refused unless `force`, and even then unless `ours` says gapstate
    wrote it; a symbolic link, `/`, the home folder and a folder holding the
    working folder are refused always. The new folder and the old are
    swapped in one step where the system can (Linux), so a kill at any
    moment leaves the old complete folder or the new one; only then is the
    old one removed.
    """
    import shutil
    import tempfile
    from pathlib import Path  # here, not at the top: classify starts without pathlib

    name = str(outdir)
    target = Path(outdir)
    if target.is_symlink():
        raise GapstateError("is a symbolic link; gapstate writes a suite only to a real folder", file=name)
    if target.exists() and not target.is_dir():
        raise GapstateError("exists and is not a folder", file=name)
    why = _special(name)
    if why is not None:
        raise GapstateError(f"{why}; gapstate never replaces it", file=name)
    full = target.exists() and any(target.iterdir())
    if full and not force:
        raise GapstateError("exists and is not empty (--force replaces it)", file=name)
    if full and not ours(target):
        raise GapstateError("was not written by gapstate (its manifest does not name everything in it); --force replaces only a suite it wrote", file=name)
    parent = target.absolute().parent
    if not parent.is_dir():
        raise GapstateError(f"cannot write here: {parent} is not a folder", file=name)
    with _signals_held():
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
            if full and _exchange(str(staging), str(target)):
                pass  # the old suite is now at `staging`, removed below
            elif full:
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
            raise GapstateError(f"cannot write: {error.strerror or error}", file=name) from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
