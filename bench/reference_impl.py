"""An implementation of the table that speaks `gapstate conform`'s line protocol, built on gapstate's own Session.

bench/run.py drives it with `gapstate conform` to measure events a second
through the protocol; it conforms by construction, so the figure is the
cost of the conversation, not of a divergence.

    python bench/reference_impl.py [SPEC]
"""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace

from gapstate.run.machine import Status
from gapstate.run.replayer import Session, machine_for
from gapstate.table.load import load_spec


def main() -> None:
    machine = machine_for(load_spec(sys.argv[1] if len(sys.argv) > 1 else None))
    session = Session(machine)
    out = sys.stdout
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("reset"):
            session = Session(machine)
            out.write("{}\n")
        else:
            item = SimpleNamespace(event=message["event"], t=message.get("t", 0), id=message.get("id"),
                                   speech_start=message.get("speech_start"))
            outcome = session.feed(item)
            if outcome.status is Status.OK:
                config = outcome.config
                answer = {"state": config.state, "actions": list(outcome.actions),
                          "counters": {"session_requests": config.session_requests,
                                       "episode_attempts": config.episode_attempts},
                          "debt_owed": config.debt_owed}
            else:
                answer = {"refused": "after_session_end" if outcome.status is Status.ENDED else "invalid_event"}
            out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
