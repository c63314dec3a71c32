"""`python -m gapstate` and the console script, which start with the collector paused (`collector.starting`)."""

from gapstate.collector import starting

starting()  # before the imports below: the command's group resumes it once the command is found

from gapstate.cli import entry  # noqa: E402

if __name__ == "__main__":
    entry()
