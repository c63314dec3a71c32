"""Checking a decoded report before any judgement: every problem, each at its JSON path.

Validation is written by hand rather than with jsonschema or pydantic: both
take longer to import than this whole command should take to run, and a
hand-written walk states each rule once, with the message a person needs.
Nor with msgspec, though the trace reader uses it: it stops at the first
error, and `classify` must name every problem, each with its JSON path.
Every lookup is in a set or a dict, so the walk costs time in proportion to
the report, however many problems it has.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from gapstate import errors
from gapstate.attribution.report import ARM_KINDS, INTERVAL_KINDS, META, STATUSES, Report, build
from gapstate.errors import GapstateError

_TOP_FIELDS = ("answer_key", "arms", META)
_ARM_FIELDS = ("name", "kind", "capture_complete", "transcript_received", "counters", "intervals",
               "sdk_overflow", "turns", META)
_TURN_FIELDS = ("status", "transmitted", "audio", "peer_bytes", META)
_INTERVAL_FIELDS = ("kind", "start", "end", "voiced", META)
_LINE_FIELDS = ("t", "dropped", META)

# Suggesting the nearest name compares a misspelt one with every candidate;
# past this many suggestions in one report the rest go without, so a report of
# many misspelt names still costs time in proportion to its size.
SUGGESTIONS = 20

Path = tuple[Any, ...]  # keys (str) and list indices (int) from the document's root

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


class ReportProblem(NamedTuple):
    """One reason the report cannot be judged: where (a JSON path) and what was expected."""

    path: Path
    expected: str

    def __str__(self) -> str:
        return f"{format_path(self.path)}: {self.expected}"

    def record(self) -> errors.Problem:
        """As the error record every command shows, without a line: the API has no text to point into."""
        return errors.Problem(self.expected, path=format_path(self.path))


# Every count, time and size a report holds is at most this, as a trace's times are: a larger one is
# a problem at its path, never a number that the arithmetic and the words after it cannot hold
# (4,300 digits and 99 more frames is past what Python writes out).
LARGEST = 2**63 - 1


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -LARGEST <= value <= LARGEST  # JSON true is not a number


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def describe(value: Any) -> str:
    """What a value was given as, for "expected X, got Y": small scalars verbatim, containers by type."""
    if isinstance(value, list):
        return "an empty list" if not value else f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    if value == "":
        return "an empty string"
    if isinstance(value, int) and not isinstance(value, bool) and not -LARGEST <= value <= LARGEST:
        return "a number past 2^63 - 1"
    if value is None or isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) <= 40):
        return json.dumps(value)
    if isinstance(value, str):
        return "a long string"
    return f"a Python {type(value).__name__}"  # only through the API: JSON has no such value


class _Validator:
    """Walks the whole report and collects every problem; judges nothing."""

    def __init__(self) -> None:
        self.problems: list[ReportProblem] = []
        self.suggested = 0

    def add(self, path: Path, expected: str) -> None:
        self.problems.append(ReportProblem(path, expected))

    def fields(self, value: Any, path: Path, allowed: tuple[str, ...], required: tuple[str, ...]) -> bool:
        """An object with no unknown field and every required one; False when not an object."""
        if not isinstance(value, dict):
            self.add(path, f"expected an object, got {describe(value)}")
            return False
        for key in value:
            if key not in allowed:
                hint = self.nearest(key, allowed[:-1])
                self.add(path + (key,), f"unknown field ({f'did you mean {hint}? ' if hint else ''}"
                                        f"expected one of {', '.join(allowed)}; anything else belongs under {META})")
        for key in required:
            if key not in value:
                self.add(path + (key,), "missing required field")
        return True

    def boolean(self, obj: dict, key: str, path: Path) -> None:
        if key in obj and not isinstance(obj[key], bool):
            self.add(path + (key,), f"expected true or false, got {describe(obj[key])}")

    def choice(self, obj: dict, key: str, path: Path, allowed: tuple[str, ...]) -> None:
        if key in obj and obj[key] not in allowed:
            self.add(path + (key,), f"expected one of {', '.join(allowed)}, got {describe(obj[key])}")

    def count(self, obj: dict, key: str, path: Path, least: int, unit: str) -> bool:
        """An integer of at least `least` (0 or 1) when present; False when present and not one."""
        if key not in obj:
            return True
        value = obj[key]
        if _is_int(value) and value >= least:
            return True
        self.add(path + (key,), f"expected a {'non-negative' if least == 0 else 'positive'} integer ({unit}), "
                                f"got {describe(value)}")
        return False

    def ms(self, value: Any, path: Path) -> bool:
        if _is_int(value) and value >= 0:
            return True
        self.add(path, f"expected a non-negative integer (ms), got {describe(value)}")
        return False

    def span(self, start: Any, end: Any, path_start: Path, path_end: Path, where: Path) -> None:
        """Two millisecond times with start < end (a half-open [start, end))."""
        both = self.ms(start, path_start) & self.ms(end, path_end)  # `&`, not `and`: report both bounds
        if both and start >= end:
            self.add(where, f"expected start < end, got [{start}, {end}]")

    def items(self, obj: dict, key: str, path: Path, what: str) -> list[tuple[Path, Any]]:
        """The entries of an optional list field with their paths; none when it is not a list."""
        if key not in obj:
            return []
        value = obj[key]
        if not isinstance(value, list):
            self.add(path + (key,), f"expected a list of {what}, got {describe(value)}")
            return []
        return [(path + (key, index), item) for index, item in enumerate(value)]

    def report(self, report: Any) -> None:
        if not self.fields(report, (), _TOP_FIELDS, _TOP_FIELDS[:2]):
            return
        key = self.answer_key(report["answer_key"]) if "answer_key" in report else None
        if "arms" not in report:
            return
        arms = report["arms"]
        if not isinstance(arms, list):
            self.add(("arms",), f"expected a list of arms, got {describe(arms)}")
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

    def answer_key(self, key: Any) -> dict[str, None] | None:
        """The valid turn names in order, or None when the key is unusable (turn sets are then not compared)."""
        path: Path = ("answer_key",)
        if not isinstance(key, list) or not key:
            self.add(path, f"expected a non-empty list of turn names, got {describe(key)}")
            return None
        seen: dict[str, None] = {}  # ordered, with a set's lookups
        for index, turn in enumerate(key):
            if not _is_name(turn):
                self.add(path + (index,), f"expected a non-empty string, got {describe(turn)}")
            elif turn in seen:
                self.add(path + (index,), f"duplicate turn {json.dumps(turn)}")
            else:
                seen[turn] = None
        return seen

    def arm(self, arm: Any, path: Path, key: dict[str, None] | None, names: dict[str, int]) -> None:
        if not self.fields(arm, path, _ARM_FIELDS, ("name", "kind", "turns")):
            return
        name = arm.get("name")
        if "name" in arm:
            if not _is_name(name):
                self.add(path + ("name",), f"expected a non-empty string, got {describe(name)}")
            elif name in names:
                self.add(path + ("name",), f"duplicate arm name {json.dumps(name)} (also arms[{names[name]}])")
            else:
                names[name] = path[-1]
        self.choice(arm, "kind", path, ARM_KINDS)
        self.boolean(arm, "capture_complete", path)
        self.boolean(arm, "transcript_received", path)
        if "counters" in arm:
            self.counters(arm["counters"], path + ("counters",))
        for where, interval in self.items(arm, "intervals", path, "intervals"):
            self.interval(interval, where)
        for where, line in self.items(arm, "sdk_overflow", path, "logged overflow lines"):
            if self.fields(line, where, _LINE_FIELDS, ("t", "dropped")):
                if "t" in line:
                    self.ms(line["t"], where + ("t",))
                self.count(line, "dropped", where, 1, "frames")
        if "turns" in arm:
            self.turns(arm["turns"], path + ("turns",), key)

    def counters(self, counters: Any, path: Path) -> None:
        if not isinstance(counters, dict):
            self.add(path, f"expected an object of counter names to integers, got {describe(counters)}")
            return
        for counter, value in counters.items():
            if not _is_name(counter):
                self.add(path + (counter,), "expected a non-empty string as the counter name")
            elif not _is_int(value) or value < 0:
                self.add(path + (counter,), f"expected a non-negative integer, got {describe(value)}")

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

    def turns(self, turns: Any, path: Path, key: dict[str, None] | None) -> None:
        if not isinstance(turns, dict):
            self.add(path, f"expected an object of answer-key turns, got {describe(turns)}")
            return
        missing = [name for name in key or () if name not in turns]
        for name, turn in turns.items():
            if key is not None and name not in key:
                self.add(path + (name,), "not in answer_key" + self.suggestion(name, missing, key)
                         + " (every arm holds exactly the answer-key turns)")
            self.turn(turn, path + (name,))
        for name in missing:
            self.add(path + (name,), "missing: every answer_key turn must appear in every arm")

    def suggestion(self, name: Any, missing: list[str], key: dict[str, None]) -> str:
        """`: did you mean "q2"?`, the nearest turn this arm lacks (else any answer-key turn), or nothing."""
        nearest = self.nearest(name, missing, key)
        return f": did you mean {json.dumps(nearest)}?" if nearest else ""

    def nearest(self, word: Any, *choices: Any) -> str | None:
        """The closest name in the first of `choices` that has one, while the report's budget lasts."""
        if not isinstance(word, str) or self.suggested >= SUGGESTIONS:
            return None
        self.suggested += 1
        from difflib import get_close_matches  # only when a name is misspelt

        for candidates in choices:
            found = get_close_matches(word, list(candidates), n=1, cutoff=0.6)
            if found:
                return found[0]
        return None

    def turn(self, turn: Any, path: Path) -> None:
        if not self.fields(turn, path, _TURN_FIELDS, ("status",)):
            return
        self.choice(turn, "status", path, STATUSES)
        self.boolean(turn, "transmitted", path)
        self.count(turn, "peer_bytes", path, 0, "bytes")
        if "audio" in turn:
            audio = turn["audio"]
            if not isinstance(audio, list) or len(audio) != 2:
                self.add(path + ("audio",), f"expected [start, end] in ms, got {describe(audio)}")
            else:
                self.span(audio[0], audio[1], path + ("audio", 0), path + ("audio", 1), path + ("audio",))


def problems(report: Any) -> list[ReportProblem]:
    """Every problem of a decoded report, in document order; empty when it can be judged."""
    validator = _Validator()
    validator.report(report)
    return validator.problems


def validate(report: Any, file: str | None = None) -> Report:
    """The report as a typed model with defaults filled in, or one GapstateError listing every problem.

    The error's `problems` are `errors.Problem` records, each with its JSON
    path; a caller that still has the text calls `problems` and points each one
    at its line instead.
    """
    found = problems(report)
    if found:
        raise unjudgeable(found, file)
    return build(report)


def unjudgeable(found: list[ReportProblem], file: str | None) -> GapstateError:
    """The one error for a report's problems: every one in the message, and as records."""
    return GapstateError("\n".join(str(problem) for problem in found), file, problems=tuple(p.record() for p in found))
