"""Replaying the cases the spec's prose names, one test per sentence.

Traces are written in a shorthand, one event a string:
`"loss_voiced iv-1 @120"`, `"evidence_turn speech=650 @900"`, `"floor_released @300"`
(no `@t` keeps the previous time).
"""

from __future__ import annotations

import pytest

import gapstate
from gapstate.table.load import load_spec

from .support import variant

SPEC = load_spec()


def event(text: str) -> dict:
    name, *rest = text.split()
    item: dict = {"event": name}
    for word in rest:
        if word.startswith("@"):
            item["t"] = int(word[1:])
        elif word.startswith("speech="):
            item["speech_start"] = int(word.split("=")[1])
        else:
            item["id"] = word
    return item


def run(*texts: str, spec=SPEC):
    return gapstate.replay(spec, [event(t) for t in texts])


def states(result) -> list[str]:
    return [step.target for step in result.steps]


def actions(result) -> list[list[str]]:
    return [list(step.actions) for step in result.steps]


def counters(result) -> tuple[int, int]:
    c = result.final_dict()["counters"]
    return c["session_requests"], c["episode_attempts"]


def ok(result):
    assert result.error is None, result.error
    return result


# Episodes --------------------------------------------------------------------

SEND = ("floor_released",)  # from OPEN, with the interviewer idle


def test_the_first_unseen_voiced_loss_opens_an_episode_and_preserves_the_debt():
    result = ok(run("loss_voiced iv-1 @100"))
    assert states(result) == ["OPEN"]
    assert actions(result) == [["open_gap", "preserve_debt"]]
    assert result.final.debt_owed


def test_silent_loss_and_sdk_unknown_open_no_gap():
    result = ok(run("loss_silent @10", "sdk_unknown @20"))
    assert states(result) == ["CLEAR", "CLEAR"]
    assert actions(result) == [["note_trim"], ["note_unknown"]]
    assert not result.final.debt_owed


@pytest.mark.parametrize(
    "prefix",
    [
        [],  # OPEN
        ["busy_start @150", "floor_released @160"],  # DUE
        ["floor_released @150"],  # SENDING
        ["floor_released @150", "send_ok @160"],  # REQUESTED
    ],
    ids=["OPEN", "DUE", "SENDING", "REQUESTED"],
)
def test_a_repeated_notice_for_an_id_that_opened_the_episode_changes_nothing(prefix):
    before = ok(run("loss_voiced iv-1 @100", *prefix))
    after = ok(run("loss_voiced iv-1 @100", *prefix, "loss_voiced iv-1 @200"))
    assert after.final == before.final
    assert after.steps[-1].actions == ("note_dup",)
    assert after.steps[-1].guards == {"dup": True}


def test_a_repeated_notice_for_an_id_that_merged_changes_nothing():
    merged = ok(run("loss_voiced iv-1 @100", "loss_voiced iv-2 @150"))
    assert actions(merged)[-1] == ["merge_gap"]
    again = ok(run("loss_voiced iv-1 @100", "loss_voiced iv-2 @150", "loss_voiced iv-2 @200"))
    assert again.final == merged.final
    assert actions(again)[-1] == ["note_dup"]


def test_a_repeated_notice_changes_nothing_after_its_episode_ended():
    settled = [
        "loss_voiced iv-1 @100",
        "floor_released @200",
        "send_ok @300",
        "evidence_turn speech=400 @500",
    ]
    done = ok(run(*settled))
    assert done.final.state == "CLEAR"
    again = ok(run(*settled, "loss_voiced iv-1 @600"))
    assert again.final == done.final
    assert actions(again)[-1] == ["note_dup"]


@pytest.mark.parametrize(
    "prefix, state, merge",
    [
        ([], "OPEN", ["merge_gap"]),
        (["busy_start @150", "floor_released @160"], "DUE", ["merge_gap"]),
        (["floor_released @150"], "SENDING", ["merge_gap", "mark_late"]),
    ],
)
def test_another_unseen_loss_while_open_merges_into_the_episode(prefix, state, merge):
    result = ok(run("loss_voiced iv-1 @100", *prefix, "loss_voiced iv-2 @200"))
    assert states(result)[-1] == state
    assert actions(result)[-1] == merge


def test_an_unseen_loss_after_a_committed_request_reopens_the_episode():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "send_ok @300",
            "floor_released @350",
            "loss_voiced iv-2 @400",
        )
    )
    assert states(result)[-1] == "OPEN"
    assert actions(result)[-1] == ["reopen_gap"]
    assert counters(result) == (1, 0)  # the request stays spent; a fresh attempt allowance


def test_a_loss_during_a_send_in_flight_is_remembered_and_the_commit_reopens():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "loss_voiced iv-2 @250",
            "send_ok @300",
        )
    )
    assert states(result) == ["OPEN", "SENDING", "SENDING", "OPEN"]
    assert actions(result)[2] == ["merge_gap", "mark_late"]
    assert result.steps[3].guards == {"late_loss": True}
    assert actions(result)[3] == ["commit_request", "reopen_gap"]
    assert counters(result) == (1, 0)


def test_a_late_loss_is_forgotten_once_its_send_failed():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "loss_voiced iv-2 @250",
            "send_failed @300",
            "floor_released @400",
            "send_ok @500",
        )
    )
    assert result.steps[-1].guards == {"late_loss": False}
    assert states(result)[-1] == "REQUESTED"


# The debt --------------------------------------------------------------------


@pytest.mark.parametrize(
    "events",
    [
        ["candidate_start @200"],
        ["busy_start @200"],
        ["floor_released @200", "send_failed @300"],
        ["floor_released @200", "candidate_start @250", "send_failed @300"],
    ],
    ids=["candidate speech", "a hold", "a failed send", "a failed send while speaking"],
)
def test_candidate_speech_a_hold_and_a_failed_send_leave_the_debt_owed(events):
    result = ok(run("loss_voiced iv-1 @100", *events))
    assert result.final.debt_owed
    assert result.final.state != "CLEAR"


@pytest.mark.parametrize(
    "events, ending",
    [
        (["floor_released @200", "send_ok @300", "evidence_turn speech=350 @400"], "settle"),
        (["session_end @200"], "end_unsettled"),
        (["floor_released @200", "send_failed @300", "floor_released @400", "send_failed @500"], "unrepaired_attempts"),
    ],
)
def test_only_settling_discharges_the_debt_a_write_off_leaves_it_owed(events, ending):
    result = ok(run("loss_voiced iv-1 @100", *events))
    assert result.final.state == "CLEAR"
    assert actions(result)[-1] == [ending]
    assert result.final.debt_owed == (ending != "settle")


# The request -----------------------------------------------------------------


def test_a_request_is_deferred_while_busy_and_sent_at_the_next_end_of_busy():
    result = ok(run("loss_voiced iv-1 @100", "busy_start @150", "floor_released @200", "busy_end @900"))
    assert states(result) == ["OPEN", "OPEN", "DUE", "SENDING"]
    assert actions(result)[2] == ["defer_no_interrupt"]
    assert actions(result)[3] == ["send_request"]


def test_a_due_request_is_sent_at_the_next_floor_release_once_idle():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "send_failed @300",  # DUE: waiting to retry
            "floor_released @400",
        )
    )
    assert states(result) == ["OPEN", "SENDING", "DUE", "SENDING"]


def test_a_release_while_still_busy_keeps_deferring():
    result = ok(run("loss_voiced iv-1 @100", "busy_start @150", "floor_released @200", "floor_released @300"))
    assert states(result)[-2:] == ["DUE", "DUE"]
    assert actions(result)[-1] == ["defer_no_interrupt"]


def test_nothing_is_sent_on_a_timer():
    # Time passing, with events that are not a release or an end of busy, sends nothing.
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "busy_start @150",
            "floor_released @200",
            "loss_silent @60000",
            "sdk_unknown @120000",
            "evidence_turn speech=100000 @180000",
        )
    )
    assert states(result)[2:] == ["DUE", "DUE", "DUE", "DUE"]
    assert all("send_request" not in a for a in actions(result))


def test_candidate_speech_before_the_send_supersedes_it_until_the_next_release():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "busy_start @150",
            "floor_released @200",
            "candidate_start @300",
            "busy_end @350",
            "floor_released @400",
        )
    )
    assert states(result)[3] == "OPEN"
    assert actions(result)[3] == ["supersede"]
    assert states(result)[-1] == "SENDING"


def test_speech_that_begins_after_the_send_started_does_not_recall_it():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "candidate_start @250",
            "send_ok @300",
        )
    )
    assert states(result) == ["OPEN", "SENDING", "SENDING", "REQUESTED"]
    assert actions(result)[2] == ["noop"]
    assert actions(result)[3] == ["commit_request"]


def test_a_candidate_turn_that_began_before_the_commit_does_not_settle():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "candidate_start @250",
            "send_ok @300",
            "floor_released @800",
            "evidence_turn speech=250 @900",
        )
    )
    assert states(result)[-1] == "REQUESTED"
    assert result.steps[-1].guards == {"post_send": False}


def test_a_failed_send_while_the_candidate_speaks_returns_the_gap_to_the_candidate():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "candidate_start @250",
            "send_failed @300",
        )
    )
    assert states(result)[-1] == "OPEN"
    assert actions(result)[-1] == ["supersede"]


def test_an_undelivered_request_while_the_candidate_speaks_returns_the_gap_to_the_candidate():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "send_ok @300",
            "candidate_start @350",
            "request_undelivered @400",
        )
    )
    assert states(result)[-1] == "OPEN"
    assert actions(result)[-1] == ["keep_budget_spent", "supersede"]
    assert counters(result) == (1, 1)


def test_a_failed_send_while_idle_retries_at_the_next_end_of_busy_never_in_a_loop():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "send_failed @300",
            "loss_silent @400",
            "busy_start @500",
            "busy_end @600",
        )
    )
    assert states(result) == ["OPEN", "SENDING", "DUE", "DUE", "DUE", "SENDING"]
    assert actions(result)[2] == ["keep_debt"]
    assert counters(result) == (0, 2)


def test_a_loss_noticed_after_the_floor_was_released_waits_for_the_next_release():
    result = ok(
        run(
            "candidate_start @50",
            "floor_released @100",
            "loss_voiced iv-1 @150",
            "busy_end @200",
            "floor_released @900",
        )
    )
    assert states(result) == ["CLEAR", "CLEAR", "OPEN", "OPEN", "SENDING"]


# Session end -----------------------------------------------------------------


@pytest.mark.parametrize(
    "prefix, last",
    [
        (["loss_voiced iv-1 @100", "floor_released @200"], "send_ok @400"),
        (["loss_voiced iv-1 @100", "floor_released @200"], "send_failed @400"),
        ([], "session_end @400"),
        ([], "loss_voiced iv-9 @400"),
    ],
)
def test_nothing_follows_session_end(prefix, last):
    result = run(*prefix, "session_end @300", last)
    assert result.error is not None
    assert result.error.kind == "after_session_end"
    assert result.error.index == len(prefix) + 1
    assert result.final.ended and result.final.state == "CLEAR"


@pytest.mark.parametrize(
    "prefix",
    [
        ["loss_voiced iv-1 @100"],
        ["loss_voiced iv-1 @100", "busy_start @150", "floor_released @160"],
        ["loss_voiced iv-1 @100", "floor_released @150"],
        ["loss_voiced iv-1 @100", "floor_released @150", "send_ok @160"],
    ],
    ids=["OPEN", "DUE", "SENDING", "REQUESTED"],
)
def test_session_end_writes_the_gap_off_from_every_gap_state(prefix):
    result = ok(run(*prefix, "session_end @300"))
    assert actions(result)[-1] == ["end_unsettled"]
    assert result.final.state == "CLEAR" and result.final.debt_owed and result.final.ended


# Caps ------------------------------------------------------------------------


def test_two_attempts_per_episode_then_the_gap_is_written_off():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "send_failed @300",
            "floor_released @400",
            "send_failed @500",
        )
    )
    assert [s.counters["episode_attempts"] for s in result.steps] == [0, 1, 1, 2, 2]
    assert states(result)[-1] == "CLEAR"
    assert actions(result)[-1] == ["unrepaired_attempts"]


def test_an_undelivered_last_attempt_writes_the_gap_off():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "send_failed @300",
            "floor_released @400",
            "send_ok @500",
            "request_undelivered @600",
        )
    )
    assert actions(result)[-1] == ["unrepaired_attempts"]
    assert counters(result) == (1, 2)


def test_an_undelivered_request_returns_to_due_and_stays_spent():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "send_ok @300",
            "request_undelivered @400",
        )
    )
    assert states(result)[-1] == "DUE"
    assert actions(result)[-1] == ["keep_budget_spent"]
    assert counters(result) == (1, 1)
    # and the undelivered request cannot be settled by later evidence
    more = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @200",
            "send_ok @300",
            "request_undelivered @400",
            "evidence_turn speech=500 @600",
        )
    )
    assert states(more)[-1] == "DUE"


def _episode(n: int, start: int) -> list[str]:
    """One gap, one request committed and settled, at times from `start`."""
    return [
        f"loss_voiced iv-{n} @{start}",
        f"floor_released @{start + 10}",
        f"send_ok @{start + 20}",
        f"evidence_turn speech={start + 30} @{start + 40}",
    ]


def test_three_committed_requests_per_session_then_no_request_is_sent():
    trace = _episode(1, 100) + _episode(2, 200) + _episode(3, 300) + ["loss_voiced iv-4 @400", "floor_released @410"]
    result = ok(run(*trace))
    assert counters(result)[0] == 3
    assert states(result)[-1] == "CLEAR"
    assert actions(result)[-1] == ["unrepaired_budget"]
    assert result.final.debt_owed


def test_a_reopened_episode_gets_a_fresh_allowance_bounded_by_the_session_cap():
    result = ok(
        run(
            "loss_voiced iv-1 @100",
            "floor_released @110",
            "send_failed @120",  # attempt 1 of the first allowance
            "floor_released @130",
            "send_ok @140",  # attempt 2, committed: session 1
            "loss_voiced iv-2 @150",  # reopens: fresh allowance
            "floor_released @160",
            "send_ok @170",  # session 2
            "loss_voiced iv-3 @180",
            "floor_released @190",
            "send_ok @200",  # session 3
            "loss_voiced iv-4 @210",  # reopens with attempts left but no budget
            "floor_released @220",
        )
    )
    assert [s.counters["episode_attempts"] for s in result.steps][4:7] == [2, 0, 1]
    assert counters(result) == (3, 0)
    assert actions(result)[-1] == ["unrepaired_budget"]


# Settlement ------------------------------------------------------------------

COMMITTED = ["loss_voiced iv-1 @100", "floor_released @200", "send_ok @300"]


@pytest.mark.parametrize("speech, settles", [(299, False), (300, False), (301, True)])
def test_evidence_settles_only_when_speech_began_strictly_after_the_commit(speech, settles):
    result = ok(run(*COMMITTED, f"evidence_turn speech={speech} @400"))
    assert result.steps[-1].guards == {"post_send": settles}
    assert states(result)[-1] == ("CLEAR" if settles else "REQUESTED")
    if settles:
        assert actions(result)[-1] == ["settle"]


@pytest.mark.parametrize("speech, settles", [(550, False), (600, False), (650, True)])
def test_evidence_must_also_follow_the_last_unseen_loss(speech, settles):
    # commit at 300, a new loss at 400 reopens, then a second commit at 600:
    # the later of the last commit and the last unseen loss is 600.
    trace = COMMITTED + ["loss_voiced iv-2 @400", "floor_released @500", "send_ok @600"]
    result = ok(run(*trace, f"evidence_turn speech={speech} @700"))
    assert result.steps[-1].guards == {"post_send": settles}


def test_a_dup_notice_does_not_move_the_time_of_the_last_unseen_loss():
    result = ok(run(*COMMITTED, "loss_voiced iv-1 @500", "evidence_turn speech=400 @600"))
    assert actions(result)[-1] == ["settle"]


def test_post_send_is_false_while_nothing_was_committed():
    result = ok(run("loss_voiced iv-1 @100", "evidence_turn speech=5000 @6000"))
    assert result.steps[-1].actions == ("noop",)
    assert states(result)[-1] == "OPEN"


# Invalid events and rules ------------------------------------------------------


@pytest.mark.parametrize(
    "prefix, last, state",
    [
        ([], "send_ok @10", "CLEAR"),
        (["loss_voiced iv-1 @5"], "send_failed @10", "OPEN"),
        (["loss_voiced iv-1 @5", "floor_released @6"], "request_undelivered @10", "SENDING"),
        (["loss_voiced iv-1 @5", "floor_released @6", "send_ok @7"], "send_ok @10", "REQUESTED"),
    ],
)
def test_an_invalid_event_fails_the_replay_at_its_step(prefix, last, state):
    result = run(*prefix, last)
    assert result.error is not None
    assert (result.error.kind, result.error.index) == ("invalid_event", len(prefix))
    assert result.final.state == state
    assert len(result.steps) == len(prefix)
    assert "cannot occur in " + state in result.error.message


def test_an_empty_trace_replays_to_the_initial_configuration():
    result = ok(run())
    assert result.to_dict() == {
        "ok": True,
        "steps": [],
        "final": {
            "state": "CLEAR",
            "counters": {"session_requests": 0, "episode_attempts": 0},
            "debt_owed": False,
            "ended": False,
        },
        "error": None,
    }


def test_a_broken_rule_stops_the_replay_after_the_breaking_step():
    spec = gapstate.load_spec(
        variant("OPEN | floor_released | busy | DUE | defer_no_interrupt", "OPEN | floor_released | busy | SENDING | send_request")
    )
    result = run("loss_voiced iv-1 @1", "busy_start @2", "floor_released @3", "busy_end @4", spec=spec)
    assert result.error.kind == "rule" and result.error.index == 2
    assert "send-while-busy" in result.error.message
    assert len(result.steps) == 3 and result.final.state == "SENDING"


def test_a_step_records_the_row_its_guards_and_counters_after():
    result = ok(run("loss_voiced iv-1 @1", "floor_released @2"))
    step = result.steps[1]
    assert step.index == 1 and step.event == "floor_released"
    assert (step.source, step.target) == ("OPEN", "SENDING")
    line = SPEC.table.rows[[str(r) for r in SPEC.table.rows].index("OPEN | floor_released | !busy,budget_left,attempts_left | SENDING | send_request")].line
    assert step.row == line
    assert step.guards == {"busy": False, "budget_left": True, "attempts_left": True}
    assert step.counters == {"session_requests": 0, "episode_attempts": 1}


def test_a_table_that_cannot_be_stepped_is_unusable_input():
    spec = gapstate.load_spec(variant("CLEAR | busy_end | - | = | noop", "CLEAR | busy_end | - | = | nop"))
    with pytest.raises(gapstate.GapstateError) as caught:
        run("busy_end", spec=spec)
    assert caught.value.line is not None and "unknown_name" in str(caught.value)


def test_evidence_must_follow_an_unseen_loss_that_arrived_after_the_commit():
    # With a table where a loss in REQUESTED keeps the request standing instead of
    # reopening, the last unseen loss can come after the commit: speech must follow it too.
    spec = gapstate.load_spec(
        variant("REQUESTED | loss_voiced | !dup | OPEN | reopen_gap", "REQUESTED | loss_voiced | !dup | = | noop")
    )
    trace = COMMITTED + ["loss_voiced iv-2 @500"]
    early = ok(run(*trace, "evidence_turn speech=400 @600", spec=spec))
    assert early.steps[-1].guards == {"post_send": False}
    at = ok(run(*trace, "evidence_turn speech=500 @600", spec=spec))
    assert at.steps[-1].guards == {"post_send": False}
    late = ok(run(*trace, "evidence_turn speech=501 @600", spec=spec))
    assert late.steps[-1].actions == ("settle",)


def test_the_api_refuses_events_that_are_not_an_iterable_of_dicts():
    with pytest.raises(gapstate.GapstateError):
        gapstate.replay(SPEC, 5)


def test_an_event_no_row_matches_stops_the_replay_saying_the_table_is_not_total():
    spec = gapstate.load_spec(variant("CLEAR | busy_end | - | = | noop", ""))
    result = gapstate.replay(spec, [{"event": "busy_start"}, {"event": "busy_end"}, {"event": "busy_start"}])
    assert result.error is not None
    assert (result.error.index, result.error.kind) == (1, "invalid_event")
    assert result.error.message == "no row matches busy_end in CLEAR: the table is not total here (run `gapstate check`)"
    assert result.events == 3 and len(result.steps) == 1


def test_a_session_decides_dup_alike_whether_its_ids_are_few_or_kept_as_digests():
    """The loop's plain-set path (few short ids) and the Ids path (past the limit, or long ids) say the same."""
    from gapstate.run.event import Event
    from gapstate.run.ids import Ids
    from gapstate.run.replayer import Session, machine_for

    spec = load_spec()
    names = [f"iv-{n % 7}" for n in range(40)] + ["y" * 50, "iv-1", "y" * 50, "iv-99"]
    trace = [Event("loss_voiced", n, name) for n, name in enumerate(names)]

    def guards(compact: int) -> list[bool]:
        session = Session(machine_for(spec))
        session.seen = Ids(compact)
        taken: list = []
        assert session.run(trace, taken.append) is None
        return [step.outcome.guards for step in taken]

    few = guards(1 << 17)
    assert few == guards(0) == guards(3)
    assert [dict(g)["dup"] for g in few] == [name in names[:n] for n, name in enumerate(names)]
