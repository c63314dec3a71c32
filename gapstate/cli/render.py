"""Text for people and JSON for programs, from the result objects alone.

Nothing here decides anything: each function takes a result the core
returned and gives back a string, so the CLI only prints it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any


def to_json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2)


def trace_lines(trace: Any) -> list[str]:
    """A trace as JSON Lines, the format `gapstate replay` reads."""
    return [json.dumps(event) for event in trace]


# unusable input -------------------------------------------------------------


def error_text(error: Any, problems: tuple[Any, ...] | None = None) -> str:
    """What stderr says about input that cannot be used: where and why, then each problem.

    A report's problems are named by their JSON path; a trace's malformed
    lines are quoted with a caret under the column.
    """
    lines = [f"gapstate: error: {error}"]
    for p in problems or ():
        if hasattr(p, "path"):
            lines.append(f"{error.file}:{p.line}:{p.column}: {p.path}: {p.message}")
            continue
        if not (len(problems or ()) == 1 and error.line == p.line):  # else the first line said it
            lines.append(f"{error.file}:{p.line}" + (f":{p.column}" if p.column else "") + f": {p.message}")
        lines.extend(quote(p.line, p.text, p.column))
    return "\n".join(lines)


QUOTE_WIDTH = 100


def quote(line: int, text: str, column: int | None) -> list[str]:
    """The line as written, and a caret under the column, as ruff and rustc show them.

    A long line is cut to a window around the column.
    """
    text = text.replace("\t", " ")
    at = column or 0
    if len(text) > QUOTE_WIDTH:
        start = max(0, min(at - QUOTE_WIDTH // 2, len(text) - QUOTE_WIDTH))
        shown = ("…" if start else "") + text[start : start + QUOTE_WIDTH] + ("…" if start + QUOTE_WIDTH < len(text) else "")
        at = at - start + (1 if start else 0)
    else:
        shown = text
    gutter = " " * len(str(line))
    out = [f"  {line} | {shown}"]
    if at:
        out.append(f"  {gutter} | {' ' * (at - 1)}^")
    return out


def error_json(error: Any, problems: tuple[Any, ...] | None = None) -> str:
    """The document stdout gets instead: {"ok": false, "error": {file, line, column, message[, problems]}}."""
    detail = error_detail(error)
    if problems is not None:
        detail["problems"] = [problem.to_dict() for problem in problems]
    return to_json({"ok": False, "error": detail})


def error_detail(error: Any) -> dict[str, Any]:
    """Unusable input as the JSON documents give it: file, line, column, message."""
    return {"file": error.file, "line": error.line, "column": error.column, "message": error.message}


def unjudgeable(count: int) -> str:
    return f"the report cannot be judged ({count} problem{'s' if count != 1 else ''}):"


# check ---------------------------------------------------------------------


def check_text(result: Any, bundled: bool = False) -> str:
    """Findings a line (`path:line:column: kind: message`, a rule's trace indented), then the summary.

    The summary says when the spec checked is the copy bundled with the
    package, so nobody mistakes it for the file they are editing.
    """
    lines: list[str] = []
    for finding in result.findings:
        lines.append(f"{result.spec}:{finding.line}:{finding.column}: {finding.kind}: {finding.message}")
        if 1 <= finding.line <= len(result.lines):
            lines.extend(quote(finding.line, result.lines[finding.line - 1], finding.column))
        for event in trace_lines(getattr(finding, "trace", ())):
            lines.append(f"    {event}")
    s = result.stats
    if result.proved:
        numbers = (
            f"{s['states']} states, {s['events']} events, {s['rows']} rows, "
            f"{s['configurations']} configurations, {s['unreachable_allowed']} allowed unreachable"
        )
    else:
        rows, caps, allowances = result.read
        numbers = (
            f"read {_count(rows, 'row')}, {_count(caps, 'cap')}, {_count(allowances, 'allowance')}; "
            "the proof did not run: fix the findings above first"
        )
    count = len(result.findings)
    verdict = "ok" if result.ok else f"{count} finding{'s' if count != 1 else ''}"
    which = f"{result.spec} (the bundled spec)" if bundled else result.spec
    lines.append(f"gapstate check: {which}: {verdict} ({numbers})")
    return "\n".join(lines)


# replay --------------------------------------------------------------------


def _counters_text(counters: dict[str, int], caps: dict[str, int]) -> str:
    from gapstate.spec.vocabulary import (
        COUNTERS,  # here: classify renders without loading the vocabulary
    )

    return ", ".join(f"{name} {counters[name]}/{caps.get(name, '?')}" for name in COUNTERS)


def replay_step_line(step: Any, caps: dict[str, int]) -> str:
    """One step of the transcript: trace line, t, event, states, row, guards, actions, counters after.

    People count lines from 1, so a step is named by its trace line (the
    JSON keeps the contract's 0-based index). Where the event's payload
    decides a guard, the line says how: a SEEN value (the id) seen before or
    new, an AFTER value (speech_start) against the time it had to follow.
    """
    outcome = step.outcome
    guards = ",".join(g if v else f"!{g}" for g, v in outcome.guards) or "-"
    why = _payload_reason(step)
    if why:
        guards = f"{guards} ({why})"
    item = step.item
    t = f"t={item.t}" if item is not None else ""
    return (
        f"{'line ' + str(step.line or step.index + 1):<10} {t:<9} {step.event:<19} "
        f"{step.before.state:<9} -> {outcome.config.state:<9}  "
        f"row {outcome.row.line:<4} {guards:<32} {','.join(outcome.actions):<26} "
        f"[{_counters_text(step.counters, caps)}]"
    )


def _payload_reason(step: Any) -> str:
    """How the event's own fields decided the guard the row names, if one did."""
    from gapstate.spec.vocabulary import CHOICE_OF, PAYLOADS, SEEN

    item, named = step.item, dict(step.outcome.guards)
    guard = CHOICE_OF.get(step.event)
    if item is None or guard not in named:
        return ""
    field = PAYLOADS[step.event].field
    value = getattr(item, field)
    if PAYLOADS[step.event].reads == SEEN:
        return f"{field} {value} {'seen before' if named[guard] else 'new'}"
    if step.horizon is None:
        return f"{field}={value}, nothing committed yet"
    return f"{field}={value} {'>' if named[guard] else '<='} {step.horizon}"


def replay_tail(result: Any, caps: dict[str, int], source: str) -> str:
    """What follows the steps: the failing step marked `!`, the final configuration, the verdict."""
    lines: list[str] = []
    error = result.error
    if error is not None:
        lines.append(f"! {source}:{error.line}: {error.kind}: {error.message}")
    final = result.final_dict()
    lines.append(
        f"final: {final['state']} [{_counters_text(final['counters'], caps)}], "
        f"debt owed: {'yes' if final['debt_owed'] else 'no'}, "
        f"session ended: {'yes' if final['ended'] else 'no'}"
    )
    verdict = "ok" if result.ok else f"stopped at line {error.line} ({error.kind})"
    lines.append(f"gapstate replay: {source}: {_count(result.events, 'event')}: {verdict}")
    return "\n".join(lines)


def step_json(step: Any) -> str:
    """A step as one line of the replay document, so steps can be written as they come."""
    return "  " + json.dumps(step.to_dict())


def replay_json(result: Any, body: Iterable[str] | None = None) -> Iterator[str]:
    """The replay document, a chunk at a time: the one writer of its JSON.

    The keys and their order are the result's `to_dict()`; the steps go one a
    line (step_json, joined by ",\n") right after "ok", which keeps a
    million-step document greppable and lets the CLI stream them from its
    spool as `body`. Without `body`, the steps are the result's own; a
    result without steps (--summary) gives a document without a "steps" key.
    """
    document = result.to_dict(with_steps=False)
    if body is None and result.steps is not None:
        body = [",\n".join(step_json(step) for step in result.steps)]
    fields = [f"{json.dumps(key)}: {json.dumps(value)}" for key, value in document.items()]
    if body is None:
        yield "{" + ",\n ".join(fields) + "}"
        return
    yield "{" + fields[0] + ',\n "steps": [\n'
    yield from body
    yield "\n ],\n " + ",\n ".join(fields[1:]) + "}"


# classify ------------------------------------------------------------------


def classify_text(result: Any, source: str = "<report>") -> str:
    """One row per (arm, turn), each arm's verdict, the overall verdict, the note, then a summary line."""
    header = ("arm", "turn", "verdict", "unmet")
    rows = [
        (arm.name, turn.turn, turn.verdict, ", ".join(turn.unmet) or "-")
        for arm in result.arms
        for turn in arm.turns
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    lines = [
        "  ".join(f"{cell:<{widths[i]}}" for i, cell in enumerate(row[:3])) + f"  {row[3]}"
        for row in [header, *rows]
    ]
    lines.append("")
    width = max(len(arm.name) for arm in result.arms) + 1
    for arm in result.arms:
        lines.append(f"arm {arm.name + ':':<{width}}  {arm.verdict}")
    lines.append(f"overall: {result.verdict}")
    lines.append(f"note: {result.note}")
    turns = sum(len(arm.turns) for arm in result.arms)
    lines.append(
        f"gapstate classify: {source}: {_count(len(result.arms), 'arm')}, {_count(turns, 'turn')}: "
        f"{result.verdict} (descriptive)"
    )
    return "\n".join(lines)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _nth(index: int) -> str:
    """A 0-based index as people count: 0 is '1st', 10 is '11th' (the JSON keeps the index)."""
    n = index + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# fuzz ----------------------------------------------------------------------


def fuzz_text(result: Any, saved: str | None = None, with_trace: bool = True) -> str:
    """The run, the failure and its shrunk trace as paste-ready JSON Lines, the row coverage, the verdict."""
    seeds = result.seeds
    named = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]} to {seeds[-1]} ({len(seeds)} workers)"
    lines = [f"gapstate fuzz: {result.spec}: {named}: {result.examples} traces, {result.events} events"]
    found = result.counterexample
    if found is not None:
        lines.append(f"{found.kind} at event {found.index + 1} of {len(found.trace)}: {found.message}")
        if len(seeds) > 1:
            lines.append(f"found by seed {found.seed} after {found.after} traces: re-run it alone with --seed {found.seed}")
        if with_trace:
            lines.append(f"shrunk trace ({len(found.trace)} events), for `gapstate replay`:")
            lines.extend(trace_lines(found.trace))
        else:
            lines.append(f"shrunk trace: {len(found.trace)} events, on stdout")
        if saved is not None:
            lines.append(f"saved the shrunk trace to {saved}")
    reachable, missed = len(result.reachable), result.missed
    coverage = f"coverage: the traces fired {reachable - len(missed)} of {reachable} reachable rows"
    if not missed and result.complete_after is not None:
        coverage += f" (all of them within {result.complete_after} traces)"
    lines.append(coverage)
    if missed:
        lines.append("never fired: rows at lines " + ", ".join(str(line) for line in missed))
    if found is None:
        if result.gate_failed:
            lines.append(f"no rule broken, but the coverage gate failed: {len(missed)} reachable row{'s' if len(missed) != 1 else ''} never fired")
        else:
            lines.append("no rule broken")
    return "\n".join(lines)


# witness -------------------------------------------------------------------


def witness_note(result: Any) -> str | None:
    """What goes to stderr beside a witness: why the row does not fire, or that the way there breaks a rule."""
    row = result.row
    head = f"row at line {row.line} (`{row}`)"
    if result.reason is not None:
        return f"{head}: {result.reason}"
    if result.detour:
        return f"{head}: every way there breaks a rule first; this is the shortest regardless"
    return None


# coverage ------------------------------------------------------------------


def coverage_text(result: Any, rows: dict[int, str]) -> str:
    """Every reachable row with how often it fired, then the rows never fired and the traces that stopped."""
    fired = result.fired
    never = result.never
    lines = [
        f"gapstate coverage: {result.traces} trace{'s' if result.traces != 1 else ''}, {result.events} events: "
        f"fired {len(result.reachable) - len(never)} of {len(result.reachable)} reachable rows"
    ]
    width = max((len(str(n)) for n in fired.values()), default=1)
    for line in sorted(fired):
        mark = "  never" if not fired[line] else ""
        lines.append(f"  row {line:<4} {fired[line]:>{width}}  {rows.get(line, '?')}{mark}")
    if never:
        lines.append("never fired: rows at lines " + ", ".join(str(line) for line in never))
    if result.stopped:
        count = len(result.stopped)
        lines.append(f"stopped: {count} trace{'s' if count != 1 else ''} (the steps before the stop are counted)")
        for stop in result.stopped:
            error = stop.error
            lines.append(f"  {stop.trace}:{error.line}: the {_nth(error.index)} event: {error.kind}: {error.message}")
    if result.unusable:
        count = len(result.unusable)
        lines.append(f"unusable: {count} trace{'s' if count != 1 else ''} could not be read (not counted)")
        for bad in result.unusable:
            where = bad.trace if bad.line is None else f"{bad.trace}:{bad.line}"
            lines.append(f"  {where}: {bad.message}")
    return "\n".join(lines)


# explain -------------------------------------------------------------------


def explain_text(said: Any) -> str:
    """One row in a reviewer's words: when it fires, what it does, its rules, a trace, or why it never fires."""
    from gapstate.seeing.witness import REFUSED, UNREACHABLE

    row = said.row
    lines = [f"{said.spec}:{row.line}: {row}"]
    if said.status == UNREACHABLE:
        allowed = "allowed with @unreachable" if said.allowed else "NOT allowed: `gapstate check` reports it"
        lines.append(f"never fires ({allowed}): {said.reason}")
    elif said.status == REFUSED:
        lines.append(
            f"refuses {row.event} on {said.configurations} reachable configuration"
            f"{'s' if said.configurations != 1 else ''}: the event cannot occur there and the replay fails on it"
        )
    else:
        lines.append(
            f"fires on {said.configurations} reachable configuration{'s' if said.configurations != 1 else ''}"
            f" ({said.steps} reachable step{'s' if said.steps != 1 else ''})"
        )
    if said.guards:
        lines.append("when:")
        lines.extend(f"  {literal}: {meaning}" for literal, meaning in said.guards)
    else:
        lines.append(f"when: always, on {row.event} (no guards)")
    lines.append("does:")
    lines.extend(f"  {effect}" for effect in said.effects)
    if said.rules:
        lines.append("rules:")
        for note in said.rules:
            scope = " (checked on every step)" if note.every_step else ""
            because = f": the row requires `{note.guarded_by}`" if note.guarded_by else ""
            if note.kept is None:
                verdict = "nothing to check: the row never fires"
            elif note.kept:
                verdict = f"kept on all {note.checked} reachable steps that fire it{because}"
            else:
                verdict = f"BROKEN on {note.broken} of {note.checked} reachable steps (see `gapstate check`)"
            lines.append(f"  {note.id}{scope}: {verdict}")
    if said.trace is not None:
        ends = "ends on its refusal" if said.status == REFUSED else "fires it"
        lines.append(f"shortest trace that {ends} ({len(said.trace)} event{'s' if len(said.trace) != 1 else ''}):")
        lines.extend(f"  {event}" for event in trace_lines(said.trace))
    return "\n".join(lines)


# conform -------------------------------------------------------------------


def conform_text(result: Any) -> str:
    """The shrunk diverging trace as paste-ready JSON Lines, expected against actual at its last event, the counts."""
    lines: list[str] = []
    found = result.divergence
    if found is not None:
        origin = "a generated trace" if found.source == "generated" else f"vector {found.source}"
        lines.append(
            f"diverges at event {found.index + 1} of {len(found.trace)} ({found.trace[-1]['event']}), found in {origin} of "
            f"{_count(found.shrunk_from, 'event')} and shrunk to {len(found.trace)}; the trace, for `gapstate replay`:"
        )
        lines.extend(trace_lines(found.trace))
        row = f"  (row at line {found.row})" if found.row is not None else ""
        lines.append(f"  expected: {json.dumps(found.expected)}{row}")
        lines.append(f"  actual:   {json.dumps(found.actual)}")
        lines.append(f"  differs in: {', '.join(found.fields)}")
    verdict = "conforms" if result.ok else "diverges"
    lines.append(
        f"gapstate conform: {result.spec}: seed {result.seed}: {_count(result.vectors, 'vector')}, "
        f"{_count(result.traces, 'generated trace')}, {_count(result.events, 'event')}: {verdict}"
    )
    return "\n".join(lines)


# diff ----------------------------------------------------------------------


def _valuation_words(valuation: Any) -> str:
    return ",".join(g if v else f"!{g}" for g, v in valuation)


def when_text(valuations: Any) -> str:
    """Valuations as a reader writes guards: the shared literals when they cover every value of the rest."""
    fixed = [pair for pair in valuations[0] if all(pair in v for v in valuations)]
    if len(valuations) == 2 ** (len(valuations[0]) - len(fixed)):
        return f"when {_valuation_words(fixed)}" if fixed else "always"
    return "when " + " or ".join(_valuation_words(v) for v in valuations)


def _outcome_words(outcome: Any, side: str) -> str:
    if outcome is None:
        return f"no row ({side})"
    return f"{side} line {outcome.line}: {outcome.next} | {','.join(outcome.actions)}"


def diff_text(result: Any) -> str:
    """The changes grouped by kind, behaviour first, each with its lines; then a verdict line."""
    lines: list[str] = []
    for change in result.changes:
        kind = change.kind
        if kind == "behaviour":
            lines.append(f"behaviour: {change.state} | {change.event}")
            for case in change.cases:
                lines.append(f"    {when_text(case.valuations)}: {_outcome_words(case.old, 'old')} -> {_outcome_words(case.new, 'new')}")
        elif kind in ("name_added", "name_removed"):
            side = "new" if kind == "name_added" else "old"
            lines.append(f"{kind}: {change.role} {change.name} ({side} line {change.line})")
        elif kind == "cap":
            was = "none" if change.old is None else f"{change.old} (old line {change.old_line})"
            now = "none" if change.new is None else f"{change.new} (new line {change.new_line})"
            lines.append(f"cap: {change.counter} {was} -> {now}")
        elif kind in ("allowance_added", "allowance_removed"):
            side = "new" if kind == "allowance_added" else "old"
            lines.append(f"{kind}: @unreachable {change.state} | {change.event} | {change.guards} ({side} line {change.line})")
        else:
            now = "now fires" if change.reachable else "no longer fires"
            lines.append(
                f"reachability: row {change.state} | {change.event} | {change.guards} {now} "
                f"(old line {change.old_line}, new line {change.new_line})"
            )
    count = len(result.changes)
    verdict = "no change in behaviour, caps, names, allow-list or reachability" if result.same else (
        f"{count} change{'s' if count != 1 else ''}"
    )
    lines.append(f"gapstate diff: {result.old} -> {result.new}: {verdict}")
    return "\n".join(lines)
