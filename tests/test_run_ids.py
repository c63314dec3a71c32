"""gapstate/run/ids.py: the ids a session has seen, as a set would hold them, in bounded memory."""

from __future__ import annotations

import random

import pytest

from gapstate.run.ids import Ids


def ids(seed: int, count: int) -> list[str]:
    """Short, long, non-ASCII, empty, NUL-bearing and repeated ids, mixed."""
    rng = random.Random(seed)
    shapes = [
        lambda: f"iv-{rng.randint(0, 3000)}",
        lambda: "é" * rng.randint(0, 40),
        lambda: "x" * rng.randint(10, 20) + str(rng.randint(0, 99)),
        lambda: "a\0" * rng.randint(0, 9),
        lambda: str(rng.getrandbits(200)),
    ]
    return [rng.choice(shapes)() for _ in range(count)]


@pytest.mark.parametrize("compact", [0, 50, 1 << 17])
def test_membership_is_what_a_set_of_the_ids_says(compact):
    held, reference = Ids(compact), set()
    for index, id in enumerate(ids(compact, 6000)):
        assert (id in held) == (id in reference), id
        if index % 2:
            held.add(id)  # without asking first, as after a known-fresh id
        else:
            assert (id in held) == (id in reference)  # asked again, then added
            held.add(id)
        reference.add(id)
        assert len(held) == len(reference)


def test_a_million_long_ids_would_take_sixteen_bytes_each():
    held = Ids(compact=0)
    for n in range(2000):
        held.add(f"{n}-" + "x" * 10_000)
    assert len(held) == 2000
    assert sum(len(bucket) for bucket in held._buckets) == 16 * 2000


def test_few_short_ids_can_be_listed_and_digests_cannot():
    few = Ids()
    few.add("iv-1"), few.add("iv-2")
    assert sorted(few) == ["iv-1", "iv-2"]
    many = Ids(compact=1)
    many.add("iv-1"), many.add("iv-2")
    with pytest.raises(TypeError):
        list(many)


@pytest.mark.parametrize("compact", [0, 5, 50, 1 << 17])
def test_the_plain_set_replay_adds_to_in_c_agrees_with_adding_through_the_ids(compact):
    """Replay's loop tests `id in plain` and adds short ids to it while there is room (Ids.plain); the rest via add."""
    held, reference = Ids(compact), set()
    plain, room = held.plain(), held.limit - len(held)
    for id in ids(compact + 1, 3000):
        assert (id in plain if plain is not None else id in held) == (id in reference), id
        if id not in reference:
            if plain is not None and room > 0 and len(id) <= 32:
                plain.add(id)
                room -= 1
            else:
                held.add(id)
                plain, room = held.plain(), held.limit - len(held)
            reference.add(id)
        assert len(held) == len(reference)
    assert all(id in held for id in reference)


def test_plain_is_the_set_only_while_every_id_is_kept_as_itself():
    few = Ids(compact=3)
    few.add("iv-1")
    assert few.plain() == {"iv-1"}
    few.add("x" * 40)  # kept as a digest: testing the set for the id itself would miss it
    assert few.plain() is None and "x" * 40 in few
    many = Ids(compact=1)
    many.add("a"), many.add("b")
    assert many.plain() is None
