"""gapstate.strategies, the public face of the Hypothesis strategies (what they draw: test_fuzzing_strategies.py)."""

from __future__ import annotations

import gapstate.fuzzing.strategies as implementation
import gapstate.strategies as strategies


def test_the_public_names_are_exactly_all():
    """A face: the three strategies and nothing else public, each the implementation's own."""
    public = {name for name in vars(strategies) if not name.startswith("_")}
    assert set(strategies.__all__) == public == {"events", "traces", "any_traces"}
    assert all(getattr(strategies, name) is getattr(implementation, name) for name in public)
