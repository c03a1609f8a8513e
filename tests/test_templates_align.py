"""Registration pieces of template pages (issue #11): the skew the print gives, anchors at two levels."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tabulate.templates.align import FINE_DPI, anchors, half_image, print_angle, refine


def _ruled_page(dpi: float = 50.0) -> np.ndarray:
    """A letter page at ``dpi``: timing marks down both edges, ruled boxes, lines of "text" (dashes)."""
    w, h = int(8.5 * dpi), int(11 * dpi)
    img = np.full((h, w), 240, np.uint8)
    for y in np.arange(0.5, 10.5, 0.25):
        for x in (0.25, 8.1):
            cv2.rectangle(img, (int(x * dpi), int(y * dpi)), (int((x + 0.15) * dpi), int((y + 0.06) * dpi)), 20, -1)
    for x0, y0 in ((0.8, 0.8), (4.5, 0.8), (0.8, 5.5), (4.5, 5.5)):
        cv2.rectangle(img, (int(x0 * dpi), int(y0 * dpi)), (int((x0 + 3.2) * dpi), int((y0 + 4.2) * dpi)), 20, 2)
        for k, y in enumerate(np.arange(y0 + 0.4, y0 + 4.0, 0.35)):
            x1 = x0 + 0.6 + 0.1 * (k % 4)
            cv2.line(img, (int(x1 * dpi), int(y * dpi)), (int((x1 + 1.8) * dpi), int(y * dpi)), 30, 1)
            cv2.ellipse(img, (int((x0 + 0.3) * dpi), int(y * dpi)), (5, 3), 0, 0, 360, 30, 1)
    return img


def _turn(img: np.ndarray, angle: float, scale: float = 1.0) -> np.ndarray:
    h, w = img.shape
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    return cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=240)


@pytest.mark.parametrize("angle", [-3.0, -1.3, 0.0, 0.6, 2.2, 3.0])
def test_the_print_gives_the_skew_in_one_pass(angle):
    # getRotationMatrix2D turns counter-clockwise on screen: the page's x axis then points up, a negative skew.
    page = _ruled_page()
    assert abs(print_angle(_turn(page, angle)) + angle) < 0.2
    # A quarter turn does not change it (the print's lines run both ways).
    assert abs(print_angle(np.ascontiguousarray(np.rot90(_turn(page, angle)))) + angle) < 0.2


def test_a_blank_page_has_no_skew_to_give():
    assert print_angle(np.full((100, 80), 240, np.uint8)) == 0.0


def test_anchors_found_at_half_then_full_resolution_fit_the_page():
    """A coarse fit a twentieth of an inch and half a degree off: the half-resolution search finds the
    anchors, the narrow full-resolution one makes the fit exact (residual well under 0.02 in)."""
    blank = _ruled_page(FINE_DPI)
    anc = anchors(255.0 - blank.astype(np.float32), [])
    assert len(anc) >= 10 and all(a.half.shape == (25, 25) and a.patch.dtype == np.uint8 for a in anc)
    dpi = 200.0
    truth = cv2.getRotationMatrix2D((850, 1100), 1.5, 1.02)  # image px -> image px, about the centre
    page = cv2.warpAffine(cv2.resize(blank, (1700, 2200)), truth, (1700, 2200), borderValue=240)
    exact = truth @ np.array([[dpi, 0, 0], [0, dpi, 0], [0, 0, 1.0]])  # page inches -> image px
    start = cv2.getRotationMatrix2D((850, 1100), 1.0, 1.0) @ np.array([[dpi, 0, 10], [0, dpi, -8], [0, 0, 1.0]])
    fine = cv2.resize(page, (850, 1100), interpolation=cv2.INTER_AREA)
    rough, rms0, n0 = refine(half_image(fine), start, dpi, anc, coarse_level=True)
    fit, rms, n = refine(fine, rough, dpi, anc, 0.03)
    assert n0 >= 6 and n >= 6 and rms < 0.004
    corners = np.array([[0, 0, 1], [8.5, 11, 1], [8.5, 0, 1]]).T
    assert np.abs(fit @ corners - exact @ corners).max() < 0.01 * dpi  # within a hundredth of an inch


def test_a_fit_that_puts_the_template_paper_off_the_image_is_refused():
    """A template slid 3 in down the page (its rules on another template's print) is the wrong page.

    Found on the arrows family: style 2's back page, whose contests are style 1's lower ones, fitted a
    style-1 back page 3 in lower with a tiny residual; the sheet was then refused ``pages_disagree``.
    """
    from tabulate.detect.errors import ReadError
    from tabulate.templates.placement import check_on_image as _check_on_image

    dpi, shape = 200.0, (2880, 1780)  # legal paper at 200 DPI, a small border
    on_page = np.array([[dpi, 0.0, 20.0], [0.0, dpi, 40.0]])
    _check_on_image(shape, on_page, dpi, 8.5, 14.0)  # the page where it is: accepted
    nudged = on_page + np.array([[0, 0, 0.3 * dpi], [0, 0, -0.3 * dpi]])
    _check_on_image(shape, nudged, dpi, 8.5, 14.0)  # 0.3 in off an edge (a trimmed border): accepted
    slid = on_page + np.array([[0, 0, 0], [0, 0, 3.0 * dpi]])
    with pytest.raises(ReadError) as e:
        _check_on_image(shape, slid, dpi, 8.5, 14.0)
    assert e.value.code == "registration_residual" and "off the scanned image" in e.value.reason


def test_scouts_spread_over_the_page_strongest_first_not_the_strongest_bunch():
    """The half-resolution search places the scouts: the strongest anchor, then each time the one
    farthest from those taken, so a page's strongest print bunched in one box does not pin the fit."""
    from tabulate.templates.align import SCOUT_ANCHORS, AnchorStack, scout_order

    bunch = [(1.0 + 0.1 * i, 1.0 + 0.05 * i) for i in range(10)]  # the strongest ten, in one corner
    far = [(7.5, 1.0), (1.0, 10.0), (7.5, 10.0), (4.2, 5.5)]
    xy = np.array(bunch + far)
    order = scout_order(xy)
    assert sorted(order.tolist()) == list(range(len(xy)))  # every anchor once
    assert order[0] == 0  # the strongest first
    assert set(order[1:4].tolist()) == {10, 11, 12}  # then the far corners, before any of the bunch
    patches = np.arange(len(xy) * 51 * 51).reshape(len(xy), 51, 51).astype(np.uint8)
    stack = AnchorStack(xy, patches, np.zeros((len(xy), 25, 25), np.uint8))
    assert len(stack.scouts.xy) == SCOUT_ANCHORS == 9
    assert {tuple(p) for p in stack.scouts.xy} >= set(far)
    assert np.array_equal(stack.scouts.patches[1], patches[order[1]])
    # The narrow search's patches: each anchor's central 0.35 in, on the same centre pixel.
    assert stack.cores.shape == (len(xy), 35, 35)
    assert np.array_equal(stack.cores[:, 17, 17], patches[:, 25, 25])
    assert np.array_equal(stack.cores[:, 0, 0], patches[:, 8, 8])


def test_anchors_central_squares_fit_the_page_as_the_whole_patches_do():
    """The full-resolution search matches each anchor's central square only: the fit stays within
    a few thousandths of an inch of the whole patches' (the same page as the test above)."""
    import tabulate.templates.align as align

    blank = _ruled_page(FINE_DPI)
    anc = anchors(255.0 - blank.astype(np.float32), [])
    dpi = 200.0
    truth = cv2.getRotationMatrix2D((850, 1100), 1.5, 1.02)
    page = cv2.warpAffine(cv2.resize(blank, (1700, 2200)), truth, (1700, 2200), borderValue=240)
    exact = truth @ np.array([[dpi, 0, 0], [0, dpi, 0], [0, 0, 1.0]])
    fine = cv2.resize(page, (850, 1100), interpolation=cv2.INTER_AREA)
    stack = align.AnchorStack.of(anc)
    whole = align.AnchorStack(stack.xy, stack.patches, stack.halves)
    whole.__dict__["cores"] = stack.patches  # the whole patch as its own "core": the fit before this round
    start = exact + np.array([[0, 0, 2.0], [0, 0, -1.5]])  # within the narrow search's reach
    fit_core, rms_core, n_core = refine(fine, start, dpi, stack, 0.03)
    fit_whole, rms_whole, n_whole = refine(fine, start, dpi, whole, 0.03)
    # On this page of repeated dashes a central square can slide along its line: the fit trims those
    # (13 of 18 kept here), and what it keeps places the page as well as every whole patch does.
    assert n_core >= 12 and n_whole == len(anc) and rms_core < 0.004 and rms_whole < 0.004
    corners = np.array([[0, 0, 1], [8.5, 11, 1], [8.5, 0, 1], [0, 11, 1]]).T
    assert np.abs(fit_core @ corners - exact @ corners).max() < 0.005 * dpi
    assert np.abs(fit_core @ corners - fit_whole @ corners).max() < 0.005 * dpi


def test_a_scout_fit_that_leaves_the_narrow_fit_loose_or_short_is_made_again_from_every_anchor(monkeypatch):
    """`fit_anchors` keeps the scouts' fit only when the narrow fit it leads to is tight and keeps
    enough anchors (a wrong scout surviving the least-median fit of nine put arrows sheet 134's back
    page 1.8 % narrow at 0.016 in); else the wide search is made again with every anchor."""
    import tabulate.templates.align as align

    xy = np.array([(1.0 + 0.4 * i, 1.0 + 0.5 * (i % 5)) for i in range(18)])
    stack = align.AnchorStack(xy, np.zeros((18, 51, 51), np.uint8), np.zeros((18, 25, 25), np.uint8))
    fit = np.eye(2, 3)
    for first, again in (((0.0005, 18), False), ((0.016, 18), True), ((0.0005, 13), True), ((math.inf, 3), True)):
        calls = []

        def chain(fine, half, start, dpi, whole, wide, first=first, calls=calls):
            calls.append(len(wide.xy))
            return (fit, *first) if len(calls) == 1 else (fit, 0.0004, 18)

        monkeypatch.setattr(align, "_wide_then_narrow", chain)
        align.fit_anchors(None, None, fit, 200.0, stack, 14)
        assert calls == ([9, 18] if again else [9])


def test_median_is_numpys_to_the_last_bit():
    """`align.median` replaces ``np.median`` in the anchors' trimming and the print spread: the fit and the
    spread must not move by a bit (odd and even counts, values of every size, ties)."""
    from tabulate.templates.align import median

    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 8, 9, 17, 18):
        for scale in (1e-4, 1.0, 3e3):
            v = rng.normal(0.0, scale, n)
            assert median(v) == float(np.median(v))
            tied = np.round(v, 1)
            assert median(tied) == float(np.median(tied))
