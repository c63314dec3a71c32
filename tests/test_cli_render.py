"""gapstate/cli/render/__init__.py: JSON written in pieces, the same text json.dumps(indent=2) gives."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gapstate.cli.render import json_chunks

PLAIN = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
                  st.sampled_from(["}", "{", "},\n  {", '"', "\\"]))
KEYS = st.one_of(st.text(max_size=6), st.sampled_from(["}", "{"]))
EVENT = st.dictionaries(KEYS, PLAIN, max_size=4)  # a trace's event: plain values
VALUES = st.recursive(
    PLAIN | EVENT | st.lists(EVENT, max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4)
    | st.tuples(inner, inner) | st.dictionaries(st.one_of(st.integers(), st.booleans(), st.none(), st.floats()), inner, max_size=3),
    max_leaves=30,
)


# 100 documents of up to five nested values each (not the profile's 200): drawing them is the test's whole cost,
# and a hundred already take every path of the writer (empty, flat and nested containers, lists of events,
# non-string keys, iterators at every depth) many times over.
@pytest.mark.slow  # drawing the documents costs about 1.4 s of CPU; tests/test_cli_check.py compares a real one in every `pytest`
@settings(max_examples=100)
@given(st.dictionaries(KEYS, VALUES, max_size=5), st.data())
def test_the_pieces_join_into_the_text_json_dumps_gives(document, data):
    expected = json.dumps(document, indent=2)
    assert "".join(json_chunks(document)) == expected
    # any list of it may come as an iterator instead, and is written as the same list
    lazy = {key: iter(value) if isinstance(value, list) and data.draw(st.booleans()) else value
            for key, value in document.items()}
    assert "".join(json_chunks(lazy)) == expected


def test_a_long_list_is_handed_on_in_several_pieces_each_made_as_the_iterator_yields():
    made = []

    def findings():
        for n in range(3000):
            made.append(n)
            yield {"kind": "rule", "trace": [{"event": "loss_voiced", "t": 100 * k} for k in range(n % 7)]}

    pieces = json_chunks({"ok": False, "findings": findings()})
    first = next(pieces)
    assert first.startswith('{\n  "ok": false,\n  "findings": [\n    {') and len(made) < 3000
    rest = list(pieces)
    assert len(rest) > 1
    assert json.loads(first + "".join(rest))["findings"][6]["trace"][5] == {"event": "loss_voiced", "t": 500}


def test_what_json_refuses_is_refused_here_too():
    for document in ({"a": {1, 2}}, {"a": [{"b": object()}]}, {"a": {(1, 2): 3}}):
        try:
            json.dumps(document, indent=2)
        except TypeError:
            pass
        else:  # pragma: no cover - each document holds what json cannot write
            raise AssertionError(document)
        try:
            "".join(json_chunks(document))
        except TypeError:
            continue
        raise AssertionError(f"{document} was written")
    assert math.isnan(json.loads("".join(json_chunks({"a": [float("nan")]})))["a"][0])
