"""One version: the package face, the command line and the installed metadata all read gapstate/version.py."""

from __future__ import annotations

from importlib.metadata import version

from click.testing import CliRunner

import gapstate
from gapstate.cli import main
from gapstate.version import __version__


def test_the_face_the_cli_and_the_metadata_say_one_version():
    assert gapstate.__version__ == __version__ == version("gapstate")
    assert CliRunner().invoke(main, ["--version"]).output == f"gapstate, version {__version__}\n"
