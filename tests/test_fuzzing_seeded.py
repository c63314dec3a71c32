"""The one Hypothesis internal gapstate uses: a seeded run that still keeps its failures."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase

from gapstate.fuzzing.seeded import seeded


def _failing(tried: list[int]):
    @given(st.integers(0, 1000))
    def test(n: int) -> None:
        tried.append(n)
        assert n < 500

    return test


def test_a_seeded_run_keeps_its_failure_and_replays_it_first():
    database = InMemoryExampleDatabase()
    first: list[int] = []
    with pytest.raises(AssertionError):
        seeded(_failing(first), 7, database)()
    assert list(database.data.values()), "the failure is kept"
    again: list[int] = []
    with pytest.raises(AssertionError):
        seeded(_failing(again), 7, database)()
    assert again[0] >= 500, "the failure kept is the first example tried"


def test_a_seeded_run_is_the_same_run_each_time():
    runs = []
    for _ in range(2):
        tried: list[int] = []
        with pytest.raises(AssertionError):
            seeded(_failing(tried), 11, None)()
        runs.append(tried)
    assert runs[0] == runs[1]
