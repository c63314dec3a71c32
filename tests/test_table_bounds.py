"""The bounds catalogue: the names the JSON and `witness --bound` use, and how each is said."""

from __future__ import annotations

from gapstate.table.bounds import BOUND_NAMES, BOUNDS


def test_the_four_bounds_are_named_as_the_json_gives_them():
    assert BOUND_NAMES == ("sends_per_gap", "commits_per_gap", "commits_per_session", "attempts_per_episode")
    assert all(bool(b.counts) != bool(b.counter) for b in BOUNDS)  # counted along a gap, or a counter's peak


def test_a_bound_and_its_change_read_as_a_reviewer_says_them():
    commits = BOUNDS[BOUND_NAMES.index("commits_per_gap")]
    assert commits.says(3) == "a gap can take at most 3 committed requests"
    assert commits.says(None) == "a gap can take committed requests without bound"
    assert commits.change(3, 4) == "a gap can now take 4 committed requests, was 3"
    assert commits.change(3, None) == "a gap can now take committed requests without bound, was 3"
    assert commits.change(None, 3) == "a gap can now take at most 3 committed requests, was without bound"
