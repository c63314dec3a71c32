"""Ending what an implementation under test started, also what left its process group.

`conform` starts the implementation in a process group of its own and kills
that group at the end. A descendant that called `setsid` (a daemon's double
fork) is in no group of ours. On Linux, gapstate makes itself a child
subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`) while the implementation runs, so
such a descendant, once its parent is gone, is re-parented to gapstate
instead of to init, and can be found (`/proc`, by parent pid) and killed with
everything below it. Elsewhere there is no such tracking: `Reaper.start`
returns None, and only the process group is ended.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable

_SET_SUBREAPER = 36  # PR_SET_CHILD_SUBREAPER, <linux/prctl.h>
_GET_SUBREAPER = 37  # PR_GET_CHILD_SUBREAPER
_ROUNDS = 1000  # scans at most: each kills all it finds, so this only bounds a fork bomb racing us


def _prctl() -> Callable[..., int]:
    """prctl(2), through ctypes."""
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl


def _now() -> int:
    """The time since boot in clock ticks, the unit of a process's start time in /proc/PID/stat."""
    with open("/proc/uptime", "rb") as uptime:
        seconds = float(uptime.read().split()[0])
    return int(seconds * os.sysconf("SC_CLK_TCK"))


def _parents(since: int) -> dict[int, int]:
    """The parent of every process started at `since` (clock ticks since boot) or later, from /proc/PID/stat.

    The parent is the fourth field and the start time the 22nd, counted
    after the command name in parentheses. A process older than the
    reaper is never the implementation's, whatever /proc says its parent is.
    """
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            parent, started = int(fields[1]), int(fields[19])
        except (OSError, IndexError, ValueError):  # it ended while we looked
            continue
        if started >= since:
            parents[int(entry)] = parent
    return parents


_started: list[Reaper] = []  # the reapers not yet ended: the flag is restored when the last ends


class Reaper:
    """gapstate as the subreaper of what it starts, until `end()` kills what was adopted.

    `keep` holds the pids of our own children that are not the implementation's
    descendants (those there before, and the roots of other reapers still running).
    """

    def __init__(self, prctl: Callable[..., int], was: int, before: set[int], since: int):
        self._prctl = prctl
        self._since = since  # clock ticks since boot when we started: only younger processes can be ours
        self._was = was  # restored at the end: a test runner calling conform stays as it was
        self._before = before  # our children already there: never ours to end
        self.root: int | None = None  # the implementation, set once started

    @classmethod
    def start(cls) -> Reaper | None:
        """Become a subreaper (Linux); None where the platform cannot (then only the group is ended)."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            import ctypes

            prctl = _prctl()
            was = ctypes.c_int(0)
            if prctl(_GET_SUBREAPER, ctypes.byref(was), 0, 0, 0) != 0 or prctl(_SET_SUBREAPER, 1, 0, 0, 0) != 0:
                return None
            me = os.getpid()
            since = _now() - 1  # a tick early: the clocks of uptime and of start times round differently
            before = {pid for pid, parent in _parents(since).items() if parent == me}
        except (OSError, AttributeError, ValueError):
            return None
        reaper = cls(prctl, _started[0]._was if _started else was.value, before, since)
        _started.append(reaper)
        return reaper

    def end(self) -> None:
        """Kill every process adopted since `start`, and everything under them, until none is left; reap them."""
        me = os.getpid()
        others = {reaper.root for reaper in _started if reaper is not self}
        try:
            for _ in range(_ROUNDS):
                parents = _parents(self._since)
                ours = {pid for pid, parent in parents.items() if parent == me} - self._before - others
                if not ours:
                    return
                doomed, frontier = set(ours), set(ours)
                while frontier:  # everything below them, which is re-parented to us as they die
                    frontier = {pid for pid, parent in parents.items() if parent in frontier} - doomed
                    doomed |= frontier
                for pid in doomed:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                for pid in ours:
                    try:
                        os.waitpid(pid, 0)
                    except ChildProcessError:  # someone else reaped it
                        pass
        finally:
            _started.remove(self)
            if not _started:
                self._prctl(_SET_SUBREAPER, self._was, 0, 0, 0)
