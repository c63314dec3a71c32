from gapstate.cli import entry

entry()
