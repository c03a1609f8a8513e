"""Place a style's contests on vendor-style pages: which contest goes in which column of which page.

Written independently of `tabulate.election.layout` (see `tabulate.ballots.vendor.design`). A contest
too long for what is left of its column moves to the next one, or (``Design.continue_long``) continues
there under a "(continued)" heading.
"""

from __future__ import annotations

from ...election.geometry import Rect
from ...election.model import Contest, Election
from .contest import place_contest
from .design import DESIGNS, TIMING_EDGE_IN, TIMING_PITCH_IN, Design, style_design, vendor_code_text
from .furniture import page_furniture
from .pages import VendorBallot, VendorLayoutError, VendorPage


def _columns(d: Design) -> list[tuple[int, float, float]]:
    return [(page, x, cw) for page in (1, 2) for x, cw in d.columns]


def vendor_layout(election: Election, style_id: str, family: str) -> VendorBallot:
    """Lay out one style in a vendor design (both pages).

    Raises
    ------
    VendorLayoutError
        The style's contests do not fit the design's columns.
    """
    family = style_design(family, style_id)  # a style may be printed on another paper
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
            _i, _t, h = place_contest(election, c, d, x, y, w, True, (first, end, cont))
            if end is not None and end > first and end < len(c.options):  # part here, the rest further on
                _put(placed[page], c.id, x, y, w, place_contest(election, c, d, x, y, w, False, (first, end, cont)))
                first, cont = end, True
                ci, y = ci + 1, d.top_in
                continue
            if y + h <= d.bottom_in:
                break
            ci, y = ci + 1, d.top_in
        h = _put(placed[page], c.id, x, y, w, place_contest(election, c, d, x, y, w, False, (first, None, cont)))
        y += h + (0.12 if d.family != "timing" else TIMING_PITCH_IN)
    pages = []
    for page in (1, 2):
        furniture, margins = page_furniture(d, page, election)
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
        if y + place_contest(election, c, d, x, y, w, True, (first, k, cont))[2] > d.bottom_in:
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
