"""Judging continuity-experiment reports: the report model and its validation (report, validation),
the five attribution conditions and the verdicts (conditions), several reports as repeats (repeats),
and pointing problems at the report's text (positions)."""
