"""Differential: the fast paths agree with the plain reference (tests/reference.py).

The machine's compiled, memoised step; the replayer's Session, with its
nodes and the payload's guard decided inline; and the trace reader, which
decodes a chunk of lines in one call, against the same things written the
obvious way.

Each test draws hundreds of cases (about 2.3 s of CPU together), so the
module runs under `pytest -m slow`, the second half of the README's test
command; the fast suite holds the same paths to examples
(tests/test_run_machine.py, test_run_replayer.py, test_run_trace.py).
"""

from __future__ import annotations

import io
import json
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gapstate
from gapstate.errors import GapstateError
from gapstate.run import lines as line_reader
from gapstate.run import malformed, trace
from gapstate.run.event import Event, as_dict
from gapstate.run.replayer import Session, machine_for
from gapstate.strategies import any_traces, events, traces
from gapstate.table.vocabulary import COUNTERS, EVENTS, FLAGS, Config

from . import reference

pytestmark = pytest.mark.slow

SPEC = gapstate.load_spec()
TABLE = SPEC.table
MACHINE = machine_for(SPEC)
CAPS = TABLE.cap_limits()

configs = st.builds(
    Config,
    state=st.sampled_from(TABLE.states),
    **{name: st.integers(0, CAPS[name]) for name in COUNTERS},  # within the caps, as every reachable one is
    **{name: st.booleans() for name in FLAGS},
)


@settings(max_examples=300)
@given(configs, st.sampled_from(tuple(EVENTS)), st.booleans())
def test_the_compiled_memoised_step_is_the_plain_step(config, event, choice):
    expected = reference.step(TABLE, config, event, choice)
    assert MACHINE.step(config, event, choice) == expected
    assert MACHINE.step_once(config, event, choice) == expected


def _replayed(trace_items):
    """The session's outcomes, one per event fed, until it stops."""
    session = Session(MACHINE)
    taken = []
    stop = session.run(trace_items, lambda step: taken.append((step.outcome, step.before)))
    if stop is not None and stop.outcome.status is not gapstate.run.machine.Status.OK:
        taken.append((stop.outcome, stop.before))
    return taken


def _events(items):
    t = 0
    out = []
    for item in items:
        t = item.get("t", t)
        out.append(Event(**{**item, "t": t}))
    return out


@settings(max_examples=60)
@given(st.one_of(traces(SPEC), st.lists(events(SPEC), max_size=40)))
def test_the_session_replays_as_the_plain_replay(items):
    items = _events(items)
    assert _replayed(items) == list(reference.replay(TABLE, items))


def _lines():
    """Trace lines: events and arbitrary values as JSON, and the usual ways a line goes wrong."""
    as_json = any_traces(SPEC, max_size=1).flatmap(lambda items: st.sampled_from([json.dumps(i) for i in items] or ["{}"]))
    compact = events(SPEC).map(lambda e: json.dumps(e, separators=(",", ":")))
    broken = st.sampled_from([
        "", "   ", "{", "}", "[", '{"event":"busy_start"},', '{"event":"busy_start","event":"busy_end"}',
        '{"event":"busy_start","\\u0074":1,"t":2}', '{"event":"busy_start","t":1e3}', '{"event":"busy_start","t":1.0}',
        '{"event":"busy_start","t":9223372036854775808}', '{"event":"busy_start","t":-0}', '{"event":"loss_voiced","id":""}',
        '{"event":"loss_voiced","t":5,"id":"a:b"}', '{"event":"busy_start","t":NaN}', "\u00e9", '{"event":"busy_start"}\r',
        '{"event": "loss_voiced", "id": "\\ud800"}',
        # what the reader's check of a batch against its own text written again must not let through
        '{"event": "busy_start", "t": 1, "t": 2}', '{"event":"busy_start"} {"event":"busy_end"}', '{"t":4,"event":"busy_start"}',
        '{"event":"loss_voiced","id":"a b","id":"c"}', '{"event":"loss_voiced","t":1,"id":" x "}', '\t{"event":"busy_start",\t"t":3}',
        '{"event":"busy_start","t":1,"\\u0074":2}', '{"event":"bogus"}', '{"event":"bogus","t":-1}', '{"event":"busy_\\u0073tart"}',
    ])
    return st.one_of(compact, compact, as_json, broken, st.text(max_size=12))


@contextmanager
def chunks_of(size):
    """The reader's chunk size set to `size` bytes (drawn by Hypothesis, so not pytest's monkeypatch)."""
    saved = line_reader.CHUNK
    line_reader.CHUNK = size
    try:
        yield
    finally:
        line_reader.CHUNK = saved


@settings(max_examples=150)
@given(st.lists(_lines(), max_size=30), st.sampled_from([1, 16, 64, 1 << 20]), st.booleans())
def test_the_chunked_reader_reads_as_the_plain_reader(lines, chunk, bom):
    data = (b"\xef\xbb\xbf" if bom else b"") + "".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass")
    expected, bad = reference.read(data)
    with chunks_of(chunk):
        reader = trace.Events("<t>", line_reader.file_batches(io.BytesIO(data), "<t>"))
        try:
            got = [as_dict(e) for e in reader]
        except GapstateError as error:
            assert [p.line for p in error.problems] == bad[: malformed.MAX_PROBLEMS]
        else:
            assert bad == [] and got == expected

