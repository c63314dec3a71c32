"""`gapstate replay`: the transcript, a step a line, and the replay document."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from gapstate.cli.output import escape
from gapstate.cli.render import plural
from gapstate.words import wrap

if TYPE_CHECKING:
    from gapstate.run.replayer import ReplayResult, Step


def _counters_text(counters: dict[str, int], caps: dict[str, int]) -> str:
    from gapstate.table.vocabulary import (
        COUNTERS,  # here: classify renders without loading the vocabulary
    )

    return ", ".join(f"{name} {counters[name]}/{caps.get(name, '?')}" for name in COUNTERS)


def replay_step_line(step: Step, caps: dict[str, int]) -> str:
    """One step of the transcript, on two lines: trace line, t, event, states, row, actions; then, under
    them, the guards the row names (as it writes them) and the counters after.

    Two lines, so that each fits the width of text output (the counters alone
    take 44 columns); one that still does not (a long id, a long list of
    actions) goes on over indented lines. People count lines from 1, so a step
    is named by its trace line (the JSON keeps the contract's 0-based index).
    Where the event's payload decides a guard, the guards say how: a SEEN
    value (the id) seen before or new, an AFTER value (speech_start) against
    the time it had to follow.
    """
    outcome = step.outcome
    guards = ",".join(g if v else f"!{g}" for g, v in outcome.guards) or "-"
    why = _payload_reason(step)
    if why:
        guards = f"{guards} ({why})"
    item = step.item
    t = f"t={item.t}" if item is not None else ""
    head = (
        f"{'line ' + str(step.line or step.index + 1):<9} {t:<9} {step.event:<19} "
        f"{step.before.state:<9} -> {outcome.config.state:<9}  row {step.row:<4} {','.join(outcome.actions)}"
    )
    under = f"{'':<9} {guards:<32} [{_counters_text(step.counters, caps)}]"
    return "\n".join([*wrap(head, _UNDER), *wrap(under)])


_UNDER = " " * 10  # where the second line of a step starts: under its t


def _payload_reason(step: Step) -> str:
    """How the event's own fields decided the guard the row names, if one did."""
    from gapstate.table.vocabulary import CHOICE_OF, PAYLOADS, SEEN

    item, named = step.item, dict(step.outcome.guards)
    guard = CHOICE_OF.get(step.event)
    if item is None or guard not in named:
        return ""
    field = PAYLOADS[step.event].field
    value = getattr(item, field)
    if PAYLOADS[step.event].reads == SEEN:
        return f"{field} {escape(value)} {'seen before' if named[guard] else 'new'}"
    if step.horizon is None:
        return f"{field}={value}, nothing committed yet"
    return f"{field}={value} {'>' if named[guard] else '<='} {step.horizon}"


def replay_tail(result: ReplayResult, caps: dict[str, int], source: str) -> str:
    """What follows the steps: the failing step marked `!`, the final configuration."""
    lines: list[str] = []
    error = result.error
    if error is not None:
        head = f"! {escape(source)}:{error.line}: {error.kind}: "
        lines.extend(wrap(head + escape(error.message), keep=len(head)))
    final = result.final_dict()
    lines.append(
        f"final: {final['state']} [{_counters_text(final['counters'], caps)}], "
        f"debt owed: {'yes' if final['debt_owed'] else 'no'}, "
        f"session ended: {'yes' if final['ended'] else 'no'}"
    )
    return "\n".join(lines)


def replay_summary(result: ReplayResult, spec: str, source: str) -> str:
    """The summary line: the spec, the trace, how many events, and ok or where it stopped."""
    error = result.error
    verdict = "ok" if error is None else f"{error.kind} at line {error.line}"  # short: the line names a path and spec
    return f"gapstate replay: {escape(spec)}: {escape(source)}: {plural(result.events, 'event')}: {verdict}"


def step_json(step: Step) -> str:
    """A step as one line of the replay document, so steps can be written as they come."""
    return "  " + json.dumps(step.to_dict())


def replay_json(result: ReplayResult, body: Iterable[str] | None = None) -> Iterator[str]:
    """The replay document, a chunk at a time: the one writer of its JSON.

    The keys and their order are the result's `to_dict()`; the steps go one a
    line (step_json, joined by ",\n") right after "ok", which keeps a
    million-step document greppable and lets the CLI stream them as `body`
    (between `replay_json_ends`). Without `body`, the steps are the result's
    own; a result without steps (--summary) gives a document without a
    "steps" key.
    """
    if body is None and result.steps is not None:
        body = [",\n".join(step_json(step) for step in result.steps)]
    if body is None:
        document = result.to_dict(with_steps=False)
        yield "{" + ",\n ".join(f"{json.dumps(key)}: {json.dumps(value)}" for key, value in document.items()) + "}"
        return
    head, tail = replay_json_ends(result)
    yield head
    yield from body
    yield tail


def replay_json_ends(result: ReplayResult) -> tuple[str, str]:
    """What goes before the steps of the replay document and what after them."""
    fields = [f"{json.dumps(key)}: {json.dumps(value)}" for key, value in result.to_dict(with_steps=False).items()]
    return "{" + fields[0] + ',\n "steps": [\n', "\n ],\n " + ",\n ".join(fields[1:]) + "}"

