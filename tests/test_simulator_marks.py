"""Every mark kind, forced at a known target on a clean scan: its pixels and its truth entry.

31 KAR 6:030 §2(1) (scanner) and §3(1) (hand count) decide what each kind
should read as; `MARK_KINDS` holds that table and these tests hold it to the
brief it was written from.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tabulate.ballots import MARK_KINDS, Pen, blank_sheet, forced_plan, simulate_sheet
from tabulate.ballots.marks import interior_mask
from tabulate.ballots.plan import target_index
from tabulate.election import load_election
from tabulate.election.geometry import Rect
from tabulate.election.layout import layout_style

REPO = Path(__file__).parents[1]
ELECTION = load_election(REPO / "samples" / "general" / "election.json")
LAYOUT = layout_style(ELECTION, "1")
WHERE = target_index(LAYOUT)
DPI = 200
BLANK = blank_sheet(ELECTION, LAYOUT, "A101", dpi=DPI)
TARGET = ("president", "pres-okafor")  # a middle row: neighbours above and below
BLACK = Pen("black_pen", 25.0, 0.016)


def _sheet(marks, *, write_ins=None, strays=(), pen=BLACK, seed=11):
    plan = forced_plan(LAYOUT, "A101", marks, write_ins=write_ins, pen=pen, strays=strays)
    return simulate_sheet(ELECTION, 0, seed, plan=plan, scan_profile="clean", dpi=DPI)


def _ink(sheet, page=1) -> np.ndarray:
    """Pixels where the voter's ink darkened the printed page by more than 40 gray levels."""
    return (BLANK[page - 1].astype(int) - sheet.pages[page - 1].astype(int)) > 40


def _box(r: Rect, grow: float = 0.0) -> tuple[slice, slice]:
    return (
        slice(int((r.y - grow) * DPI), int(np.ceil((r.bottom + grow) * DPI))),
        slice(int((r.x - grow) * DPI), int(np.ceil((r.right + grow) * DPI))),
    )


def _interior(key=TARGET, inset_px: int = 1) -> tuple[tuple[slice, slice], np.ndarray]:
    t = WHERE[key][1]
    rows, cols = _box(t.bounds)
    mask = interior_mask(t, DPI, rows.start, cols.start, (rows.stop - rows.start, cols.stop - cols.start))
    if inset_px:
        from scipy.ndimage import binary_erosion

        mask = binary_erosion(mask, iterations=inset_px)
    return (rows, cols), mask


def _ring(key=TARGET, near: float = 0.02, far: float = 0.09) -> tuple[tuple[slice, slice], np.ndarray]:
    """Pixels between ``near`` and ``far`` inches outside the target's bounds."""
    b = WHERE[key][1].bounds
    rows, cols = _box(b, far)
    ys = (np.arange(rows.start, rows.stop) + 0.5)[:, None] / DPI
    xs = (np.arange(cols.start, cols.stop) + 0.5)[None, :] / DPI
    dx = np.maximum(np.maximum(b.x - xs, xs - b.right), 0)
    dy = np.maximum(np.maximum(b.y - ys, ys - b.bottom), 0)
    d = np.hypot(dx, dy)
    return (rows, cols), (d >= near) & (d <= far)


def _share(mask_img: np.ndarray, region) -> float:
    (rows, cols), m = region
    return float(mask_img[rows, cols][m].mean())


def _entry(sheet, key=TARGET) -> dict:
    return next(t for t in sheet.truth["targets"] if (t["contest"], t["option"]) == key)


def _codes(sheet) -> set[str]:
    return {r["code"] for r in sheet.truth["review_reasons"]}


def test_mark_kinds_table_is_the_31_kar_6_030_table():
    expected = {  # kind: (scanner reading §2(1), hand-count reading §3(1))
        "none": ("unmarked", "no_vote"),
        "full_fill": ("marked", "vote"),
        "partial_fill": ("marked", "vote"),
        "light_pencil": ("ambiguous", "vote"),
        "x_mark": ("ambiguous", "vote"),
        "check": ("ambiguous", "vote"),
        "line_through": ("ambiguous", "vote"),
        "dot": ("ambiguous", "ambiguous"),
        "circle": ("unmarked", "vote"),
        "beside_name": ("unmarked", "vote"),
        "erasure": ("ambiguous", "no_vote"),
        "hesitation": ("unmarked", "no_vote"),
        "stray": ("unmarked", "no_vote"),
    }
    assert {k: (v.scan, v.hand) for k, v in MARK_KINDS.items()} == expected
    assert MARK_KINDS["light_pencil"].scan_accepts == ("marginal", "marked")
    assert MARK_KINDS["erasure"].scan_accepts == ("unmarked", "marginal")
    assert MARK_KINDS["hesitation"].scan_accepts == ("unmarked", "marginal")
    review = {k for k, v in MARK_KINDS.items() if v.needs_review}
    assert review == {"light_pencil", "x_mark", "check", "line_through", "dot", "circle", "beside_name", "erasure"}


def test_unmarked_target_stays_clean_and_reads_unmarked():
    sheet = _sheet({})
    assert not _ink(sheet).any() and not _ink(sheet, 2).any()
    assert sheet.truth["targets"] == [] and sheet.truth["blank"]
    assert _codes(sheet) == {"blank_ballot"}


def test_full_fill_darkens_the_whole_interior():
    sheet = _sheet({TARGET: "full_fill"})
    assert _share(_ink(sheet), _interior()) > 0.85
    e = _entry(sheet)
    assert (e["kind"], e["scan"], e["hand"], e["scan_accepts"]) == ("full_fill", "marked", "vote", ["marked"])
    assert e["ink"] > 0.7
    assert sheet.truth["contests"]["president"]["scan_marked"] == ["pres-okafor"]
    assert not sheet.truth["needs_review"]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_partial_fill_covers_a_majority_but_not_all_of_the_interior(seed):
    sheet = _sheet({TARGET: "partial_fill"}, seed=seed)
    share = _share(_ink(sheet), _interior(inset_px=0))
    assert 0.5 <= share <= 0.92  # 31 KAR 6:030 §3(1)(a): "The majority ... is filled in"
    assert _entry(sheet)["scan"] == "marked" and _entry(sheet)["hand"] == "vote"


def test_light_pencil_is_a_light_gray_fill():
    sheet = _sheet({TARGET: "light_pencil"})
    (rows, cols), m = _interior()
    inside = sheet.pages[0][rows, cols][m]
    assert 150 < inside.mean() < 240 and (inside < 100).mean() < 0.02
    e = _entry(sheet)
    assert e["scan"] == "ambiguous" and e["hand"] == "vote" and "marginal_mark" in _codes(sheet)


def test_x_mark_crosses_the_target_and_reaches_beyond_it():
    sheet = _sheet({TARGET: "x_mark"})
    ink = _ink(sheet)
    assert 0.08 < _share(ink, _interior()) < 0.7
    assert _share(ink, _ring(near=0.005, far=0.05)) > 0.01
    assert _entry(sheet)["scan"] == "ambiguous" and _entry(sheet)["hand"] == "vote"


def test_check_has_its_long_stroke_rising_above_the_target():
    sheet = _sheet({TARGET: "check"})
    ink = _ink(sheet)
    b = WHERE[TARGET][1].bounds
    above = ink[int((b.y - 0.06) * DPI) : int((b.y - 0.01) * DPI), int(b.center[0] * DPI) : int((b.right + 0.08) * DPI)]
    assert above.any() and _share(ink, _interior()) > 0.05
    assert _entry(sheet)["hand"] == "vote"


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_line_through_meets_the_outline_twice_and_touches_no_other_target(seed):
    sheet = _sheet({TARGET: "line_through"}, seed=seed)
    ink = _ink(sheet)
    assert _share(ink, _interior()) > 0.03
    # Ink on two opposite sides outside the outline (31 KAR 6:030 §3(1)(f)).
    (rows, cols), ring = _ring(near=0.004, far=0.06)
    b = WHERE[TARGET][1].bounds
    rr, cc = np.nonzero(ink[rows, cols] & ring)
    ys, xs = (rr + rows.start + 0.5) / DPI - b.center[1], (cc + cols.start + 0.5) / DPI - b.center[0]
    angles = np.arctan2(ys, xs)
    assert len(angles) and np.ptp(np.unwrap(np.sort(angles))) > 2.0
    for key in (("president", "pres-hale"), ("president", "pres-lindqvist")):
        assert _share(ink, _interior(key, inset_px=0)) == 0.0
    assert _entry(sheet)["scan"] == "ambiguous"


def test_dot_is_small_and_inside():
    sheet = _sheet({TARGET: "dot"})
    ink = _ink(sheet)
    assert 0.005 < _share(ink, _interior()) < 0.25
    assert _share(ink, _ring(near=0.01)) == 0.0
    e = _entry(sheet)
    assert (e["scan"], e["hand"]) == ("ambiguous", "ambiguous") and "marginal_mark" in _codes(sheet)
    assert sheet.truth["contests"]["president"]["selections"] == []  # a dot is not a selection


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_circle_puts_ink_only_outside_the_target(seed):
    sheet = _sheet({TARGET: "circle"}, seed=seed)
    ink = _ink(sheet)
    assert _share(ink, _interior(inset_px=0)) == 0.0
    assert _share(ink, _ring(near=0.02, far=0.1)) > 0.1
    e = _entry(sheet)
    assert (e["scan"], e["hand"]) == ("unmarked", "vote")  # §3(1)(b): circled
    assert "scan_hand_disagreement" in _codes(sheet)
    assert sheet.truth["contests"]["president"]["hand_votes"] == ["pres-okafor"]
    assert sheet.truth["contests"]["president"]["scan_marked"] == []


def test_beside_name_marks_the_name_not_the_target():
    sheet = _sheet({TARGET: "beside_name"})
    ink = _ink(sheet)
    t = WHERE[TARGET][1]
    assert _share(ink, _interior(inset_px=0)) == 0.0 and _share(ink, _ring(near=0.0, far=0.04)) == 0.0
    rows, cols = _box(t.marking_area)
    assert ink[rows, cols].sum() > 20
    e = _entry(sheet)
    assert (e["scan"], e["hand"]) == ("unmarked", "vote") and "scan_hand_disagreement" in _codes(sheet)


def test_erasure_leaves_only_light_residue():
    sheet = _sheet({TARGET: "erasure", ("president", "pres-hale"): "full_fill"})
    (rows, cols), m = _interior()
    inside = sheet.pages[0][rows, cols][m]
    assert inside.min() >= 150 and inside.mean() < 253
    e = _entry(sheet)
    assert (e["scan"], e["hand"], e["scan_accepts"]) == ("ambiguous", "no_vote", ["unmarked", "marginal"])
    assert sheet.truth["contests"]["president"]["selections"] == ["pres-hale"]


def test_hesitation_is_a_tiny_touch_at_the_outline():
    sheet = _sheet({TARGET: "hesitation"})
    ink = _ink(sheet)
    rows, cols = _box(WHERE[TARGET][1].bounds, 0.04)
    assert 0 < ink[rows, cols].sum() < 40
    assert _share(ink, _interior(inset_px=3)) < 0.05
    e = _entry(sheet)
    assert (e["scan"], e["hand"]) == ("unmarked", "no_vote")
    assert not sheet.truth["needs_review"] or _codes(sheet) == {"blank_ballot"}


def test_stray_marks_land_in_white_space_away_from_every_target():
    sheet = _sheet({}, strays=(1, 2), seed=3)
    strays = sheet.truth["strays"]
    assert [s["page"] for s in strays] == [1, 2]
    for page in (1, 2):
        ink = _ink(sheet, page)
        assert ink.any()
        for _cid, box in LAYOUT.pages[page - 1].contest_boxes:
            rows, cols = _box(box)
            assert not ink[rows, cols].any()
    assert sheet.truth["blank"]  # a stray mark is no vote


def test_write_in_name_is_handwritten_in_the_write_in_area():
    key = ("us-senate", "write-in-1")
    sheet = _sheet({key: "full_fill"}, write_ins={key: "Jenna Foster"})
    ink = _ink(sheet)
    area = WHERE[key][1].write_in_area
    rows, cols = _box(area)
    assert ink[rows, cols].sum() > 200
    e = _entry(sheet, key)
    assert e["write_in"]["name"] == "Jenna Foster" and e["write_in"]["hand"]
    assert "marked_write_in" in _codes(sheet)


def test_unmarked_write_in_has_a_name_but_a_clean_target():
    key = ("us-house-6", "write-in-1")
    sheet = _sheet({}, write_ins={key: "Tom Whitaker"})
    assert _share(_ink(sheet), _interior(key, inset_px=0)) == 0.0
    e = _entry(sheet, key)
    assert e["kind"] == "none" and e["write_in"]["marked"] is False
    assert _codes(sheet) == {"unmarked_write_in"}  # not blank: a name is written


def test_overvote_is_a_reason_and_the_intended_votes_are_empty():
    sheet = _sheet({("president", "pres-hale"): "full_fill", TARGET: "full_fill"})
    c = sheet.truth["contests"]["president"]
    assert c["overvote"] and c["intended_votes"] == []
    assert "overvote" in _codes(sheet)


def test_pencil_and_blue_pen_are_lighter_than_black_pen():
    def mean_inside(pen):
        sheet = _sheet({TARGET: "full_fill"}, pen=pen, seed=2)
        (rows, cols), m = _interior(inset_px=2)
        return sheet.pages[0][rows, cols][m].mean()

    black = mean_inside(BLACK)
    blue = mean_inside(Pen("blue_pen", 80.0, 0.016, grain=0.05))
    pencil = mean_inside(Pen("pencil", 110.0, 0.018, grain=0.3))
    assert black < blue < pencil < 200
