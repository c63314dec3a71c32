"""Walks and the traces they become: the shortest walk to a goal, and abstract steps as a replayable trace.

The explorer's graph, a conformance tour and a shrunk fuzz run all end as
traces a person pastes into `gapstate replay`; `concretize` is the one place
that decides their ids and times.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from gapstate.spec.vocabulary import PAYLOADS, SEEN


def concretize(steps: Iterable[tuple[str, bool]]) -> list[dict[str, Any]]:
    """A replayable trace for abstract steps (event, value of the guard its payload sets).

    Times advance 100 ms a step. A fresh SEEN value (an interval id) is a new
    one and a repeated one the newest; an AFTER value (speech_start) whose
    guard holds is 50 ms before its own time, so after every earlier event,
    and otherwise 0, after nothing.
    """
    trace: list[dict[str, Any]] = []
    issued = 0
    for index, (event, choice) in enumerate(steps, start=1):
        item: dict[str, Any] = {"event": event, "t": 100 * index}
        payload = PAYLOADS.get(event)
        if payload is not None and payload.reads == SEEN:
            if not choice:
                issued += 1
            item[payload.field] = f"iv-{max(issued, 1)}"
        elif payload is not None:
            item[payload.field] = 100 * index - 50 if choice else 0
        trace.append(item)
    return trace


def shortest_walk(start: Any, goal: Callable[[Any], Any], moves: Callable[[Any], Iterable[tuple[Any, Any]]]) -> tuple[list[Any], Any, Any] | None:
    """Breadth-first from `start` to the first node where `goal` answers truthily: (steps, node, answer).

    `moves(node)` gives (step, next node) pairs, in a fixed order, so the walk
    found is the same on every run; None when no reachable node satisfies `goal`.
    """
    parent: dict[Any, tuple[Any, Any] | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        found = goal(node)
        if found:
            steps: list[Any] = []
            at = node
            while parent[at] is not None:
                at, step = parent[at]  # type: ignore[misc]
                steps.append(step)
            return steps[::-1], node, found
        for step, after in moves(node):
            if after not in parent:
                parent[after] = (node, step)
                queue.append(after)
    return None
