"""gapstate/conformance/reaper.py: what an implementation started outside its process group is adopted and ended (Linux)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from gapstate.conformance import reaper as reaping
from gapstate.conformance.reaper import Reaper

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a child subreaper is Linux's")


def _subreaper() -> int:
    import ctypes

    flag = ctypes.c_int(-1)
    assert reaping._prctl()(reaping._GET_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0
    return flag.value


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


def test_elsewhere_than_linux_there_is_no_reaper_and_only_the_group_is_ended(monkeypatch):
    monkeypatch.setattr(reaping.sys, "platform", "darwin")
    assert Reaper.start() is None


@linux
def test_an_orphan_of_a_child_started_after_the_reaper_is_adopted_and_killed():
    reaper = Reaper.start()
    assert reaper is not None
    try:
        # the sleep must not hold the pipe: reading to its end would wait the minute out
        parent = subprocess.Popen(["sh", "-c", "sleep 60 >/dev/null & echo $!"], stdout=subprocess.PIPE, text=True)
        orphan = int(parent.stdout.readline())
        parent.wait()  # its parent is gone: the sleep is ours now, not init's
        assert reaping._parents(reaper._since).get(orphan) == os.getpid()
    finally:
        reaper.end()
    assert _gone(orphan)


@linux
def test_the_flag_is_restored_only_when_the_last_of_nested_reapers_ends():
    was = _subreaper()
    outer = Reaper.start()
    inner = Reaper.start()
    assert outer is not None and inner is not None
    try:
        inner.end()
        assert _subreaper() == 1  # the outer one still adopts
    finally:
        outer.end()
    assert _subreaper() == was
