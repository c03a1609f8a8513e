"""Ballot layout: where everything on each page of a style goes, in page inches.

A style's contests are placed in ballot order, top to bottom, in three columns
on the front and then the back of one sheet (31 KAR 5:026 Section 1: "Ballots
shall be on a single sheet of paper that may be printed on both sides"), with
the straight-party option first on a general-election ballot. A contest is
never split across columns. A style that does not fit raises `LayoutError`
saying by how much.

The layout is the single source of truth for rendering (what to draw),
simulation (where a voter marks) and detection (where to look).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import lru_cache

from ..core.errors import TabulateError
from .geometry import (
    CORNER_WINDOW_IN,
    STYLE_CODE_QUIET_IN,
    Rect,
    RegistrationMark,
    registration_marks,
    style_code_rect,
)
from .model import PAPER_SIZES_IN, Contest, ContestOption, Election
from .text import fit, wrap


class LayoutError(TabulateError, ValueError):
    """A ballot style that cannot be laid out on one sheet."""

    code = "layout"


# -- sizes (inches) and type (points) -------------------------------------------------
COLUMNS = 3
GUTTER_IN = 0.15
SIDE_MARGIN_IN = 0.35
HEADER_TOP_IN = 0.25
COLUMN_TOP_IN = 1.45
#: Columns stop above the bottom corner windows and the style code.
COLUMN_BOTTOM_MARGIN_IN = CORNER_WINDOW_IN + 0.05
BOX_PAD_IN = 0.06
BOX_GAP_IN = 0.08
ROW_IN = 0.32
SLATE_ROW_IN = 0.44
WRITE_IN_ROW_IN = 0.46
TITLE_PT = 9.0
TITLE_LINE_IN = 0.165
INFO_PT = 7.5
INFO_LINE_IN = 0.14
NAME_PT = 8.5
PARTY_PT = 7.5
TARGET_X_IN = 0.10
NAME_X_IN = 0.46
OUTLINE_IN = 0.012

#: Target sizes (w, h): an oval, a box, and for the arrow the gap the voter joins.
TARGET_SIZE_IN = {"oval": (0.24, 0.15), "box": (0.16, 0.16), "arrow": (0.24, 0.08)}
ARROW_HALF_IN = 0.12


@dataclass(frozen=True)
class TextItem:
    x: float
    y: float  # top of the line
    text: str
    size_pt: float
    bold: bool = False
    anchor: str = "left"  # left | right | center


@dataclass(frozen=True)
class LineItem:
    x0: float
    y0: float
    x1: float
    y1: float
    width: float = OUTLINE_IN


@dataclass(frozen=True)
class PolygonItem:
    """A filled polygon (the printed halves of a connect-the-arrow target)."""

    points: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class TargetLayout:
    """One target and the areas a person (and the hand-count reading) looks at beside it.

    ``bounds`` is the printed target (for an arrow, the gap between its halves
    that the voter connects: 31 KAR 6:030 Section 2(1)(a)). ``marking_area`` is
    the designated marking area, the printed name and party abbreviation beside
    the target (31 KAR 4:230 Section 1(4)). ``write_in_area`` is where a
    write-in name is written, for write-in lines only.
    """

    contest_id: str
    option_id: str
    kind: str
    shape: str
    bounds: Rect
    marking_area: Rect
    write_in_area: Rect | None = None


@dataclass(frozen=True)
class PageLayout:
    style_id: str
    page: int  # 1 = front, 2 = back
    width_in: float
    height_in: float
    registration_marks: tuple[RegistrationMark, ...]
    style_code: Rect
    targets: tuple[TargetLayout, ...]
    contest_boxes: tuple[tuple[str, Rect], ...]
    texts: tuple[TextItem, ...] = ()
    lines: tuple[LineItem, ...] = ()
    polygons: tuple[PolygonItem, ...] = ()

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class BallotLayout:
    style_id: str
    pages: tuple[PageLayout, PageLayout]

    def targets(self):
        """Every target of the sheet, with its page number, in ballot order."""
        for p in self.pages:
            for t in p.targets:
                yield p.page, t

    def to_dict(self) -> dict:
        return {"style_id": self.style_id, "pages": [p.to_dict() for p in self.pages]}


@dataclass
class _Column:
    x: float
    w: float
    y: float
    bottom: float
    texts: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    polygons: list = field(default_factory=list)
    targets: list = field(default_factory=list)
    boxes: list = field(default_factory=list)


def _vote_for_text(contest: Contest) -> str:
    if contest.type == "question":
        return "Vote YES or NO"
    return f"Vote for not more than {contest.vote_for}"


def _contest_rows(election: Election, contest: Contest) -> list[tuple[str, ContestOption, float]]:
    """(kind, option, height) for each option row of a contest."""
    rows: list[tuple[str, ContestOption, float]] = []
    for opt in contest.options:
        if opt.kind == "write_in":
            rows.append(("write_in", opt, WRITE_IN_ROW_IN))
        elif opt.running_mate:
            rows.append(("slate", opt, SLATE_ROW_IN))
        else:
            rows.append(("option", opt, ROW_IN))
    return rows


def _header_lines(contest: Contest, width_in: float) -> tuple[list[str], list[str]]:
    title = wrap(contest.title, TITLE_PT, width_in)
    info = [_vote_for_text(contest)]
    if contest.type == "question" and contest.text:
        info = wrap(contest.text, INFO_PT, width_in) + info
    if contest.id == "straight-party":
        info = (
            wrap(
                "To vote for every candidate of one party, fill in the target for that party. "
                "A vote you mark in a contest replaces the party's vote in that contest.",
                INFO_PT,
                width_in,
            )
            + info
        )
    return title, info


def contest_height(election: Election, contest: Contest, width_in: float) -> float:
    title, info = _header_lines(contest, width_in - 2 * BOX_PAD_IN)
    rows = _contest_rows(election, contest)
    return (
        BOX_PAD_IN
        + len(title) * TITLE_LINE_IN
        + len(info) * INFO_LINE_IN
        + 0.04
        + sum(h for _, _, h in rows)
        + BOX_PAD_IN
    )


def _draw_target_shape(col: _Column, shape: str, bounds: Rect) -> None:
    if shape == "arrow":
        cy = bounds.y + bounds.h / 2
        # Tail (left of the gap) and head (right of the gap); the gap is the target.
        tail_x0 = bounds.x - ARROW_HALF_IN
        col.polygons.append(
            PolygonItem(((tail_x0, cy - 0.025), (bounds.x, cy - 0.025), (bounds.x, cy + 0.025), (tail_x0, cy + 0.025)))
        )
        hx = bounds.right
        col.polygons.append(
            PolygonItem(
                (
                    (hx, cy - 0.025),
                    (hx + 0.05, cy - 0.025),
                    (hx + 0.05, cy - 0.06),
                    (hx + ARROW_HALF_IN, cy),
                    (hx + 0.05, cy + 0.06),
                    (hx + 0.05, cy + 0.025),
                    (hx, cy + 0.025),
                )
            )
        )


def _place_contest(election: Election, contest: Contest, col: _Column) -> None:
    shape = election.target_shape
    tw, th = TARGET_SIZE_IN[shape]
    x, w = col.x, col.w
    y0 = col.y
    title, info = _header_lines(contest, w - 2 * BOX_PAD_IN)
    y = y0 + BOX_PAD_IN
    for line in title:
        col.texts.append(TextItem(x + BOX_PAD_IN, y, line, TITLE_PT, bold=True))
        y += TITLE_LINE_IN
    for line in info:
        col.texts.append(TextItem(x + BOX_PAD_IN, y, line, INFO_PT))
        y += INFO_LINE_IN
    y += 0.02
    col.lines.append(LineItem(x, y, x + w, y))
    y += 0.02
    party_abbr = {p.id: p.abbreviation for p in election.parties}
    # An arrow's tail sits left of its gap: move the gap right so the tail stays in the box.
    target_x = x + TARGET_X_IN + (ARROW_HALF_IN if shape == "arrow" else 0)
    name_x = x + NAME_X_IN + (ARROW_HALF_IN + 0.04 if shape == "arrow" else 0)
    right = x + w - BOX_PAD_IN
    for kind, opt, h in _contest_rows(election, contest):
        bounds = Rect(target_x, y + (min(h, ROW_IN) - th) / 2, tw, th)
        _draw_target_shape(col, shape, bounds)
        area_x = bounds.right + (ARROW_HALF_IN if shape == "arrow" else 0) + 0.03
        if kind == "write_in":
            line_y = y + h - 0.10
            col.lines.append(LineItem(name_x, line_y, right, line_y))
            col.texts.append(TextItem(name_x, line_y + 0.01, "write-in", 6.0))
            write_area = Rect(name_x, y + 0.03, right - name_x, line_y - y - 0.01)
            marking = Rect(area_x, y + 0.02, right - area_x, h - 0.04)
            col.targets.append(TargetLayout(contest.id, opt.id, "write_in", shape, bounds, marking, write_area))
        else:
            abbr = party_abbr.get(opt.party or "", "") if opt.kind in ("candidate",) else ""
            abbr_w = 0.42 if abbr else 0.0
            col.texts.append(
                TextItem(name_x, y + 0.085, fit(opt.label, NAME_PT, right - name_x - abbr_w), NAME_PT, bold=True)
            )
            if opt.running_mate:
                col.texts.append(
                    TextItem(name_x, y + 0.235, fit(opt.running_mate, NAME_PT, right - name_x - abbr_w), NAME_PT)
                )
            if abbr:
                col.texts.append(TextItem(right, y + 0.095, abbr, PARTY_PT, anchor="right"))
            marking = Rect(area_x, y + 0.02, right - area_x, h - 0.04)
            col.targets.append(TargetLayout(contest.id, opt.id, opt.kind, shape, bounds, marking))
        y += h
    y += BOX_PAD_IN
    col.boxes.append((contest.id, Rect(x, y0, w, y - y0)))
    col.y = y + BOX_GAP_IN


def _header(election: Election, page: int, width_in: float) -> list[TextItem]:
    cx = width_in / 2
    if page == 1:
        shape_words = {"oval": "fill in the oval", "box": "fill in the box", "arrow": "connect the arrow"}[
            election.target_shape
        ]
        return [
            TextItem(cx, HEADER_TOP_IN, "OFFICIAL BALLOT", 13.0, bold=True, anchor="center"),
            TextItem(cx, HEADER_TOP_IN + 0.23, f"{election.title} · {election.date}", 9.0, anchor="center"),
            TextItem(cx, HEADER_TOP_IN + 0.40, election.jurisdiction, 9.0, anchor="center"),
            TextItem(
                cx,
                HEADER_TOP_IN + 0.62,
                f"INSTRUCTIONS: To vote, {shape_words} next to your choice completely, with a",
                7.5,
                anchor="center",
            ),
            TextItem(
                cx,
                HEADER_TOP_IN + 0.76,
                "black or blue pen or a pencil. To vote for a person not on the ballot, write the name",
                7.5,
                anchor="center",
            ),
            TextItem(
                cx,
                HEADER_TOP_IN + 0.90,
                f"on the write-in line and {shape_words}. Do not vote for more candidates than allowed.",
                7.5,
                anchor="center",
            ),
        ]
    return [
        TextItem(cx, HEADER_TOP_IN, "OFFICIAL BALLOT — BACK", 11.0, bold=True, anchor="center"),
        TextItem(
            cx,
            HEADER_TOP_IN + 0.22,
            f"{election.title} · {election.date} · {election.jurisdiction}",
            8.0,
            anchor="center",
        ),
    ]


@lru_cache(maxsize=64)
def layout_style(election: Election, style_id: str) -> BallotLayout:
    """Lay out one ballot style on the front and back of one sheet.

    Raises
    ------
    LayoutError
        The style's contests do not fit; the message says how many inches of column are left over.
    KeyError
        ``style_id`` is not a style of the election.
    """
    width_in, height_in = PAPER_SIZES_IN[election.paper_size]
    col_w = (width_in - 2 * SIDE_MARGIN_IN - (COLUMNS - 1) * GUTTER_IN) / COLUMNS
    bottom = height_in - COLUMN_BOTTOM_MARGIN_IN
    columns = [
        _Column(SIDE_MARGIN_IN + i * (col_w + GUTTER_IN), col_w, COLUMN_TOP_IN, bottom)
        for _page in (1, 2)
        for i in range(COLUMNS)
    ]
    contests = election.style_contests(style_id)
    ci = 0
    for n, contest in enumerate(contests):
        h = contest_height(election, contest, col_w)
        if h > bottom - COLUMN_TOP_IN:
            raise LayoutError(
                f"style {style_id}: contest {contest.id!r} is {h:.2f} in tall, "
                f"{h - (bottom - COLUMN_TOP_IN):.2f} in more than a whole column"
            )
        while ci < len(columns) and columns[ci].y + h > columns[ci].bottom:
            ci += 1
        if ci == len(columns):
            rest = sum(contest_height(election, c, col_w) + BOX_GAP_IN for c in contests[n:])
            raise LayoutError(
                f"style {style_id} does not fit on one sheet: {len(contests) - n} contest(s) "
                f"starting with {contest.id!r} need {rest:.2f} in of column beyond the back's last column "
                f"({COLUMNS * 2} columns of {bottom - COLUMN_TOP_IN:.2f} in each)"
            )
        _place_contest(election, contest, columns[ci])

    pages = []
    for page in (1, 2):
        cols = columns[(page - 1) * COLUMNS : page * COLUMNS]
        code = style_code_rect(width_in, height_in)
        texts = _header(election, page, width_in)
        texts.append(
            TextItem(
                code.x - STYLE_CODE_QUIET_IN - 0.05,
                code.y + 0.3,
                f"Style {style_id} · page {page} of 2" + (" · turn over" if page == 1 else ""),
                7.0,
                anchor="right",
            )
        )
        pages.append(
            PageLayout(
                style_id=style_id,
                page=page,
                width_in=width_in,
                height_in=height_in,
                registration_marks=registration_marks(width_in, height_in),
                style_code=code,
                targets=tuple(t for c in cols for t in c.targets),
                contest_boxes=tuple(b for c in cols for b in c.boxes),
                texts=tuple(texts) + tuple(t for c in cols for t in c.texts),
                lines=tuple(ln for c in cols for ln in c.lines),
                polygons=tuple(p for c in cols for p in c.polygons),
            )
        )
    return BallotLayout(style_id, (pages[0], pages[1]))
