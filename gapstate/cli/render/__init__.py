"""Text for people and JSON for programs, from the result objects alone.

Nothing here decides anything: each function takes a result the core
returned and gives back a string, so the CLI only prints it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

from gapstate.words import nth, plural, trace_lines, wrap

__all__ = ["json_chunks", "never_fired", "nth", "plural", "to_json", "trace_lines"]


def never_fired(lines: Iterable[int]) -> list[str]:
    """`never fired: rows at lines 174, 175, ...`, as `fuzz` and `coverage` say it, wrapped: dozens for a short run."""
    return wrap("never fired: rows at lines " + ", ".join(str(line) for line in lines))


def to_json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2)


def json_chunks(document: dict[str, Any]) -> Iterator[str]:
    """`to_json`'s text in pieces of some tens of KiB, for a document too big to build whole.

    Any value in `document` may be an iterator, written as the list it
    yields, each item encoded as it comes: a command hands over its findings
    one at a time and holds none it already wrote. json's own indenting
    encoder runs in Python a few characters a piece (5 s for check's 75 MB
    document of a 10,000-row table); here each container of plain values
    (a trace's event), and each list of such dicts (a trace), is one call of
    json's C encoder, its item separator carrying the line break and indent.
    Same text as `to_json`, byte for byte.
    """
    out: list[str] = []
    yield from _pieces(document, 0, out)
    yield "".join(out)


_PLAIN = frozenset((str, int, float, bool, type(None)))
_FLAT: dict[int, Callable[[Any], str]] = {}  # indent level -> an encoder whose item separator starts the next line
_PIECES = 512  # pieces gathered before they are handed on: a few KiB to a few hundred


def _flat(level: int) -> Callable[[Any], str]:
    """json's compact encoder, with a line break and the items' indent after each comma."""
    encoder = _FLAT.get(level)
    if encoder is None:
        separator = ",\n" + "  " * (level + 1)
        if c_make_encoder is None:  # pragma: no cover - CPython has the C encoder
            encoder = json.JSONEncoder(separators=(separator, ": ")).encode
        else:
            encode = c_make_encoder(None, _refuse, encode_basestring_ascii, None, ": ", separator, False, False, True)
            encoder = lambda value: "".join(encode(value, 0))  # noqa: E731
        _FLAT[level] = encoder
    return encoder


def _key(key: Any) -> str:
    """A dict key as json writes it (a non-string one turned into a string first)."""
    if not isinstance(key, str):
        key = json.dumps(key) if isinstance(key, (int, float)) or key is None else _refuse(key)
    return encode_basestring_ascii(key)


def _refuse(value: Any) -> str:
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _pieces(value: Any, level: int, out: list[str]) -> Iterator[str]:
    """Append `value`'s text as `json.dumps(indent=2)` writes it, `level` indents in, to `out`;
    now and then yield what `out` gathered and empty it."""
    if isinstance(value, str):
        out.append(encode_basestring_ascii(value))
        return
    if not isinstance(value, (dict, list, tuple, Iterator)):
        out.append(json.dumps(value))  # a number, true, false, null; anything else raises, as json does
        return
    inner = "\n" + "  " * (level + 1)
    close = "\n" + "  " * level + ("}" if isinstance(value, dict) else "]")
    if isinstance(value, Iterator):
        pass
    elif not value:
        out.append("{}" if isinstance(value, dict) else "[]")
        return
    elif _PLAIN.issuperset(map(type, value.values() if isinstance(value, dict) else value)):
        text = _flat(level)(value)
        out.append(text[0] + inner + text[1:-1] + close)
        return
    elif not isinstance(value, dict) and {dict}.issuperset(map(type, value)) and all(value) and _PLAIN.issuperset(
            map(type, chain.from_iterable(map(dict.values, value)))):
        # A list of plain dicts (a trace) in one call: the C encoder separates the list's items
        # as it does the dicts', and the break between two dicts is the only place a separator
        # follows "}" and precedes "{" (a string's own braces are never next to a raw line break).
        text = _flat(level + 1)(value).replace("}," + inner + "  {", inner + "}," + inner + "{" + inner + "  ")
        out.append("[" + inner + "{" + inner + "  " + text[2:-2] + inner + "}" + close)
        return
    items = iter(value.items()) if isinstance(value, dict) else iter(value)
    opened = False
    for item in items:
        out.append(("," if opened else "{" if isinstance(value, dict) else "[") + inner)
        opened = True
        if isinstance(value, dict):
            out.append(_key(item[0]) + ": ")
            item = item[1]
        yield from _pieces(item, level + 1, out)
        if len(out) >= _PIECES:
            yield "".join(out)
            out.clear()
    out.append(close if opened else "[]")
