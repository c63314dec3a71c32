"""Traces for the benchmarks: random walks over the bundled table that replay without a stop."""

from __future__ import annotations

import json
import os
import random
import sys
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

from timing import ROOT

sys.path.insert(0, ROOT)

from gapstate.run.machine import Status  # noqa: E402
from gapstate.run.replayer import Session, machine_for  # noqa: E402
from gapstate.table.load import load_spec  # noqa: E402

EVENTS = ("loss_silent", "sdk_unknown", "loss_voiced", "busy_start", "busy_end", "candidate_start",
          "floor_released", "send_ok", "send_failed", "request_undelivered", "evidence_turn")


@lru_cache(maxsize=1)
def _machine():
    return machine_for(load_spec())


def write_trace(path: str, count: int, seed: int = 7) -> None:
    """A random walk of `count` events the bundled table accepts, compact JSON, no session_end.

    The walk feeds the same Session replay uses, so every event replays: the
    figures measure stepping, not a stopped replay reading the rest.
    """
    rng = random.Random(seed)
    session = Session(_machine())
    t, fresh = 0, 0
    with open(path, "w", encoding="utf-8") as out:
        written = 0
        while written < count:
            name = rng.choice(EVENTS)
            t += rng.randint(0, 40)
            item: dict[str, Any] = {"event": name, "t": t}
            if name == "loss_voiced":
                repeat = fresh > 0 and rng.random() < 0.3
                item["id"] = f"iv-{rng.randint(1, fresh) if repeat else fresh + 1}"
            elif name == "evidence_turn":
                item["speech_start"] = max(0, t - rng.randint(0, 200))
            event = SimpleNamespace(event=name, t=t, id=item.get("id"), speech_start=item.get("speech_start"))
            if session.feed(event).status is not Status.OK:
                continue
            if name == "loss_voiced" and item["id"] == f"iv-{fresh + 1}":
                fresh += 1
            out.write(json.dumps(item, separators=(",", ":")) + "\n")
            written += 1


def write_sessions(folder: str, sessions: int, events: int) -> list[str]:
    """`sessions` walks of `events` events each, as `s00000.jsonl`, ... in `folder` (each its own seed)."""
    paths = []
    for n in range(sessions):
        path = os.path.join(folder, f"s{n:05d}.jsonl")
        write_trace(path, events, seed=n)
        paths.append(path)
    return paths
