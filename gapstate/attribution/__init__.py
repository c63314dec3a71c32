"""The five attribution conditions applied to continuity-experiment reports."""
