"""Scanner effects: each one shows in the image, and the truth records the transform actually applied."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import zxingcpp

from tabulate.ballots import ScanParams, SheetScan, forced_plan, simulate_sheet
from tabulate.ballots.scanner import SCAN_PROFILES, draw_scan, scan_page
from tabulate.election import load_election
from tabulate.election.geometry import StyleCode
from tabulate.election.layout import layout_style

REPO = Path(__file__).parents[1]
ELECTION = load_election(REPO / "samples" / "general" / "election.json")
LAYOUT = layout_style(ELECTION, "1")
MARKS = LAYOUT.pages[0].registration_marks
DPI = 100
PLAN = forced_plan(LAYOUT, "A101", {("president", "pres-hale"): "full_fill"})


def _scan(**front) -> tuple:
    """One sheet scanned with the given front settings (the back: the same, unturned)."""
    p = ScanParams(**front)
    sheet = simulate_sheet(ELECTION, 0, 1, plan=PLAN, dpi=DPI, scan=SheetScan((p, replace(p, rotation_deg=0.0))))
    return sheet, np.array(sheet.truth["images"][0]["transform"]["page_to_image"])


def _at(m: np.ndarray, x_in: float, y_in: float) -> tuple[float, float]:
    col, row = m @ np.array([x_in, y_in, 1.0])
    return col, row


def _dark_at(img: np.ndarray, col: float, row: float, r: int = 1) -> float:
    c, rr = int(col), int(row)
    return float(img[rr - r : rr + r + 1, c - r : c + r + 1].mean())


def _mark_side_px(img: np.ndarray, col: float, row: float) -> int:
    """Width of the dark blob through (col, row), along its row."""
    line = img[int(row)] < 128
    c = int(col)
    left = c
    while left > 0 and line[left - 1]:
        left -= 1
    right = c
    while right < len(line) - 1 and line[right + 1]:
        right += 1
    return right - left + 1


def test_identity_scan_is_the_marked_page_itself():
    sheet, m = _scan()
    np.testing.assert_allclose(m, [[DPI, 0, 0], [0, DPI, 0]])
    assert sheet.pages[0].shape == (1100, 850)


def test_upside_down_sheet_puts_the_big_top_left_mark_at_the_bottom_right():
    sheet, m = _scan(flipped=True)
    img = sheet.pages[0]
    big = next(k for k in MARKS if k.role == "top_left")
    col, row = _at(m, big.x, big.y)
    assert col > img.shape[1] * 0.9 and row > img.shape[0] * 0.9
    assert _dark_at(img, col, row) < 30
    assert _mark_side_px(img, col, row) == pytest.approx(big.size * DPI, abs=2)
    small = next(k for k in MARKS if k.role == "bottom_right")
    col, row = _at(m, small.x, small.y)
    assert col < img.shape[1] * 0.1 and row < img.shape[0] * 0.1
    assert _mark_side_px(img, col, row) == pytest.approx(small.size * DPI, abs=2)
    assert sheet.truth["images"][0]["transform"]["flipped"] is True


@pytest.mark.parametrize("angle", [-3.0, 1.2, 3.0])
def test_rotation_moves_every_registration_mark_where_the_truth_says(angle):
    sheet, m = _scan(rotation_deg=angle, overscan_in=0.2)
    img = sheet.pages[0]
    assert sheet.truth["images"][0]["transform"]["rotation_deg"] == pytest.approx(angle)
    for k in MARKS:
        col, row = _at(m, k.x, k.y)
        assert _dark_at(img, col, row) < 40, k.role
    # Counter-clockwise as viewed: the top-right mark rises relative to the top-left one when angle > 0.
    tl, tr = (_at(m, k.x, k.y) for k in MARKS[:2])
    assert np.sign(tl[1] - tr[1]) == np.sign(angle)
    assert np.degrees(np.arctan2(tl[1] - tr[1], tr[0] - tl[0])) == pytest.approx(angle, abs=1e-6)


def test_scale_and_shift_are_recorded_and_applied():
    sheet, m = _scan(scale=1.02, shift_in=(0.08, -0.05), overscan_in=0.1)
    img = sheet.pages[0]
    tl, tr = (np.array(_at(m, k.x, k.y)) for k in MARKS[:2])
    assert np.linalg.norm(tr - tl) == pytest.approx((MARKS[1].x - MARKS[0].x) * DPI * 1.02)
    centre = np.array(_at(m, 4.25, 5.5))
    np.testing.assert_allclose(centre, ((4.25 + 0.1 + 0.08) * DPI, (5.5 + 0.1 - 0.05) * DPI))
    for k in MARKS:
        assert _dark_at(img, *_at(m, k.x, k.y)) < 40
    assert img.shape == (round(11.2 * DPI), round(8.7 * DPI))


def test_blur_softens_edges():
    sharp, _ = _scan()
    soft, _ = _scan(blur_sigma_px=1.2)
    mid = lambda img: ((img > 40) & (img < 215)).mean()
    assert mid(soft.pages[0]) > 2 * mid(sharp.pages[0])


def test_noise_and_paper_tone_show_in_blank_paper():
    sheet, _ = _scan(noise_sd=4, paper=232.0, black=20.0, tone=0.0, noise_offset=123)
    white = (slice(1010, 1060), slice(140, 200))  # below the columns, left of the style code
    clean, _ = _scan()
    assert (clean.pages[0][white] == 255).all()
    paper = sheet.pages[0][white].astype(float)
    assert paper.mean() == pytest.approx(232, abs=1.5)
    assert paper.std() == pytest.approx(4, abs=1.0)
    assert sheet.truth["images"][0]["transform"]["paper"] == pytest.approx(232.0)


def test_print_black_is_lifted_to_the_black_level():
    sheet, m = _scan(paper=240.0, black=40.0)
    big = MARKS[0]
    assert _dark_at(sheet.pages[0], *_at(m, big.x, big.y)) == pytest.approx(40, abs=2)


def test_vertical_streak_runs_down_the_whole_page():
    sheet, _ = _scan(streaks=((400, 2, -80),))
    img = sheet.pages[0].astype(int)
    band, beside = img[:, 400:402].mean(axis=1), img[:, 395:397].mean(axis=1)
    assert ((beside - band) > 60).mean() > 0.8
    assert sheet.truth["images"][0]["transform"]["streaks"] == [[400, 2, -80]]


def test_bitonal_scan_is_pure_black_and_white_and_keeps_the_marks():
    sheet, m = _scan(bitonal=True, threshold=140.0, paper=240.0, black=20.0, blur_sigma_px=0.4)
    img = sheet.pages[0]
    assert set(np.unique(img)) <= {0, 255}
    for k in MARKS:
        assert _dark_at(img, *_at(m, k.x, k.y)) == 0
    assert sheet.truth["images"][0]["bitonal"] and sheet.bitonal


def test_bitonal_scan_may_lose_a_light_pencil_mark_so_the_truth_accepts_unmarked():
    key = ("president", "pres-okafor")
    plan = forced_plan(LAYOUT, "A101", {key: "light_pencil"})
    p = ScanParams(bitonal=True, threshold=140.0)
    sheet = simulate_sheet(ELECTION, 0, 1, plan=plan, dpi=DPI, scan=SheetScan((p, p)))
    entry = next(t for t in sheet.truth["targets"] if t["option"] == "pres-okafor")
    assert "unmarked" in entry["scan_accepts"]
    gray = simulate_sheet(ELECTION, 0, 1, plan=plan, dpi=DPI, scan_profile="clean")
    assert "unmarked" not in next(t for t in gray.truth["targets"] if t["option"] == "pres-okafor")["scan_accepts"]


def _style_code(img: np.ndarray) -> StyleCode:
    found = zxingcpp.read_barcodes(img, formats=zxingcpp.BarcodeFormat.QRCode)
    assert found, "no style code found"
    return StyleCode.decode(found[0].text)


def test_duplex_front_and_back_images_carry_their_own_pages_style_codes():
    p = ScanParams()
    normal = simulate_sheet(ELECTION, 0, 1, plan=PLAN, dpi=150, scan=SheetScan((p, p)))
    assert [_style_code(i).page for i in normal.pages] == [1, 2]
    swapped = simulate_sheet(ELECTION, 0, 1, plan=PLAN, dpi=150, scan=SheetScan((p, p), (2, 1)))
    assert [_style_code(i).page for i in swapped.pages] == [2, 1]
    assert [i["page"] for i in swapped.truth["images"]] == [2, 1]
    assert [i["side"] for i in swapped.truth["images"]] == ["front", "back"]


def test_back_camera_sees_the_skew_mirrored():
    scan = draw_scan(np.random.default_rng(5), replace(SCAN_PROFILES["default"], rotation_sd_deg=2.0))
    front, back = scan.params
    assert back.rotation_deg == pytest.approx(-front.rotation_deg, abs=0.3)
    assert back.shift_in[0] == pytest.approx(-front.shift_in[0]) and back.shift_in[1] == front.shift_in[1]
    assert back.flipped == front.flipped and back.scale == front.scale


@pytest.mark.parametrize("seed", range(8))
def test_recorded_transform_finds_every_registration_mark_in_default_scans(seed):
    # Whatever the scanner did (skew, scale, shift, flip, swap, bitonal), the truth's matrix
    # maps each mark's centre onto that mark in the image.
    sheet = simulate_sheet(
        ELECTION, seed, 77, dpi=DPI, bitonal_fraction=0.3, scan_profile=replace(SCAN_PROFILES["rough"], p_streak=0.0)
    )
    for img, info in zip(sheet.pages, sheet.truth["images"]):
        m = np.array(info["transform"]["page_to_image"])
        assert img.shape == tuple(reversed(info["transform"]["image_size"]))
        for k in layout_style(ELECTION, sheet.truth["style"]).pages[info["page"] - 1].registration_marks:
            assert _dark_at(img, *_at(m, k.x, k.y)) < 110, (seed, info["side"], k.role)


def test_scan_page_keeps_the_input_untouched():
    page = np.full((110, 85), 255, np.uint8)
    page[10:20, 10:20] = 0
    before = page.copy()
    out = scan_page(page, ScanParams(rotation_deg=2.0, noise_sd=3, paper=230.0, overscan_in=0.1), dpi=10)
    np.testing.assert_array_equal(page, before)
    assert out.shape == (112, 87) and out.dtype == np.uint8
