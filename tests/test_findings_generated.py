"""The drift finding: its words say why the file is stale, and the command that mends it names the spec quoted for the shell."""

from __future__ import annotations

import pytest

from gapstate.findings import GeneratedProblem, StaleGenerated

NOW = "e" * 64


def _finding(reason: GeneratedProblem, recorded: str = "") -> StaleGenerated:
    return StaleGenerated(167, 1, reason, "room/decider.py", "python", "my spec.md", recorded, NOW)


@pytest.mark.parametrize("reason", [GeneratedProblem.CHANGED, GeneratedProblem.MISSING])
def test_what_can_be_regenerated_names_check_fix_on_the_spec_quoted(reason):
    message = _finding(reason, "0" * 64).message
    assert message.startswith("room/decider.py ") and "`gapstate check --fix 'my spec.md'`" in message


def test_a_changed_spec_shows_both_sha256s_shortened():
    message = _finding(GeneratedProblem.CHANGED, "0" * 64).message
    assert "(sha256 000000000000, the spec's is now eeeeeeeeeeee)" in message


def test_a_file_without_a_stamp_is_not_offered_a_regeneration():
    message = _finding(GeneratedProblem.FOREIGN).message
    assert "carries no stamp of `gapstate gen`" in message and "--fix" not in message


def test_json_carries_the_path_and_target_and_not_the_hashes():
    document = _finding(GeneratedProblem.CHANGED, "0" * 64).to_dict()
    assert (document["kind"], document["path"], document["target"]) == ("stale_generated", "room/decider.py", "python")
    assert "recorded" not in document
