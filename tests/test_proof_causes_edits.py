"""gapstate.proof.causes on edits of several rows: every root at an edited row (or the hole it left), and
restoring a root's rows removes every finding shown under it, checked by reverting each mistake."""

from __future__ import annotations

import random

import pytest

from gapstate.findings import Ambiguous, NotTotal, RetryLoop

from .support import SPEC_TEXT, check_text, line_of, variant, without_diagram

LATE = "SENDING | send_ok | late_loss | OPEN | commit_request,reopen_gap"
PLAIN = "SENDING | send_ok | !late_loss | REQUESTED | commit_request"
BUSY = "OPEN | floor_released | busy | DUE | defer_no_interrupt"


def test_the_swapped_send_ok_next_states_give_two_roots_at_the_two_rows():
    text = variant(LATE, LATE.replace("| OPEN |", "| REQUESTED |"))
    text = variant(PLAIN, PLAIN.replace("| REQUESTED |", "| OPEN |"), text)
    result = check_text(text)
    assert len(result.findings) > 30
    assert sorted(f.line for f in result.roots()) == [line_of(text, "!late_loss | OPEN"), line_of(text, "late_loss | REQUESTED")]
    # what is reached past either row (every step of REQUESTED, past the late_loss row; standing in OPEN, past the
    # other) follows from that row; the `*` rows break past both, and name both
    wildcard = [f for f in result.findings if f.line == line_of(text, "* | loss_silent")]
    assert wildcard and all(len(result.causes[f]) == 2 for f in wildcard)
    [finding] = [f for f in result.to_dict()["findings"] if f["line"] == wildcard[0].line]
    assert finding["cause"]["line"] == min(f.line for f in result.roots()) and len(finding["cause"]["with"]) == 1
    assert " together with the " in result.message(wildcard[0])


COMMIT_ON_UNDELIVERED = (
    "REQUESTED | request_undelivered | attempts_left,candidate_active | OPEN | keep_budget_spent,supersede",
    "REQUESTED | request_undelivered | attempts_left,candidate_active | OPEN | keep_budget_spent,commit_request",
)
COMMIT_ON_LOSS = ("OPEN | loss_voiced | !dup | = | merge_gap", "OPEN | loss_voiced | !dup | = | commit_request")


def test_a_breach_either_of_two_mistakes_reaches_is_shown_under_both():
    # two rows that commit a request in OPEN, each its own root; a request standing in OPEN is reached past
    # either, so the refused request_undelivered there follows from both, and only restoring both mends it
    both = variant(*COMMIT_ON_LOSS, variant(*COMMIT_ON_UNDELIVERED))
    result = check_text(both)
    first, second = line_of(both, "| = | commit_request"), line_of(both, "keep_budget_spent,commit_request")
    assert sorted(f.line for f in result.roots()) == [first, second]
    refused = line_of(both, "OPEN | request_undelivered")
    [finding] = [f for f in result.findings if f.line == refused]
    assert finding.rule == "possible-event-refused"
    assert sorted(root.line for root in result.causes[finding]) == [first, second]
    assert " together with the " in result.message(finding)

    def refuses(text: str) -> bool:
        return any(f.line == refused and f.kind == "rule" for f in check_text(text).findings)

    assert refuses(variant(*COMMIT_ON_UNDELIVERED)) and refuses(variant(*COMMIT_ON_LOSS))  # either alone leaves it
    assert not refuses(variant(COMMIT_ON_LOSS[0], COMMIT_ON_LOSS[0]))  # restoring both mends it


def test_a_stale_diagram_follows_from_the_edit_that_made_it_stale():
    # the README's broken.md: one row changed, with the spec's marked diagram left as it was
    old = f"\n{BUSY}\n"
    text = SPEC_TEXT.replace(old, "\nOPEN | floor_released | busy | SENDING | send_request\n")
    result = check_text(text)
    [root] = result.roots()
    assert (root.kind, root.rule, root.line) == ("rule", "send-while-busy", line_of(text, "busy | SENDING | send_request"))
    [diagram] = [f for f in result.findings if f.kind == "stale_diagram"]
    assert result.root_of(diagram) is root
    assert "mend that, then run `gapstate check --fix" in result.message(diagram)


def test_a_stale_diagram_alone_is_a_root():
    diagram = SPEC_TEXT.index("```mermaid")
    text = SPEC_TEXT[:diagram] + SPEC_TEXT[diagram:].replace("state_CLEAR", "state_CLEAN", 1)
    [finding] = check_text(text).roots()
    assert finding.kind == "stale_diagram" and "gapstate graph --update" in finding.message


# restoring each mistake of tables with two and three ---------------------------------------------


def _mistakes():
    """Every one-row mistake of the bundled table that keeps every line where it was (a deleted row is a blank
    line), as (line, the row as it became)."""
    from bench.mutants import row_mutations
    from gapstate.table.load import parse_spec
    from gapstate.table.vocabulary import STATES

    table = parse_spec(without_diagram(SPEC_TEXT), "spec.md").table
    states = tuple(dict.fromkeys((*table.states, *STATES)))
    rows = {row.line: row for row in table.rows}
    # A row made `invalid` refuses an event the room produces: what that cuts off is all a check sees of it
    # (docs/findings.md, the mutation section), so no analysis of findings can put the root at that row.
    return rows, [
        (row.line, became)
        for row in table.rows
        for kind, became in row_mutations(row, states)
        if kind != "duplicated" and not (became.endswith("| invalid") and not row.invalid)
    ]


ROWS, MISTAKES = _mistakes()
LINES = without_diagram(SPEC_TEXT).splitlines()


def _table(mistakes):
    lines = list(LINES)
    for line, became in mistakes:
        lines[line - 1] = became
    return "\n".join(lines) + "\n"


def _at(finding, mistake) -> bool:
    """Whether a root is at a mistake: at its row, an overlap of it, a loop through it, or the hole its row left."""
    line, _ = mistake
    row = ROWS[line]
    if finding.line == line or (isinstance(finding, (Ambiguous, RetryLoop)) and line in finding.rows):
        return True
    return isinstance(finding, NotTotal) and finding.event == row.event and "*" in (finding.state, row.state) or (
        isinstance(finding, NotTotal) and finding.event == row.event and finding.state == row.state
    )


def _key(finding):
    if isinstance(finding, NotTotal):
        return (finding.kind, finding.state, finding.event, finding.cube)
    return (finding.kind, finding.line, getattr(finding, "rule", None), getattr(finding, "rows", None))


def _judge(mistakes):
    """The roots of a table with these mistakes that are at no mistake; those under which something is left
    once the mistakes of its roots are restored; and those named for a finding of several roots that it does
    not need (restoring the other roots removes it, restoring this one alone leaves it)."""
    result = check_text(_table(mistakes))
    checked: dict[tuple, set] = {}

    def left(kept) -> set:
        key = tuple(sorted(kept))
        if key not in checked:
            checked[key] = {_key(f) for f in check_text(_table(list(key))).findings}
        return checked[key]

    def restoring(roots) -> list:
        return [m for m in mistakes if not any(_at(r, m) for r in roots)]

    astray, unmended, needless = [], [], set()
    for root, under in result.grouped():
        if not any(_at(root, m) for m in mistakes):
            astray.append(root)
            continue
        for finding in [root, *under]:
            roots = result.causes.get(finding, (root,))
            if _key(finding) in left(restoring(roots)) and root not in {r for r, _ in unmended}:
                unmended.append((root, finding))
            for named in roots if len(roots) > 1 else ():
                others = [r for r in roots if r is not named]
                if _key(finding) not in left(restoring(others)) and _key(finding) in left(restoring([named])):
                    needless.add(named)
    return result, astray, unmended, needless


def _tables(k: int, n: int, seed: int):
    draw = random.Random(seed)
    while n:
        mistakes = draw.sample(MISTAKES, k)
        if len({line for line, _ in mistakes}) == k:
            n -= 1
            yield mistakes


@pytest.mark.parametrize("mistakes", list(_tables(2, 6, 3)), ids=lambda m: "+".join(str(line) for line, _ in m))
def test_two_mistakes_have_their_roots_at_the_edited_rows(mistakes):
    result = check_text(_table(mistakes))
    assert all(any(_at(root, m) for m in mistakes) for root in result.roots()), [(f.kind, f.line) for f in result.roots()]


@pytest.mark.slow
@pytest.mark.parametrize("k, n, most, needless_most", [(2, 200, 0.005, 0.025), (3, 100, 0.005, 0.025)])  # docs/findings.md
def test_restoring_each_mistake_removes_what_is_shown_under_its_root(k, n, most, needless_most):
    """No root at an untouched row; restoring a root's rows removes everything shown under it, and a finding
    shown under several roots needs each of them, for all but the roots docs/findings.md measures and explains
    (a row cut off under an overlap that hides a second mistake; roots a mended walk takes as needed)."""
    roots = 0
    astray: list = []
    unmended: list = []
    needless = 0
    for mistakes in _tables(k, n, k):
        result, away, left, extra = _judge(mistakes)
        roots += len(result.roots())
        astray += away
        unmended += left
        needless += len(extra)
    assert not astray, [(f.kind, f.line) for f in astray]
    assert len(unmended) <= most * roots, (len(unmended), roots)
    assert needless <= needless_most * roots, (needless, roots)


def test_a_row_cut_off_by_one_of_two_mistakes_follows_from_that_one_alone():
    # the row `SENDING | busy_end | - | = | noop` deleted (a hole) and a fresh loss in SENDING refused: the late
    # send_ok row is cut off by the refusal alone (only the fresh loss it refuses marks a loss late), so it is
    # under that root, and restoring the refused row alone makes it fire again
    refusing = ("SENDING | loss_voiced | !dup | = | merge_gap,mark_late", "SENDING | loss_voiced | !dup | = | invalid")
    text = variant(*refusing, variant("SENDING | busy_end | - | = | noop", ""))
    result = check_text(text)
    hole = next(f for f in result.roots() if isinstance(f, NotTotal))
    refused = next(f for f in result.roots() if f.line == line_of(text, "!dup | = | invalid"))
    late = line_of(text, LATE)
    [cut_off] = [f for f in result.findings if f.kind == "unreachable" and f.line == late]
    assert result.causes[cut_off] == (refused,) and hole.event == "busy_end"
    assert "together with" not in result.message(cut_off)

    def cut(spec: str) -> bool:
        return any(f.kind == "unreachable" and f.line == line_of(spec, LATE) for f in check_text(spec).findings)

    assert not cut(variant("SENDING | busy_end | - | = | noop", ""))  # the refused row restored
    assert cut(variant(*refusing))  # the hole restored


def test_the_last_failed_send_left_waiting_is_the_missing_write_off():
    old = "SENDING | send_failed | !attempts_left | CLEAR | unrepaired_attempts"
    text = variant(old, "SENDING | send_failed | !attempts_left | DUE | keep_debt")
    result = check_text(text)
    [root] = result.roots()
    assert (root.kind, root.rule, root.line) == ("rule", "last-attempt-not-written-off", line_of(text, "!attempts_left | DUE"))
    # waiting in DUE while the candidate speaks is a side effect further on, shown under it
    assert any(f.rule == "due-while-candidate-speaks" and result.root_of(f) is root for f in result.findings if f.kind == "rule")
