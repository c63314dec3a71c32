"""The collector is off inside `paused()` and as it was after, also when what runs inside raises."""

import gc

import pytest

from gapstate.collector import paused


@pytest.fixture(autouse=True)
def _restore_collector():
    enabled = gc.isenabled()
    yield
    (gc.enable if enabled else gc.disable)()


def test_off_inside_and_on_again_after():
    gc.enable()
    with paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_left_off_when_it_was_off():
    gc.disable()
    with paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_on_again_after_an_exception():
    gc.enable()
    with pytest.raises(ValueError), paused():
        raise ValueError("inside")
    assert gc.isenabled()


def test_nested_and_as_a_decorator():
    gc.enable()
    seen = []

    @paused()
    def inner():
        seen.append(gc.isenabled())

    with paused():
        inner()
        assert not gc.isenabled()  # the inner one leaves it as it found it: off
    inner()
    assert seen == [False, False] and gc.isenabled()


def test_check_leaves_the_collector_as_it_found_it():
    from gapstate import check

    gc.enable()
    assert check().ok
    assert gc.isenabled()
