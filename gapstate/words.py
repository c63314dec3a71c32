"""How gapstate writes for people: input shown on one line and never obeyed, nouns counted, traces as JSON Lines.

Plain text functions with no output of their own, so that the CLI's
renderers (`gapstate.cli.render`) and any text built below the CLI
(`gapstate.conformance.report`) write the same way; only the CLI prints
(`gapstate.cli.output.say`, where why the escaping matters is told).
"""

from __future__ import annotations

import json
import re
from typing import Any

# C0 and C1 controls, DEL, U+2028/2029, the invisible marks that reorder
# text on screen (U+061C, U+200E/F, U+202A-E, U+2066-9), and the lone
# surrogates that stand for the bytes of a file name that is not UTF-8.
_OTHERS = "\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
_ANY = re.compile(f"[\x00-\x1f{_OTHERS}]")
_BUT_LF = re.compile(f"[\x00-\x09\x0b-\x1f{_OTHERS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text: object) -> str:
    """`text` on one line, every control character, separator and direction mark shown as an escape."""
    shown = str(text)
    return _ANY.sub(_escaped, shown) if _ANY.search(shown) else shown


def escape_lines(text: str) -> str:
    """As `escape`, but the line feeds stay: for text whose lines a renderer built."""
    if text.isascii() and not text.encode("ascii").translate(None, _PRINTABLE_ASCII):
        return text  # the common case, told in C loops ten times faster than the search
    return _BUT_LF.sub(_escaped, text) if _BUT_LF.search(text) else text


_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + b"\n"  # in ASCII, what _BUT_LF leaves alone


WIDTH = 100  # the widest line of text for people (docs/cli.md, Output); JSON and traces keep lines whole


def wrap(line: str, indent: str = "    ", width: int = WIDTH, keep: int = 0) -> list[str]:
    """`line` broken at spaces into lines of at most `width` columns, each after the first indented by the
    line's own leading spaces and `indent`, so that it still reads as one item whose first line says what it is.

    A word wider than the room (a long path, an id) stays whole, and so does
    what is quoted in backticks (a row, a line to add): cut, it could no longer
    be searched for or pasted. So do the first `keep` characters (a finding's
    `path:line:column: kind: ` and its first word, which editors and grep read).
    """
    if len(line) <= width:
        return [line]
    import textwrap

    lead = line[: len(line) - len(line.lstrip(" "))]
    kept = line[:keep].replace(" ", "\0") + _QUOTED.sub(lambda quoted: quoted.group().replace(" ", "\0"), line[keep:])  # no NUL in escaped text
    parts = textwrap.wrap(kept, width, subsequent_indent=lead + indent, break_long_words=False, break_on_hyphens=False)
    return [part.replace("\0", " ") for part in parts]


_QUOTED = re.compile(r"`[^`]*`")


def fit(text: str, indent: str = "    ", width: int = WIDTH) -> str:
    """`text`, each of its lines wrapped (`wrap`)."""
    return "\n".join(part for line in text.split("\n") for part in wrap(line, indent, width))


def shell_word(text: str) -> str:
    """A path as a shell reads it back, for a command the reader pastes: quoted only when it needs to be."""
    import shlex

    return shlex.quote(text)


def number(n: int) -> str:
    """`n` in digits, or `a number of 5001 digits` when it has more than Python writes out (4,300)."""
    try:
        return str(n)
    except ValueError:
        size = abs(n)
        digits = int((size.bit_length() - 1) * 0.30102999566398120) + 1  # never more than it has
        while size >= 10**digits:
            digits += 1
        return many_digits(digits, n < 0)


def many_digits(digits: int, negative: bool = False) -> str:
    """A number too long to write out, by its length: `a number of 5001 digits`."""
    return f"a {'negative ' if negative else ''}number of {digits} digits"


def as_json(value: Any) -> str:
    """`value` as JSON text, and when the standard encoder cannot write it, a sketch that never raises.

    Values that come from outside (an adapter's answer, an event given to
    the Python API) may hold a number past 4,300 digits, nesting deeper than
    the encoder recurses, a key that is not a string, or a type JSON lacks:
    the sketch writes such a number `<a number of N digits>`, any other
    such value `<set>` (its type), and stops at 20 levels and 200 values.
    """
    try:
        return json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        budget = [200]
        return _sketch(value, 0, budget)


def _sketch(value: Any, depth: int, budget: list[int]) -> str:
    budget[0] -= 1
    if value is None or isinstance(value, (bool, float, str)):
        return json.dumps(value)
    if isinstance(value, int):
        shown = number(value)
        return shown if shown[-1].isdigit() else f"<{shown}>"
    if isinstance(value, (list, tuple, dict)):
        opening, closing = "{}" if isinstance(value, dict) else "[]"
        if depth >= 20 or budget[0] <= 0:
            return f"{opening}...{closing}"
        parts = []
        items = value.items() if isinstance(value, dict) else ((None, item) for item in value)
        for key, item in items:
            if budget[0] <= 0:
                parts.append("...")
                break
            shown = _sketch(item, depth + 1, budget)
            parts.append(f"{_sketch(key, depth + 1, budget)}: {shown}" if isinstance(value, dict) else shown)
        return opening + ", ".join(parts) + closing
    return f"<{type(value).__name__}>"


def trace_lines(trace: Any) -> list[str]:
    """A trace as JSON Lines, the format `gapstate replay` reads."""
    return [json.dumps(event) for event in trace]


def plural(n: int, noun: str) -> str:
    """`n` and the noun counted: '1 row', '3 rows'."""
    return f"{n} {inflect(n, noun)}"


def inflect(n: int, singular: str, many: str | None = None) -> str:
    """The word for `n` things, without the number: 'row' or 'rows'; a verb agrees too ('fires', 'fire')."""
    if n == 1:
        return singular
    return many if many is not None else f"{singular}s"


def nth(index: int) -> str:
    """A 0-based index as people count: 0 is '1st', 10 is '11th' (the JSON keeps the index)."""
    n = index + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
