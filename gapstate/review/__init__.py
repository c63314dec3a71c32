"""Reviewing changes: the behaviour diff, recorded sessions under both tables, and the SARIF log of a check."""
