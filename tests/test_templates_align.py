"""Registration pieces of template pages (issue #11): the skew the print gives, anchors at two levels."""

from __future__ import annotations

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
