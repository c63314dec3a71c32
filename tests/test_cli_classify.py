"""gapstate/cli/classify.py: several reports as repeats, the text table, --plot, and problems past the first thousand."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings

import gapstate
from gapstate.attribution.positions import SHOWN
from gapstate.cli import main
from gapstate.cli.render.heatmap import COLOURS

from .support import unwrapped, write_report
from .test_attribution_conditions import control, report, silent, stall, turn, verdicts  # the report builders
from .test_attribution_conditions_properties import reports

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "spec" / "classify-example.json"


def run(*args: str) -> Any:
    return CliRunner().invoke(main, ["classify", *args])


def write(tmp_path: Path, name: str, document: Any) -> str:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document, indent=2), encoding="utf-8")
    return str(path)


def five_repeats(tmp_path: Path) -> list[str]:
    """Five repeats of one experiment: the stall arm's turn attributable in two, inconclusive in three."""
    return [write(tmp_path, f"r{i}.json", report() if i < 2 else report(control(), stall(intervals=[])))
            for i in range(5)]


def test_one_report_prints_the_single_report_document_unchanged(tmp_path):
    path = write(tmp_path, "one.json", report())
    document = json.loads(run(path, "--format", "json").stdout)
    assert document == gapstate.classify(report()).to_dict()
    assert "repeats" not in document


def test_several_reports_print_the_repeats_document(tmp_path):
    paths = five_repeats(tmp_path)
    outcome = run(*paths, "--format", "json")
    assert outcome.exit_code == 0, outcome.output
    document = json.loads(outcome.stdout)
    assert document["repeats"] == 5
    assert [entry["report"] for entry in document["reports"]] == paths
    assert document["verdicts"] == {"attributable": 2, "inconclusive": 3}
    assert document["arms"][1]["turns"][0]["verdicts"] == {"attributable": 2, "inconclusive": 3}


def test_the_text_says_in_how_many_repeats_each_verdict_fell(tmp_path):
    outcome = run(*five_repeats(tmp_path))
    assert outcome.exit_code == 0, outcome.output
    rows = unwrapped(outcome.stdout)
    [row] = [line for line in rows if line.startswith("stall ")]
    assert "verdicts (of 5 repeats)" in rows[0] and "attributable in 2, inconclusive in 3" in row
    assert "interval_recorded in 3, interval_overlaps in 3" in row
    assert "overall: attributable in 2 of 5 repeats, inconclusive in 3 of 5 repeats" in rows
    assert sum(line.startswith("repeat ") for line in rows) == 5
    assert outcome.stderr.splitlines()[-1].startswith("gapstate classify: 5 repeats of 2 arms, 2 turns: ")
    assert "%" not in outcome.output


def test_a_report_of_another_experiment_exits_2_naming_the_file_line_and_difference(tmp_path):
    first = write(tmp_path, "a.json", report())
    other = write(tmp_path, "b.json", report(control(), stall(name="stall-9s")))
    outcome = run(first, other)
    assert (outcome.exit_code, outcome.stdout) == (2, "")
    assert f"{other}: not a repeat of {first} (2 differences):" in outcome.stderr
    lines = Path(other).read_text(encoding="utf-8").splitlines()
    named = next(i for i, line in enumerate(lines, start=1) if '"stall-9s"' in line)
    arms = next(i for i, line in enumerate(lines, start=1) if '"arms"' in line)
    column = lines[arms - 1].index("[") + 1
    assert f'{other}:{named}:15: arms[1].name: arm "stall-9s" is not in {first}' in outcome.stderr
    assert f'{other}:{arms}:{column}: arms: arm "stall" in {first} is missing' in outcome.stderr


def test_the_second_reports_own_problems_are_named_with_its_file(tmp_path):
    outcome = run(write(tmp_path, "a.json", report()), write(tmp_path, "b.json", {"answer_key": ["q1"]}))
    assert outcome.exit_code == 2
    assert "b.json: the report cannot be judged (1 problem):" in outcome.stderr


def test_an_sdk_overflow_arm_is_shown_with_its_dropped_range_and_marked_turn(tmp_path):
    arm = silent(sdk_overflow=[{"t": 1500, "dropped": 101}])
    outcome = run(write(tmp_path, "r.json", report(control("present", "present"), arm, turns=2)))
    assert "arm stall:    sdk_overflow (1 overflow line: the SDK dropped 101 to 200 frames)" in outcome.stdout
    assert any(line.endswith("; SDK overflow logged during its audio") for line in unwrapped(outcome.stdout))
    assert "overall: inconclusive" in outcome.stdout


def test_problems_past_the_first_thousand_are_counted_not_listed(tmp_path):
    bad = {"answer_key": list(range(SHOWN + 500)), "arms": [control(), stall()]}
    outcome = run(write(tmp_path, "big.json", bad), "--format", "json")
    assert outcome.exit_code == 2
    document = json.loads(outcome.stdout)
    assert len(document["error"]["problems"]) == SHOWN
    assert f"({SHOWN + 500 + 2} problems; the first {SHOWN} are shown)" in document["error"]["message"]
    assert document["error"]["problems"][0]["path"] == "answer_key[0]"


def test_help_shows_the_report_format_and_points_to_its_page():
    text = run("--help").stdout
    for field in ("answer_key", "sdk_overflow", "peer_bytes", "capture_complete", '"meta"', "docs/classify.md"):
        assert field in text


# --plot (matplotlib is in the test extra, so these always run) ----------------------


@pytest.mark.slow  # matplotlib: a second of CPU to import and draw; the refusals below stay fast
def test_plot_writes_an_svg_heat_map_with_a_band_per_verdict(tmp_path):
    out = tmp_path / "map.svg"
    outcome = run(*five_repeats(tmp_path), "--plot", str(out))
    assert outcome.exit_code == 0, outcome.output
    svg = out.read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and "<svg" in svg
    for verdict in ("attributable", "inconclusive", "intact"):
        assert f"fill: {COLOURS[verdict]}" in svg
    assert COLOURS["delay"] not in svg  # no repeat gave a delay
    assert not [name for name in os.listdir(tmp_path) if name.startswith(".gapstate-")]  # no temporary left


@pytest.mark.slow  # draws with matplotlib
def test_the_same_result_draws_the_same_bytes(tmp_path):
    paths = five_repeats(tmp_path)
    run(*paths, "--plot", str(tmp_path / "a.svg"))
    run(*paths, "--plot", str(tmp_path / "b.svg"))
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()


@pytest.mark.slow  # draws with matplotlib
def test_a_name_with_markup_or_a_dollar_sign_is_drawn_not_interpreted(tmp_path):
    data = report(control(), stall(name='<script>"$x$"</script>'))
    outcome = run(write(tmp_path, "r.json", data), "--plot", str(tmp_path / "m.svg"))
    assert outcome.exit_code == 0, outcome.output
    assert "<script" not in (tmp_path / "m.svg").read_text(encoding="utf-8")


@pytest.mark.slow  # draws with matplotlib
def test_a_name_with_control_characters_or_a_lone_surrogate_draws_well_formed_xml_and_says_nothing_raw(tmp_path):
    """A surrogate crashed the drawing, a control character made the SVG ill-formed, matplotlib's warnings quoted both raw."""
    import re
    import xml.dom.minidom

    data = report(control(), stall(name="st\x1b[31mall\x07--\ud800 \u4e2d"))
    folder = tmp_path / "out"
    folder.mkdir()
    reported = write(tmp_path, "r.json", data)
    outcome = run(reported, "--plot", str(folder / "m.svg"))
    assert outcome.exit_code == 0, outcome.output
    xml.dom.minidom.parse(str(folder / "m.svg"))  # raises on ill-formed XML
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f\ud800-\udfff]", outcome.stderr + outcome.stdout)
    assert os.listdir(folder) == ["m.svg"]  # nothing beside it


@pytest.mark.parametrize("kind", ["symlink", "folder", "fifo"])
def test_plot_writes_only_regular_files(tmp_path, kind):
    target = tmp_path / "map.svg"
    elsewhere = tmp_path / "elsewhere.svg"
    elsewhere.write_text("keep", encoding="utf-8")
    {"symlink": lambda: target.symlink_to(elsewhere), "folder": target.mkdir,
     "fifo": lambda: os.mkfifo(target)}[kind]()
    outcome = run(str(EXAMPLE), "--plot", str(target))
    assert (outcome.exit_code, outcome.stdout) == (2, "")
    assert "regular file" in outcome.stderr
    assert elsewhere.read_text(encoding="utf-8") == "keep"


def test_plot_takes_only_an_svg_name(tmp_path):
    outcome = run(str(EXAMPLE), "--plot", str(tmp_path / "map.png"))
    assert outcome.exit_code == 2 and ".svg" in outcome.stderr
    assert not (tmp_path / "map.png").exists()


def test_a_report_too_large_to_draw_readably_is_refused_and_nothing_is_written(tmp_path):
    statuses = ["present"] * 1300  # 2 arms x 1,300 turns: more cells than CELLS
    data = report(control(*statuses), stall(*[turn("present")] * 1300), turns=1300)
    target = tmp_path / "map.svg"
    outcome = run(write(tmp_path, "big.json", data), "--plot", str(target))
    assert (outcome.exit_code, outcome.stdout) == (2, "")
    assert f"{target}: too many cells to draw (2 arms x 1300 turns" in outcome.stderr
    assert not target.exists()


def test_the_command_prints_the_json_result_and_exits_0():
    outcome = run(str(EXAMPLE), "--format", "json")
    assert outcome.exit_code == 0, outcome.output
    document = json.loads(outcome.stdout)
    assert list(document) == ["ok", "descriptive", "verdict", "arms", "note"]
    assert document == gapstate.classify(json.loads(EXAMPLE.read_text())).to_dict()


def test_the_example_report_shows_every_kind_of_assessed_turn():
    document = json.loads(run(str(EXAMPLE), "--format", "json").stdout)
    assert document["verdict"] == "attributable"
    assert verdicts(document)["stall-2s"][1] == ("q2-last-role", "attributable", [])
    assert verdicts(document)["stall-5s"][1] == ("q2-last-role", "inconclusive", ["interval_recorded", "interval_overlaps"])


def test_the_text_table_has_a_row_per_arm_and_turn_then_arms_overall_and_note():
    outcome = run(str(EXAMPLE))
    assert outcome.exit_code == 0
    rows = [line.split() for line in outcome.stdout.splitlines()]
    assert ["stall-2s", "q2-last-role", "attributable", "-"] in rows
    assert ["stall-5s", "q3-why-leave", "inconclusive", "transmitted,", "interval_recorded,", "interval_overlaps"] in rows
    assert ["control", "q1-name", "intact", "-"] in rows
    assert sum(1 for row in rows if len(row) >= 3 and row[0] in ("control", "stall-2s", "stall-5s")) == 9
    assert ["arm", "stall-5s:", "assessed"] in rows
    assert ["arm", "control:", "control"] in rows
    assert "overall: attributable" in outcome.stdout
    assert "not a rate" in outcome.stdout
    assert outcome.stdout == run(str(EXAMPLE)).stdout  # deterministic


@pytest.mark.parametrize("data, verdict", [
    (report(control(), stall(intervals=[])), "inconclusive"),
    (report(control(), stall(turn("present"))), "no_change"),
    (report(control("present", "present"), silent(), turns=2), "unexplained_silence"),
])
def test_the_command_exits_0_whatever_the_verdict(tmp_path, data, verdict):
    outcome = run(write_report(tmp_path, data), "--format", "json")
    assert (outcome.exit_code, json.loads(outcome.stdout)["verdict"]) == (0, verdict)


def test_a_malformed_report_exits_2_listing_every_problem_with_file_line_and_path(tmp_path):
    text = (
        '{"answer_key": ["q1"],\n'
        ' "arms": [{"name": "c", "kind": "control", "turns": {"q1": {"status": "gone"}}},\n'
        '          {"name": "s", "kind": "stall", "intervals": [{"kind": "drop", "start": 5, "end": 1}],\n'
        '           "turns": {}}]}\n'
    )
    path = write_report(tmp_path, text)
    outcome = run(path)
    assert outcome.exit_code == 2
    assert outcome.stdout == ""
    assert "3 problems" in outcome.stderr
    assert f"{path}:2:" in outcome.stderr and "arms[0].turns.q1.status: expected one of" in outcome.stderr
    assert f"{path}:3:" in outcome.stderr and "arms[1].intervals[0]: expected start < end" in outcome.stderr
    assert f"{path}:4:" in outcome.stderr and "arms[1].turns.q1: missing" in outcome.stderr
    assert "Traceback" not in outcome.output


def test_malformed_json_exits_2_naming_the_file_line_and_column(tmp_path):
    path = write_report(tmp_path, '{"answer_key": ["q1"],\n "arms": [1,}\n')
    outcome = run(path)
    assert (outcome.exit_code, outcome.stdout) == (2, "")
    assert f"{path}:2:" in outcome.stderr and "not valid JSON" in outcome.stderr


def test_an_unknown_format_is_a_usage_error_exit_2():
    assert run(str(EXAMPLE), "--format", "yaml").exit_code == 2


def test_classify_ends_with_a_summary_line_on_stderr_like_the_other_commands():
    last = run(str(EXAMPLE)).stderr.splitlines()[-1]
    assert last == f"gapstate classify: {EXAMPLE}: 3 arms, 9 turns: attributable (descriptive)"


def test_classify_help_speaks_of_the_attribution_conditions_not_of_a_seed():
    text = " ".join(run("--help").stdout.split())
    assert "five attribution conditions" in text and "seed" not in text.lower()


# The command adds reading and printing to gapstate.classify, whose verdicts the properties of
# tests/test_attribution_conditions_properties.py draw at length: ten reports show the two agree.
@settings(max_examples=10, deadline=None)
@given(reports())
def test_one_report_through_the_command_is_the_api_document_exactly(data):
    """The single-report path is the one it always was: one REPORT, the single-report document."""
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder), "r.json", data)
        outcome = run(path, "--format", "json")
    assert outcome.exit_code == 0, outcome.output
    assert json.loads(outcome.stdout) == gapstate.classify(data).to_dict()
