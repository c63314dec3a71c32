"""Abstract steps as a replayable trace, and shortest traces kept as places in a walk's tree.

The explorer's graph, a conformance tour and a shrunk fuzz run all end as
traces a person pastes into `gapstate replay`; `concretize` is the one place
that decides their ids and times.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from gapstate.table.vocabulary import PAYLOADS, SEEN


def concretize(steps: Iterable[tuple[str, bool]]) -> list[dict[str, Any]]:
    """A replayable trace for abstract steps (event, value of the guard its payload sets).

    Times advance 100 ms a step. A fresh SEEN value (an interval id) is a new
    one and a repeated one the newest; an AFTER value (speech_start) whose
    guard holds is 50 ms before its own time, so after every earlier event,
    and otherwise 0, after nothing.
    """
    trace: list[dict[str, Any]] = []
    append = trace.append
    issued = 0
    t = 0
    for event, choice in steps:
        t += 100
        payload = _PAYLOAD_FIELDS.get(event)
        if payload is None:
            append({"event": event, "t": t})
        elif payload[1]:  # SEEN: an interval id
            if not choice:
                issued += 1
            append({"event": event, "t": t, payload[0]: f"iv-{issued or 1}"})
        else:
            append({"event": event, "t": t, payload[0]: t - 50 if choice else 0})
    return trace


_PAYLOAD_FIELDS = {event: (payload.field, payload.reads == SEEN) for event, payload in PAYLOADS.items()}


class Trace(Sequence[dict[str, Any]]):
    """A shortest trace kept as a place in a breadth-first tree, its events made each time it is read.

    `tree` maps a node to (depth, parent node, the move from the parent,
    whose first item is its (event, choice) stimulus), a source to (0, None,
    None), as `graph.walk` returns it; the trace walks from the source to
    `node`, then takes `last`. A
    check of a big table holds thousands of counterexamples that share their
    beginnings: kept this way they cost a few references each, not a dict an
    event, and each reader gets events of its own to keep or change.
    """

    __slots__ = ("_tree", "_node", "_last")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, tree: dict[Any, tuple[int, Any, tuple | None]], node: Any, last: tuple[str, bool]):
        self._tree, self._node, self._last = tree, node, last

    def steps(self) -> list[tuple[str, bool]]:
        """The (event, choice) pairs the trace is made of."""
        tree, node = self._tree, self._node
        steps = []
        while True:
            _, node, step = tree[node]
            if step is None:
                break
            steps.append(step[0])
        steps.reverse()
        steps.append(self._last)
        return steps

    def __len__(self) -> int:
        return self._tree[self._node][0] + 1

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(concretize(self.steps()))

    def __getitem__(self, index: Any) -> Any:
        events = concretize(self.steps())
        return tuple(events[index]) if isinstance(index, slice) else events[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Trace, tuple, list)):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"Trace({list(self)!r})"
