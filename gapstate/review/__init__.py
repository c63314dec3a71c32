"""Reviewing changes: the behaviour diff and the CI formats (SARIF, GitHub)."""
