"""One event of a trace: `Event`, its fields, what each event needs, the latest time, and the one check.

Every way in (a file, standard input, dicts through the Python API, a log of
many sessions, the vectors) decodes into `Event` and passes `settle`; every
field list, the plain reference, the strategies and the concretizer read the
fields here. The payload fields are the vocabulary's (`vocabulary.PAYLOADS`):
a field whose payload reads `SEEN` holds text (an interval id), one whose
payload reads `AFTER` a time, as `t` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

import msgspec
from msgspec import UNSET, UnsetType

from gapstate.table.vocabulary import AFTER, EVENTS, PAYLOADS, SEEN

# The latest time a trace may give, in ms: a signed 64-bit integer, as
# implementations keep it. Every way in is held to it by `Event`, so all say the same.
LATEST = 2**63 - 1

if TYPE_CHECKING:
    Name = str
else:
    Name = Literal[tuple(EVENTS)]  # so the decoder refuses an unknown name, and hands on the vocabulary's own string

Time = Annotated[int, msgspec.Meta(ge=0, le=LATEST)]


class Event(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One event of a trace: what a line decodes into, what the reader yields, what strategies build.

    A msgspec struct, so a line decodes straight into it with nothing copied
    on the way. The decoder checks the name is known (a line it refuses is
    read again to say why: `malformed.shape`). A field the line leaves out is
    `UNSET`; `settle` fills in `t` from the previous event and checks that an
    event whose payload sets a guard has that field.
    """

    event: Name
    t: Time | UnsetType = UNSET
    id: Annotated[str, msgspec.Meta(min_length=1)] | UnsetType = UNSET
    speech_start: Time | UnsetType = UNSET


class Settled(Protocol):
    """An `Event` that passed `settle`, as its readers see it: `t` is given or filled in.

    The payload field its event needs is given too; the others are read
    only for the event that needs them. A type for the checker: `Event`
    says UNSET may be anywhere, and `settle` is what rules it out.
    """

    event: str
    t: int
    id: str
    speech_start: int


FIELDS: tuple[str, ...] = Event.__struct_fields__  # every field a trace line may give, `event` first
# The field each event requires: the one its payload sets a guard from.
NEEDS = {event: payload.field for event, payload in PAYLOADS.items()}
PAYLOAD_FIELDS = tuple(dict.fromkeys(NEEDS.values()))
TIMES = ("t", *(p.field for p in PAYLOADS.values() if p.reads == AFTER))  # the fields holding ms
TEXTS = tuple(p.field for p in PAYLOADS.values() if p.reads == SEEN)  # the fields holding text
SAYS = {payload.field: payload.says for payload in PAYLOADS.values()}  # what a payload field holds, in words
assert FIELDS == ("event", "t", *PAYLOAD_FIELDS), "Event's fields are the event, t, and the vocabulary's payload fields"
assert set(TIMES + TEXTS) == set(FIELDS) - {"event"}, "every payload field holds a time or text"

# What `settle` finds wrong with an event (besides the payload field it needs, named by itself).
UNKNOWN = "unknown event"
BACK = "back in time"


def settle(events: Sequence[Event], last: int) -> tuple[int, int, str | None]:
    """The one check of decoded events, in order, after an event at `last`: (how many pass, the last time, the fault).

    An event passes when its name is known, its `t` does not go back, and
    it gives the payload field its event needs; one that leaves `t` out is
    at the time of the one before (filled in). The fault is what is wrong
    with the first event that does not pass: UNKNOWN, BACK, or the field it
    needs; None when all pass. The trace reader checks a whole batch of
    lines in one call, a log one event at a time: the same check.
    """
    known, needs, unset = EVENTS, NEEDS, UNSET
    passed = 0
    for raw in events:
        name = raw.event
        if name not in known:
            return passed, last, UNKNOWN
        t = raw.t
        if t is unset:
            t = raw.t = last
        elif t < last:
            return passed, last, BACK
        if name in needs and getattr(raw, needs[name]) is unset:
            return passed, last, needs[name]
        last = t
        passed += 1
    return passed, last, None


def given(raw: Event) -> int:
    """How many fields a decoded line gave (ask before `settle` fills in `t`).

    Every key needs a ':', so a line with no more of them than this repeats
    no key (msgspec keeps the last of two without a word).
    """
    unset = UNSET
    return 1 + (raw.t is not unset) + (raw.id is not unset) + (raw.speech_start is not unset)



def fresh_id(n: int) -> str:
    """The n-th new interval id (from 1) in the traces gapstate writes and shrinks: `iv-1`, `iv-2`, ..."""
    return f"iv-{n}"


def as_dict(raw: Event) -> dict[str, Any]:
    """The event as a trace line holds it: the fields it gives, in the order of FIELDS."""
    return msgspec.to_builtins(raw)  # a field left UNSET is left out


assert given(Event(*FIELDS[:1])) == 1 and given(Event("x", 0, "x", 0)) == len(FIELDS), "given counts every field"  # type: ignore[arg-type]
