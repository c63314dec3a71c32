"""What is wrong with a line of a trace, in the trace's words, and the one error listing every such line.

The checks a decoded event must pass (a known event, time that does not go
back, the payload field its event needs, no field given twice) and the
diagnosis of a line the decoder refused (not JSON, a field of the wrong
kind, out of range), with no decoder text. The check itself is
`event.settle`, which the reader (`run.trace`) runs on whole batches; this
module says in words what it found, and tests/test_run_reference.py holds
both to a plain reference.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gapstate import words
from gapstate.errors import GapstateError, Problem
from gapstate.files.source import long_number
from gapstate.run.event import (
    BACK,
    FIELDS,
    LATEST,
    NEEDS,
    SAYS,
    TEXTS,
    TIMES,
    UNKNOWN,
    Event,
    given,
    settle,
)
from gapstate.table.vocabulary import EVENTS, PAYLOADS, closest

KNOWN = ", ".join(EVENTS)

# A trace with more malformed lines than this is reported by its first ones
# and a count of the rest, as a compiler stops listing errors.
MAX_PROBLEMS = 20


def kind(value: Any) -> str:
    """A JSON value's kind, as a person would name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number with a fraction"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, dict)):
        return "an array" if isinstance(value, list) else "an object"
    return f"a Python {type(value).__name__}, which JSON lacks"  # given to the API


_JSON_WORDS = (
    ("Extra data", "more than one JSON value on this line; a trace has one event object a line"),
    ("Expecting property name enclosed in double quotes", "expected a field name in double quotes (JSON has no trailing commas)"),
    ("Expecting ',' delimiter", "expected ',' between fields"),
    ("Expecting ':' delimiter", "expected ':' after a field name"),
    ("Unterminated string", "a string is not closed"),
    ("Invalid control character", "a control character (such as a tab) inside a string"),
    ("Invalid \\escape", "a backslash escape JSON does not know"),
    ("Expecting value", "expected a JSON value"),
)


def field_column(text: str, key: str) -> int | None:
    at = text.find(f'"{key}"')
    return at + 1 if at >= 0 else None


def diagnose(text: str) -> tuple[str, int | None]:
    """What is wrong with a line the decoder refused, in the trace's words (no decoder text), and a column."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        if text.rstrip().endswith(","):
            try:
                json.loads(text.rstrip()[:-1])
            except json.JSONDecodeError:
                pass
            else:
                return "a ',' after the event: JSON Lines puts nothing between lines", len(text.rstrip())
        if error.msg.startswith("Extra data") and text.lstrip().startswith('"'):
            return "a field on a line of its own, outside an event object", 1
        if error.pos >= len(text.rstrip()) and text.lstrip().startswith(("{", "[")):
            # `{` alone, or `{"event": "x",`: not a trailing comma, a line break.
            return (
                "not valid JSON: the event object is not closed on this line; a trace has each event object on one line "
                "(pretty-printed JSON is not a trace)",
                len(text.rstrip()) + 1,
            )
        words = next((said for known, said in _JSON_WORDS if error.msg.startswith(known)), error.msg.lower())
        return f"not valid JSON: {words}", error.colno
    except RecursionError:
        return "not valid JSON: nested too deeply", 1
    except ValueError:  # a number Python will not convert (4,300 digits and more)
        at = long_number(text)
        if at is None:
            return "a number too long to be read", None
        return long_time(text, at) or ("a number too long to be read", at + 1)
    return twice(text) or shape(value, text)


def long_time(text: str, at: int) -> tuple[str, int | None] | None:
    """A time field holding the number of more digits than Python converts at offset `at`, said as any time too late is.

    So `t` past 2^63 - 1 gets one message whatever its length, from a file
    and from the Python API alike (which names it `a number of N digits`).
    """
    before = re.search(r'"([^"\\]*)"\s*:\s*(-?)$', text[:at])
    if before is None or before.group(1) not in TIMES:
        return None
    key = before.group(1)
    digits = len(re.match(r"[0-9]*", text[at:]).group())  # type: ignore[union-attr]  # a digit stands at `at`
    negative = bool(before.group(2))
    return time_problem(key, -1 if negative else LATEST + 1, words.many_digits(digits, negative), text)


def shape(value: Any, text: str) -> tuple[str, int | None]:
    """What is wrong with a parsed line's value (kinds, names, ranges)."""
    if not isinstance(value, dict):
        return f"expected an event object, found {kind(value)}", 1
    for key in value:
        if key not in FIELDS:
            if not isinstance(key, str):  # a dict given to the API: a key of any type, a number too long to write out
                return f"unknown field {words.as_json(key)} (allowed: {', '.join(FIELDS)})", None
            return f"unknown field '{key}' (allowed: {', '.join(FIELDS)})", field_column(text, key)
    if "event" not in value:
        return "missing the 'event' field", 1
    if not isinstance(value["event"], str):
        return f"'event' must be a string naming an event, not {kind(value['event'])}", field_column(text, "event")
    for key in TIMES:
        if key in value:
            number = value[key]
            if isinstance(number, float):
                # 1e3 and 1000.0 are whole in value, but a trace writes integers only.
                return (
                    f"'{key}' must be an integer number of milliseconds, written without an exponent or fraction",
                    field_column(text, key),
                )
            if isinstance(number, bool) or not isinstance(number, int):
                return f"'{key}' must be a whole number of milliseconds, not {kind(number)}", field_column(text, key)
            if number < 0 or number > LATEST:
                return time_problem(key, number, words.number(number), text)
    for key in TEXTS:
        if key not in value:
            continue
        if not isinstance(value[key], str):
            return f"'{key}' must be a string ({SAYS[key]}), not {kind(value[key])}", field_column(text, key)
        if not value[key]:
            return f"'{key}' must not be empty", field_column(text, key)
        try:
            value[key].encode("utf-8")
        except UnicodeEncodeError:
            return f"'{key}' must be Unicode text: it holds a lone surrogate escape (\\ud800 to \\udfff)", field_column(text, key)
    if value["event"] not in EVENTS:  # the decoder knows the names: past every other check, as `check_event` is
        return unknown_event(value["event"], text)
    return "not a valid event", 1


def time_problem(key: str, value: int, shown: str, text: str) -> tuple[str, int | None]:
    """A time below 0 or past LATEST, `shown` in digits or by its length: one message on every way in."""
    if value < 0:
        return f"'{key}' must not be negative ({shown})", field_column(text, key)
    return f"'{key}' is past the latest time a trace may give ({LATEST} ms): {shown}", field_column(text, key)


def unknown_event(name: str, text: str) -> tuple[str, int | None]:
    """An event name the vocabulary lacks, with the closest it has."""
    close = closest(name, EVENTS)
    hint = f"did you mean '{close}'?" if close else f"expected one of: {KNOWN}"
    return f"unknown event '{name}'; {hint}", field_column(text, "event")


def check_event(raw: Event, last: int, text: str) -> tuple[str, int | None] | None:
    """What `event.settle` finds wrong with a decoded line after an event at `last`, in words; fills in `t`."""
    fault = settle((raw,), last)[2]
    if fault is None:
        return None
    if fault == UNKNOWN:
        return unknown_event(raw.event, text)
    if fault == BACK:
        return f"'t' goes back in time: {raw.t} after {last}", field_column(text, "t")
    field = NEEDS[raw.event]
    article = "an" if field[0] in "aeiou" else "a"
    return f"{raw.event} needs {article} '{field}' ({PAYLOADS[raw.event].says})", 1


def file_hint(problems: list[Problem]) -> str:
    """The mistake behind the whole file, when its lines show one: an array, or pretty-printed JSON."""
    first = (problems[0].text or "").strip()
    if first.startswith("["):
        return "the file looks like a JSON array; a trace is JSON Lines, one event object a line (jq -c '.[]' FILE)"
    if first in ("{", "}", "},") or first.startswith('"'):
        return "the file looks like pretty-printed JSON; a trace has each event object on one line (jq -c . FILE)"
    return ""


def unusable(source: str, problems: list[Problem], more: int, hint: str) -> GapstateError:
    """One error for every malformed line found: the first's place, a count and a hint in the message."""
    first = problems[0]
    count = len(problems) + more
    if count == 1:
        message = first.message + (f"; {hint}" if hint else "")
        return GapstateError(message, source, first.line, first.column, problems=tuple(problems))
    message = f"{count} malformed lines, the first here" + (f"; {hint}" if hint else "")
    if more:
        message += f" (the first {len(problems)} are listed)"
    return GapstateError(message, source, first.line, first.column, problems=tuple(problems))


def text_of(data: Any) -> str:
    """A line as written, or an event given as a dict as JSON (never raising: `words.as_json`)."""
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace").rstrip("\r\n")
    return words.as_json(data)


def repeated(raw: Event, data: Any) -> tuple[str, int | None] | None:
    """The field a line names twice, when it has more ':' than `raw` has fields set; None when none is.

    msgspec keeps the last of two equal keys without a word, so a line such
    as `{"event":"loss_voiced","id":"a","event":"busy_start"}` would replay
    as busy_start. Every key needs a ':', so a line with no more of them than
    fields set repeats nothing; only the rest (a ':' inside a string, or a
    repeat) is decoded again to look.
    """
    if not isinstance(data, bytes):
        return None  # a dict cannot repeat a key
    if data.count(b":") <= given(raw):
        return None
    return twice(data.decode("utf-8"))


def twice(text: str) -> tuple[str, int | None] | None:
    """The field a line of JSON names twice in one object, said with the column of its second time; None when none is.

    The decoder refuses `{"event": "x", "event": "busy_start"}` for its
    first name, yet `json` keeps the last: that line is named for its
    repeated key, never called "not a valid event".
    """
    repeated: list[str | None] = []  # for each object read, innermost first, the first key it repeats

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        first = None
        for key, _ in items:
            if key in seen:
                first = key
                break
            seen.add(key)
        repeated.append(first)
        return dict(items)

    try:
        value = json.loads(text, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None  # what else is wrong with it is said elsewhere
    if not isinstance(value, dict) or repeated[-1] is None:
        return None  # only the event object's own keys: the event is the outermost object, read last
    key = repeated[-1]
    written = list(re.finditer(r'"' + re.escape(key) + r'"\s*:', text))  # fewer when a key is escaped
    column = written[1].start() + 1 if len(written) > 1 else None
    return f"the field '{key}' appears twice in one event; give each field once", column
