"""Defective tables for fuzzing: the bundled table with one row changed or deleted.

Each is (name, the bundled row, its replacement; "" deletes the row). They
put one defect anywhere in the table, behind the caps included, so that
`gapstate fuzz` at its default settings must reach every corner to find
them. The tests and `bench/fuzz_depth.py` share them.
"""

from __future__ import annotations

DEFECTS: tuple[tuple[str, str, str], ...] = (
    (
        "exit-unnamed behind the session cap",
        "DUE | floor_released | !busy,!budget_left | CLEAR | unrepaired_budget",
        "DUE | floor_released | !busy,!budget_left | CLEAR | noop",
    ),
    (
        "send-without-budget behind the session cap",
        "DUE | busy_end | !budget_left | CLEAR | unrepaired_budget",
        "DUE | busy_end | !budget_left | SENDING | send_request",
    ),
    (
        "exit-unnamed behind the attempts cap",
        "REQUESTED | request_undelivered | !attempts_left | CLEAR | unrepaired_attempts",
        "REQUESTED | request_undelivered | !attempts_left | CLEAR | keep_budget_spent",
    ),
    (
        "send-while-busy",
        "OPEN | floor_released | busy | DUE | defer_no_interrupt",
        "OPEN | floor_released | busy | SENDING | send_request",
    ),
    (
        "settle-without-evidence",
        "REQUESTED | evidence_turn | !post_send | = | noop",
        "REQUESTED | evidence_turn | !post_send | CLEAR | settle",
    ),
    (
        "session-end-not-clear in SENDING",
        "SENDING | session_end | - | CLEAR | end_unsettled",
        "SENDING | session_end | - | = | end_unsettled",
    ),
    (
        "dup-changes-state in REQUESTED",
        "REQUESTED | loss_voiced | dup | = | note_dup",
        "REQUESTED | loss_voiced | dup | OPEN | reopen_gap",
    ),
    (
        "commit-without-send-result",
        "CLEAR | send_ok | - | = | invalid",
        "CLEAR | send_ok | - | = | commit_request",
    ),
    (
        "hole behind the session cap",
        "DUE | floor_released | !busy,!budget_left | CLEAR | unrepaired_budget",
        "",
    ),
    (
        "hole after a failed send",
        "SENDING | send_failed | attempts_left,candidate_active | OPEN | supersede",
        "",
    ),
)
