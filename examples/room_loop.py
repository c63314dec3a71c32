#!/usr/bin/env python3
"""A room loop's gap state, written from the spec's prose (spec/gap-state.md) alone, speaking gapstate's conformance protocol.

This is what an implementer would write: plain Python holding the state a
room loop keeps, one handler per event, with no table and no gapstate
import. `gapstate conform -- python examples/room_loop.py` drives it over
stdin/stdout (docs/conformance.md) and compares every answer with the table;
`gapstate.conform(RoomLoop())` does the same in process.

Deliberate bugs, for seeing what conform reports, are switched on by name
with the environment variable ROOM_LOOP_BUG (or `RoomLoop(bug=...)`); the
names are the keys of BUGS.
"""

from __future__ import annotations

import json
import os
import sys

SESSION_REQUESTS = 3  # committed repeat requests per session
EPISODE_ATTEMPTS = 2  # sends per gap episode

BUGS = {
    "send_while_busy": "sends the request on a release even while the interviewer is busy",
    "attempts_kept_on_reopen": "a reopened episode keeps the attempts already spent",
    "dup_reopens": "a repeated notice for an already-seen interval reopens a requested gap",
    "settle_without_post_send": "any candidate turn after a committed request settles it",
    "late_loss_ignored": "a loss during the send does not reopen the gap when the send commits",
    "answers_after_end": "events after session_end are taken instead of refused",
}


class RoomLoop:
    """The gap state of one interview session: reset() starts a fresh one, step(event) takes an event."""

    def __init__(self, bug: str | None = None):
        self.bug = os.environ.get("ROOM_LOOP_BUG", "") if bug is None else bug
        if self.bug and self.bug not in BUGS:
            raise ValueError(f"unknown bug {self.bug!r}; known: {', '.join(BUGS)}")
        self.reset()

    def reset(self) -> dict:
        self.state = "CLEAR"  # CLEAR, OPEN, DUE, SENDING or REQUESTED
        self.session_requests = 0
        self.episode_attempts = 0
        self.busy = False  # the interviewer is speaking, thinking, holding, ...
        self.candidate_active = False  # the candidate started and has not released the floor
        self.late_loss = False  # a new loss arrived while the send was in flight
        self.seen_ids: set[str] = set()  # interval ids are kept for the whole session
        self.last_commit: int | None = None
        self.last_loss: int | None = None
        self.debt_owed = False  # the interviewer owes the candidate a reply
        self.ended = False
        return {"ok": True}

    def step(self, event: dict) -> dict:
        if self.ended and self.bug != "answers_after_end":
            return {"refused": "after_session_end"}  # a late result is dropped by the caller
        handler = getattr(self, "_on_" + event["event"], None)
        actions = handler(event) if handler else None
        if actions is None:
            return {"refused": "invalid_event"}
        return {
            "state": self.state,
            "actions": actions,
            "counters": {"session_requests": self.session_requests, "episode_attempts": self.episode_attempts},
            "debt_owed": self.debt_owed,
        }

    # evidence that opens nothing -------------------------------------------

    def _on_loss_silent(self, event: dict) -> list[str]:
        return ["note_trim"]

    def _on_sdk_unknown(self, event: dict) -> list[str]:
        return ["note_unknown"]

    # the gap -----------------------------------------------------------------

    def _on_loss_voiced(self, event: dict) -> list[str]:
        seen = event["id"] in self.seen_ids
        if seen and not (self.bug == "dup_reopens" and self.state == "REQUESTED"):
            return ["note_dup"]  # a repeated notice changes nothing, even after its episode ended
        self.seen_ids.add(event["id"])
        self.last_loss = event["t"]
        if self.state == "CLEAR":
            self._new_episode()
            self.state = "OPEN"
            self.debt_owed = True  # the gap preserves the owed reply
            return ["open_gap", "preserve_debt"]
        if self.state == "SENDING":
            self.late_loss = True  # the committed send will reopen instead of awaiting evidence
            return ["merge_gap", "mark_late"]
        if self.state == "REQUESTED":
            self._new_episode()  # the request did not cover this audio
            self.state = "OPEN"
            return ["reopen_gap"]
        return ["merge_gap"]

    def _new_episode(self) -> None:
        if self.bug != "attempts_kept_on_reopen" or self.state == "CLEAR":
            self.episode_attempts = 0

    # the floor and the interviewer ----------------------------------------------

    def _on_busy_start(self, event: dict) -> list[str]:
        self.busy = True
        return ["noop"]

    def _on_busy_end(self, event: dict) -> list[str]:
        self.busy = False
        if self.state == "DUE":
            return self._send_or_write_off()  # a deferred or failed request goes when idle again
        return ["noop"]

    def _on_candidate_start(self, event: dict) -> list[str]:
        self.candidate_active = True
        if self.state == "DUE":
            self.state = "OPEN"  # speech before the send supersedes it: wait for the next release
            return ["supersede"]
        return ["noop"]

    def _on_floor_released(self, event: dict) -> list[str]:
        self.candidate_active = False
        if self.state not in ("OPEN", "DUE"):
            return ["noop"]
        if self.busy and self.bug != "send_while_busy":
            self.state = "DUE"  # never interrupt the interviewer
            return ["defer_no_interrupt"]
        return self._send_or_write_off()

    def _send_or_write_off(self) -> list[str]:
        if self.session_requests >= SESSION_REQUESTS:
            self.state = "CLEAR"
            return ["unrepaired_budget"]
        if self.episode_attempts >= EPISODE_ATTEMPTS:
            self.state = "CLEAR"
            return ["unrepaired_attempts"]
        self.episode_attempts += 1
        self.late_loss = False
        self.state = "SENDING"
        return ["send_request"]

    # the send and its result -----------------------------------------------------

    def _on_send_ok(self, event: dict) -> list[str] | None:
        if self.state != "SENDING":
            return None
        self.session_requests += 1  # committed: spent for good, even if later undelivered
        self.last_commit = event["t"]
        late, self.late_loss = self.late_loss, False
        if late and self.bug != "late_loss_ignored":
            self._new_episode()
            self.state = "OPEN"
            return ["commit_request", "reopen_gap"]
        self.state = "REQUESTED"
        return ["commit_request"]

    def _on_send_failed(self, event: dict) -> list[str] | None:
        if self.state != "SENDING":
            return None
        self.late_loss = False
        if self.episode_attempts >= EPISODE_ATTEMPTS:
            self.state = "CLEAR"
            return ["unrepaired_attempts"]
        if self.candidate_active:
            self.state = "OPEN"  # the gap goes back to the candidate
            return ["supersede"]
        self.state = "DUE"  # retry at the next end of busy or release, never in a loop
        return ["keep_debt"]

    def _on_request_undelivered(self, event: dict) -> list[str] | None:
        if self.state != "REQUESTED":
            return None
        if self.episode_attempts >= EPISODE_ATTEMPTS:
            self.state = "CLEAR"
            return ["unrepaired_attempts"]
        if self.candidate_active:
            self.state = "OPEN"
            return ["keep_budget_spent", "supersede"]
        self.state = "DUE"
        return ["keep_budget_spent"]

    # settling and ending -----------------------------------------------------------

    def _on_evidence_turn(self, event: dict) -> list[str]:
        if self.state == "REQUESTED" and (self._post_send(event["speech_start"]) or self.bug == "settle_without_post_send"):
            self.state = "CLEAR"
            self.debt_owed = False  # the candidate took the floor after the request: settled
            return ["settle"]
        return ["noop"]

    def _post_send(self, speech_start: int) -> bool:
        """Speech began after the later of the last committed request and the last unseen loss."""
        if self.last_commit is None:
            return False
        return speech_start > self.last_commit and (self.last_loss is None or speech_start > self.last_loss)

    def _on_session_end(self, event: dict) -> list[str]:
        self.ended = True
        if self.state != "CLEAR":
            self.state = "CLEAR"  # written off; the reply stays owed
            return ["end_unsettled"]
        return ["noop"]


def main() -> None:
    """The line protocol: one JSON object a line in, one answer a line out."""
    try:
        loop = RoomLoop()
    except ValueError as error:
        sys.exit(f"room_loop.py: {error}")  # conform shows this, the end of our stderr, and exits 2
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        answer = loop.reset() if message.get("reset") else loop.step(message)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
