"""Marks on connect-the-arrow targets: where they are drawn, what the truth says, how they read.

31 KAR 6:030 Section 2(1): a vote on a scan voting system is the choice made
by "(a) Filling in the oval or box or connecting the arrow next to the
candidate's name or the question choice". Ink that runs across the gap from
the tail to the head connects the arrow, whatever the stroke's shape.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tabulate.ballots import Pen, forced_plan, simulate_sheet
from tabulate.ballots.arrows import ARROW_MARK_KINDS, mark_kind
from tabulate.ballots.mark_kinds import MARK_KINDS
from tabulate.ballots.marks import draw_mark
from tabulate.ballots.plan import target_index
from tabulate.detect import read_image
from tabulate.detect.classify import arrow_class, arrow_floor
from tabulate.detect.settings import DEFAULT_SETTINGS
from tabulate.election import parse_election
from tabulate.election.layout import layout_style
from tabulate.kernels import FEATURES, F

REPO = Path(__file__).parents[1]
DOC = json.loads((REPO / "samples" / "general" / "election.json").read_text(encoding="utf-8"))
ARROWS = parse_election({**DOC, "paper_size": "legal", "target_shape": "arrow"})
LAYOUT = layout_style(ARROWS, "1")
WHERE = target_index(LAYOUT)
DPI = 200
BLACK = Pen("black_pen", 25.0, 0.016)
ROW = ("president", "pres-okafor")


def test_the_arrow_table_follows_section_2_1_a():
    """On an arrow, "connecting the arrow" (s2(1)(a)) makes an X, a check and a line across the gap votes."""
    expected = {
        "full_fill": ("marked", "vote"),
        "x_mark": ("marked", "vote"),
        "check": ("marked", "vote"),
        "line_through": ("marked", "vote"),
        "partial_fill": ("ambiguous", "vote"),  # stops short of the head: not connected
        "light_pencil": ("ambiguous", "vote"),
        "dot": ("ambiguous", "ambiguous"),
        "erasure": ("ambiguous", "no_vote"),
        "circle": ("unmarked", "vote"),
        "none": ("unmarked", "no_vote"),
    }
    assert {k: (ARROW_MARK_KINDS[k].scan, ARROW_MARK_KINDS[k].hand) for k in expected} == expected
    assert "connecting the arrow" in ARROW_MARK_KINDS["x_mark"].clause
    assert mark_kind("x_mark", "oval") is MARK_KINDS["x_mark"]  # ovals keep their own table
    assert MARK_KINDS["x_mark"].scan == "ambiguous" and mark_kind("x_mark", "box").scan == "ambiguous"


def _drawn(kind: str, seed: int) -> tuple[np.ndarray, object]:
    t = WHERE[ROW][1]
    page = np.full((int(14 * DPI), int(8.5 * DPI)), 255, np.uint8)
    draw_mark(page, kind, t, dpi=DPI, pen=BLACK, rng=np.random.default_rng(seed))
    return page, t.bounds


@pytest.mark.parametrize("kind", ["full_fill", "x_mark", "check", "line_through", "light_pencil"])
def test_a_connecting_mark_is_drawn_across_the_whole_gap(kind):
    for seed in range(12):
        page, b = _drawn(kind, seed)
        rows = slice(int(b.y * DPI), int(np.ceil(b.bottom * DPI)))
        cols = slice(int(np.ceil(b.x * DPI)), int(b.right * DPI))
        inked = (page[rows, cols] < 235).any(axis=0)
        assert inked.all(), (kind, seed, np.flatnonzero(~inked))


def test_a_partial_bar_stops_short_of_one_half():
    for seed in range(12):
        page, b = _drawn("partial_fill", seed)
        rows = slice(int(b.y * DPI) - 4, int(np.ceil(b.bottom * DPI)) + 4)
        inked = (page[rows, int(b.x * DPI) : int(b.right * DPI)] < 235).any(axis=0)
        assert inked.any() and not inked.all(), seed
        assert (~inked).sum() >= 0.2 * len(inked), seed


def _sheet(marks: dict, pen: Pen = BLACK):
    plan = forced_plan(LAYOUT, "A101", marks, pen=pen)
    return simulate_sheet(ARROWS, 0, 11, plan=plan, scan_profile="clean", dpi=DPI)


def test_truth_and_reading_of_marks_across_an_arrow():
    keys = [("president", o) for o in ("pres-okafor", "pres-lindqvist")] + [("us-senate", "sen-caldwell")]
    marks = dict(zip(keys, ("x_mark", "check", "light_pencil")))
    sheet = _sheet(marks)
    entries = {(t["contest"], t["option"]): t for t in sheet.truth["targets"]}
    for key, kind in marks.items():
        assert entries[key]["shape"] == "arrow" and entries[key]["kind"] == kind
    assert entries[keys[0]]["scan"] == entries[keys[1]]["scan"] == "marked"
    assert entries[keys[2]]["scan"] == "ambiguous"
    reasons = {(r["option"], r["code"]) for r in sheet.truth["review_reasons"]}
    assert ("sen-caldwell", "marginal_mark") in reasons
    assert not {("pres-okafor", "marginal_mark"), ("pres-lindqvist", "marginal_mark")} & reasons
    page = read_image(ARROWS, sheet.pages[0])
    by = {(t.contest_id, t.option_id): t.scan for t in page.targets}
    assert [by[k] for k in keys] == ["marked", "marked", "marginal"]
    assert sum(v != "unmarked" for v in by.values()) == 3  # every other arrow reads blank


def _f(**values) -> list[float]:
    row = [0.0] * len(FEATURES)
    for name, v in values.items():
        row[F[name]] = v
    return row


def test_arrow_class_sends_light_ink_residue_and_partial_bridges_to_a_person():
    th, s = ARROWS.thresholds, DEFAULT_SETTINGS
    assert arrow_class(_f(score=1.0, deep=0.9), th, s, 0.0) == "marked"
    assert arrow_class(_f(score=1.0, deep=0.22), th, s, 0.0) == "marginal"  # a light pencil bar
    assert arrow_class(_f(score=0.6, deep=0.9), th, s, 0.0) == "marginal"  # stops short of the head
    assert arrow_class(_f(score=0.0, erasure=0.5, deep=0.1), th, s, 0.0) == "marginal"  # erased bar
    assert arrow_class(_f(score=0.0, deep=0.06), th, s, 0.01) == "marginal"  # faint residue above the page
    assert arrow_class(_f(score=0.0, deep=0.02), th, s, 0.01) == "unmarked"
    # A piece spanning under `arrow_partial` (a printed half's blur, a touch) is no partial joining...
    assert arrow_class(_f(score=0.06, deep=0.03), th, s, 0.01) == "unmarked"
    assert arrow_class(_f(score=0.12, deep=0.03), th, s, 0.01) == "marginal"
    # ...but a short, dark piece (a dot) still stands above the page's residue level.
    assert arrow_class(_f(score=0.06, deep=0.5), th, s, 0.01) == "marginal"
    blanks = [_f(deep=d) for d in (0.005, 0.006, 0.007, 0.008, 0.006)] + [_f(score=1.0, deep=0.9)]
    assert 0.006 <= arrow_floor(blanks, th, s) < 0.02  # the bridged gap is not part of the blank level


def test_a_streak_through_a_connected_gap_does_not_open_it():
    """A scanner streak hides a few columns (read as paper): they are left out, not counted unjoined."""
    from tabulate.detect.register import register_page
    from tabulate.detect.template import page_template
    from tabulate.kernels import offsets_by_distance, reference, score_targets

    sheet = _sheet({ROW: "line_through"})
    img = sheet.pages[0]
    reg = register_page(img, 8.5, 14.0)
    tpl = page_template(ARROWS, "1", 1, DPI)
    i = next(n for n, t in enumerate(tpl.targets) if (t.contest_id, t.option_id) == ROW)
    b = tpl.targets[i].bounds
    col = int(reg.affine[0, 0] * b.center[0] + reg.affine[0, 1] * b.center[1] + reg.affine[0, 2])
    skip = np.zeros(img.shape[1], bool)
    skip[col - 3 : col + 3] = True
    kw = dict(split=0.25, residue=0.08, min_hits=2, paper=reg.paper, ink=reg.ink, offsets=offsets_by_distance(2))
    fast = score_targets(img, reg.affine, tpl.points, skip_cols=skip, **kw)
    slow = reference.score_targets(img, reg.affine, tpl.points, skip_cols=skip, **kw)
    np.testing.assert_allclose(fast, slow, rtol=1e-9, atol=1e-12)
    assert fast[i, F["score"]] == 1.0


# -- near-joins: 31 KAR 6:030 Section 2(1)(a) "connecting the arrow" --------------------------------
def _near_join_cases() -> dict[str, tuple[list, list]]:
    """Marks drawn by hand-picked geometry (page inches) at ROW's gap: (strokes, polygons)."""
    b = WHERE[ROW][1].bounds
    x0, x1, cy = b.x, b.right, b.y + b.h / 2
    mid = (x0 + x1) / 2

    def bar(a, z):
        return np.array([[a, cy - 0.025], [z, cy - 0.025], [z, cy + 0.025], [a, cy + 0.025]])

    def x_mark(reach):
        return [
            np.array([[x0 - 0.03, cy - 0.045], [reach, cy + 0.045]]),
            np.array([[reach, cy - 0.045], [x0 - 0.03, cy + 0.045]]),
        ]

    return {
        "joined bar": ([], [bar(x0 - 0.02, x1 + 0.02)]),
        "bar 0.03 in short of the head": ([], [bar(x0 - 0.02, x1 - 0.03)]),
        "X whose arms cross in the gap": (x_mark(x1 + 0.03), []),
        "X whose arms stop short": (x_mark(x1 - 0.06), []),
        "two strokes from either end, not meeting": (
            [
                np.array([[x0 - 0.03, cy - 0.03], [mid - 0.03, cy]]),
                np.array([[x1 + 0.03, cy + 0.03], [mid + 0.03, cy]]),
            ],
            [],
        ),
        "check": ([np.array([[x0 - 0.02, cy - 0.01], [x0 + 0.3 * (x1 - x0), cy + 0.03], [x1 + 0.03, cy - 0.035]])], []),
    }


def test_a_mark_that_nearly_joins_the_arrow_goes_to_a_person():
    """31 KAR 6:030 Section 2(1)(a): a vote is made by "connecting the arrow next to the candidate's
    name". Ink joining tail to head is a vote; a mark that nearly joins but leaves an opening has not
    connected the arrow, and goes to a person (the hand count, Section 3(1), may still find intent)."""
    from tabulate.ballots._ink import lay_ink, rasterize
    from tabulate.detect.register import register_page

    blank = _sheet({}).pages[0]
    affine = register_page(blank, 8.5, 14.0).affine
    expected = {
        "joined bar": "marked",
        "bar 0.03 in short of the head": "marginal",
        "X whose arms cross in the gap": "marked",
        "X whose arms stop short": "marginal",
        "two strokes from either end, not meeting": "marginal",
        "check": "marked",
    }
    got, scores = {}, {}
    for name, (strokes, polygons) in _near_join_cases().items():
        img = blank.copy()

        def to_image(p):  # page inches -> image inches (rasterize works in inches at DPI)
            return np.column_stack([p, np.ones(len(p))]) @ affine.T / DPI

        patch = rasterize(
            img.shape,
            DPI,
            strokes=[to_image(s) for s in strokes],
            polygons=[to_image(p) for p in polygons],
            width_in=0.02,
        )
        lay_ink(img, patch, BLACK, np.random.default_rng(3), dpi=DPI)
        t = next(t for t in read_image(ARROWS, img).targets if (t.contest_id, t.option_id) == ROW)
        got[name], scores[name] = t.scan, t.score
    assert got == expected, scores
    assert scores["bar 0.03 in short of the head"] < DEFAULT_SETTINGS.arrow_joined <= scores["joined bar"]


def test_the_gap_score_is_the_widest_connected_piece_in_kernel_and_twin():
    """Two strokes from either end that cover every column between them but do not meet span half
    the gap each; the numba kernel and its numpy twin agree, with and without a streak."""
    from tabulate.ballots._ink import lay_ink, rasterize
    from tabulate.detect.register import register_page
    from tabulate.detect.template import page_template
    from tabulate.kernels import offsets_by_distance, reference, score_targets

    b = WHERE[ROW][1].bounds
    x0, x1, cy = b.x, b.right, b.y + b.h / 2
    img = _sheet({}).pages[0].copy()
    reg = register_page(img, 8.5, 14.0)
    # Overlapping in columns (0.4-0.6 of the gap), 0.04 in apart in rows: not one piece of ink.
    strokes = [np.array([[x0 - 0.02, cy - 0.03], [x0 + 0.6 * (x1 - x0), cy - 0.03]]),
               np.array([[x0 + 0.4 * (x1 - x0), cy + 0.03], [x1 + 0.02, cy + 0.03]])]  # fmt: skip
    to_image = lambda p: np.column_stack([p, np.ones(len(p))]) @ reg.affine.T / DPI
    lay_ink(
        img,
        rasterize(img.shape, DPI, strokes=[to_image(s) for s in strokes], width_in=0.016),
        BLACK,
        np.random.default_rng(1),
        dpi=DPI,
    )
    tpl = page_template(ARROWS, "1", 1, DPI)
    i = next(n for n, t in enumerate(tpl.targets) if (t.contest_id, t.option_id) == ROW)
    kw = dict(split=0.25, residue=0.08, min_hits=2, paper=reg.paper, ink=reg.ink, offsets=offsets_by_distance(2))
    for skip in (None, np.isin(np.arange(img.shape[1]), [int(reg.affine[0, 0] * (x0 + x1) / 2 + reg.affine[0, 2])])):
        fast = score_targets(img, reg.affine, tpl.points, skip_cols=skip, **kw)
        slow = reference.score_targets(img, reg.affine, tpl.points, skip_cols=skip, **kw)
        np.testing.assert_allclose(fast, slow, rtol=1e-9, atol=1e-12)
        assert 0.5 <= fast[i, F["score"]] < 0.75, fast[i, F["score"]]
        assert fast[i, F["dark"]] > 0  # the ink is there; it is the joining that is missing


def test_a_loop_round_the_whole_arrow_is_circled_not_connected():
    """31 KAR 6:030 Section 3(1)(b): "The oval, box, or space next to the candidate's name or the
    question choice is circled" is a vote when counted by hand; the loop does not connect the arrow
    (Section 2(1)(a)), so the scanner does not count it and a person decides."""
    k = ARROW_MARK_KINDS["circle"]
    assert (k.scan, k.hand, k.needs_review) == ("unmarked", "vote", True)
    assert "§2(1)(a) not connected" in k.clause and "§3(1)(b)" in k.clause
    for seed in range(8):
        page, b = _drawn("circle", seed)
        cy = int((b.y + b.h / 2) * DPI)
        gap = page[int(b.y * DPI) : int(np.ceil(b.bottom * DPI)), int(b.x * DPI) : int(b.right * DPI)]
        assert (gap > 235).all(), seed  # nothing drawn across the gap
        left = int((b.x - 0.12 - 0.04) * DPI)  # outside the printed tail and head
        right = int((b.right + 0.12 + 0.04) * DPI)
        assert (page[cy - 40 : cy + 40, :left] < 128).any() and (page[cy - 40 : cy + 40, right:] < 128).any(), seed
        assert (page[cy - 32 : cy - 18, left:right] < 128).any() and (page[cy + 18 : cy + 32, left:right] < 128).any()
    sheet = _sheet({ROW: "circle"})
    t = next(t for t in read_image(ARROWS, sheet.pages[0]).targets if (t.contest_id, t.option_id) == ROW)
    assert (t.scan, t.hand) == ("unmarked", "marked") and "6:030 s3(1)(b) circled" in t.hand_clauses
