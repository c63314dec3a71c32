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


def test_starting_pauses_it_until_started_and_only_once():
    from gapstate.collector import started, starting

    gc.enable()
    starting()
    starting()  # a second call does not forget that it was on
    assert not gc.isenabled()
    started()
    assert gc.isenabled()
    started()  # nothing left to resume: it stays as it is
    assert gc.isenabled()
    gc.disable()
    starting()
    started()
    assert not gc.isenabled()  # off before `starting`: off after `started`


def test_the_command_line_resumes_it_once_the_command_is_found(tmp_path, monkeypatch):
    """`python -m gapstate` starts paused (gapstate/__main__.py); the group turns it back on before the command runs."""
    from gapstate.cli import main
    from gapstate.collector import starting

    seen = []
    gc.enable()
    starting()
    trace = tmp_path / "trace.jsonl"
    trace.write_text('{"event": "loss_silent"}\n', encoding="utf-8")
    import gapstate.cli.base as base

    real = base.Gapstate.invoke

    def invoke(self, ctx):
        seen.append(gc.isenabled())  # before the command is found: still paused
        return real(self, ctx)

    monkeypatch.setattr(base.Gapstate, "invoke", invoke)
    main(["replay", str(trace), "--summary"], standalone_mode=False)
    assert seen == [False] and gc.isenabled()
