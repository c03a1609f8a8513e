"""The template reader's fast paths give what the slow ones gave (issue #11: a template page at most 2x a
native page): the 300 -> 100 DPI step by slicing, a timing code's windows in one gather, the page code
read before the fit at 150 DPI in the set's own symbology, and matching's differing pixels made once."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest
import zxingcpp

from tabulate.election.geometry import Rect
from tabulate.templates.align import closer_share, shrink
from tabulate.templates.codes import code_format, read_code, read_qr_near
from tabulate.templates.likeness import differs_toward
from tabulate.templates.model import PageCode


@pytest.mark.parametrize("shape", [(3420, 2670), (3300, 2550), (99, 57), (600, 903)])
def test_an_odd_whole_step_down_is_the_linear_resample_to_the_byte(shape):
    rng = np.random.default_rng(sum(shape))
    image = rng.integers(0, 256, shape).astype(np.uint8)
    for px, dpi in ((300.0, 100.0), (900.0, 100.0), (600.0, 100.0), (300.0, 50.0)):
        f = 1.0
        ref = image
        while px * f >= 4 * dpi:  # the pyramid steps `shrink` takes first, then one linear resample
            ref = cv2.pyrDown(ref)
            f /= 2
        size = (max(8, round(ref.shape[1] * dpi / (px * f))), max(8, round(ref.shape[0] * dpi / (px * f))))
        expected = cv2.resize(ref, size, interpolation=cv2.INTER_LINEAR)
        assert np.array_equal(shrink(image, px, dpi), expected), (shape, px, dpi)


def test_a_page_not_made_of_whole_blocks_is_still_resampled_linearly():
    # 550 = 183.3 blocks of 3: OpenCV's scale is then 183 / 550, not 1 / 3, and its samples drift off the
    # pixel centres; slicing would give other bytes, so the linear resample stays.
    image = np.random.default_rng(1).integers(0, 256, (454, 550)).astype(np.uint8)
    expected = cv2.resize(image, (183, 151), interpolation=cv2.INTER_LINEAR)
    assert np.array_equal(shrink(image, 300.0, 100.0), expected)


def _bits_one_by_one(image, affine, code, split):
    """The timing code's reading mark by mark (the former loop, kept here as the oracle)."""
    sx = float(np.hypot(*affine[:, 0]))
    rx = max(1, int(code.mark_size[0] * sx * 0.2))
    ry = max(1, int(code.mark_size[1] * sx * 0.25))
    bits = []
    for x, y in code.marks:
        col, row = (round(float(v)) for v in affine @ np.array([x, y, 1.0]))
        win = image[max(0, row - ry) : row + ry + 1, max(0, col - rx) : col + rx + 1]
        if win.size == 0:
            return None
        bits.append("1" if float(np.mean(win < split)) > 0.6 else "0")
    return "".join(bits)


def test_timing_code_windows_in_one_gather_read_as_one_by_one_even_where_the_edge_cuts_them():
    rng = np.random.default_rng(2026)
    read = 0
    for _ in range(300):
        h, w = (int(v) for v in rng.integers(60, 240, 2))
        image = rng.integers(0, 256, (h, w)).astype(np.uint8)
        # Marks anywhere from just off the image to just past it: windows whole, cut by an edge, or empty.
        marks = tuple(
            (float(rng.uniform(-0.2, w / 100 + 0.2)), float(rng.uniform(-0.2, h / 100 + 0.2)))
            for _ in range(int(rng.integers(1, 12)))
        )
        code = PageCode("timing", "", Rect(0, 0, 1, 1), marks, (float(rng.uniform(0.02, 0.2)), 0.2))
        a = float(rng.uniform(-0.05, 0.05))
        s = float(rng.uniform(95, 105))
        affine = np.array([[s * np.cos(a), -s * np.sin(a), 2.0], [s * np.sin(a), s * np.cos(a), -3.0]])
        expected = _bits_one_by_one(image, affine, code, 120.0)
        assert read_code(image, affine, code, 200.0, 40.0) == expected
        read += expected is not None
    assert 50 < read < 300  # both outcomes were exercised


def _page_with_qr(text: str, module_px: int, dpi: float = 300.0) -> tuple[np.ndarray, Rect]:
    """A letter page at ``dpi`` with a QR symbol of ``text`` (``module_px`` pixels a module) 0.4 in from the
    left and 0.35 in from the bottom, as the boxes family prints it."""
    page = np.full((int(11 * dpi), int(8.5 * dpi)), 235, np.uint8)
    sym = np.asarray(zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.QRCode).to_image(scale=module_px))
    x0, y0 = int(0.4 * dpi), int(page.shape[0] - 0.35 * dpi - sym.shape[0])
    page[y0 : y0 + sym.shape[0], x0 : x0 + sym.shape[1]] = np.where(sym < 128, 30, 235)
    return page, Rect(x0 / dpi, y0 / dpi, sym.shape[1] / dpi, sym.shape[0] / dpi)


def test_the_page_code_is_read_before_the_fit_at_150_dpi_in_the_symbology_the_blank_prints():
    text = "KYV|ELECTION-2026|STYLE-12|P1"
    page, rect = _page_with_qr(text, module_px=8)
    code = PageCode("qr", text, rect)
    fmt = code_format(page, 300.0, code)
    assert fmt == zxingcpp.BarcodeFormat.QRCode
    upright = np.array([[300.0, 0.0, 0.0], [0.0, 300.0, 0.0]])
    assert read_qr_near(page, upright, rect, formats=zxingcpp.BarcodeFormats([fmt]), dpi=300.0) == text
    # A set printing only Code 128 never takes this QR symbol for its code.
    assert read_qr_near(page, upright, rect, formats=zxingcpp.BarcodeFormats([zxingcpp.BarcodeFormat.Code128])) is None
    # The timing row of a timing-code page has no bar code symbology.
    assert code_format(page, 300.0, PageCode("timing", "0101", rect)) is None


def test_a_code_too_fine_for_150_dpi_is_not_lost_it_is_read_after_the_fit_at_the_scans_resolution():
    # Modules of two 300 DPI pixels (0.0067 in) are one pixel at 150 DPI: the first, cheap read misses it
    # and the page is identified by its fit, after which `read_code` reads the crop as scanned.
    text = "KYV|STYLE-3|P2"
    page, rect = _page_with_qr(text, module_px=2)
    # One pixel to the right (each module then straddles two of the 150 DPI pixels), blurred as scanned.
    page = cv2.GaussianBlur(np.roll(page, 1, axis=1), (0, 0), 0.6)
    upright = np.array([[300.0, 0.0, 0.0], [0.0, 300.0, 0.0]])
    assert read_qr_near(page, upright, rect, dpi=300.0) is None
    assert read_code(page, upright, PageCode("qr", text, rect), 235.0, 30.0) == text


def test_pixels_where_two_blanks_differ_give_the_whole_frames_share_and_correlation(monkeypatch):
    from tabulate.templates import matching

    rng = np.random.default_rng(7)
    a = np.zeros((70, 50), np.float32)
    b = a.copy()
    a[10:20, 5:30] = 255.0  # a name only the first blank prints
    b[40:52, 8:40] = 255.0  # a contest only the second prints
    frame = np.clip(a + rng.normal(0, 40, a.shape), 0, 255).astype(np.float32)
    blanks = {"A": a, "B": b}
    monkeypatch.setattr(matching, "prepared", lambda tset, p: SimpleNamespace(match=blanks[p.key]))
    where = matching.differing(
        SimpleNamespace(folder="test-differing"), SimpleNamespace(key="A"), SimpleNamespace(key="B")
    )
    assert len(where) == 10 * 25 + 12 * 32
    f, av, bv = frame.ravel()[where], a.ravel()[where], b.ravel()[where]
    assert closer_share(f, av, bv) == closer_share(frame, a, b)
    assert differs_toward(f, av, bv) == pytest.approx(differs_toward(frame, a, b), abs=1e-12)
