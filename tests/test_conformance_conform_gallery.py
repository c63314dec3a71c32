"""conform at its defaults catches every bug of the gallery, with a short trace that shows it."""

from __future__ import annotations

import pytest

import gapstate

from .gallery import GALLERY
from .support import slow_but

# what a bug shows in only when the answer carries it
HIDDEN_WITHOUT_DEBT = {"WriteOffPaysDebt"}


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_conform_at_its_defaults_catches_the_bug_in_the_vectors_and_explains_it(name):
    result = gapstate.conform(GALLERY[name](), duration=None)
    assert not result.ok, f"{name} passed conform"
    found = result.divergence
    assert found.source.startswith("tour-")  # the vectors, which do not depend on the seed
    assert len(found.trace) <= 12, gapstate.conform_report(result)
    assert found.index == len(found.trace) - 1
    replayed = gapstate.replay(gapstate.load_spec(), list(found.trace))
    if "refused" in found.expected:
        assert replayed.error is not None and replayed.error.index == found.index
    else:
        assert replayed.steps[-1].to_dict()["row"] == found.row
        assert f"| {replayed.steps[-1].event} |" in found.row_text
        assert len(found.reasons) == len(replayed.steps[-1].guards)


class StateAndActionsOnly:
    """A gallery loop that answers neither its counters nor its debt."""

    def __init__(self, loop):
        self.loop = loop

    def reset(self):
        return self.loop.reset()

    def step(self, event):
        return {k: v for k, v in self.loop.step(event).items() if k in ("state", "actions", "refused")}


# Every bug under `pytest -m slow`; in the fast suite a counter's bug and a refusal's (the test above runs every bug).
@pytest.mark.parametrize("name", slow_but(sorted(set(GALLERY) - HIDDEN_WITHOUT_DEBT), "AttemptsOneEarly", "SecondSessionEndTaken"))
def test_the_vectors_catch_the_bug_from_state_and_actions_alone(name):
    result = gapstate.conform(StateAndActionsOnly(GALLERY[name]()), examples=0, duration=None)
    assert not result.ok, f"{name} passed on state and actions"
    assert set(result.divergence.fields) & {"state", "actions", "refused"}


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(GALLERY))
def test_conform_at_its_defaults_catches_the_bug_whatever_the_seed(name, seed):
    result = gapstate.conform(GALLERY[name](), seed=seed, duration=None)
    assert not result.ok, f"{name} passed conform with seed {seed}"
