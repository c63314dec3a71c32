"""bench/mutants.py reads its options as a command does: `--help` says what it takes, a typo is an error, neither runs the set."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from gapstate.proof import mutation

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "mutants.py"


def _script():
    spec = importlib.util.spec_from_file_location("bench_mutants", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def script(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the whole set was judged")

    monkeypatch.setattr(mutation, "mutate", never)
    return _script()


def test_help_prints_the_options_and_judges_nothing(script, capsys):
    with pytest.raises(SystemExit) as done:
        script.main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for option in ("--jobs", "--json", "--roots", "--only"):
        assert option in out


def test_an_unknown_option_exits_2_naming_it(script, capsys):
    with pytest.raises(SystemExit) as done:
        script.main(["--jobz=2"])
    assert done.value.code == 2
    assert "--jobz" in capsys.readouterr().err


def test_an_unknown_kind_exits_2(script, capsys):
    with pytest.raises(SystemExit) as done:
        script.main(["--only=moved"])
    assert done.value.code == 2
    assert "moved" in capsys.readouterr().err
