"""Several reports of one experiment judged as repeats: how the verdicts fall across them, counted.

One clip per arm names a case; repeats show whether it recurs. Each report is
judged on its own by the five conditions, then every verdict is counted: how
many repeats gave it. Counts are numbers of repeats and stay so; nothing here
turns them into a rate, a percentage or a probability.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from gapstate.attribution.conditions import (
    ARM_VERDICTS,
    CONDITIONS,
    OVERALL_VERDICTS,
    TURN_VERDICTS,
    ClassifyResult,
    judge,
)
from gapstate.attribution.report import Report
from gapstate.attribution.validation import ReportProblem
from gapstate.results import Result

NOTE = (
    "Descriptive only: every count is a number of repeats among the {n} reports given, each judged "
    "on its own. The counts say how these runs fell; they are not a rate, a percentage or a "
    "probability, and they do not establish cause. A turn attributable in some repeats names a case "
    "to investigate; a turn attributable in none is not thereby cleared."
)

_NAMES_SHOWN = 5  # turn names quoted when answer keys differ; the rest are counted


class TurnCounts(NamedTuple):
    """One (arm, turn) across the repeats: how many gave each verdict, and how many left each condition unmet."""

    turn: str
    verdicts: tuple[tuple[str, int], ...]  # only verdicts some repeat gave, in TURN_VERDICTS order
    unmet: tuple[tuple[str, int], ...]  # only conditions some repeat left unmet, in CONDITIONS order

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "verdicts": dict(self.verdicts), "unmet": dict(self.unmet)}


class ArmCounts(NamedTuple):
    name: str
    verdicts: tuple[tuple[str, int], ...]
    turns: tuple[TurnCounts, ...]  # in answer-key order

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "verdicts": dict(self.verdicts), "turns": [t.to_dict() for t in self.turns]}


class Repeat(NamedTuple):
    """One report among the repeats: where it came from, and its own judgement."""

    report: str
    result: ClassifyResult

    def to_dict(self) -> dict[str, Any]:
        return {"report": self.report, **self.result.to_dict()}


@dataclass(frozen=True)
class RepeatsResult(Result):
    """The outcome of `classify` given several reports, shaped like its JSON output; always descriptive."""

    repeats: tuple[Repeat, ...]  # in the order given
    verdicts: tuple[tuple[str, int], ...]  # overall verdicts, counted
    arms: tuple[ArmCounts, ...]  # in the first report's order

    ok = True  # every report was judged
    descriptive = True

    @property
    def note(self) -> str:
        return NOTE.format(n=len(self.repeats))

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": True,
            "descriptive": True,
            "repeats": len(self.repeats),
            "reports": [repeat.to_dict() for repeat in self.repeats],
            "verdicts": dict(self.verdicts),
            "arms": [arm.to_dict() for arm in self.arms],
            "note": self.note,
        }


def differences(first: Report, other: Report, first_name: str) -> list[ReportProblem]:
    """How `other` fails to repeat the experiment of `first`, each at its JSON path in `other`; empty when it repeats it.

    A repeat has the same answer key, in the same order, and the same arms
    by name and kind, in any order.
    """
    found: list[ReportProblem] = []
    there = f"in {first_name}"
    if other.answer_key != first.answer_key:
        found.append(ReportProblem(("answer_key",), f"not the answer_key {there}: {_key_change(first.answer_key, other.answer_key)}"))
    kinds = {arm.name: arm.kind for arm in first.arms}
    for index, arm in enumerate(other.arms):
        if arm.name not in kinds:
            found.append(ReportProblem(("arms", index, "name"), f"arm {json.dumps(arm.name)} is not {there}"))
        elif arm.kind != kinds[arm.name]:
            found.append(ReportProblem(("arms", index, "kind"),
                                 f"arm {json.dumps(arm.name)} is of kind {arm.kind} here, {kinds[arm.name]} {there}"))
    names = {arm.name for arm in other.arms}
    for arm in first.arms:
        if arm.name not in names:
            found.append(ReportProblem(("arms",), f"arm {json.dumps(arm.name)} {there} is missing"))
    return found


def _key_change(first: tuple[str, ...], other: tuple[str, ...]) -> str:
    here, there = set(other), set(first)
    gone = [turn for turn in first if turn not in here]
    new = [turn for turn in other if turn not in there]
    if not gone and not new:
        return "the same turns in another order"
    parts = []
    if new:
        parts.append(f"{_names(new)} only here")
    if gone:
        parts.append(f"{_names(gone)} only there")
    return "; ".join(parts)


def _names(turns: list[str]) -> str:
    shown = ", ".join(json.dumps(turn) for turn in turns[:_NAMES_SHOWN])
    return shown + (f" and {len(turns) - _NAMES_SHOWN} more" if len(turns) > _NAMES_SHOWN else "")


def _counted(values: Iterable[str], order: Sequence[str]) -> tuple[tuple[str, int], ...]:
    counts = Counter(values)
    return tuple((value, counts[value]) for value in order if counts[value])


def tally(repeats: Sequence[Repeat], order: Sequence[str]) -> tuple[ArmCounts, ...]:
    """Per arm (named in `order`) and per turn, the verdicts and unmet conditions counted over the repeats."""
    by_name = [{arm.name: arm for arm in repeat.result.arms} for repeat in repeats]
    counted = []
    for name in order:
        arms = [arms_of[name] for arms_of in by_name]
        turns = tuple(
            TurnCounts(
                turn=verdicts[0].turn,
                verdicts=_counted((v.verdict for v in verdicts), TURN_VERDICTS),
                unmet=_counted((condition for v in verdicts for condition in v.unmet), CONDITIONS),
            )
            for verdicts in zip(*(arm.turns for arm in arms), strict=True)
        )
        counted.append(ArmCounts(name, _counted((arm.verdict for arm in arms), ARM_VERDICTS), turns))
    return tuple(counted)


def judge_repeats(reports: Sequence[tuple[str, Report]]) -> RepeatsResult:
    """Judge reports already known to repeat one experiment (see `differences`), and count their verdicts."""
    repeats = tuple(Repeat(name, judge(report)) for name, report in reports)
    order = [arm.name for arm in reports[0][1].arms]
    return RepeatsResult(repeats, _counted((r.result.verdict for r in repeats), OVERALL_VERDICTS), tally(repeats, order))
