"""A bitonal page read as its decoder's 0/1 bytes reads exactly as the same page converted to grey.

31 KAR 6:030 Section 3(1): "The following marks made by a voter shall
constitute a vote ... (a) The majority of an oval, box, or space designating a
candidate or question choice is filled in". Whether a G4 page's pixels reach
the reader as 0/255 grey or as the decoder's own 0/1 bytes with their grey
levels (`tabulate.detect.decode.BitonalPage`), every number the reader works
out, and so every class and every clause, must be the same: the conversion
was dropped for speed only (docs/perf.md, "This round (branch g4direct)").
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from test_detect_support import election, encode, page_image, scan, turn
from test_kernels import MARKS

from tabulate.detect import read_image
from tabulate.detect.decode import BitonalPage, decode_native, decode_page, grey, headers
from tabulate.detect.identify import code_crop
from tabulate.detect.register import register_page
from tabulate.detect.streaks import streak_columns
from tabulate.detect.template import page_template
from tabulate.kernels import offsets_by_distance, score_targets


def _g4(page: np.ndarray, miniswhite: bool) -> bytes:
    buf = io.BytesIO()
    bw = Image.fromarray(page).point(lambda v: 255 if v >= 128 else 0).convert("1")
    bw.save(buf, format="TIFF", compression="group4", dpi=(200, 200), **({"tiffinfo": {262: 0}} if miniswhite else {}))
    return buf.getvalue()


def _page(turns: int = 0, streak: bool = True) -> np.ndarray:
    """A scanned page with marks, specks and (``streak``) a scanner streak, thresholded as a bitonal scanner does."""
    grey_page = scan(page_image(marks=MARKS[:5]), angle=0.7, blur=0.8)
    page = np.where(grey_page < 150, 0, 255).astype(np.uint8)
    page[np.random.default_rng(7).random(page.shape) < 0.004] = 0
    if streak:
        page[:, 401:404] = 0
    return turn(page, turns)


@pytest.mark.parametrize("miniswhite", [False, True])
def test_a_g4_page_decodes_to_its_own_bytes_and_their_levels_give_the_grey_page(miniswhite):
    data = _g4(_page(), miniswhite)
    (h,) = headers(data)
    native, expected = decode_native(data, h), decode_page(data, h)
    assert isinstance(native, BitonalPage) and native.bits.dtype == np.uint8
    assert set(np.unique(native.bits)) == {0, 1} and native.shape == expected.shape
    assert list(native.levels) == ([255, 0] if miniswhite else [0, 255])
    assert np.array_equal(native.grey_page(), expected)
    region = native.bits[5:300:3, 7:250:3]  # a strided view, as a corner window's subsample is
    assert np.array_equal(grey(region, native.levels), expected[5:300:3, 7:250:3])
    assert grey(region, native.levels).flags.c_contiguous


def test_a_grey_page_decodes_native_as_grey():
    data = encode(_page(streak=False), "jpeg", quality=90)
    (h,) = headers(data)
    assert np.array_equal(decode_native(data, h), decode_page(data, h))


@pytest.mark.parametrize("miniswhite", [False, True])
@pytest.mark.parametrize("turns", [0, 2])
def test_every_step_reads_the_bytes_as_it_reads_the_grey_page(miniswhite, turns):
    page = _page(turns)
    bits = (page == 0 if miniswhite else page == 255).astype(np.uint8)
    levels = np.array([255, 0] if miniswhite else [0, 255], np.uint8)
    reg, reg_bits = register_page(page, 8.5, 11.0), register_page(bits, 8.5, 11.0, levels=levels)
    assert reg_bits.evidence() == reg.evidence() and reg_bits.spread_px == reg.spread_px
    streaks = streak_columns(page, reg.dpi, reg.paper, reg.ink)
    assert streaks[401:404].all() if turns == 0 else streaks[-404:-401].all()  # the streak is seen either way
    assert np.array_equal(streak_columns(bits, reg.dpi, reg.paper, reg.ink, levels=levels), streaks)
    crop = code_crop(page, reg.affine, 8.5, 11.0, streaks)
    assert np.array_equal(code_crop(bits, reg.affine, 8.5, 11.0, streaks, levels), crop)
    tpl = page_template(election(), "1", 1, 200)
    skip = streaks.copy()
    for paper, ink in ((reg.paper, reg.ink), (231.0, 37.5)):
        kw = dict(paper=paper, ink=ink, split=0.25, residue=0.08, offsets=offsets_by_distance(2), skip_cols=skip)
        want = score_targets(page, reg.affine, tpl.points, **kw)
        got = score_targets(bits, reg.affine, tpl.points, levels=levels, **kw)
        assert np.array_equal(got, want)  # every feature of every target, bit for bit
    assert (want[:, 0] > 0.5).any() and (want[:, 0] < 0.05).any()  # the page has marked and empty targets


@pytest.mark.parametrize("miniswhite", [False, True])
def test_reading_a_g4_page_as_its_bytes_gives_the_same_reading(miniswhite):
    data = _g4(_page(), miniswhite)
    (h,) = headers(data)
    native, grey_page = decode_native(data, h), decode_page(data, h)
    a, b = read_image(election(), native), read_image(election(), grey_page)
    assert a.ok and a == b  # every target's score, features, classes and clauses; the page's geometry and flags
    assert any(t.scan == "marked" for t in a.targets)


@pytest.mark.parametrize("step", [1, 2, 3, 4])
def test_a_corner_window_of_the_bytes_subsamples_to_the_grey_windows_pixels(step):
    """(`_subsample` itself is held to OpenCV's nearest resize in test_detect_register, regular picks or not.)"""
    import cv2

    from tabulate.detect.register import _subsample

    page = _page()
    bits, levels = (page == 0).astype(np.uint8), np.array([255, 0], np.uint8)
    for r0, c0, size in ((0, 0, 280), (1900, 1400, 281), (5, 1399, 283)):
        window = page[r0 : r0 + size, c0 : c0 + size]
        assert window.shape == (size, size)
        want = cv2.resize(window, (size // step, size // step), interpolation=cv2.INTER_NEAREST)
        assert np.array_equal(_subsample(window, step), want)
        assert np.array_equal(grey(_subsample(bits[r0 : r0 + size, c0 : c0 + size], step), levels), want)


def test_reading_the_bytes_uses_the_kernels_warm_loads():
    """`warm` (run in the scan's forkserver) must load what reading a bitonal page's bytes calls too."""
    from tabulate.kernels import _marks, _targets, warm

    kernels = (_marks.mark_components_kernel, _marks.refine_mark_kernel, _targets.score_targets_kernel)
    warm()
    after_warm = [set(k.signatures) for k in kernels]
    data = _g4(_page(), False)
    assert read_image(election(), decode_native(data, headers(data)[0])).ok
    assert [set(k.signatures) for k in kernels] == after_warm
