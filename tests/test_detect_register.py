"""Registration: the four corner marks, the page transform, and every way a page is refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_detect_support import page_image, scan, turn

from tabulate.detect import ReadError
from tabulate.detect.register import MAX_RESIDUAL_IN, _check, _Mark, image_dpi, register_page

W, H = 8.5, 11.0
CORNERS_IN = np.array([(0.35, 0.35), (8.15, 0.35), (8.15, 10.65), (0.35, 10.65)])


def _true_affine(angle_deg: float, scale: float, shift_px, size=(2200, 1700), canvas=None):
    """The page-inch -> pixel map `scan` applies to a 200 DPI render (pixel centres at integers)."""
    h, w = size
    rows, cols = canvas or size
    th = math.radians(angle_deg)
    rot = np.array([[math.cos(th), math.sin(th)], [-math.sin(th), math.cos(th)]]) * scale
    centre = np.array([w / 2, h / 2])
    lin = rot * 200.0
    t = centre - rot @ centre + ((cols - w) / 2 + shift_px[0], (rows - h) / 2 + shift_px[1]) - rot @ [0.5, 0.5] + 0.0
    return np.column_stack([lin, t])


def _err_px(a, b):
    pts = np.column_stack([CORNERS_IN, np.ones(4)])
    return np.abs(pts @ a.T - pts @ b.T).max()


@pytest.mark.parametrize("angle,scale,shift", [(0, 1, (0, 0)), (2.0, 1.02, (8, -6)), (-1.7, 0.97, (-15, 20))])
def test_transform_is_recovered_to_a_fraction_of_a_pixel(angle, scale, shift):
    img = scan(page_image(), angle=angle, scale=scale, shift_px=shift, paper=236, ink=22, blur=0.8, noise=3)
    reg = register_page(img, W, H)
    assert reg.rotation == 0
    assert reg.skew_deg == pytest.approx(-angle, abs=0.05)  # scan() turns counter-clockwise
    assert reg.scale[0] == pytest.approx(scale, abs=0.003) and reg.scale[1] == pytest.approx(scale, abs=0.003)
    assert _err_px(reg.affine, _true_affine(angle, scale, shift)) < 0.8
    assert reg.residual_in < 0.005
    assert reg.dpi == 200.0
    assert reg.paper == pytest.approx(236, abs=3) and reg.ink == pytest.approx(22, abs=5)


@pytest.mark.parametrize("quarters,rotation", [(2, 180), (1, 270), (3, 90)])
def test_sheets_fed_sideways_or_upside_down_are_turned_back(quarters, rotation):
    img = scan(page_image(), angle=1.0)
    reg = register_page(turn(img, quarters), W, H)
    assert reg.rotation == rotation
    assert abs(reg.skew_deg) == pytest.approx(1.0, abs=0.05)
    # the page's top-left mark lands where the turned image put it
    top_left = reg.affine @ np.array([0.35, 0.35, 1.0])
    assert np.allclose(top_left, reg.marks_px[0], atol=1.0)


def test_a_skew_near_five_degrees_on_a_scanner_with_a_margin_is_read():
    img = scan(page_image(), angle=4.8, canvas=(2400, 1900))  # the image shows a margin round the paper
    reg = register_page(img, W, H)
    assert reg.skew_deg == pytest.approx(-4.8, abs=0.05)
    assert reg.dpi == 200.0  # 2400 x 1900 px still snaps to a 200 DPI scan
    assert reg.scale[0] == pytest.approx(1.0, abs=0.003)


def test_a_mark_cut_by_the_image_edge_is_still_placed():
    img = scan(page_image(), shift_px=(-50, 0))  # the left marks lose 10 of their 40-60 px
    reg = register_page(img, W, H)
    assert _err_px(reg.affine, _true_affine(0, 1, (-50, 0))) < 1.0


def _code(img) -> ReadError:
    with pytest.raises(ReadError) as e:
        register_page(img, W, H)
    return e.value


def test_blank_sheet_has_no_registration_marks():
    err = _code(np.full((2200, 1700), 240, np.uint8))
    assert err.code == "no_registration_marks"
    assert "no registration marks found" in err.reason


def test_missing_marks_are_named_never_guessed():
    img = page_image().copy()
    img[2200 - 200 :, 1700 - 200 :] = 255  # the bottom-right mark torn off
    err = _code(img)
    assert err.code == "registration_marks_missing"
    assert "bottom-right" in err.reason and "top-left" not in err.reason


def test_missing_mark_on_an_upside_down_page_is_named_by_its_page_role():
    img = page_image().copy()
    img[2200 - 200 :, 1700 - 200 :] = 255  # the page's bottom-right
    err = _code(turn(img, 2))
    assert "bottom-right (image top-left corner)" in err.reason


def test_a_reduced_photocopy_is_refused_for_its_scale():
    img = scan(page_image(), scale=0.90)  # a 90 % copy on the same paper
    err = _code(img)
    assert err.code == "scale_out_of_range"
    assert "90.0%" in err.reason and "photocopy" in err.reason


def test_skew_beyond_the_limit_is_refused():
    # Beyond about 6 degrees the marks leave the corner windows (then they are reported
    # missing); the skew rule itself is checked on the fitted transform.
    th = math.radians(6.5)
    affine = np.array([[math.cos(th), -math.sin(th), 150.0], [math.sin(th), math.cos(th), 20.0]]) * [[200], [200]]
    affine[:, 2] = (150.0, 20.0)
    marks = [_Mark(0, 0, 0.3, 20, 240)] * 4
    with pytest.raises(ReadError) as e:
        _check(affine, 0.1, 200.0, 0, marks)
    assert e.value.code == "skew_out_of_range" and "6.5 deg" in e.value.reason


def test_two_large_marks_leave_the_orientation_unknown():
    img = page_image().copy()
    img[2200 - 130 : 2200 - 70, 1700 - 130 : 1700 - 70] = 0  # bottom-right mark grown to the large size
    err = _code(img)
    assert err.code == "orientation_unknown"


def test_marks_that_do_not_fit_one_transform_are_refused():
    img = page_image().copy()
    r, c = 2200 - 70, 1700 - 70  # move the bottom-right mark 0.1 in inward
    img[r - 20 : r + 20, c - 20 : c + 20] = 255
    img[r - 40 : r, c - 40 : c] = 0
    err = _code(img)
    assert err.code == "registration_residual" and f"{MAX_RESIDUAL_IN}" in err.reason


def test_dpi_comes_from_the_image_and_paper_size():
    assert image_dpi((2200, 1700), W, H) == (200.0, False)
    assert image_dpi((1700, 2200), W, H) == (200.0, True)
    assert image_dpi((3300, 2550), W, H)[0] == 300.0
    assert image_dpi((1000, 800), W, H)[0] == pytest.approx((800 / 8.5 + 1000 / 11) / 2)
    assert image_dpi((2400, 1900), W, H)[0] == 200.0  # a margin round the paper is not a higher DPI


def test_blur_spread_is_measured_on_the_marks():
    sharp = register_page(page_image(), W, H)
    blurred = register_page(scan(page_image(), blur=1.5), W, H)
    assert sharp.spread_px < 0.4
    assert 0.6 < blurred.spread_px < 1.6


def test_fit_is_the_least_squares_affine_of_the_four_marks():
    """The plain-float fit (a projector cached per paper size) agrees with numpy's least squares."""
    from tabulate.detect.register import _fit

    page_xy = ((0.5, 0.5), (8.0, 0.5), (8.0, 10.5), (0.5, 10.5))
    rng = np.random.default_rng(11)
    truth = np.array([[199.7, -1.3, 12.25], [1.1, 200.4, -7.5]])
    a = np.column_stack([np.array(page_xy), np.ones(4)])
    exact = [tuple(v) for v in (a @ truth.T)]
    affine, rms = _fit(page_xy, exact)
    assert np.allclose(affine, truth, rtol=0, atol=1e-9) and rms < 1e-9
    noisy = [(u + rng.normal(0, 0.8), v + rng.normal(0, 0.8)) for u, v in exact]
    affine, rms = _fit(page_xy, noisy)
    sol, *_ = np.linalg.lstsq(a, np.array(noisy), rcond=None)
    resid = a @ sol - np.array(noisy)
    assert np.allclose(affine, sol.T, rtol=0, atol=1e-9)
    assert rms == pytest.approx(float(np.sqrt(np.mean(np.sum(resid**2, axis=1)))), abs=1e-9)
    assert rms > 0.1  # four noisy points do not fit one affine exactly


def test_corner_windows_are_subsampled_exactly_as_opencvs_nearest_resize():
    """`_subsample` replaced ``cv2.resize(INTER_NEAREST)``: the same pixels for every window and step."""
    import cv2

    from tabulate.detect.register import _subsample

    rng = np.random.default_rng(5)
    page = rng.integers(0, 256, (440, 440), dtype=np.uint8)
    for step in (1, 2, 3, 4, 5, 9):
        for h, w in [(8, 8), (336, 336), (337, 335), (101, 250), (419, 97), (100, 7 * step + 1)]:
            if h < step or w < step:
                continue  # OpenCV refuses an empty result; a corner window is never smaller than a step
            window = page[3 : 3 + h, 5 : 5 + w]  # a view into the page, as register_page passes it
            expected = cv2.resize(window, (w // step, h // step), interpolation=cv2.INTER_NEAREST)
            assert np.array_equal(_subsample(window, step), expected), (step, h, w)
