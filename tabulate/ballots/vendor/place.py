"""Place a style's contests on vendor-style pages: what to print (page inches) and where each target is.

Written independently of `tabulate.election.layout` (see `tabulate.ballots.vendor.design`);
only the data types the voter and scanner simulator read (`TargetLayout`,
`PageLayout`, `BallotLayout`) are shared, so that the simulator can mark
these ballots exactly as it marks ours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ...core.errors import TabulateError
from ...election.geometry import Rect
from ...election.layout import BallotLayout, PageLayout, TargetLayout
from ...election.model import Contest, ContestOption, Election
from .design import DESIGNS, TIMING_EDGE_IN, TIMING_PITCH_IN, Design, vendor_code_text
from .fonts import wrap_in

TITLE_PT, INFO_PT, NAME_PT, SMALL_PT = 9.5, 7.5, 8.5, 6.0
LINE_IN = {TITLE_PT: 0.17, INFO_PT: 0.135}


class VendorLayoutError(TabulateError, ValueError):
    """A style that does not fit the vendor design's two pages."""

    code = "vendor_layout"


@dataclass(frozen=True)
class VendorPage:
    """One printed page: drawing items, targets, contest areas, the code's place and free margins."""

    page: int
    width_in: float
    height_in: float
    items: tuple[tuple, ...]
    targets: tuple[TargetLayout, ...]
    contest_areas: tuple[tuple[str, Rect], ...]
    code_rect: Rect
    code_text: str
    margins: tuple[Rect, ...]

    def page_layout(self, style_id: str) -> PageLayout:
        """The simulator's view of the page (targets, contest areas, the code's place)."""
        return PageLayout(
            style_id, self.page, self.width_in, self.height_in, (), self.code_rect, self.targets, self.contest_areas
        )


@dataclass(frozen=True)
class VendorBallot:
    family: str
    style_id: str
    style_number: int
    pages: tuple[VendorPage, VendorPage]

    @property
    def design(self) -> Design:
        return DESIGNS[self.family]

    def ballot_layout(self) -> BallotLayout:
        return BallotLayout(self.style_id, tuple(p.page_layout(self.style_id) for p in self.pages))


def _vote_for(c: Contest) -> str:
    return "Vote Yes or No" if c.type == "question" else f"Vote for not more than {c.vote_for}"


def _header(c: Contest, width_in: float, note: str = "") -> tuple[list[str], list[str]]:
    info = [_vote_for(c)] + (wrap_in(note, INFO_PT, width_in) if note else [])
    if c.type == "question" and c.text:
        info = wrap_in(c.text, INFO_PT, width_in) + info
    return wrap_in(c.title.upper(), TITLE_PT, width_in, bold=True), info


def _option_rows(election: Election, c: Contest, d: Design) -> list[tuple[ContestOption, float]]:
    return [(o, d.write_in_row_in if o.kind == "write_in" else d.row_in) for o in c.options]


def _snap(y: float, pitch: float) -> float:
    return math.ceil(round(y / pitch, 6)) * pitch


def _party(election: Election, o) -> str:
    if o.kind != "candidate" or not o.party:
        return ""
    return {p.id: p.abbreviation for p in election.parties}.get(o.party, "")


def _target(d: Design, shape: str, x: float, y_mid: float) -> Rect:
    w, h = (0.2, 0.14) if shape == "box" else d.target
    return Rect(x, y_mid - h / 2, w, h)


def _draw_target(items: list, d: Design, shape: str, b: Rect, n: int = 0) -> None:
    if d.target_rgb is not None and shape != "arrow":  # printed in a drop-out colour (`draw.print_page`)
        mine: list = []
        _draw_target(mine, replace(d, target_rgb=None), shape, b, n)
        items.extend(("target", it) for it in mine)
        return
    if d.target_text and shape != "arrow":  # a number or a letter inside the target
        label = str(n + 1) if d.target_text == "number" else "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[n % 26]
        items.append(("text_m", b.x + b.w / 2, b.y + b.h / 2, label, SMALL_PT, False))
    if shape == "oval" and d.target_corner_in > 0:  # a rounded rectangle (some vendors' "oval")
        items.append(("rrect", b.x, b.y, b.w, b.h, d.outline_in, d.target_corner_in))
    elif shape == "oval":
        items.append(("oval", b.x, b.y, b.w, b.h, d.outline_in))
    elif shape == "box":
        items.append(("frame", b.x, b.y, b.w, b.h, d.outline_in))
    else:  # a tail left of the gap, a head right of it: the voter joins them
        cy = b.y + b.h / 2
        items.append(("rect", b.x - 0.16, cy - 0.022, 0.16, 0.044))
        hx = b.right
        items.append(
            (
                "poly",
                (
                    (hx, cy - 0.022),
                    (hx + 0.06, cy - 0.022),
                    (hx + 0.06, cy - 0.065),
                    (hx + 0.16, cy),
                    (hx + 0.06, cy + 0.065),
                    (hx + 0.06, cy + 0.022),
                    (hx, cy + 0.022),
                ),
            )
        )


def _place(
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
        y = _snap(y + 0.02, TIMING_PITCH_IN) - TIMING_PITCH_IN / 2
    shape = {"boxes": "oval", "timing": "oval"}.get(d.family, "box" if c.type == "question" else "arrow")
    tw = _target(d, shape, 0.0, 0.0).w
    right_side = d.target_side == "right" and shape != "arrow"
    tx = x + (0.12 if shape != "arrow" else 0.26)
    if right_side:
        tx = x + w - 0.12 - tw
    if d.family == "timing":  # on the grid of the top row of timing marks
        base = x + w - 0.12 - TIMING_EDGE_IN - TIMING_PITCH_IN if right_side else x + 0.12
        tx = _snap(base, TIMING_PITCH_IN) + TIMING_EDGE_IN - tw / 2
    for n, (o, h) in enumerate(_option_rows(election, c, d)[part[0] : part[1]]):
        if d.family == "timing":
            h = _snap(h - 1e-6, TIMING_PITCH_IN)
        mid = y + (min(h, d.row_in) / 2 if d.family != "timing" else TIMING_PITCH_IN / 2)
        b = _target(d, shape, tx, mid)
        _draw_target(items, d, shape, b, n + part[0])
        name_x = b.right + (0.24 if shape == "arrow" else 0.1)
        right = x + w - pad
        if right_side:  # the name first, then its target
            name_x, right = x + pad + 0.05, b.x - 0.1
        if d.family == "boxes" and n and d.rules:
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


def _page_furniture(d: Design, page: int, election: Election) -> tuple[list, list[Rect]]:
    """Headings, instructions (with pictures of marked and unmarked targets) and free margins."""
    w, h = d.paper_in
    items: list = [
        ("text_c", w / 2, 0.32, "OFFICIAL BALLOT" + (" (CONTINUED)" if page == 2 else ""), 13.0, True),
        ("text_c", w / 2, 0.58, f"{election.title}  -  {election.date}", 9.0, False),
    ]
    margins: list[Rect] = [Rect(0.5, h - 0.75, 3.0, 0.35)] if d.family != "boxes" else [Rect(2.5, h - 0.55, 3.2, 0.35)]
    if d.family == "boxes" and page == 1 and d.instructions:
        x = 0.35
        items.append(("frame", x - 0.05, 1.35, 1.85, 4.4, 0.012))
        y = 1.45
        for line in [
            "INSTRUCTIONS",
            "To vote, completely fill",
            "the oval to the LEFT of",
            "your choice with a black",
            "or blue pen.",
            "",
            "Correct mark:",
        ]:
            items.append(
                ("text", x + 0.05, y, line, INFO_PT if line != "INSTRUCTIONS" else TITLE_PT, line == "INSTRUCTIONS")
            )
            y += 0.16
        items.append(("disc", x + 0.6, y + 0.02, 0.24, 0.14))
        y += 0.32
        items.append(("text", x + 0.05, y, "Incorrect marks:", INFO_PT, False))
        y += 0.2
        for k in range(3):
            ox = x + 0.1 + 0.45 * k
            items.append(("oval", ox, y, 0.24, 0.14, 0.018))
            if k == 0:
                items.append(("line", ox + 0.02, y + 0.01, ox + 0.22, y + 0.13, 0.02))
                items.append(("line", ox + 0.22, y + 0.01, ox + 0.02, y + 0.13, 0.02))
            elif k == 1:
                items.append(("line", ox + 0.04, y + 0.07, ox + 0.1, y + 0.13, 0.02))
                items.append(("line", ox + 0.1, y + 0.13, ox + 0.24, y - 0.04, 0.02))
            else:
                items.append(("disc", ox + 0.09, y + 0.05, 0.06, 0.05))
        y += 0.4
        for line in [
            "To vote for a person whose",
            "name is not printed, write",
            "the name on the write-in",
            "line and fill the oval.",
        ]:
            items.append(("text", x + 0.05, y, line, INFO_PT, False))
            y += 0.16
        margins.append(Rect(0.3, 6.2, 1.7, 1.2))
    elif d.family == "arrows" and page == 1:
        items.append(
            ("text", 0.6, 0.9, "To vote, connect the arrow pointing to your choice, like this:", INFO_PT, False)
        )
        items.append(("rect", 4.35, 0.95, 0.16, 0.044))
        items.append(("rect", 4.51, 0.95, 0.26, 0.044))
        items.append(
            (
                "poly",
                ((4.77, 0.95), (4.83, 0.95), (4.83, 0.9), (4.93, 0.972), (4.83, 1.04), (4.83, 0.994), (4.77, 0.994)),
            )
        )
    elif d.family == "timing":
        items.append(("text_c", w / 2, 0.8, "Fill the oval completely. Use a black pen.", INFO_PT, False))
    return items, margins


def _columns(d: Design) -> list[tuple[int, float, float]]:
    return [(page, x, cw) for page in (1, 2) for x, cw in d.columns]


def vendor_layout(election: Election, style_id: str, family: str) -> VendorBallot:
    """Lay out one style in a vendor design (both pages).

    Raises
    ------
    VendorLayoutError
        The style's contests do not fit the design's columns.
    """
    d = DESIGNS[family]
    number = [s.id for s in election.ballot_styles].index(style_id) + 1
    cols = _columns(d)
    placed: dict[int, tuple[list, list, list]] = {1: ([], [], []), 2: ([], [], [])}
    ci, y = 0, d.top_in
    contests = election.style_contests(style_id)
    half = _back_starts(d, contests)
    if d.back == "blank":
        cols = [col for col in cols if col[0] == 1]
    for n, c in enumerate(contests):
        if n == half and cols[ci][0] == 1:  # the back holds the second half of the targets
            ci, y = len(d.columns), d.top_in
        first, cont = 0, False
        while True:
            if ci == len(cols):
                raise VendorLayoutError(
                    f"style {style_id}: contest {c.id!r} does not fit the {family} design's {len(cols)} columns"
                )
            page, x, w = cols[ci]
            end = _fitting(election, c, d, x, y, w, first, cont) if d.continue_long and y > d.top_in else None
            _i, _t, h = _place(election, c, d, x, y, w, True, (first, end, cont))
            if end is not None and end > first and end < len(c.options):  # part here, the rest further on
                _put(placed[page], c.id, x, y, w, _place(election, c, d, x, y, w, False, (first, end, cont)))
                first, cont = end, True
                ci, y = ci + 1, d.top_in
                continue
            if y + h <= d.bottom_in:
                break
            ci, y = ci + 1, d.top_in
        h = _put(placed[page], c.id, x, y, w, _place(election, c, d, x, y, w, False, (first, None, cont)))
        y += h + (0.12 if d.family != "timing" else TIMING_PITCH_IN)
    pages = []
    for page in (1, 2):
        furniture, margins = _page_furniture(d, page, election)
        code = _code_rect(d)
        text = vendor_code_text(family, number, page)
        pages.append(
            VendorPage(
                page,
                d.paper_in[0],
                d.paper_in[1],
                tuple(furniture + placed[page][0]),
                tuple(placed[page][1]),
                tuple(placed[page][2]),
                code,
                text,
                tuple(margins),
            )
        )
    return VendorBallot(family, style_id, number, (pages[0], pages[1]))


def _back_starts(d: Design, contests: list[Contest]) -> int:
    """Index of the first contest the back holds (by the design's ``back``)."""
    sizes = [len(c.options) for c in contests]
    if d.back == "blank":
        return len(contests)
    if d.back == "questions":
        return next((k for k, c in enumerate(contests) if c.type == "question"), len(contests))
    return next(k for k in range(1, len(contests) + 1) if sum(sizes[:k]) * 2 >= sum(sizes))


def _fitting(election: Election, c: Contest, d: Design, x: float, y: float, w: float, first: int, cont: bool) -> int:
    """How many of a contest's options (from ``first``) fit in what is left of the column (at least one
    more than ``first``, or ``first`` when none does)."""
    end = first
    for k in range(first + 1, len(c.options) + 1):
        if y + _place(election, c, d, x, y, w, True, (first, k, cont))[2] > d.bottom_in:
            break
        end = k
    return end


def _put(into: tuple[list, list, list], cid: str, x: float, y: float, w: float, done: tuple) -> float:
    items, targets, h = done
    into[0].extend(items)
    into[1].extend(targets)
    into[2].append((cid, Rect(x, y, w, h)))
    return h


def _code_rect(d: Design) -> Rect:
    w, h = d.paper_in
    if d.code == "qr":
        return Rect(0.4, h - 1.15, 0.8, 0.8)
    if d.code == "timing":
        return Rect(0.0, h - 2 * TIMING_EDGE_IN, w, 2 * TIMING_EDGE_IN)
    return Rect(w - 1.0, h - 0.5, 0.6, 0.2)
