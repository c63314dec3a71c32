"""Configurations as small integers, the classes of those that behave alike, and how many the caps imply.

The explorer (`explore.py`) walks integers, not `Config`s: a set of ints
is what lets a table with large caps be explored in memory proportional to
its configurations, and the classes are what let it step only a few of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product
from operator import mul
from typing import Any

from gapstate.run.machine import Machine
from gapstate.table.vocabulary import ACTIONS, COUNTERS, EVENTS, Config, action

# A step of a class: (delta to the target from the representative, the
# stimulus, row line, clean, the (stride, size) of each folded counter the
# step sets). From another member of the class the target is the same plus
# the member's offset in every folded counter the step does not set.
ClassStep = tuple[int, Any, int, bool, tuple[tuple[int, int], ...]]


class Packing:
    """A `Config` packs into one int, field by field (mixed radix).

    The state by its index, a counter by its value (at most its cap plus
    what one step adds: a configuration past a cap is not expanded), a flag
    as a bit.

    The classes: the guards and rules read a counter only against 0 and
    against its cap (see `vocabulary`: `budget_left`, `attempts_left`,
    `post_send`, `cap-exceeded`), and actions only add to it or set it to a
    fixed value. So two configurations that differ only in a counter, both
    well inside (0, cap), take the same steps: the same rows, rules and
    flags, with the counter shifted alike, or set alike where a step sets it
    (`open_gap` starts a fresh attempt allowance). `fold` maps a node to its
    class's representative (each such counter at the first value of that
    middle range); the explorer steps representatives only.
    """

    def __init__(self, machine: Machine):
        caps = machine.caps
        self.states = tuple(machine.table.states)
        self._state_index = {state: i for i, state in enumerate(self.states)}
        added = {c: 0 for c in COUNTERS}
        negative = set()
        for row in machine.table.rows:
            for counter in COUNTERS:
                adds = sum(action(a).add.get(counter, 0) for a in row.actions)
                added[counter] = max(added[counter], adds)
                if any(action(a).add.get(counter, 0) < 0 for a in row.actions):
                    negative.add(counter)
        set_to: dict[str, set[Any]] = {c: set() for c in COUNTERS}
        for changes in (*(a.sets for a in ACTIONS.values()), *(e.sets for e in EVENTS.values()),
                        *(e.then for e in EVENTS.values())):
            for name, value in changes.items():
                if name in set_to:
                    set_to[name].add(value)
        self.radix: list[tuple[str, int, int]] = []  # (field, stride, size)
        stride = 1
        for name in Config._fields:
            size = len(self.states) if name == "state" else caps[name] + added[name] + 1 if name in COUNTERS else 2
            self.radix.append((name, stride, size))
            stride *= size
        self.space = stride  # every packed value is below it
        assert self.radix[0][:2] == ("state", 1)  # `pack` and `decode` rely on it
        # for `decode`: the counters one by one, and the flags (the last fields, a bit each, see
        # Config) by one lookup of the number they make together
        self._counter_radix = tuple((st, size) for _, st, size in self.radix[1:1 + len(COUNTERS)])
        flags = self.radix[1 + len(COUNTERS):]
        assert all(size == 2 for _, _, size in flags)
        self._flags_stride = flags[0][1]
        self._flag_values = tuple(tuple(bool(bits >> i & 1) for i in range(len(flags))) for bits in range(1 << len(flags)))
        self._strides = tuple(stride for _, stride, _ in self.radix[1:])
        # (stride, size, cap) of each counter, for `expanded`; and of the foldable ones, the middle range
        self.caps = [(st, size, caps[name]) for name, st, size in self.radix if name in COUNTERS]
        self._shifts: list[tuple[int, int, int, int]] = []  # (stride, size, low, high)
        for name, st, size in self.radix:
            if name not in COUNTERS or name in negative:
                continue
            low = added[name] + 2  # the middle: low..high, where v > 0, v < cap and v + a step's add < cap
            high = caps[name] - added[name] - 2
            if high > low and not any(low <= value <= high for value in set_to[name]):
                self._shifts.append((st, size, low, high))
        self.folds = bool(self._shifts)  # some counter has a middle range: classes hold more than one node
        # which folded counters each row's step sets, by row line: its actions' and its event's
        folded = {name: (st, size) for name, st, size in self.radix if any(st == s[0] for s in self._shifts)}
        self.resets: dict[int, tuple[tuple[int, int], ...]] = {}
        for row in machine.table.rows:
            changed = {n for a in row.actions for n in action(a).sets}
            event = EVENTS.get(row.event)
            if event is not None:
                changed.update(event.sets, event.then)
            self.resets[row.line] = tuple(folded[n] for n in sorted(changed) if n in folded)

    def same_as(self, other: Packing) -> bool:
        """Whether a node, its class and a step's resets mean the same in both packings (the rows' lines aside)."""
        return (self.states == other.states and self.radix == other.radix and self._shifts == other._shifts)

    def pack(self, config: Config) -> int:
        """`encode` without its range checks, for configurations the machine itself produced."""
        return self._state_index[config[0]] + sum(map(mul, config[1:], self._strides))

    def encode(self, config: Config) -> int:
        node = 0
        value: Any  # a field's value: the state's name, a count or a flag
        for (name, stride, size), value in zip(self.radix, config, strict=True):
            code = self._state_index[value] if name == "state" else int(value)
            if not 0 <= code < size:
                raise ValueError(f"{name} = {value} is outside the explored range")
            node += code * stride
        return node

    def decode(self, node: int) -> Config:
        states = self.states
        return Config._make((states[node % len(states)], *[node // stride % size for stride, size in self._counter_radix],
                            *self._flag_values[node // self._flags_stride]))

    def expanded(self, node: int) -> bool:
        """Within every cap: such a configuration is explored further."""
        return all(node // stride % size <= cap for stride, size, cap in self.caps)

    def fold(self, node: int) -> int:
        """The representative of the node's class (itself when no counter is in its middle range)."""
        for stride, size, low, high in self._shifts:
            value = node // stride % size
            if low < value <= high:
                node -= (value - low) * stride
        return node

    @staticmethod
    def target(source: int, representative: int, delta: int, resets: tuple[tuple[int, int], ...]) -> int:
        """Where a class's step (`delta` from the representative) leads from `source`, a member of it."""
        target = source + delta
        for stride, size in resets:  # the step sets this counter: the member's offset in it is gone
            target -= (source // stride % size - representative // stride % size) * stride
        return target

    def class_size(self, representative: int) -> int:
        """How many configurations the representative stands for."""
        size = 1
        for stride, width, low, high in self._shifts:
            if representative // stride % width == low:
                size *= high - low + 1
        return size

    def class_targets(self, representative: int, step: ClassStep) -> Iterator[int]:
        """The representatives of every class a step of this class leads to, from any of its members.

        In a folded counter the step does not set, the members' values
        low..high become low+d..high+d: the middle class, and each value
        past the middle on its own.
        """
        delta, resets = step[0], step[4]
        options = []
        for stride, size, low, high in self._shifts:
            if representative // stride % size != low or (stride, size) in resets:
                continue
            d = (representative + delta) // stride % size - low
            values = [low + d] if d <= high - low else []  # folds to low
            values += range(max(low + d, high + 1), high + d + 1)
            options.append([(value - low - d) * stride for value in values])
        base = representative + delta
        for offsets in product(*options):
            yield self.fold(base + sum(offsets))
