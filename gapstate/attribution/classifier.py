"""Judging a continuity-experiment report: the seed's five attribution conditions.

A report holds one unstalled control arm and one or more stall arms, each a
single clip with the status of every answer-key turn. `classify` validates the
whole report first (every problem, each with its JSON path), then applies the
conditions by name and in order and returns plain frozen records; it never
prints, reads files or exits.

Validation is written by hand rather than with jsonschema or pydantic: both
take longer to import than this whole command should take to run, and a
hand-written walk states each rule once, with the message a person needs.
Nor with msgspec, though the trace reader uses it: it stops at the first
error, and `classify` must name every problem, each with its JSON path.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring
from typing import Any, Iterable, NamedTuple

from gapstate.errors import GapstateError

CONDITIONS = ("control_present", "arm_missing", "transmitted", "interval_recorded", "interval_overlaps")
STATUSES = ("present", "absent", "repeated", "late")
ARM_KINDS = ("control", "stall")
INTERVAL_KINDS = ("drop", "quarantine")
LOST = frozenset({"absent", "repeated"})  # a loss in a stall arm, `missing` in the control
HELD = frozenset({"present", "late"})  # the control has the turn

NOTE = (
    "Descriptive only: each arm is a single clip. An attributable turn names a case "
    "to repeat under the same conditions; it is not a rate and does not establish cause."
)

_TOP_FIELDS = ("answer_key", "arms")
_ARM_FIELDS = ("name", "kind", "capture_complete", "transcript_received", "counters", "intervals", "turns")
_TURN_FIELDS = ("status", "transmitted", "audio")
_INTERVAL_FIELDS = ("kind", "start", "end", "voiced")

Path = tuple[Any, ...]  # keys (str) and list indices (int) from the document's root


# the validated model --------------------------------------------------------
# Records are NamedTuples, immutable like frozen dataclasses at a sixth of
# their class-creation cost, which every `gapstate classify` pays at startup.


class Interval(NamedTuple):
    kind: str
    start: int
    end: int
    voiced: bool | None


class Turn(NamedTuple):
    status: str
    transmitted: bool
    audio: tuple[int, int] | None


class Arm(NamedTuple):
    name: str
    kind: str
    capture_complete: bool
    transcript_received: bool
    counters: tuple[tuple[str, int], ...]
    intervals: tuple[Interval, ...]
    turns: dict[str, Turn]  # every answer-key turn, and no other


class Report(NamedTuple):
    answer_key: tuple[str, ...]
    arms: tuple[Arm, ...]  # in input order

    @property
    def control(self) -> Arm:
        return next(arm for arm in self.arms if arm.kind == "control")


# validation -----------------------------------------------------------------


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def format_path(path: Path) -> str:
    """`arms[1].turns.q3.status`; a key that is not a plain name is quoted: `turns["a b"]`."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and _IDENTIFIER.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part) if isinstance(part, str) else repr(part)}]"
    return out or "$"


class Problem(NamedTuple):
    """One reason the report cannot be judged: where (a JSON path) and what was expected."""

    path: Path
    expected: str

    def __str__(self) -> str:
        return f"{format_path(self.path)}: {self.expected}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # JSON true is not a number


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _describe(value: Any) -> str:
    """What a value was given as, for "expected X, got Y": small scalars verbatim, containers by type."""
    if isinstance(value, list):
        return "an empty list" if not value else f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    if value == "":
        return "an empty string"
    if value is None or isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) <= 40):
        return json.dumps(value)
    if isinstance(value, str):
        return "a long string"
    return f"a Python {type(value).__name__}"  # only through the API: JSON has no such value


class _Validator:
    """Walks the whole report and collects every problem; judges nothing."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, path: Path, expected: str) -> None:
        self.problems.append(Problem(path, expected))

    def fields(self, value: Any, path: Path, allowed: tuple[str, ...], required: tuple[str, ...]) -> bool:
        """An object with no unknown field and every required one; False when not an object."""
        if not isinstance(value, dict):
            self.add(path, f"expected an object, got {_describe(value)}")
            return False
        for key in value:
            if key not in allowed:
                self.add(path + (key,), f"unknown field (expected one of {', '.join(allowed)})")
        for key in required:
            if key not in value:
                self.add(path + (key,), "missing required field")
        return True

    def boolean(self, obj: dict, key: str, path: Path) -> None:
        if key in obj and not isinstance(obj[key], bool):
            self.add(path + (key,), f"expected true or false, got {_describe(obj[key])}")

    def choice(self, obj: dict, key: str, path: Path, allowed: tuple[str, ...]) -> None:
        if key in obj and obj[key] not in allowed:
            self.add(path + (key,), f"expected one of {', '.join(allowed)}, got {_describe(obj[key])}")

    def ms(self, value: Any, path: Path) -> bool:
        if _is_int(value) and value >= 0:
            return True
        self.add(path, f"expected a non-negative integer (ms), got {_describe(value)}")
        return False

    def span(self, start: Any, end: Any, path_start: Path, path_end: Path, where: Path) -> None:
        """Two millisecond times with start < end (a half-open [start, end))."""
        both = self.ms(start, path_start) & self.ms(end, path_end)  # `&`, not `and`: report both bounds
        if both and start >= end:
            self.add(where, f"expected start < end, got [{start}, {end}]")

    def report(self, report: Any) -> None:
        if not self.fields(report, (), _TOP_FIELDS, _TOP_FIELDS):
            return
        key = self.answer_key(report["answer_key"]) if "answer_key" in report else None
        if "arms" not in report:
            return
        arms = report["arms"]
        if not isinstance(arms, list):
            self.add(("arms",), f"expected a list of arms, got {_describe(arms)}")
            return
        names: dict[str, int] = {}
        for index, arm in enumerate(arms):
            self.arm(arm, ("arms", index), key, names)
        kinds = [arm.get("kind") for arm in arms if isinstance(arm, dict)]
        controls = kinds.count("control")
        if controls != 1:
            self.add(("arms",), f"expected exactly one arm of kind control, found {controls}")
        if "stall" not in kinds:
            self.add(("arms",), "expected at least one arm of kind stall, found none")

    def answer_key(self, key: Any) -> list[str] | None:
        """The valid turn names, or None when the key is unusable (turn sets are then not compared)."""
        path: Path = ("answer_key",)
        if not isinstance(key, list) or not key:
            self.add(path, f"expected a non-empty list of turn names, got {_describe(key)}")
            return None
        seen: list[str] = []
        for index, turn in enumerate(key):
            if not _is_name(turn):
                self.add(path + (index,), f"expected a non-empty string, got {_describe(turn)}")
            elif turn in seen:
                self.add(path + (index,), f"duplicate turn {json.dumps(turn)}")
            else:
                seen.append(turn)
        return seen

    def arm(self, arm: Any, path: Path, key: list[str] | None, names: dict[str, int]) -> None:
        if not self.fields(arm, path, _ARM_FIELDS, ("name", "kind", "turns")):
            return
        name = arm.get("name")
        if "name" in arm:
            if not _is_name(name):
                self.add(path + ("name",), f"expected a non-empty string, got {_describe(name)}")
            elif name in names:
                self.add(path + ("name",), f"duplicate arm name {json.dumps(name)} (also arms[{names[name]}])")
            else:
                names[name] = path[-1]
        self.choice(arm, "kind", path, ARM_KINDS)
        self.boolean(arm, "capture_complete", path)
        self.boolean(arm, "transcript_received", path)
        if "counters" in arm:
            counters = arm["counters"]
            if not isinstance(counters, dict):
                self.add(path + ("counters",), f"expected an object of counter names to integers, got {_describe(counters)}")
            else:
                for counter, value in counters.items():
                    if not _is_name(counter):
                        self.add(path + ("counters", counter), "expected a non-empty string as the counter name")
                    elif not _is_int(value) or value < 0:
                        self.add(path + ("counters", counter), f"expected a non-negative integer, got {_describe(value)}")
        if "intervals" in arm:
            intervals = arm["intervals"]
            if not isinstance(intervals, list):
                self.add(path + ("intervals",), f"expected a list of intervals, got {_describe(intervals)}")
            else:
                for index, interval in enumerate(intervals):
                    self.interval(interval, path + ("intervals", index))
        if "turns" in arm:
            self.turns(arm["turns"], path + ("turns",), key)

    def interval(self, interval: Any, path: Path) -> None:
        if not self.fields(interval, path, _INTERVAL_FIELDS, ("kind", "start", "end")):
            return
        self.choice(interval, "kind", path, INTERVAL_KINDS)
        self.boolean(interval, "voiced", path)
        if "start" in interval and "end" in interval:
            self.span(interval["start"], interval["end"], path + ("start",), path + ("end",), path)
        else:  # the missing one is already reported; still type-check the other
            for bound in ("start", "end"):
                if bound in interval:
                    self.ms(interval[bound], path + (bound,))

    def turns(self, turns: Any, path: Path, key: list[str] | None) -> None:
        if not isinstance(turns, dict):
            self.add(path, f"expected an object of answer-key turns, got {_describe(turns)}")
            return
        for name, turn in turns.items():
            if key is not None and name not in key:
                self.add(path + (name,), "not in answer_key (every arm holds exactly the answer-key turns)")
            self.turn(turn, path + (name,))
        for name in key or ():
            if name not in turns:
                self.add(path + (name,), "missing: every answer_key turn must appear in every arm")

    def turn(self, turn: Any, path: Path) -> None:
        if not self.fields(turn, path, _TURN_FIELDS, ("status",)):
            return
        self.choice(turn, "status", path, STATUSES)
        self.boolean(turn, "transmitted", path)
        if "audio" in turn:
            audio = turn["audio"]
            if not isinstance(audio, list) or len(audio) != 2:
                self.add(path + ("audio",), f"expected [start, end] in ms, got {_describe(audio)}")
            else:
                self.span(audio[0], audio[1], path + ("audio", 0), path + ("audio", 1), path + ("audio",))


def problems(report: Any) -> list[Problem]:
    """Every problem of a decoded report, in document order; empty when it can be judged."""
    validator = _Validator()
    validator.report(report)
    return validator.problems


def validate(report: Any) -> Report:
    """The report as a typed model with defaults filled in, or one GapstateError listing every problem.

    The error's `problems` attribute holds the Problem records, so a caller
    that still has the text can point each one at its line.
    """
    found = problems(report)
    if found:
        raise GapstateError("\n".join(str(problem) for problem in found), problems=tuple(found))
    return Report(
        answer_key=tuple(report["answer_key"]),
        arms=tuple(_arm(arm, report["answer_key"]) for arm in report["arms"]),
    )


def _arm(arm: dict, key: list[str]) -> Arm:
    return Arm(
        name=arm["name"],
        kind=arm["kind"],
        capture_complete=arm.get("capture_complete", True),
        transcript_received=arm.get("transcript_received", True),
        counters=tuple(arm.get("counters", {}).items()),
        intervals=tuple(
            Interval(i["kind"], i["start"], i["end"], i.get("voiced")) for i in arm.get("intervals", ())
        ),
        turns={
            name: Turn(
                status=arm["turns"][name]["status"],
                transmitted=arm["turns"][name].get("transmitted", False),
                audio=tuple(arm["turns"][name]["audio"]) if "audio" in arm["turns"][name] else None,  # type: ignore[arg-type]
            )
            for name in key
        },
    )


# the judgement --------------------------------------------------------------


class TurnVerdict(NamedTuple):
    """One answer-key turn in one arm; `unmet` is non-empty only for an inconclusive turn."""

    turn: str
    verdict: str  # intact, delay, attributable, inconclusive, incomplete; missing (control only)
    unmet: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "verdict": self.verdict, "unmet": list(self.unmet)}


class ArmVerdict(NamedTuple):
    name: str
    kind: str
    verdict: str  # control, incomplete, unexplained_silence, assessed
    turns: tuple[TurnVerdict, ...]  # in answer-key order

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "verdict": self.verdict, "turns": [turn.to_dict() for turn in self.turns]}


class ClassifyResult(NamedTuple):
    """The outcome of `classify`, shaped like its JSON output; always descriptive."""

    verdict: str  # no_change, attributable, unexplained_silence, inconclusive
    arms: tuple[ArmVerdict, ...]  # in input order
    note: str = NOTE

    @property
    def descriptive(self) -> bool:
        return True

    def to_dict(self) -> dict[str, Any]:
        return {
            "descriptive": True,
            "verdict": self.verdict,
            "arms": [arm.to_dict() for arm in self.arms],
            "note": self.note,
        }

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]


def overlaps(a: int, b: int, c: int, d: int) -> bool:
    """[a, b) and [c, d) share a millisecond; touching endpoints do not."""
    return a < d and c < b


def conditions(report: Report, arm: Arm, name: str) -> dict[str, bool]:
    """The five conditions for one turn of a stall arm, by name and in order."""
    control = report.control
    turn = arm.turns[name]
    audio = turn.audio
    return {
        # an incomplete control is never evidence that it had the turn
        "control_present": control.capture_complete and control.turns[name].status in HELD,
        "arm_missing": turn.status in LOST,
        "transmitted": turn.transmitted,
        # byte counters are totals, not intervals: they satisfy neither 4 nor 5
        "interval_recorded": bool(arm.intervals),
        "interval_overlaps": audio is not None
        and any(overlaps(audio[0], audio[1], iv.start, iv.end) for iv in arm.intervals),
    }


def judge_turn(report: Report, arm: Arm, name: str) -> TurnVerdict:
    status = arm.turns[name].status
    if arm.kind == "control":
        return TurnVerdict(name, {"present": "intact", "late": "delay"}.get(status, "missing"))
    if not arm.capture_complete:
        return TurnVerdict(name, "incomplete")  # a partial capture is never passing evidence
    if status == "present":
        return TurnVerdict(name, "intact")
    if status == "late":
        return TurnVerdict(name, "delay")  # late is a delay, not a loss
    unmet = tuple(condition for condition, holds in conditions(report, arm, name).items() if not holds)
    return TurnVerdict(name, "inconclusive", unmet) if unmet else TurnVerdict(name, "attributable")


def judge_arm(report: Report, arm: Arm) -> ArmVerdict:
    turns = tuple(judge_turn(report, arm, name) for name in report.answer_key)
    if not arm.capture_complete:
        verdict = "incomplete"
    elif arm.kind == "control":
        verdict = "control"
    elif _silent(arm):
        verdict = "unexplained_silence"  # reported as such, never as a loss
    else:
        verdict = "assessed"
    return ArmVerdict(arm.name, arm.kind, verdict, turns)


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


# pointing problems at the text ----------------------------------------------


def locate(text: str) -> dict[Path, int]:
    """The offset where each value of a valid JSON document starts, keyed by its path.

    `json` forgets positions; this lets the CLI name the line and column of
    each validation problem. For a duplicated key the last one wins, as in
    `json.loads`. Returns what it found so far if the text is not valid JSON.
    """
    found: dict[Path, int] = {}
    scalar = json.JSONDecoder().raw_decode
    space = re.compile(r"[ \t\n\r]*")

    def skip(i: int) -> int:
        return space.match(text, i).end()  # type: ignore[union-attr]

    def value(i: int, path: Path) -> int:
        i = skip(i)
        found[path] = i
        opener = text[i]
        if opener not in "{[":
            return scalar(text, i)[1]
        closer = "}" if opener == "{" else "]"
        i = skip(i + 1)
        index = 0
        while text[i] != closer:
            if opener == "{":
                key, i = scanstring(text, i + 1)
                i = skip(i) + 1  # past ':'
                i = value(i, path + (key,))
            else:
                i = value(i, path + (index,))
                index += 1
            i = skip(i)
            if text[i] == ",":
                i = skip(i + 1)
        return i + 1

    try:
        value(0, ())
    except (ValueError, IndexError, RecursionError):
        pass
    return found


def position(text: str, offsets: dict[Path, int], path: Path) -> tuple[int, int]:
    """1-based line and column of the value at `path`, or of its nearest enclosing value (a missing field points at its object)."""
    while path and path not in offsets:
        path = path[:-1]
    offset = offsets.get(path, 0)
    line = text.count("\n", 0, offset) + 1
    return line, offset - text.rfind("\n", 0, offset)


class Located(NamedTuple):
    """A problem pointed at the report's text: its line, column, JSON path and message."""

    line: int
    column: int
    path: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()


def problem_lines(text: str, problems: Iterable[Problem]) -> tuple[Located, ...]:
    """Each problem at the line and column it concerns in `text`, in the order of the text."""
    offsets = locate(text)
    located = (
        Located(*position(text, offsets, problem.path), format_path(problem.path), problem.expected)
        for problem in problems
    )
    return tuple(sorted(located, key=lambda p: (p.line, p.column)))
