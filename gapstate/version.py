"""gapstate's version, in one place: the package face, the CLI, the build and what keys on it read it here.

What keys on it: the fuzz example database (a new version replays no old
failure), SARIF's driver, the vectors' manifest.
"""

__version__ = "0.1.0"
