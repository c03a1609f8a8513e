"""One contest as a vendor prints it: its heading, then a row per option with its target, name and party.

Placed at a column's (x, y) in page inches; `tabulate.ballots.vendor.place` decides which column and page.
"""

from __future__ import annotations

import math

from ...election.geometry import Rect
from ...election.layout import TargetLayout
from ...election.model import Contest, ContestOption, Election
from .design import TIMING_EDGE_IN, TIMING_PITCH_IN, Design
from .fonts import wrap_in
from .target_shapes import draw_target, target_rect

TITLE_PT, INFO_PT, NAME_PT, SMALL_PT = 9.5, 7.5, 8.5, 6.0
LINE_IN = {TITLE_PT: 0.17, INFO_PT: 0.135}


def _vote_for(c: Contest) -> str:
    return "Vote Yes or No" if c.type == "question" else f"Vote for not more than {c.vote_for}"


def _header(c: Contest, width_in: float, note: str = "") -> tuple[list[str], list[str]]:
    info = [_vote_for(c)] + (wrap_in(note, INFO_PT, width_in) if note else [])
    if c.type == "question" and c.text:
        info = wrap_in(c.text, INFO_PT, width_in) + info
    return wrap_in(c.title.upper(), TITLE_PT, width_in, bold=True), info


def _option_rows(election: Election, c: Contest, d: Design) -> list[tuple[ContestOption, float]]:
    return [(o, d.write_in_row_in if o.kind == "write_in" else d.row_in) for o in c.options]


def snap(y: float, pitch: float) -> float:
    return math.ceil(round(y / pitch, 6)) * pitch


def _party(election: Election, o) -> str:
    if o.kind != "candidate" or not o.party:
        return ""
    return {p.id: p.abbreviation for p in election.parties}.get(o.party, "")


def place_contest(
    election: Election,
    c: Contest,
    d: Design,
    x: float,
    y0: float,
    w: float,
    measure: bool,
    part: tuple[int, int | None, bool] = (0, None, False),
) -> tuple[list, list, float]:
    """Items and targets of one contest with its top-left at (x, y0); returns its height too.

    ``part`` (first option, end option, continued) places only those options, under a
    "(continued)" heading when they continue a contest from the column before."""
    items: list = []
    targets: list = []
    pad = 0.07
    title, info = _header(c, w - 2 * pad, d.header_note)
    if part[2]:
        title, info = [*title[:-1], title[-1] + " (CONTINUED)"], []
    y = y0 + pad
    head_h = len(title) * LINE_IN[TITLE_PT] + len(info) * LINE_IN[INFO_PT] + 0.05
    if d.family == "boxes" and d.rules:  # a shaded band behind the heading
        items.append(("shade", x, y0, w, head_h + pad, 225))
    for line in title:
        items.append(("text", x + pad, y, line, TITLE_PT, True))
        y += LINE_IN[TITLE_PT]
    for line in info:
        items.append(("text", x + pad, y, line, INFO_PT, False))
        y += LINE_IN[INFO_PT]
    y += 0.05
    if d.family == "arrows":
        items.append(("line", x, y - 0.02, x + w * 0.9, y - 0.02, 0.012))
    if d.family == "timing":
        y = snap(y + 0.02, TIMING_PITCH_IN) - TIMING_PITCH_IN / 2
    shape = {"boxes": "oval", "timing": "oval"}.get(d.family, "box" if c.type == "question" else "arrow")
    tw = target_rect(d, shape, 0.0, 0.0).w
    right_side = d.target_side == "right" and shape != "arrow"
    tx = x + (0.12 if shape != "arrow" else 0.26)
    if right_side:
        tx = x + w - 0.12 - tw
    if d.family == "timing":  # on the grid of the top row of timing marks
        base = x + w - 0.12 - TIMING_EDGE_IN - TIMING_PITCH_IN if right_side else x + 0.12
        tx = snap(base, TIMING_PITCH_IN) + TIMING_EDGE_IN - tw / 2
    rows = _option_rows(election, c, d)[part[0] : part[1]]
    across = d.yes_no_across and c.type == "question" and shape != "arrow" and not right_side
    left = tx
    for n, (o, h) in enumerate(rows):
        if d.family == "timing":
            h = snap(h - 1e-6, TIMING_PITCH_IN)
        if across:  # YES and NO on one row, each target with its word after it; the row is left once
            tx = left + n * (w / len(rows))
            if d.family == "timing":
                tx = snap(tx + tw / 2 - TIMING_EDGE_IN - 1e-6, TIMING_PITCH_IN) + TIMING_EDGE_IN - tw / 2
        mid = y + (min(h, d.row_in) / 2 if d.family != "timing" else TIMING_PITCH_IN / 2)
        if d.row_shade and n % 2:  # every other row on a shaded band, target and name alike
            items.append(("shade", x + 0.03, y, w - 0.06, h, d.row_shade))
        b = target_rect(d, shape, tx, mid)
        draw_target(items, d, shape, b, n + part[0])
        name_x = b.right + (0.24 if shape == "arrow" else 0.1)
        right = x + w - pad if not across or n == len(rows) - 1 else left + (n + 1) * (w / len(rows)) - 0.1
        if right_side:  # the name first, then its target
            name_x, right = x + pad + 0.05, b.x - 0.1
        if d.family == "boxes" and n and d.rules and not across:
            items.append(("line", x + 0.05, y, x + w - 0.05, y, 0.006))
        if o.kind == "write_in":
            line_y = y + h - 0.09
            items.append(("line", name_x, line_y, right, line_y, 0.008))
            items.append(("text", name_x, line_y + 0.01, "write-in", SMALL_PT, False))
            area = Rect(name_x, y + 0.02, right - name_x, line_y - y - 0.01)
            targets.append(
                TargetLayout(
                    c.id,
                    o.id,
                    "write_in",
                    shape,
                    b,
                    Rect(name_x - 0.05, y + 0.02, right - name_x + 0.05, h - 0.04),
                    area,
                )
            )
        else:
            items.extend(_name_lines(election, o, d, name_x, right, mid))
            targets.append(
                TargetLayout(
                    c.id, o.id, o.kind, shape, b, Rect(name_x - 0.05, y + 0.02, right - name_x + 0.05, h - 0.04)
                )
            )
        if not across or n == len(rows) - 1:
            y += h
    y += pad
    if d.family == "boxes" and d.rules:
        items.append(("frame", x, y0, w, y - y0, 0.03))
    return items, targets, y - y0


def _name_lines(election: Election, o: ContestOption, d: Design, x: float, right: float, mid: float) -> list:
    """A candidate's name (on two lines with ``two_line_names``), running mate, and party (abbreviation at the
    row's right end, or its full name on a line of its own with ``party_line``)."""
    words = o.label.split()
    party = {p.id: p for p in election.parties}.get(o.party or "") if o.kind == "candidate" else None
    below = [(o.running_mate, NAME_PT, False)] if o.running_mate else []
    if d.party_line and party is not None and party.name != o.label:
        below.append((party.name, INFO_PT, False))
    # Two lines for the name where the row has room (a ticket's running mate keeps it on one).
    split = d.two_line_names and len(words) > 1 and len(below) < 2
    names = [" ".join(words[:-1]), words[-1]] if split else [o.label]
    lines = [(n, NAME_PT, True) for n in names] + below
    y = mid - 0.075 if len(lines) <= 2 else mid - 0.065 * len(lines)
    out: list = []
    for text, pt, bold in lines:
        out.append(("text", x, y, text, pt, bold))
        y += 0.135
    abbr = _party(election, o)
    if abbr and not d.party_line:
        out.append(("text_r", right, mid - 0.06, abbr, INFO_PT, False))
    return out
