"""A continuity-experiment report as a typed model: arms, their turns, intervals and overflow lines.

A report holds one unstalled control arm and one or more stall arms, each a
single clip with the status of every answer-key turn. The model is built only
from a report that validation accepted, with every default filled in.

Records are NamedTuples, immutable like frozen dataclasses at a sixth of
their class-creation cost, which every `gapstate classify` pays at startup.
"""

from __future__ import annotations

from typing import Any, NamedTuple

STATUSES = ("present", "absent", "repeated", "late")
ARM_KINDS = ("control", "stall")
INTERVAL_KINDS = ("drop", "quarantine")
LOST = frozenset({"absent", "repeated"})  # a loss in a stall arm, `missing` in the control
HELD = frozenset({"present", "late"})  # the control has the turn

# Every object of the report accepts this key and ignores what it holds, so a
# harness can carry its own metadata (run ids, hosts) without being refused.
META = "meta"

# The SDK logs "dropped N queued frames" at the first drop and every hundredth
# after it, so up to this many more frames may have gone after the last line.
UNLOGGED_DROPS = 99


class Interval(NamedTuple):
    kind: str
    start: int
    end: int
    voiced: bool | None


class OverflowLine(NamedTuple):
    """One logged "dropped N queued frames" line, stamped on the arm's clock when it was logged."""

    t: int
    dropped: int


class Turn(NamedTuple):
    status: str
    transmitted: bool  # as the report says it
    audio: tuple[int, int] | None
    peer_bytes: int | None = None  # what a recording peer received; decides `transmitted` when given

    @property
    def verified_transmitted(self) -> bool:
        """A recording peer's bytes, when given, outrank the report's own claim."""
        return self.peer_bytes > 0 if self.peer_bytes is not None else self.transmitted


class Arm(NamedTuple):
    name: str
    kind: str
    capture_complete: bool
    transcript_received: bool
    counters: tuple[tuple[str, int], ...]
    intervals: tuple[Interval, ...]
    turns: dict[str, Turn]  # every answer-key turn, and no other
    sdk_overflow: tuple[OverflowLine, ...] = ()


class Report(NamedTuple):
    answer_key: tuple[str, ...]
    arms: tuple[Arm, ...]  # in input order

    @property
    def control(self) -> Arm:
        return next(arm for arm in self.arms if arm.kind == "control")


def build(report: dict[str, Any]) -> Report:
    """The model of a report that validation accepted, defaults filled in and `meta` dropped."""
    key = report["answer_key"]
    return Report(answer_key=tuple(key), arms=tuple(_arm(arm, key) for arm in report["arms"]))


def _arm(arm: dict[str, Any], key: list[str]) -> Arm:
    return Arm(
        name=arm["name"],
        kind=arm["kind"],
        capture_complete=arm.get("capture_complete", True),
        transcript_received=arm.get("transcript_received", True),
        counters=tuple(arm.get("counters", {}).items()),
        intervals=tuple(
            Interval(i["kind"], i["start"], i["end"], i.get("voiced")) for i in arm.get("intervals", ())
        ),
        turns={name: _turn(arm["turns"][name]) for name in key},
        sdk_overflow=tuple(OverflowLine(line["t"], line["dropped"]) for line in arm.get("sdk_overflow", ())),
    )


def _turn(turn: dict[str, Any]) -> Turn:
    audio = turn.get("audio")
    return Turn(
        status=turn["status"],
        transmitted=turn.get("transmitted", False),
        audio=(audio[0], audio[1]) if audio is not None else None,
        peer_bytes=turn.get("peer_bytes"),
    )
