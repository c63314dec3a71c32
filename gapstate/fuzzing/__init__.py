"""Fuzzing the table: guided walks, boundary goals, the fuzz runs and their shrinking."""
