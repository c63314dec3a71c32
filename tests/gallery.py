"""A gallery of buggy room loops: each is examples/room_loop.py with one bug an implementer could make.

conform must catch every one at its defaults, whatever the seed
(tests/test_gallery.py; bench/conform_gallery.py measures catch rate and time).
Each class changes as little as it can of the faithful loop.
"""

from __future__ import annotations

from .support import room_loop_module

room_loop = room_loop_module()
Loop = room_loop.RoomLoop


class BudgetOffByOne(Loop):
    """The session cap is tested with `>`: a fourth request goes out."""

    def _send_or_write_off(self):
        if self.session_requests == room_loop.SESSION_REQUESTS and self.episode_attempts < room_loop.EPISODE_ATTEMPTS:
            self.episode_attempts += 1
            self.late_loss = False
            self.state = "SENDING"
            return ["send_request"]
        return super()._send_or_write_off()


class AttemptsOneEarly(Loop):
    """The episode's attempts are written off one send early (`>= cap - 1`)."""

    def _send_or_write_off(self):
        if self.session_requests < room_loop.SESSION_REQUESTS and self.episode_attempts >= room_loop.EPISODE_ATTEMPTS - 1:
            self.state = "CLEAR"
            return ["unrepaired_attempts"]
        return super()._send_or_write_off()


class PostSendNotStrict(Loop):
    """Evidence speaking at the very ms of the commit counts as after it (`>=`)."""

    def _post_send(self, speech_start):
        return self.last_commit is not None and speech_start >= self.last_commit and (
            self.last_loss is None or speech_start >= self.last_loss
        )


class PostSendFirstCommit(Loop):
    """post_send compares with the first commit of the session, not the last."""

    def _on_send_ok(self, event):
        first = self.last_commit
        actions = super()._on_send_ok(event)
        if first is not None:
            self.last_commit = first
        return actions


class ForgetsEndedEpisodes(Loop):
    """The seen ids are kept per episode: an id of an ended episode opens a new gap."""

    def step(self, event):
        before = self.state
        answer = super().step(event)
        if before != "CLEAR" and self.state == "CLEAR":
            self.seen_ids = set()
        return answer


class DupMovesLossTime(Loop):
    """A repeated notice moves the time of the last loss, so later evidence does not settle."""

    def _on_loss_voiced(self, event):
        if event["id"] in self.seen_ids:
            self.last_loss = event["t"]
        return super()._on_loss_voiced(event)


class AttemptsKeptOnReopen(Loop):
    """A reopened episode keeps the attempts already spent."""

    def __init__(self):
        super().__init__(bug="attempts_kept_on_reopen")


class AttemptsKeptOnNewEpisode(Loop):
    """A new episode after a write-off keeps the attempts the last one spent."""

    def _new_episode(self):
        if self.state != "CLEAR":
            self.episode_attempts = 0


class BudgetResetOnNewEpisode(Loop):
    """Each new episode starts the session's requests from zero."""

    def _new_episode(self):
        super()._new_episode()
        if self.state == "CLEAR":
            self.session_requests = 0


class LateLossIgnored(Loop):
    """A loss during the send does not reopen the gap when the send commits."""

    def __init__(self):
        super().__init__(bug="late_loss_ignored")


class LateLossByTime(Loop):
    """A loss is late only when it is stamped after the send started, so one at the same ms is not."""

    def reset(self):
        self.now = self.send_started = 0
        return super().reset()

    def _send_or_write_off(self):
        actions = super()._send_or_write_off()
        self.send_started = self.now
        return actions

    def step(self, event):
        self.now = event["t"]
        return super().step(event)

    def _on_loss_voiced(self, event):
        actions = super()._on_loss_voiced(event)
        if actions == ["merge_gap", "mark_late"] and event["t"] <= self.send_started:
            self.late_loss = False
        return actions


class LateLossKeptAfterFailure(Loop):
    """The late-loss flag survives a failed send, so the retry's commit reopens."""

    def _on_send_failed(self, event):
        late = self.late_loss
        actions = super()._on_send_failed(event)
        self.late_loss = late
        return actions

    def _send_or_write_off(self):
        late = self.late_loss
        actions = super()._send_or_write_off()
        self.late_loss = late
        return actions


class DupMarksLate(Loop):
    """A repeated notice during the send is taken as a late loss."""

    def _on_loss_voiced(self, event):
        if event["id"] in self.seen_ids and self.state == "SENDING":
            self.late_loss = True
        return super()._on_loss_voiced(event)


class BusyCounted(Loop):
    """busy_start and busy_end are counted, so two starts need two ends."""

    def reset(self):
        self.depth = 0
        return super().reset()

    def _on_busy_start(self, event):
        self.depth += 1
        return super()._on_busy_start(event)

    def _on_busy_end(self, event):
        self.depth = max(0, self.depth - 1)
        actions = super()._on_busy_end(event)
        self.busy = self.depth > 0
        return actions


class ActionsReordered(Loop):
    """A new gap names its actions the other way round."""

    def _on_loss_voiced(self, event):
        actions = super()._on_loss_voiced(event)
        return ["preserve_debt", "open_gap"] if actions == ["open_gap", "preserve_debt"] else actions


class UndeliveredWhileSendingTaken(Loop):
    """request_undelivered during the send is taken as a noop instead of refused."""

    def _on_request_undelivered(self, event):
        if self.state == "SENDING":
            return ["noop"]
        return super()._on_request_undelivered(event)


class SecondSessionEndTaken(Loop):
    """A repeated session_end is answered instead of refused."""

    def step(self, event):
        if self.ended and event["event"] == "session_end":
            return {"state": "CLEAR", "actions": ["noop"], "counters": {
                "session_requests": self.session_requests, "episode_attempts": self.episode_attempts},
                "debt_owed": self.debt_owed}
        return super().step(event)


class WriteOffPaysDebt(Loop):
    """A write-off by attempts clears the owed reply."""

    def step(self, event):
        answer = super().step(event)
        if answer.get("actions") == ["unrepaired_attempts"]:
            self.debt_owed = answer["debt_owed"] = False
        return answer


class UndeliveredRefundsBudget(Loop):
    """An undelivered request is given back to the session's budget."""

    def _on_request_undelivered(self, event):
        actions = super()._on_request_undelivered(event)
        if actions and "keep_budget_spent" in actions:
            self.session_requests -= 1
        return actions


GALLERY = {
    cls.__name__: cls
    for cls in (
        BudgetOffByOne, AttemptsOneEarly, PostSendNotStrict, PostSendFirstCommit, ForgetsEndedEpisodes,
        DupMovesLossTime, AttemptsKeptOnReopen, AttemptsKeptOnNewEpisode, BudgetResetOnNewEpisode,
        LateLossIgnored, LateLossByTime, LateLossKeptAfterFailure, DupMarksLate, BusyCounted,
        ActionsReordered, UndeliveredWhileSendingTaken, SecondSessionEndTaken, WriteOffPaysDebt,
        UndeliveredRefundsBudget,
    )
}
