"""`gapstate gen python`: the table written out as one Python module that imports only the standard library.

The module holds a `Session` whose `step(event)` is the table's rows as
code: one function per (state, event), each row an `if` on its guards that
makes the row's assignments and returns its `Decision`. Nothing of gapstate's
interpreter is copied: what a row does was decided by `decider.plan`, and
this module only spells it. Run as a script (`python FILE`, or `python -m`),
the module speaks `gapstate conform`'s line protocol.
"""

from __future__ import annotations

import keyword

from gapstate.gen.decider import Plan, RowPlan
from gapstate.table.vocabulary import AFTER, BELOW_CAP, FLAG, SEEN
from gapstate.words import escape

TARGET = "python"


def method(action: str) -> str:
    """The Effects method an action calls: its name, with `_` after a Python keyword."""
    return action + "_" if keyword.iskeyword(action) else action


def _cap(counter: str) -> str:
    return f"CAP_{counter.upper()}"


def _guard_lines(plan: Plan, event: str, names: set[str]) -> list[str]:
    """The statements that give each guard the rows of (state, event) read its value, as `run.machine` derives it."""
    out = []
    for guard in plan.guards:
        if guard.name not in names:
            continue
        if guard.how == FLAG:
            value = dict(plan.flags_set_by(guard.what)).get(event)
            expr = repr(value) if value is not None else f"s.{guard.what}"
        elif guard.how == BELOW_CAP:
            expr = f"s.{guard.what} < {_cap(guard.what)}"
        elif guard.event != event:
            expr = "False"  # a payload guard is false on every other event
        elif guard.how == SEEN:
            expr = f"e.{guard.what} in s.seen"
        elif guard.how == AFTER:
            expr = f"s.last_commit is not None and e.{guard.what} > s.horizon()"
        else:  # pragma: no cover - decider.plan knows no other form
            raise AssertionError(guard.how)
        out.append(f"    {guard.name} = {expr}")
    return out


def _condition(row: RowPlan) -> str:
    parts = [name if value else f"not {name}" for name, value in row.literals]
    return " and ".join(parts) if parts else "True"


def _row_lines(plan: Plan, state: str, row: RowPlan) -> list[str]:
    out = [f"    if {_condition(row)}:  # line {row.line}: {escape(row.text)}"]
    if row.refuses:
        out.append(f"        return Refusal(INVALID_EVENT, {row.line})")
        return out
    if row.remembers == "always":
        out.append(f"        s.remember(e.{plan.seen_field}, e.t)")
    elif row.remembers == "unless_seen":
        dup = next(g.name for g in plan.guards if g.how == SEEN)
        out.append(f"        if not {dup}:")
        out.append(f"            s.remember(e.{plan.seen_field}, e.t)")
    for assign in row.assigns:
        out.append(f"        s.{assign.field} {'+=' if assign.add else '='} {assign.value!r}")
    if row.commits:
        out.append("        s.last_commit = e.t")
    target = row.next if row.next is not None else state
    if row.next is not None:
        out.append(f"        s.state = {target!r}")
    actions = "(" + "".join(f"{a!r}, " for a in row.actions).rstrip(" ") + ")"
    counters = ", ".join(f"s.{c}" for c in plan.counters)
    out.append(f"        return _decision(Decision, ({row.line}, {target!r}, {actions}, {counters}, s.debt_owed))")
    return out


def _function(plan: Plan, state: str, event: str) -> list[str]:
    rows = plan.rows_for(state, event)
    names = {name for row in rows for name, _ in row.literals}
    if any(row.remembers == "unless_seen" for row in rows):
        names.add(next(g.name for g in plan.guards if g.how == SEEN))
    out = [f"def _{state}__{event}(s, e):"]
    out += _guard_lines(plan, event, names)
    for row in rows:
        out += _row_lines(plan, state, row)
    out.append(f"    raise LookupError('no row of the table matches {event} in {state}')")
    return out


def generate(plan: Plan, regenerate: str) -> str:
    """The module's text."""
    from gapstate.gen.decider import header

    fields = ("state", *plan.counters, *plan.flags)
    lines = ["# " + escape(line) for line in header(plan, TARGET, regenerate)]
    lines += [
        '"""The gap-state table as a decider: `Session().step(event)` answers as `gapstate replay` steps.',
        "",
        "`step` returns a `Decision` (the spec line of the row that fired, the next state,",
        "the actions in order, the counters, whether the reply is owed) or a `Refusal`",
        "(`invalid_event` or `after_session_end`); it has no clock and does no I/O.",
        "`Session.apply(decision, effects)` calls `effects`' method for each action, in",
        "order: the room loop writes the effects, never the transitions. Run as a script,",
        "the module speaks `gapstate conform`'s line protocol on stdin and stdout.",
        '"""',
        "",
        "import json",
        "import sys",
        "from typing import NamedTuple, Optional, Protocol, Tuple, Union",
        "",
        f"SPEC = {plan.spec!r}",
        f"SPEC_SHA256 = {plan.sha256!r}",
        f"GAPSTATE_VERSION = {plan.version!r}",
        "",
    ]
    lines += [f"{_cap(counter)} = {limit!r}" for counter, limit in plan.caps]
    lines += [
        f"STATES = {plan.states!r}",
        f"EVENTS = {plan.events!r}",
        f"ACTIONS = {plan.actions!r}",
        'INVALID_EVENT = "invalid_event"',
        'AFTER_SESSION_END = "after_session_end"',
        "",
        "",
        "class Event(NamedTuple):",
        '    """One event, as a trace line gives it; the payload fields only on the events that need them."""',
        "",
        "    event: str",
        "    t: int = 0",
    ]
    lines += [f"    {field}: Optional[{'str' if field == plan.seen_field else 'int'}] = None"
              for field in (plan.seen_field, plan.after_field)]
    lines += [
        "",
        "",
        "class Decision(NamedTuple):",
        '    """What the row that fired decided: its spec line, the next state, its actions, the counters after, the debt."""',
        "",
        "    row: int",
        "    state: str",
        "    actions: Tuple[str, ...]",
    ]
    lines += [f"    {counter}: int" for counter in plan.counters]
    lines += [
        "    debt_owed: bool",
        "",
        "    @property",
        "    def counters(self):",
        "        return {" + ", ".join(f"{c!r}: self.{c}" for c in plan.counters) + "}",
        "",
        "",
        "# A row builds its Decision without NamedTuple's own __new__ (a Python call): a third of a step's time.",
        "_decision = tuple.__new__",
        "",
        "",
        "class Refusal(NamedTuple):",
        '    """An event that cannot be taken: `kind` is invalid_event (the row marking it, `row`) or after_session_end."""',
        "",
        "    kind: str",
        "    row: Optional[int] = None",
        "",
        "",
        "class Effects(Protocol):",
        '    """What the room loop implements: one method per action, called by `Session.apply` in the row\'s order."""',
        "",
    ]
    for name in plan.actions:
        lines += [f"    def {method(name)}(self, decision: Decision) -> None: ...", ""]
    lines += [
        "",
        "class Session:",
        '    """One session\'s configuration and the history its guards read; `step` is the table."""',
        "",
        f"    __slots__ = {(*fields, 'seen', 'last_commit', 'last_loss')!r}",
        "",
        "    def __init__(self):",
        f"        self.state = {plan.states[0]!r}",
    ]
    lines += [f"        self.{counter} = 0" for counter in plan.counters]
    lines += [f"        self.{flag} = False" for flag in plan.flags]
    lines += [
        "        self.seen = set()  # the interval ids given this session",
        "        self.last_commit = None  # t of the event that last committed a request",
        "        self.last_loss = None  # t of the last loss with an unseen id",
        "",
        "    def horizon(self):",
        '        """What evidence must begin strictly after: the last commit, and the last unseen loss after it."""',
        "        commit, loss = self.last_commit, self.last_loss",
        "        return commit if loss is None or loss < commit else loss",
        "",
        "    def remember(self, value, t):",
        "        self.seen.add(value)",
        "        self.last_loss = t",
        "",
        "    def step(self, event) -> Union[Decision, Refusal]:",
        '        """The table\'s answer to `event` (anything with `event`, `t` and the payload fields as attributes)."""',
        "        if self.ended:",
        "            return Refusal(AFTER_SESSION_END)",
        "        return _STEPS[self.state][event.event](self, event)",
        "",
        "    def apply(self, decision: Decision, effects: Effects) -> None:",
        '        """Call `effects`\' method for each action of `decision`, in order."""',
        "        for name in decision.actions:",
        "            getattr(effects, _METHODS[name])(decision)",
        "",
        "    def configuration(self):",
        '        """The configuration and history, as `gapstate gen --verify` compares them."""',
        "        return {",
        '            "flags": {' + ", ".join(f"{f!r}: self.{f}" for f in plan.flags) + "},",
        '            "history": {"last_commit": self.last_commit, "last_loss": self.last_loss, "ids": len(self.seen)},',
        "        }",
        "",
        "",
        f"_METHODS = {{{', '.join(f'{a!r}: {method(a)!r}' for a in plan.actions)}}}",
        "",
        "",
        "# The rows, written out: one function per (state, event), one `if` per row.",
        "",
    ]
    for state in plan.states:
        for event in plan.events:
            lines += _function(plan, state, event)
            lines += ["", ""]
    lines.append("_STEPS = {")
    for state in plan.states:
        lines.append(f"    {state!r}: {{")
        lines += [f"        {event!r}: _{state}__{event}," for event in plan.events]
        lines.append("    },")
    lines += ["}", "", ""]
    lines += _MAIN.splitlines()
    return "\n".join(lines) + "\n"


_MAIN = '''def answer(result, session):
    """A step's result as the line protocol answers it (docs/conformance.md)."""
    if isinstance(result, Refusal):
        return {"refused": result.kind}
    out = {
        "state": result.state,
        "actions": list(result.actions),
        "counters": result.counters,
        "debt_owed": result.debt_owed,
        "row": result.row,
    }
    out.update(session.configuration())
    return out


def main(stdin=sys.stdin, stdout=sys.stdout):
    """Speak `gapstate conform`'s line protocol: a reset starts a fresh session, each event is stepped."""
    session = Session()
    for line in stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if message.get("reset"):
            session = Session()
            reply = {"ok": True}
        else:
            event = Event(message["event"], message.get("t", 0), message.get("id"), message.get("speech_start"))
            reply = answer(session.step(event), session)
        stdout.write(json.dumps(reply) + "\\n")
        stdout.flush()


if __name__ == "__main__":
    main()'''
