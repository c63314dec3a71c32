"""The five attribution conditions, and the verdicts of turns, arms and a report.

A turn's loss is attributable to the process under test only if all five
conditions hold; otherwise the verdict names each one that does not. A
report is judged only after validation accepted all of it. Everything here
returns plain frozen records; nothing prints, reads files or exits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from gapstate.attribution.report import HELD, LOST, UNLOGGED_DROPS, Arm, Report
from gapstate.attribution.validation import validate
from gapstate.results import Result

# In this order: `unmet` lists them so, and repeats count them so.
CONDITIONS = ("control_present", "arm_missing", "transmitted", "interval_recorded", "interval_overlaps")

# Every verdict, in the order counts and pictures show them.
TURN_VERDICTS = ("intact", "delay", "attributable", "inconclusive", "incomplete", "missing")
ARM_VERDICTS = ("control", "assessed", "incomplete", "unexplained_silence", "sdk_overflow")
OVERALL_VERDICTS = ("no_change", "attributable", "unexplained_silence", "inconclusive")

NOTE = (
    "Descriptive only: each arm is a single clip. An attributable turn names a case "
    "to repeat under the same conditions; it is not a rate and does not establish cause."
)


class TurnVerdict(NamedTuple):
    """One answer-key turn in one arm; `unmet` is non-empty only for an inconclusive turn."""

    turn: str
    verdict: str  # intact, delay, attributable, inconclusive, incomplete; missing (control only)
    unmet: tuple[str, ...] = ()
    sdk_overflow: bool = False  # an overflow line was logged while this turn's audio was sent

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"turn": self.turn, "verdict": self.verdict, "unmet": list(self.unmet)}
        if self.sdk_overflow:
            out["sdk_overflow"] = True
        return out


class Overflow(NamedTuple):
    """What an arm's overflow lines say: how many were logged, and the range of frames the SDK dropped."""

    lines: int
    dropped_min: int
    dropped_max: int

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()


class ArmVerdict(NamedTuple):
    name: str
    kind: str
    verdict: str  # control, incomplete, unexplained_silence, sdk_overflow, assessed
    turns: tuple[TurnVerdict, ...]  # in answer-key order
    sdk_overflow: Overflow | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "verdict": self.verdict}
        if self.sdk_overflow is not None:
            out["sdk_overflow"] = self.sdk_overflow.to_dict()
        out["turns"] = [turn.to_dict() for turn in self.turns]
        return out


@dataclass(frozen=True)
class ClassifyResult(Result):
    """The outcome of `classify`, shaped like its JSON output; always descriptive.

    `ok` is true: a report that could be judged was, whatever its verdict.
    """

    verdict: str  # no_change, attributable, unexplained_silence, inconclusive
    arms: tuple[ArmVerdict, ...]  # in input order
    note: str = NOTE

    ok = True
    descriptive = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": True,
            "descriptive": True,
            "verdict": self.verdict,
            "arms": [arm.to_dict() for arm in self.arms],
            "note": self.note,
        }


def overlaps(a: int, b: int, c: int, d: int) -> bool:
    """[a, b) and [c, d) share a millisecond; touching endpoints do not."""
    return a < d and c < b


def conditions(report: Report, arm: Arm, name: str) -> dict[str, bool]:
    """The five conditions for one turn of a stall arm, by name and in order."""
    control = report.control
    turn = arm.turns[name]
    audio = turn.audio
    held = {
        # an incomplete control is never evidence that it had the turn
        "control_present": control.capture_complete and control.turns[name].status in HELD,
        "arm_missing": turn.status in LOST,
        "transmitted": turn.verified_transmitted,
        # byte counters are totals, not intervals, and an SDK overflow line
        # carries no frame identity: neither satisfies 4 or 5
        "interval_recorded": bool(arm.intervals),
        "interval_overlaps": audio is not None
        and any(overlaps(audio[0], audio[1], iv.start, iv.end) for iv in arm.intervals),
    }
    return {condition: held[condition] for condition in CONDITIONS}


def judge_turn(report: Report, arm: Arm, name: str) -> TurnVerdict:
    turn = arm.turns[name]
    audio = turn.audio
    logged = audio is not None and any(audio[0] <= line.t < audio[1] for line in arm.sdk_overflow)
    return TurnVerdict(*_turn_verdict(report, arm, name, turn.status), sdk_overflow=logged)


def _turn_verdict(report: Report, arm: Arm, name: str, status: str) -> tuple[str, str, tuple[str, ...]]:
    if arm.kind == "control":
        return name, {"present": "intact", "late": "delay"}.get(status, "missing"), ()
    if not arm.capture_complete:
        return name, "incomplete", ()  # a partial capture is never passing evidence
    if status == "present":
        return name, "intact", ()
    if status == "late":
        return name, "delay", ()  # late is a delay, not a loss
    unmet = tuple(condition for condition, holds in conditions(report, arm, name).items() if not holds)
    return (name, "inconclusive", unmet) if unmet else (name, "attributable", ())


def judge_arm(report: Report, arm: Arm) -> ArmVerdict:
    turns = tuple(judge_turn(report, arm, name) for name in report.answer_key)
    if not arm.capture_complete:
        verdict = "incomplete"
    elif arm.kind == "control":
        verdict = "control"
    elif _silent(arm):
        # A readable SDK counter explains what local evidence cannot: such an
        # arm is never unexplained; otherwise it is reported as such, never as a loss.
        verdict = "sdk_overflow" if arm.sdk_overflow else "unexplained_silence"
    else:
        verdict = "assessed"
    return ArmVerdict(arm.name, arm.kind, verdict, turns, overflow(arm))


def overflow(arm: Arm) -> Overflow | None:
    """The range of frames the SDK dropped: from the largest logged count to 99 more, which it logs only at the next hundredth."""
    if not arm.sdk_overflow:
        return None
    most = max(line.dropped for line in arm.sdk_overflow)
    return Overflow(len(arm.sdk_overflow), most, most + UNLOGGED_DROPS)


def _silent(arm: Arm) -> bool:
    """Nothing came back and nothing local explains why: every turn lost, no transcript, no counter, no interval."""
    return (
        all(turn.status in LOST for turn in arm.turns.values())
        and not arm.transcript_received
        and all(value == 0 for _, value in arm.counters)
        and not arm.intervals
    )


def judge(report: Report) -> ClassifyResult:
    arms = tuple(judge_arm(report, arm) for arm in report.arms)
    every_turn = [turn for arm in arms for turn in arm.turns]
    if all(turn.verdict == "intact" for turn in every_turn) and all(arm.verdict != "incomplete" for arm in arms):
        verdict = "no_change"
    elif any(turn.verdict == "attributable" for turn in every_turn):
        verdict = "attributable"
    elif any(arm.verdict == "unexplained_silence" for arm in arms):
        verdict = "unexplained_silence"
    else:
        verdict = "inconclusive"
    return ClassifyResult(verdict, arms)


def classify(report: Any) -> ClassifyResult:
    """Validate a decoded report completely, then judge it; GapstateError lists every problem."""
    return judge(validate(report))
