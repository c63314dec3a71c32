"""The `gapstate` command: the only code that prints or exits.

Files are read by `files.source` (through `table.load` and `run.trace`) as the
core asks for them; what goes to a terminal, and the exit status, are
decided in this package alone, one module per command group.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from gapstate.cli.base import CLOSED_PIPE, INTERRUPTED, _silence_stdout, main  # each command's module loads as it runs

__all__ = ["entry", "main"]


def entry() -> None:
    """The console script: `main`, minus tracebacks for a closed pipe or Ctrl-C, and minus the teardown.

    The Gapstate group already ends a command whose output meets a closed
    pipe (141) or a Ctrl-C (130), quietly; what reaches here is what happens
    outside it, such as an error report meeting a pipe already closed
    (`gapstate replay x --format json | true`).

    Once the command has answered, the process ends with `os._exit` after
    flushing the standard streams and running the `atexit` hooks (through
    CPython's private `atexit._run_exitfuncs`, the one way to run them early;
    a test in tests/test_cli_base.py fails if it stops running them): tearing
    down the modules (networkx alone has hundreds) and freeing every object
    would cost more than some commands' own work, for memory the system
    reclaims anyway. Every file gapstate writes is closed before then.
    """
    try:
        main(prog_name="gapstate")
        code: Any = 0
    except SystemExit as done:
        code = done.code
    except BrokenPipeError:
        _silence_stdout()
        code = CLOSED_PIPE
    except KeyboardInterrupt:
        code = INTERRUPTED
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):
            # The reader went away with output still buffered: it cannot be delivered.
            _silence_stdout()
            code = CLOSED_PIPE
    import atexit

    atexit._run_exitfuncs()
    os._exit(code or 0)


if __name__ == "__main__":  # pragma: no cover
    entry()
