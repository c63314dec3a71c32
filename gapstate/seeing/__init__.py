"""Seeing the table: witnesses, explanations, diagrams, coverage of recorded traces."""
