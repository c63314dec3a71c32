"""gapstate/run/event.py: the event model (fields, what each event needs, the latest time) and the one check."""

from __future__ import annotations

import msgspec
import pytest

from gapstate.run.event import (
    BACK,
    FIELDS,
    LATEST,
    NEEDS,
    PAYLOAD_FIELDS,
    TEXTS,
    TIMES,
    UNKNOWN,
    Event,
    as_dict,
    fresh_id,
    given,
    settle,
)
from gapstate.table.vocabulary import PAYLOADS, SEEN


def test_the_fields_are_the_event_its_time_and_the_vocabularys_payload_fields():
    assert FIELDS == ("event", "t", "id", "speech_start")
    assert set(PAYLOAD_FIELDS) == {payload.field for payload in PAYLOADS.values()}
    assert NEEDS == {"loss_voiced": "id", "evidence_turn": "speech_start"}
    assert TIMES == ("t", "speech_start") and TEXTS == ("id",)
    assert all((field in TEXTS) == (PAYLOADS[event].reads == SEEN) for event, field in NEEDS.items())


def test_a_time_past_the_latest_or_an_empty_id_is_refused_by_the_decoder():
    decode = msgspec.json.Decoder(Event).decode
    assert decode(f'{{"event":"busy_start","t":{LATEST}}}').t == LATEST
    for line in (f'{{"event":"busy_start","t":{LATEST + 1}}}', '{"event":"loss_voiced","id":""}', '{"event":"nope"}'):
        with pytest.raises(msgspec.ValidationError):
            decode(line)


def test_settle_fills_in_a_missing_time_from_the_event_before():
    events = [Event("busy_start", 5), Event("busy_end"), Event("loss_voiced", 9, "a"), Event("loss_silent")]
    assert settle(events, 0) == (4, 9, None)
    assert [e.t for e in events] == [5, 5, 9, 9]


@pytest.mark.parametrize("bad, fault", [
    (Event("busy_end", 3), BACK),
    (Event("loss_voiced", 7), "id"),
    (Event("evidence_turn", 7), "speech_start"),
    (Event("no_such_event", 7), UNKNOWN),  # a log's decoder takes any name: the check names it
])
def test_settle_stops_at_the_first_event_that_fails_and_says_why(bad, fault):
    events = [Event("busy_start", 5), bad, Event("busy_end", 9)]
    assert settle(events, 0) == (1, 5, fault)
    assert events[2].t == 9  # nothing after the fault is touched


def test_settle_one_event_at_a_time_is_settle_of_the_batch():
    events = [Event("busy_start", 5), Event("loss_voiced", id="a"), Event("busy_end", 2)]
    last, faults = 0, []
    for raw in [Event(**as_dict(e)) for e in events]:
        _, last, fault = settle((raw,), last)
        faults.append(fault)
        if fault:
            break
    assert faults == [None, None, BACK] and settle(events, 0) == (2, 5, BACK)


def test_given_counts_the_fields_a_line_gave_and_as_dict_holds_only_those():
    assert given(Event("busy_start")) == 1
    assert given(Event("evidence_turn", 4, speech_start=2)) == 3
    assert as_dict(Event("evidence_turn", 4, speech_start=2)) == {"event": "evidence_turn", "t": 4, "speech_start": 2}
    assert as_dict(Event("busy_start")) == {"event": "busy_start"}


def test_fresh_ids_count_from_one():
    assert [fresh_id(n) for n in (1, 2, 10)] == ["iv-1", "iv-2", "iv-10"]
