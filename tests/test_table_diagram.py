"""The state diagram: its model, Mermaid and DOT output, the real renderers, and the marked block."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

import gapstate
from gapstate.table.diagram import (
    ALLOWED,
    MARKER,
    REFUSAL,
    STAY_ROW,
    UnclosedBlock,
    build,
    dot,
    mermaid,
    stale_blocks,
    update,
)

from .support import SPEC_TEXT

TABLE = gapstate.load_spec(SPEC_TEXT).table
ALLOWED_LINES = {row.line for row in TABLE.rows if any(a.names(row) for a in TABLE.allowances)}


def drawn(diagram) -> list[tuple[str, str, int]]:
    return sorted((e.source, e.target, line) for e in diagram.arrows for line in e.rows)


def expected(rows) -> list[tuple[str, str, int]]:
    return sorted((s, r.target(s), r.line) for r in rows for s in TABLE.states if r.applies_to(s))


def test_the_default_diagram_draws_every_row_that_moves_once_and_nothing_else():
    diagram = build(TABLE)
    moving = [r for r in TABLE.rows if r.next != "=" and not r.invalid]
    assert drawn(diagram) == expected(moving)
    keys = [(e.source, e.target, e.kind) for e in diagram.arrows]
    assert len(keys) == len(set(keys)), "one arrow per (state, next state) and kind"
    assert diagram.initial == "CLEAR"


def test_all_adds_stay_and_invalid_rows_and_allowed_rows_are_dashed():
    diagram = build(TABLE, all_rows=True)
    assert drawn(diagram) == expected(TABLE.rows)
    kinds = {line: e.kind for e in diagram.arrows for line in e.rows}
    assert {line for line, kind in kinds.items() if kind == ALLOWED} == ALLOWED_LINES
    assert all(kinds[r.line] == REFUSAL for r in TABLE.rows if r.invalid)
    assert kinds[next(r.line for r in TABLE.rows if r.actions == ("merge_gap",))] == STAY_ROW
    dashed = [line for line in mermaid(diagram).splitlines() if "-.->" in line]
    assert sum("unrepaired_attempts" in line for line in dashed) == 2  # OPEN and DUE, the three allowed rows


def test_identical_labels_are_merged_into_one_line():
    diagram = build(TABLE, all_rows=True)
    for arrow in diagram.arrows:
        assert len(arrow.labels) == len(set(arrow.labels))
    # `* | loss_silent` is drawn once from each state, not once per row and state
    silent = [e for e in diagram.arrows if "loss_silent / note_trim" in e.labels]
    assert sorted(e.source for e in silent) == sorted(TABLE.states)


def test_the_order_rows_are_written_in_draws_the_same_diagram():
    """Reordering rows is no change in behaviour, so the drawing (and the marked block `check` holds to it) stays."""
    lines = SPEC_TEXT.splitlines(keepends=True)
    places = [row.line - 1 for row in TABLE.rows]
    for index, row in zip(places, reversed([lines[i] for i in places]), strict=True):
        lines[index] = row
    reversed_table = gapstate.load_spec("".join(lines)).table
    assert reversed_table.states != TABLE.states  # REQUESTED is named before OPEN now
    for all_rows in (False, True):
        assert mermaid(build(reversed_table, all_rows)) == mermaid(build(TABLE, all_rows))
        assert dot(build(reversed_table, all_rows)) == dot(build(TABLE, all_rows))


def test_guards_written_in_another_order_draw_the_same_label():
    """A row's guards are a set (`diff` calls their order no change): the drawing does not follow how they are written."""
    row = "SENDING | send_failed | attempts_left,!candidate_active | DUE | keep_debt"
    turned = gapstate.load_spec(SPEC_TEXT.replace(row, "SENDING | send_failed | !candidate_active , attempts_left | DUE | keep_debt")).table
    for all_rows in (False, True):
        assert mermaid(build(turned, all_rows)) == mermaid(build(TABLE, all_rows))


def test_coverage_splits_arrows_by_whether_their_rows_fired():
    fired = {r.line for r in TABLE.rows if r.event == "loss_voiced"}
    diagram = build(TABLE, fired=fired)
    for arrow in diagram.arrows:
        if arrow.kind == ALLOWED:
            assert arrow.fired is None
        else:
            assert arrow.fired == all(line in fired for line in arrow.rows) == any(line in fired for line in arrow.rows)
    text = mermaid(diagram)
    assert "stroke:#1a7f37" in text and "stroke:#cf222e" in text
    assert 'color="#cf222e"' in dot(diagram)


def test_coverage_tells_fired_from_never_fired_arrows_without_colour_too():
    """Line weight and words, in both renderers: a colour-blind reader or a grey print still tells them apart."""
    from gapstate.table.diagram import NEVER_FIRED

    diagram = build(TABLE, fired={r.line for r in TABLE.rows if r.event == "loss_voiced"})
    links = [line for line in mermaid(diagram).splitlines() if "|" in line and "state_" in line]
    edges = [line for line in dot(diagram).splitlines() if " -> " in line and "start_" not in line]
    assert len(links) == len(edges) == len(diagram.arrows)
    for arrow, link, edge in zip(diagram.arrows, links, edges, strict=True):
        if arrow.fired is True:
            assert " ==>|" in link and "penwidth=3" in edge and NEVER_FIRED not in link + edge
        elif arrow.fired is False:
            assert f'-->|"{NEVER_FIRED}<br>' in link and f'label="{NEVER_FIRED}\\n' in edge and "penwidth=1" in edge
        else:
            assert "==>" not in link and "penwidth" not in edge and NEVER_FIRED not in link + edge
    assert {arrow.fired for arrow in diagram.arrows} >= {True, False}
    assert "==>" not in mermaid(build(TABLE)) and "penwidth" not in dot(build(TABLE))  # without coverage, as before


def test_mermaid_link_styles_point_at_the_arrows_they_colour():
    diagram = build(TABLE, all_rows=True, fired={r.line for r in TABLE.rows if r.event == "send_ok"})
    lines = mermaid(diagram).splitlines()
    links = [line for line in lines if "-->" in line or "-.->" in line or "==>" in line]
    for style in (line for line in lines if line.strip().startswith("linkStyle")):
        index = int(style.split()[1])
        arrow = diagram.arrows[index - 1]
        assert arrow.source in links[index] and ("#1a7f37" in style) == (arrow.fired is True)


# The marked block ------------------------------------------------------------

DRAWN = mermaid(build(TABLE))


def test_a_spec_without_the_marker_has_no_stale_block_and_update_appends_one():
    text = "# Title\n\nprose\n"
    assert stale_blocks(text, DRAWN, "spec.md") == []
    updated = update(text, DRAWN)
    assert updated.startswith(text)
    assert updated[len(text) :] == f"\n{MARKER}\n```mermaid\n{DRAWN}```\n"
    assert stale_blocks(updated, DRAWN, "spec.md") == []
    assert update(updated, DRAWN) == updated


def test_update_rewrites_only_the_marked_block():
    before, after = "# T\r\n\r\nintro\r\n" + MARKER + "\r\n```mermaid\r\n", "```\r\n\r\nmore prose\r\n"
    text = before + "flowchart LR\r\n    old --> stale\r\n" + after
    assert [(f.kind, f.line, f.reason.name) for f in stale_blocks(text, DRAWN, "spec.md")] == [("stale_diagram", 5, "DIFFERS")]
    updated = update(text, DRAWN)
    assert updated == before + DRAWN.replace("\n", "\r\n") + after
    assert stale_blocks(updated, DRAWN, "spec.md") == []


def test_blank_lines_may_stand_between_the_marker_and_its_block():
    text = f"{MARKER}\n\n```mermaid\nflowchart LR\n```\ntail\n"
    assert [(f.line, f.reason.name) for f in stale_blocks(text, DRAWN, "spec.md")] == [(3, "DIFFERS")]
    assert update(text, DRAWN) == f"{MARKER}\n\n```mermaid\n{DRAWN}```\ntail\n"


@pytest.mark.parametrize(
    "block",
    [
        f"```mermaid\n{DRAWN}\n```\n",  # a blank line before the closing fence
        f"```mermaid\n\n{DRAWN}   \n```\n",  # a blank line after the opening fence, a line of spaces
        f"```\n{DRAWN}```\n",  # a fence without the info string
    ],
)
@pytest.mark.parametrize("marker", [MARKER, "<!--gapstate:graph-->", "  <!--  gapstate:graph  -->"])
def test_blanks_around_the_drawing_and_inside_the_marker_are_no_difference(marker, block):
    assert stale_blocks(f"intro\n{marker}\n{block}tail\n", DRAWN, "spec.md") == []


def test_a_marker_without_a_block_is_stale_and_update_adds_the_block_after_it():
    text = f"intro\n{MARKER}\nprose\n"
    assert [(f.line, f.reason.name) for f in stale_blocks(text, DRAWN, "spec.md")] == [(2, "NO_BLOCK")]
    assert update(text, DRAWN) == f"intro\n{MARKER}\n```mermaid\n{DRAWN}```\nprose\n"


def test_an_unclosed_block_is_stale_and_update_refuses_to_swallow_the_rest():
    text = f"{MARKER}\n```mermaid\nflowchart LR\n"
    assert [(f.line, f.reason.name) for f in stale_blocks(text, DRAWN, "spec.md")] == [(2, "UNCLOSED")]
    with pytest.raises(UnclosedBlock):
        update(text, DRAWN)


def test_trailing_blanks_in_the_block_are_not_a_difference():
    text = f"{MARKER}\n```mermaid\n" + "".join(line + "  \n" for line in DRAWN.splitlines()) + "```\n"
    assert stale_blocks(text, DRAWN, "spec.md") == []


def test_a_marker_before_the_table_s_bare_fence_gets_a_diagram_of_its_own_and_the_table_is_kept(tmp_path):
    """A plain fence is read as a diagram, but never the table's: `--fix` puts the diagram between them."""
    from .support import run, without_diagram

    text = without_diagram(SPEC_TEXT).replace("```gapstate\n", "```\n", 1)
    marked = text.replace("```\n# state | event", f"{MARKER}\n```\n# state | event", 1)
    assert marked != text
    assert [(f.line, f.reason.name) for f in stale_blocks(marked, DRAWN, "spec.md")] == [
        (marked.splitlines().index(MARKER) + 1, "NO_BLOCK")]
    spec = tmp_path / "spec.md"
    spec.write_text(marked, encoding="utf-8")
    result = run("check", "--fix", str(spec))
    assert result.exit_code == 0, result.output
    fixed = spec.read_text(encoding="utf-8")
    assert fixed == marked.replace(f"{MARKER}\n", f"{MARKER}\n```mermaid\n{DRAWN}```\n", 1)  # every table line kept


class _Counted(list):
    """The lines of a text, counting how often one is looked at."""

    looks = 0

    def __getitem__(self, index):  # noqa: ANN001
        self.looks += 1
        return super().__getitem__(index)


def _looks(markers: int) -> int:
    from gapstate.table.diagram import marked_blocks

    lines = _Counted(SPEC_TEXT.splitlines() + [MARKER, "```mermaid"] * markers)
    marked_blocks(lines)
    return lines.looks


def test_many_markers_are_read_in_one_forward_pass():
    """8,000 markers, each before an unclosed fence, took 17 s to check: each block was sought to the end."""
    small, large = _looks(500), _looks(1000)
    assert large < 2.2 * small, (small, large)  # the search from each marker gave 4.0


# The real renderers ------------------------------------------------------------

FULL = build(TABLE, all_rows=True, fired={r.line for r in TABLE.rows if r.event in ("loss_voiced", "send_ok")})


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
@pytest.mark.parametrize("diagram", [build(TABLE), FULL], ids=["default", "all-coverage"])
def test_graphviz_dot_renders_the_output(tmp_path, diagram):
    result = subprocess.run(["dot", "-Tsvg"], input=dot(diagram), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "<svg" in result.stdout and "unrepaired_attempts" in result.stdout


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.slow  # a headless browser: seconds of CPU
@pytest.mark.skipif(shutil.which("mmdc") is None or _chromium() is None, reason="mermaid-cli or chromium is not installed")
def test_mermaid_cli_renders_the_output(tmp_path):
    # One slow render covers every construct: both arrows, multi-line labels,
    # self-loops and link styles (an out-of-range linkStyle fails the render).
    config = tmp_path / "puppeteer.json"
    config.write_text(json.dumps({"executablePath": _chromium(), "args": ["--no-sandbox"]}), encoding="utf-8")
    source = tmp_path / "diagram.mmd"
    source.write_text(mermaid(FULL), encoding="utf-8")
    out = tmp_path / "diagram.svg"
    result = subprocess.run(
        ["mmdc", "-p", str(config), "-i", str(source), "-o", str(out), "-q"],
        capture_output=True, text=True, timeout=180,
    )
    assert result.returncode == 0, result.stderr
    svg = out.read_text(encoding="utf-8")
    assert "<svg" in svg and "REQUESTED" in svg and "defer_no_interrupt" in svg
