"""Shortest traces kept as places in a walk's tree, their events made (`run.concrete`) each time they are read.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from gapstate.table.vocabulary import Stimulus


def events(steps: Sequence[Stimulus]) -> list[dict[str, Any]]:
    """`run.concrete.concretize`, imported when first asked for.

    The concretizer brings the replayer and msgspec, which a check that
    finds nothing and prints no trace never needs: about a tenth of its own
    start-up.
    """
    from gapstate.run.concrete import concretize

    return concretize(steps)


class Trace(Sequence[dict[str, Any]]):
    """A shortest trace kept as a place in a breadth-first tree, its events made each time it is read.

    `tree` maps a node to (depth, parent node, the move from the parent,
    whose first item is its `Stimulus`), a source to (0, None,
    None), as `graph.walk` returns it; the trace walks from the source to
    `node`, then takes `last`. A
    check of a big table holds thousands of counterexamples that share their
    beginnings: kept this way they cost a few references each, not a dict an
    event, and each reader gets events of its own to keep or change.
    """

    __slots__ = ("_tree", "_node", "_last")
    __hash__ = None  # type: ignore[assignment]
    fresh = True  # each read makes new events: a reader keeps them without a copy (`findings.record.own_events`)

    def __init__(self, tree: dict[Any, tuple[int, Any, tuple | None]], node: Any, last: Stimulus):
        self._tree, self._node, self._last = tree, node, last

    def steps(self) -> list[Stimulus]:
        """The stimuli the trace is made of."""
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

    def _events(self) -> list[dict[str, Any]]:
        return events(self.steps())

    def __len__(self) -> int:
        return self._tree[self._node][0] + 1

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._events())

    def __getitem__(self, index: Any) -> Any:
        events = self._events()
        return tuple(events[index]) if isinstance(index, slice) else events[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Trace, tuple, list)):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"Trace({list(self)!r})"
