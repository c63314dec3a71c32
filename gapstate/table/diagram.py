"""The state diagram: a plain model of states and labelled arrows, drawn as Mermaid or DOT.

As in python-statemachine, the table is first extracted into plain data
(`Diagram`, `Arrow`), and each renderer reads only that. The model comes from
the same `Table` the proof reads: one node per state, the initial one
marked; one arrow per (state, next state) and kind, labelled with its rows'
events, guards and actions, identical labels merged (a `*` row drawn from
every state, or guards written in another order, drawn in the vocabulary's
order). States and label lines
come in an order of their own, never the rows': reordering rows is no
change, so it cannot make the marked block stale. Rows that stay (`=`) and
`invalid` rows are drawn only when asked for; allow-listed unreachable rows
are dashed. With coverage, each arrow is split by whether recorded traces
fired its rows, and told so three ways, so neither colour blindness nor a
grey print loses it: colour (green, red), line weight (fired arrows thick,
never-fired ones thin) and words (a never-fired arrow's first label line
is `NEVER_FIRED`).

The marked block (a fenced ```mermaid block right after a line
`<!-- gapstate:graph -->`) is how a spec carries its own diagram: `check`
compares it with `mermaid(build(table))`, `graph --update` rewrites it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from gapstate.files.source import cr_ended, text_lines
from gapstate.findings import DiagramProblem, StaleDiagram
from gapstate.table.blocks import is_header
from gapstate.table.model import ANY_STATE, STAY, Literal, Row, Table
from gapstate.table.vocabulary import EVENTS, GUARDS, INVALID, STATES

TRANSITION = "transition"  # a row that moves to another state (or names its own)
STAY_ROW = "stay"  # next is `=`
REFUSAL = INVALID  # an `invalid` row: the event cannot occur there
ALLOWED = "allowed"  # allow-listed as unreachable: drawn dashed
_KIND_ORDER = (TRANSITION, STAY_ROW, ALLOWED, REFUSAL)


class Arrow(NamedTuple):
    """One drawn arrow: its rows, one label line per distinct row label (a step of the proof is `graph.Move`)."""

    source: str
    target: str
    kind: str
    labels: tuple[str, ...]
    rows: tuple[int, ...]  # spec lines
    fired: bool | None  # with coverage: whether the traces fired these rows; None without, or when they cannot fire


class Diagram(NamedTuple):
    """The states, the initial one, and the arrows between them."""

    states: tuple[str, ...]
    initial: str
    arrows: tuple[Arrow, ...]
    coverage: bool  # arrows carry `fired`


def row_label(row: Row) -> str:
    """`event [guards] / actions`, the guards in the vocabulary's order: a row's guards are a set, however written."""
    guards = f" [{', '.join(str(lit) for lit in sorted(row.guards, key=_guard_order))}]" if row.guards else ""
    return f"{row.event}{guards} / {', '.join(row.actions)}"


def _guard_order(lit: Literal) -> tuple[int, str, bool]:
    return (tuple(GUARDS).index(lit.guard) if lit.guard in GUARDS else len(GUARDS), lit.guard, lit.positive)


def _kind(row: Row, allowed: set[int]) -> str:
    if row.invalid:
        return REFUSAL
    if row.line in allowed:
        return ALLOWED
    return STAY_ROW if row.next == STAY else TRANSITION


def build(table: Table, all_rows: bool = False, fired: set[int] | None = None) -> Diagram:
    """The diagram of a table; `all_rows` adds stay and invalid rows; `fired` (row lines) colours arrows."""
    assert table.initial is not None
    allowances = {(a.state, a.event, frozenset(a.guards)) for a in table.allowances}
    allowed = {row.line for row in table.rows if (row.state, row.event, row.guard_set) in allowances}
    groups: dict[tuple[str, str, str, bool | None], tuple[dict[str, tuple[object, ...]], list[int]]] = {}
    for row in table.rows:
        if (row.next == STAY or row.invalid) and not all_rows:
            continue
        kind = _kind(row, allowed)
        status = None if fired is None or kind in (REFUSAL, ALLOWED) else row.line in fired
        for state in table.states if row.state == ANY_STATE else (row.state,):
            labels, lines = groups.setdefault((state, row.target(state), kind, status), ({}, []))
            labels.setdefault(row_label(row), _label_order(row))
            lines.append(row.line)
    states = drawing_order(table.states)
    order = {state: i for i, state in enumerate(states)}
    keys = sorted(
        groups,
        key=lambda k: (order[k[0]], order.get(k[1], len(order)), _KIND_ORDER.index(k[2]), k[3] is not True, k[3] is None),
    )
    arrows = tuple(Arrow(k[0], k[1], k[2], tuple(sorted(groups[k][0], key=groups[k][0].__getitem__)),
                         tuple(groups[k][1]), k[3]) for k in keys)
    return Diagram(states, table.initial, arrows, fired is not None)


def drawing_order(states: tuple[str, ...]) -> tuple[str, ...]:
    """The initial state, the prose's states in their order, then any other alphabetically: not the rows' order.

    Reordering rows changes no behaviour, so it must not change the drawing
    either (`check` would call the marked block stale for it).
    """
    return (*(state for state in STATES if state in states), *sorted(set(states) - set(STATES)))


def _label_order(row: Row) -> tuple[object, ...]:
    """Where a row's label line stands on its arrow: by event, then guards, then actions, whatever the row order."""
    event = tuple(EVENTS).index(row.event) if row.event in EVENTS else len(EVENTS)
    return event, row.event, sorted(map(_guard_order, row.guards)), row.actions


# Mermaid ---------------------------------------------------------------------

_FIRED, _NEVER, _GREY = "#1a7f37", "#cf222e", "#8c959f"
NEVER_FIRED = "(never fired)"  # the first label line of an arrow whose rows no trace fired


def _labels(arrow: Arrow) -> tuple[str, ...]:
    """The arrow's label lines; a never-fired arrow says so in words, not only in red."""
    return (NEVER_FIRED, *arrow.labels) if arrow.fired is False else arrow.labels


def _mermaid_text(text: str) -> str:
    return text.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def mermaid(diagram: Diagram) -> str:
    """A Mermaid flowchart (what GitHub renders in a ```mermaid block); no trailing blanks."""
    lines = ["flowchart LR"]
    node = {state: f"state_{state}" for state in diagram.states}
    lines.append("    start_((\" \")) --> " + node[diagram.initial])
    for state in diagram.states:
        lines.append(f'    {node[state]}(["{_mermaid_text(state)}"])')
    styles: list[str] = []
    for index, arrow in enumerate(diagram.arrows, start=1):  # link 0 is the start arrow
        link = "-.->" if arrow.kind in (ALLOWED, REFUSAL) else "==>" if arrow.fired else "-->"
        label = "<br>".join(_mermaid_text(text) for text in _labels(arrow))
        lines.append(f'    {node[arrow.source]} {link}|"{label}"| {node[arrow.target]}')
        colour = _arrow_colour(arrow)
        if colour:
            width = "" if arrow.fired is None else ",stroke-width:4px" if arrow.fired else ",stroke-width:1px"
            styles.append(f"    linkStyle {index} stroke:{colour},color:{colour}{width}")
    lines.append("    style start_ fill:#24292f,stroke:#24292f")
    lines.append(f"    style {node[diagram.initial]} stroke-width:3px")
    lines.extend(styles)
    return "\n".join(lines) + "\n"


def _arrow_colour(arrow: Arrow) -> str | None:
    if arrow.fired is True:
        return _FIRED
    if arrow.fired is False:
        return _NEVER
    if arrow.kind == REFUSAL:
        return _GREY
    return None


# DOT -------------------------------------------------------------------------


def _dot_text(*lines: str) -> str:
    """A quoted DOT string; several lines are joined by DOT's centred line break."""
    return '"' + "\\n".join(text.replace("\\", "\\\\").replace('"', '\\"') for text in lines) + '"'


def dot(diagram: Diagram) -> str:
    """A Graphviz digraph, for `dot -Tsvg`."""
    lines = [
        "digraph gapstate {",
        "    rankdir=LR;",
        '    node [shape=box, style=rounded, fontname="Helvetica"];',
        '    edge [fontname="Helvetica", fontsize=10];',
        '    start_ [shape=point, width=0.15, label=""];',
        f"    start_ -> {_dot_text(diagram.initial)};",
    ]
    for state in diagram.states:
        extra = ", peripheries=2" if state == diagram.initial else ""
        lines.append(f"    {_dot_text(state)} [label={_dot_text(state)}{extra}];")
    for arrow in diagram.arrows:
        attributes = [f"label={_dot_text(*_labels(arrow))}"]
        if arrow.kind == ALLOWED:
            attributes.append("style=dashed")
        elif arrow.kind == REFUSAL:
            attributes.append("style=dotted")
        colour = _arrow_colour(arrow)
        if colour:
            attributes.append(f'color="{colour}", fontcolor="{colour}"')
        if arrow.fired is not None:
            attributes.append("penwidth=3" if arrow.fired else "penwidth=1")
        lines.append(f"    {_dot_text(arrow.source)} -> {_dot_text(arrow.target)} [{', '.join(attributes)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# The marked block of a spec --------------------------------------------------

MARKER = "<!-- gapstate:graph -->"  # as written; read with any spacing inside the comment
_MARKER = re.compile(r"^\s*<!--\s*gapstate:graph\s*-->\s*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*(?:mermaid)?\s*$")  # a plain fence is read as the diagram too


class Block(NamedTuple):
    """A marked diagram block: 0-based indexes of the marker, the opening and closing fences."""

    marker: int
    opening: int | None  # None: the marker is not followed by a ```mermaid fence
    closing: int | None  # None: the block is never closed


def marked_blocks(lines: list[str]) -> list[Block]:
    """Every marker line and the ```mermaid block right after it (`lines` without their ends), in one forward pass.

    "Right after": the next line that is not blank. A block whose first line
    is the table's header is the table's, never a diagram: that marker has no
    block (a diagram is then put between them), so nothing rewrites the table.
    The lines inside a marked block are its content, not markers; an unclosed
    block runs to the end.
    """
    blocks = []
    i, count = 0, len(lines)
    while i < count:
        if not _MARKER.match(lines[i]):
            i += 1
            continue
        # blank lines between the marker and the fence are allowed, as markdown allows them
        opening = i + 1
        while opening < count and not lines[opening].strip():
            opening += 1
        match = _FENCE.match(lines[opening]) if opening < count else None
        if match is None:
            blocks.append(Block(i, None, None))
            i = opening
            continue
        fence = match.group(1)
        closing = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        end, first = opening + 1, None
        while end < count and not closing.match(lines[end]):
            if first is None and lines[end].strip():
                first = lines[end]
            end += 1
        if first is not None and is_header(first):
            blocks.append(Block(i, None, None))  # the table's block, left to the table
        else:
            blocks.append(Block(i, opening, end if end < count else None))
        i = end + 1
    return blocks


def _content(lines: list[str]) -> list[str]:
    """A block's lines as compared: trailing blanks and blank lines around it do not count."""
    kept = [line.rstrip() for line in lines]
    while kept and not kept[-1]:
        kept.pop()
    while kept and not kept[0]:
        kept.pop(0)
    return kept


def stale_blocks(text: str, drawn: str, path: str) -> list[StaleDiagram]:
    """A `stale_diagram` finding for every marked block whose content is not `drawn`.

    Reported at the block's opening fence (at the marker when there is no
    block). Blanks that editors and writers add or strip (at the end of a
    line, blank lines at either end of the block) are not a difference.
    """
    lines = text_lines(text)
    wanted = _content(drawn.splitlines())
    stale = []
    for block in marked_blocks(lines):
        if block.opening is None:
            stale.append(StaleDiagram(block.marker + 1, 1, DiagramProblem.NO_BLOCK, path))
        elif block.closing is None:
            stale.append(StaleDiagram(block.opening + 1, 1, DiagramProblem.UNCLOSED, path))
        elif _content(lines[block.opening + 1 : block.closing]) != wanted:
            stale.append(StaleDiagram(block.opening + 1, 1, DiagramProblem.DIFFERS, path))
    return stale


def diagram_findings(text: str, table: Table, path: str) -> list[StaleDiagram]:
    """`stale_diagram` findings of a spec's text against the diagram its table draws."""
    if "gapstate:graph" not in text:
        return []
    return stale_blocks(text, mermaid(build(table)), path)


class UnclosedBlock(ValueError):
    """A marked ```mermaid block runs to the end of the file: rewriting it would swallow the rest."""

    def __init__(self, line: int):
        super().__init__(f"the diagram block at line {line} is never closed; close it with ``` first")
        self.line = line


def update(text: str, drawn: str) -> str:
    """`text` with every marked block's content replaced by `drawn`, one added at the end if none.

    Every other character, line endings included, is kept as it was; the
    new lines end as the file's first line does (LF or CR LF), or in CR in a
    file with CRs and no LF.
    """
    cr = cr_ended(text)
    lines = [piece for piece in re.split("(?<=\r)" if cr else "(?<=\n)", text) if piece]  # as text_lines counts them, ends kept
    newline = "\r" if cr else "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    body = [line + newline for line in drawn.splitlines()]
    blocks = marked_blocks([line.rstrip("\r\n") for line in lines])
    if not blocks:
        tail = "" if not text or text.endswith(("\n", "\r")) else newline
        return text + tail + newline + MARKER + newline + "```mermaid" + newline + "".join(body) + "```" + newline
    out: list[str] = []  # built forward: each block costs its own lines, however many markers there are
    done = 0
    for block in blocks:
        if block.opening is None:
            out.extend(lines[done : block.marker + 1])
            if not out[-1].endswith(("\n", "\r")):
                out[-1] += newline
            out.extend(["```mermaid" + newline, *body, "```" + newline])
            done = block.marker + 1
        elif block.closing is None:
            raise UnclosedBlock(block.opening + 1)
        else:
            out.extend(lines[done : block.opening + 1])
            out.extend(body)
            done = block.closing
    out.extend(lines[done:])
    return "".join(out)
