"""The one way out: every line gapstate prints goes through `say`, and input is shown, never obeyed.

File names, ids, arm and turn names, answers and quoted lines come from
whoever wrote the input, perhaps an attacker's pull request. Printed raw, a
control character could move the cursor or recolour the terminal, and a
line break could start a line of gapstate's own output, or a GitHub
workflow command (`::error ...`, `::add-mask::`, `::stop-commands::`).

Two layers, one escape (`gapstate.words`, where the API's text is written too):
- `escape` shows every control character (C0, DEL, C1), line and paragraph
  separator and bidirectional override as a backslash escape, line feeds
  included. Renderers pass each piece of input they put into text through
  it, so no piece can end a line.
- `say` prints, escaping the same characters except the line feeds the
  renderer itself wrote; so whatever a renderer forgets, it cannot move the
  cursor or recolour the terminal.
JSON needs neither (`json.dumps` escapes them all), but goes through `say`
too, so there is one way out.

The summary line, `gapstate COMMAND: ...` (what was read and the verdict),
goes through `summarize`, which escapes it whole (line feeds too: it is one
line, and the file names, folders and settings it quotes are input), so a
renderer of a summary escapes nothing itself. The group prints it once, after the command
returns, as the last line on stderr, in every format. Stdout then carries
only the report or document, so it can be piped or redirected whole, and
the verdict still reaches the person at the terminal, after any progress
bar, warning or error text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import click

from gapstate.words import escape, escape_lines

__all__ = ["Gathered", "escape", "escape_lines", "say", "say_json", "say_lines", "say_summary", "summarize"]

_SUMMARY = "gapstate.summary"  # the key in click's context meta, shared by the group and its command


def say(text: str, err: bool = False, nl: bool = True) -> None:
    """Print `text` (to stderr when `err`), its control characters shown, not obeyed."""
    click.echo(escape_lines(text), err=err, nl=nl)


# Pieces of output gathered before a write: some thousand lines (a write a line costs more than the
# work), but never much more than 64 KiB of text, however long each line (a 1 MiB id a step).
_LINES = 1024
_CHARS = 1 << 16


class Gathered:
    """Pieces of text joined by `separator`, said a batch at a time as they come; `close` says the rest."""

    def __init__(self, separator: str = "\n", lines: int = _LINES):
        self.separator = separator
        self.lines = lines
        self.pending: list[str] = []
        self.size = 0
        self.written = False

    def add(self, text: str) -> None:
        self.pending.append(text)
        self.size += len(text)
        if len(self.pending) >= self.lines or self.size >= _CHARS:
            self.close()

    def close(self) -> None:
        """Say what is pending (nothing after it: more may be added)."""
        if self.pending:
            say((self.separator if self.written else "") + self.separator.join(self.pending), nl=False)
            self.written = True
            self.pending, self.size = [], 0


def say_lines(lines: Iterable[str], chunk: int = _LINES) -> None:
    """`say("\\n".join(lines))`, byte for byte, but written a batch at a time as `lines` yields them (`Gathered`).

    Output that grows with the input is never built whole: `| head -3` gets
    its lines from the first write, and a reader that goes away ends the
    command there (exit 141) instead of after the last line was rendered.
    """
    out = Gathered(lines=chunk)
    for line in lines:
        out.add(line)
    out.close()
    say("")


def say_json(document: dict[str, Any]) -> None:
    """`say(to_json(document))`, byte for byte, written in pieces of about 64 KiB as they are encoded.

    A value of `document` may be an iterator, written as a list an item at a time (see `json_chunks`).
    """
    from gapstate.cli.render import json_chunks

    for chunk in json_chunks(document):
        say(chunk, nl=False)
    say("")


def summarize(line: str) -> None:
    """Hand the command's summary line to the group, which prints it on stderr once the command returns (`say_summary`)."""
    meta = click.get_current_context().meta
    if _SUMMARY in meta or not line.startswith("gapstate "):
        raise RuntimeError(f"one summary line per command, starting `gapstate COMMAND:`; got {line!r}")
    meta[_SUMMARY] = escape(line)  # the one escape of every summary: input it quotes can start no line


def say_summary(ctx: click.Context) -> None:
    """Print the summary line the command handed over, if any, on stderr: the last line the command shows."""
    line = ctx.meta.pop(_SUMMARY, None)
    if line is not None:
        say(line, err=True)
