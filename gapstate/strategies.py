"""Hypothesis strategies for fuzzing the gap-state table, or an implementation of it.

- `events(spec)`: single well-formed events with plausible payloads.
- `traces(spec, max_size=..., toward=..., goals=...)`: well-formed traces that walk
  the table towards its rows along the proof's shortest ways (`guide`):
  each event is one the environment may send in the configuration reached
  so far (anything the table does not mark `invalid`), times never go back
  (and sometimes stand still, or are left out), interval ids are sometimes
  fresh and sometimes repeated, evidence speech starts before, at or after
  the later of the last commit and the last unseen loss (often 1 ms either
  side of it, where a comparison that is not strict errs), and the trace ends
  with or without `session_end`.
- `any_traces(spec)`: arbitrary sequences, well-formed or not, for checking
  that whatever reads traces rejects what it must.

Every trace is a list of dicts in the trace format, so a failing example
pastes into `gapstate replay` as JSON Lines. `spec` is a loaded spec, a
path, markdown text, or None for the bundled spec.
"""

from gapstate.fuzzing.strategies import any_traces, events, traces

__all__ = ["any_traces", "events", "traces"]
