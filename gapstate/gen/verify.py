"""`gapstate gen --verify`: a generated decider against the table, on everything the explorer knows.

For every reachable configuration, the shortest way there (as `check`'s
counterexamples walk it, made concrete by `proof.traces.concretize`) is
followed by every event, once for each value its payload can give the guard
it sets: a new id and each id already seen; evidence speaking 1 ms before,
at and 1 ms after the last commit and the last unseen loss. Each such trace
is one case. The decider answers every event of every case over the line
protocol; each answer is compared with the table's replay of the same
events: the refusal, the state, the actions, the counters, the debt, and
beyond the protocol the row, every flag and the history (the times of the
last commit and loss, how many ids are remembered). The decider and the
table thus start each case's last event from the same configuration and
history and must leave it in the same one, for every reachable
configuration, event and valuation: by induction on a trace's length, they
answer alike on every trace.

This module plans the cases and compares the answers (pure); `run` feeds a
child process all of them at once.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from gapstate.conformance.answers import differences, protocol_problem, table_answer
from gapstate.errors import GapstateError
from gapstate.proof.explore import explore
from gapstate.run.concrete import concretize
from gapstate.run.replayer import Session, machine_for
from gapstate.table.load import Spec
from gapstate.table.vocabulary import AFTER, EVENTS, FLAGS, PAYLOADS, SEEN, Config

RESET = {"reset": True}


class Case(NamedTuple):
    """One trace: the way to a configuration, then one event; with the table's answer to each event."""

    config: Config
    trace: tuple[dict[str, Any], ...]
    expected: tuple[dict[str, Any], ...]


def _variants(trace: list[dict[str, Any]], session: Session, event: str, t: int) -> list[dict[str, Any]]:
    """`event` at `t`, once for each value its payload can give the guard it sets after `trace`."""
    payload = PAYLOADS.get(event)
    if payload is None:
        return [{"event": event, "t": t}]
    values: list[Any]
    if payload.reads == SEEN:
        given = [item[payload.field] for item in trace if item["event"] == event]
        values = list(dict.fromkeys([f"iv-{len(set(given)) + 1}", *given[-1:], *given[:1]]))
    else:
        assert payload.reads == AFTER
        marks = [x for x in (session.last_commit, session.last_loss) if x is not None]
        values = sorted({v for x in marks for v in (x - 1, x, x + 1) if 0 <= v <= t} or {t})
    return [{"event": event, "t": t, payload.field: value} for value in values]


def _expected(session: Session, event: dict[str, Any]) -> dict[str, Any]:
    """The table's answer, with the row and, for a step taken, the configuration and history after it."""
    answer, row = table_answer(session, event)
    if "refused" in answer:
        return answer
    config = session.config
    answer["row"] = row
    answer["flags"] = {flag: getattr(config, flag) for flag in FLAGS}
    answer["history"] = {"last_commit": session.last_commit, "last_loss": session.last_loss, "ids": len(session.seen)}
    return answer


def cases(spec: Spec) -> tuple[list[Case], int]:
    """Every (reachable configuration, event, payload valuation) as a case, and how many configurations."""
    machine = machine_for(spec)
    exploration = explore(machine)
    clean = exploration.distances(clean=True)
    out = []
    configs = 0
    for config in exploration.configs():
        configs += 1
        # along steps that break no rule where there is such a way (always, on a table gen accepts)
        steps = exploration.steps_to(config, clean=config in clean)
        trace = concretize(steps)
        t = (trace[-1]["t"] if trace else 0) + 100
        prefix_session = Session(machine)
        prefix = [_expected(prefix_session, event) for event in trace]
        for event in EVENTS:
            for last in _variants(trace, prefix_session, event, t):
                session = Session(machine)
                for item in trace:
                    session.feed(_event(item))
                out.append(Case(config, (*trace, last), (*prefix, _expected(session, last))))
    return out, configs


def _event(item: dict[str, Any]) -> Any:
    from gapstate.run.event import Event

    return Event(**item)


def messages(planned: Sequence[Case]) -> bytes:
    """Every case as the line protocol sends it: a reset, then its events."""
    reset = json.dumps(RESET)
    lines = []
    for case in planned:
        lines.append(reset)
        lines.extend(json.dumps(item) for item in case.trace)
    return ("\n".join(lines) + "\n").encode()


@dataclass(frozen=True)
class Disagreement:
    """The first answer of the decider that is not the table's, and the trace that leads to it."""

    trace: tuple[dict[str, Any], ...]  # ends at the event answered differently
    expected: dict[str, Any]
    actual: Any
    fields: tuple[str, ...]  # what differs; ("protocol",) when the answer is not one the protocol allows
    config: Config  # the configuration the case was planned to reach

    def to_dict(self) -> dict[str, Any]:
        return {
            "trace": list(self.trace),
            "index": len(self.trace) - 1,
            "expected": self.expected,
            "actual": self.actual,
            "differs": list(self.fields),
        }


@dataclass(frozen=True)
class Verdict:
    """What `--verify` found: how much it compared, and the first disagreement if any."""

    configurations: int
    cases: int
    answers: int  # answers that agreed with the table's, before the first disagreement (all, when none)
    disagreement: Disagreement | None

    @property
    def ok(self) -> bool:
        return self.disagreement is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "configurations": self.configurations,
            "cases": self.cases,
            "answers": self.answers,
            "disagreement": None if self.disagreement is None else self.disagreement.to_dict(),
        }


def _differs(expected: dict[str, Any], actual: Any) -> tuple[str, ...]:
    if protocol_problem(actual) is not None:
        return ("protocol",)
    fields = differences(expected, actual)
    if fields or "refused" in expected:
        return fields
    return tuple(key for key in ("row", "flags", "history") if actual.get(key) != expected[key])


def compare(planned: Sequence[Case], output: bytes, configurations: int, stopped: str = "") -> Verdict:
    """The decider's output (one line per message, as `messages` sent them) against the table's answers.

    `stopped` says how the decider ended when it answered fewer lines. The
    cases of one configuration share their way there, so where the decider
    answered that way with the very bytes it answered the case before, those
    answers are not read again.
    """
    lines = iter(line for line in output.split(b"\n") if line.strip())
    answers = 0
    previous: tuple[Config | None, list[bytes]] = (None, [])
    for case in planned:
        answered = []
        for index, expected in enumerate((None, *case.expected)):
            line = next(lines, None)
            if line is None:
                why = {"stopped": stopped or "the decider stopped answering"}
                trace = case.trace[: max(index, 1)]
                return Verdict(configurations, len(planned), answers, Disagreement(trace, expected or RESET, why, ("protocol",), case.config))
            last = index == len(case.expected)
            if not last:
                answered.append(line)
                if previous[0] == case.config and previous[1][index] == line:
                    answers += index > 0
                    continue
            try:
                actual = json.loads(line)
            except ValueError:
                actual = {"not_json": line.decode("utf-8", "replace")[:200]}
            if expected is None:  # the answer to a reset: any JSON object
                if not isinstance(actual, dict):
                    return Verdict(configurations, len(planned), answers, Disagreement(case.trace[:1], {"reset": "any JSON object"}, actual, ("protocol",), case.config))
                continue
            fields = _differs(expected, actual)
            if fields:
                return Verdict(configurations, len(planned), answers, Disagreement(case.trace[:index], expected, actual, fields, case.config))
            answers += 1
        previous = (case.config, answered)
    return Verdict(configurations, len(planned), answers, None)


_TAIL = 2000  # characters of the decider's stderr a failure shows


def run(command: Sequence[str], data: bytes, timeout: float) -> tuple[bytes, str]:
    """Feed `data` to the decider's stdin in one go; its stdout, and how it ended when that was not cleanly."""
    try:
        done = subprocess.run(list(command), input=data, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise GapstateError(f"the decider did not answer everything within {timeout:g} s", file=command[0]) from None
    except OSError as error:
        raise GapstateError(f"cannot start the decider: {error.strerror or error}", file=command[0]) from None
    if done.returncode == 0:
        return done.stdout, ""
    tail = done.stderr.decode("utf-8", "replace").strip()[-_TAIL:]
    return done.stdout, f"the decider exited with status {done.returncode}" + (f"; the end of its stderr:\n{tail}" if tail else "")
