"""Conformance vectors: a few long traces that fire every reachable row and refuse every `invalid` one.

The traces are planned on the proof's configuration graph. A tour starts
from the initial configuration and walks, along steps that break no rule, to
the nearest row no trace has fired yet, again and again, until no unfired
row can be reached from where it stands (rows that end the session come
last, since nothing follows them). It then ends in a refusal: the nearest
`invalid` row not yet refused, or, once the session has ended, one event
after `session_end`. Refusals no tour could take get a short trace of their
own. Each planned trace is made concrete (times, ids, speech starts) and
replayed, so what a vector claims to fire is what the table does with it.
Everything is in a fixed order: two runs plan the same traces.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gapstate.errors import GapstateError
from gapstate.proof.explore import Exploration, concretize, explore
from gapstate.proof.reach import firings
from gapstate.run.replayer import ReplayResult, machine_for, replay
from gapstate.spec.vocabulary import Config
from gapstate.spec.load import Spec
from gapstate.run.trace import from_dicts

MANIFEST = "manifest.json"
AFTER_END = "after_session_end"
# A late send result is the seed's example of an event after the session ended.
LATE_EVENT = "send_ok"


@dataclass(frozen=True)
class Vector:
    """One trace of the suite and what the table does with it."""

    name: str
    trace: tuple[dict[str, Any], ...]
    result: ReplayResult  # its replay; expected.json is this document
    refused_row: int | None  # the `invalid` row its last event is refused by, if any

    @property
    def rows(self) -> tuple[int, ...]:
        """Lines of the rows the trace fires, each once, in line order."""
        return tuple(sorted({step.row for step in self.result.steps or ()}))

    @property
    def refusal(self) -> dict[str, Any] | None:
        """How the trace ends in a refusal: its index, kind, and the `invalid` row (or null)."""
        error = self.result.error
        if error is None:
            return None
        return {"index": error.index, "kind": error.kind, "row": self.refused_row}

    def manifest_entry(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trace": f"{self.name}.jsonl",
            "expected": f"{self.name}.expected.json",
            "events": len(self.trace),
            "rows": list(self.rows),
            "refusal": self.refusal,
        }


@dataclass(frozen=True)
class Suite:
    """The vectors for one spec, and the rows they were planned to cover."""

    spec: str
    vectors: tuple[Vector, ...]
    reachable: tuple[int, ...]  # lines of the rows the proof finds reachable
    refusable: tuple[int, ...]  # lines of the `invalid` rows some reachable configuration refuses

    @property
    def unfired(self) -> tuple[int, ...]:
        """Reachable rows no vector fires: on a table that breaks a rule, those only a broken step reaches."""
        fired = {line for vector in self.vectors for line in vector.rows}
        return tuple(line for line in self.reachable if line not in fired)

    def manifest(self, sha256: str, version: str, folder: str | None = None) -> dict[str, Any]:
        """manifest.json: every trace with the rows it fires, the spec's path and digest, gapstate's version.

        Written into `folder`, the spec's path is relative to it, so the
        folder and the spec can move together (or be checked out elsewhere).
        """
        import os

        path = self.spec if folder is None or self.spec == "<stdin>" else os.path.relpath(os.path.abspath(self.spec), os.path.abspath(folder))
        return {
            "gapstate": version,
            "spec": {"path": path, "sha256": sha256},
            "traces": [vector.manifest_entry() for vector in self.vectors],
            "reachable_rows": list(self.reachable),
            "refused_rows": list(self.refusable),
        }


def build(spec: Spec) -> Suite:
    """The suite for a steppable spec (machine_for raises GapstateError otherwise)."""
    machine = machine_for(spec)
    exploration = explore(machine)
    table = machine.table
    ending = {row.line for row in table.rows if row.event == "session_end"}
    invalid = {row.line for row in table.rows if row.invalid}
    reachable = tuple(sorted(exploration.fired))
    # Where each `invalid` row refuses its event: the steps `firings` finds for it.
    refusals: dict[Config, list[tuple[int, str, bool]]] = {}
    for line, ways in firings(machine, exploration).items():
        if line in invalid:
            for way in ways:
                refusals.setdefault(way.config, []).append((line, way.event, way.choice))
    refusable = {line for found in refusals.values() for line, _, _ in found}
    counts = {"tour": 0, "refuse": 0}
    vectors = []
    for kind, plan, refused in _plan(exploration, refusals, set(reachable), ending, refusable):
        counts[kind] += 1
        trace = tuple(concretize(plan))
        vectors.append(Vector(f"{kind}-{counts[kind]:02d}", trace, replay(spec, from_dicts(trace)), refused))
    return Suite(spec.path, tuple(vectors), reachable, tuple(sorted(refusable)))


def builtin(spec: Spec) -> list[tuple[str, list[dict[str, Any]]]]:
    """The suite's traces by name, as `load` gives a folder's: what conform runs without --vectors."""
    return [(vector.name, list(vector.trace)) for vector in build(spec).vectors]


Plan = list[tuple[str, bool]]  # abstract steps: (event, value of its chosen guard)


Refusals = dict[Config, list[tuple[int, str, bool]]]  # configuration -> (invalid row, event, choice) refused there


def _plan(
    exploration: Exploration, refusals: Refusals, unfired: set[int], ending: set[int], refusable: set[int]
) -> list[tuple[str, Plan, int | None]]:
    """The traces as (kind, abstract steps, refused row): tours first, then the refusals left over."""
    plans: list[tuple[str, Plan, int | None]] = []
    left: set[int | str] = set(refusable) | {AFTER_END}
    while unfired:
        config, steps = exploration.initial, []
        while True:
            walk = exploration.firing(config, unfired - ending) or exploration.firing(config, unfired)
            if walk is None:
                break
            steps += [(s.event, s.choice) for s in walk]
            unfired -= {s.row for s in walk}
            config = walk[-1].target
        if not steps:
            break  # what is left cannot be reached along steps that break no rule
        tail, refused = _refusal(exploration, refusals, config, left) or ([], None)
        plans.append(("tour", steps + tail, refused if isinstance(refused, int) else None))
    while left:
        found = _refusal(exploration, refusals, exploration.initial, left)
        if found is None:
            break
        plans.append(("refuse", found[0], found[1] if isinstance(found[1], int) else None))
    return plans


def _refusal(
    exploration: Exploration, refusals: Refusals, source: Config, left: set[int | str]
) -> tuple[Plan, int | str] | None:
    """The steps from `source` to the nearest refusal still `left`, ending in the refused event.

    An `invalid` row comes before the event after `session_end`, which a
    tour can always add once its session has ended. The refusal taken is
    removed from `left`.
    """

    def refused(config: Config) -> tuple[int, tuple[str, bool]] | None:
        return next(((row, (event, choice)) for row, event, choice in refusals.get(config, ()) if row in left), None)

    found = exploration.walk(source, refused)
    if found is not None:
        walk, _, (row, last) = found
        left.discard(row)
        return [(s.event, s.choice) for s in walk] + [last], row
    if AFTER_END not in left:
        return None
    ended = exploration.walk(source, lambda config: config.ended)
    if ended is None:
        return None
    left.discard(AFTER_END)
    return [(s.event, s.choice) for s in ended[0]] + [(LATE_EVENT, False)], AFTER_END


def load(folder: str | Path) -> list[tuple[str, list[dict[str, Any]]]]:
    """The traces of a vectors folder written by `gapstate vectors` (or any folder of `*.jsonl` traces).

    With a manifest.json, its traces in its order; without one, every
    `NAME.jsonl` in name order. A missing folder, an unreadable manifest or
    a malformed trace raises GapstateError naming the file (and line).
    """
    from gapstate.spec.source import parse_json, read_text
    from gapstate.run.trace import read_trace

    base = Path(folder)
    if not base.is_dir():
        raise GapstateError("no such folder" if not base.exists() else "is not a folder", file=str(folder))
    manifest = base / MANIFEST
    if manifest.exists() or manifest.is_symlink():
        text = read_text(manifest)
        document = parse_json(text, str(manifest))
        try:
            names = [entry["trace"] for entry in document["traces"]]
        except (KeyError, TypeError):
            raise GapstateError("expected {\"traces\": [{\"trace\": FILE, ...}, ...]}", str(manifest), 1, 1) from None
        for index, name in enumerate(names):
            why = _outside(base, name)
            if why is not None:
                from gapstate.attribution.positions import locate, position  # JSON paths to lines and columns

                line, column = position(text, locate(text), ("traces", index, "trace"))
                raise GapstateError(f"traces[{index}].trace: {why}", str(manifest), line, column)
    else:
        names = sorted(path.name for path in base.glob("*.jsonl"))
    if not names:
        raise GapstateError("holds no traces (NAME.jsonl)", file=str(folder))
    vectors = []
    for name in names:
        events = read_trace(base / name)
        trace = [_as_dict(item) for item in events]
        vectors.append((name.removesuffix(".jsonl"), trace))
    return vectors


def is_suite(folder: Path) -> bool:
    """True when `folder` holds a suite gapstate wrote: gapstate's manifest, naming everything in the folder.

    `vectors --force` replaces only such a folder, never one a person keeps.
    """
    import json

    try:
        document = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        traces = [entry["trace"] for entry in document["traces"]]
        named = {MANIFEST, *traces, *(f"{trace.removesuffix('.jsonl')}.expected.json" for trace in traces)}
        return "gapstate" in document and {path.name for path in folder.iterdir()} <= named
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return False


def _outside(base: Path, name: Any) -> str | None:
    """Why a manifest may not name `name`, or None: only regular files inside its folder, named plainly.

    A manifest comes with the suite, perhaps from someone else: it must not
    lead the reader to a file elsewhere (`..`, an absolute path, a symbolic
    link out of the folder).
    """
    import json
    import os

    if not isinstance(name, str) or not name:
        return "expected a file name (a non-empty string)"
    shown = json.dumps(name)
    if os.path.isabs(name) or ".." in Path(name).parts or "\\" in name or "\0" in name:
        return f"{shown} is not a file inside the suite's folder"
    inside = os.path.realpath(base)
    if os.path.commonpath([inside, os.path.realpath(base / name)]) != inside:
        return f"{shown} leads out of the suite's folder"
    if not (base / name).exists():
        return f"{shown}: no such file in the suite's folder"
    if not (base / name).is_file():
        return f"{shown} is not a regular file"
    return None


def _as_dict(item: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"event": item.event, "t": item.t}
    for key in ("id", "speech_start"):
        value = getattr(item, key)
        if isinstance(value, (str, int)):
            event[key] = value
    return event
