"""Decoding PNG, JPEG and TIFF pages to greyscale, and refusing what is not a page."""

from __future__ import annotations

import io
import struct
import zlib

import cv2
import numpy as np
import pytest
import simplejpeg
from PIL import Image
from test_detect_support import election, encode, page_image

from tabulate.detect import read_page, read_pages
from tabulate.detect.decode import check_size, decode_page, headers

LETTER = (8.5, 11.0)


@pytest.fixture(scope="module")
def page():
    return page_image(marks=(("straight-party", "DEM", "fill"),))


def _decode_all(data: bytes) -> list[np.ndarray]:
    return [decode_page(data, h) for h in headers(data)]


@pytest.mark.parametrize(
    "fmt,kw", [("png", {}), ("tiff", {"compression": "tiff_lzw"}), ("tiff", {"compression": "tiff_adobe_deflate"})]
)
def test_lossless_greyscale_pages_decode_exactly(page, fmt, kw):
    (img,) = _decode_all(encode(page, fmt, **kw))
    assert img.dtype == np.uint8 and np.array_equal(img, page)


def test_jpeg_decodes_to_greyscale_close_to_the_page(page):
    (img,) = _decode_all(encode(page, "jpeg", quality=90))
    assert img.shape == page.shape and img.dtype == np.uint8
    assert np.abs(img.astype(int) - page).mean() < 3


def test_colour_jpeg_and_colour_png_come_out_grey(page):
    rgb = np.dstack([page, page, page])
    (a,) = _decode_all(simplejpeg.encode_jpeg(rgb, quality=90))
    (b,) = _decode_all(cv2.imencode(".png", rgb)[1].tobytes())
    assert a.ndim == 2 and b.ndim == 2 and np.array_equal(b, page)


def test_sixteen_bit_png_is_scaled_to_eight_bits(page):
    (img,) = _decode_all(cv2.imencode(".png", page.astype(np.uint16) * 257)[1].tobytes())
    assert np.array_equal(img, page)


@pytest.mark.parametrize("miniswhite", [False, True])
def test_g4_bitonal_tiff_is_ink_dark_whatever_its_photometric(page, miniswhite):
    buf = io.BytesIO()
    bw = Image.fromarray(page).point(lambda v: 255 if v >= 128 else 0).convert("1")
    bw.save(buf, format="TIFF", compression="group4", **({"tiffinfo": {262: 0}} if miniswhite else {}))
    (img,) = _decode_all(buf.getvalue())
    assert set(np.unique(img)) == {0, 255}
    assert np.array_equal(img == 0, page < 128)


def test_multi_page_tiff_gives_every_page(page):
    buf = io.BytesIO()
    Image.fromarray(page).save(
        buf, format="TIFF", compression="tiff_lzw", save_all=True, append_images=[Image.fromarray(255 - page)]
    )
    a, b = _decode_all(buf.getvalue())
    assert np.array_equal(a, page) and np.array_equal(b, 255 - page)


def _png_header(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk + b"\x00" * 64


def _reason(data) -> tuple[str, str]:
    r = read_page(election(), data)
    assert not r.ok
    return r.reason_code, r.reason


def test_decompression_bomb_is_refused_from_its_header():
    code, reason = _reason(_png_header(50000, 60000))
    assert code == "image_too_large" and "refused before decoding" in reason


def test_a_page_size_implying_more_than_600_dpi_is_refused():
    code, reason = _reason(_png_header(8000, 10000))  # ~920 DPI on letter paper
    assert code == "image_too_large" and "DPI" in reason


def test_a_thumbnail_is_too_coarse_to_read():
    code, _ = _reason(_png_header(400, 520))
    assert code == "resolution_out_of_range"


def test_check_size_accepts_ordinary_scans():
    for w, h in ((1275, 1650), (1700, 2200), (2550, 3300), (2200, 1700)):
        check_size(headers(_png_header(w, h))[0], LETTER)


@pytest.mark.parametrize(
    "data,code",
    [
        (b"", "empty_file"),
        (b"this is a text file, not an image", "not_an_image"),
        (b"%PDF-1.7 ...", "corrupt_image"),  # a PDF, but damaged (tests/test_decode_pdf.py reads whole ones)
        (b"II+\x00" + b"\x00" * 20, "unsupported_image"),
        (b"II*\x00\xff\xff\xff\x00", "corrupt_image"),
    ],
)
def test_files_that_are_not_pages_get_a_reason(data, code):
    assert _reason(data)[0] == code


@pytest.mark.parametrize("fmt,kw", [("jpeg", {"quality": 85}), ("png", {}), ("tiff", {"compression": "tiff_lzw"})])
def test_truncated_files_are_corrupt_not_a_crash(page, fmt, kw):
    data = encode(page, fmt, **kw)
    code, reason = _reason(data[: len(data) // 2])
    assert code in ("corrupt_image", "no_registration_marks", "registration_marks_missing"), reason


def test_a_missing_file_is_unreadable(tmp_path):
    code, reason = _reason(tmp_path / "nope.png")
    assert code == "unreadable_file" and "nope.png" in reason


def test_read_pages_reads_each_page_of_a_tiff(page):
    buf = io.BytesIO()
    Image.fromarray(page).save(
        buf,
        format="TIFF",
        compression="tiff_adobe_deflate",
        save_all=True,
        append_images=[Image.fromarray(np.full_like(page, 250))],
    )
    first, second = read_pages(election(), buf.getvalue())
    assert first.ok and first.index == 0
    assert second.reason_code == "no_registration_marks" and second.index == 1
    assert first.digest == second.digest and len(first.digest) == 64


@pytest.mark.parametrize("photometric", [0, 1])
def test_bitonal_page_becomes_grey_in_one_pass_without_touching_a_read_only_array(photometric):
    from tabulate.detect.decode import _to_gray

    bits = np.random.default_rng(3).random((7, 5)) < 0.5
    expected = np.where(bits, 255, 0).astype(np.uint8)
    if photometric == 0:  # min-is-white: a set bit is ink
        expected = 255 - expected
    frozen = bits.copy()
    frozen.flags.writeable = False
    assert np.array_equal(_to_gray(frozen, photometric), expected)
    assert frozen.dtype == np.bool_ and np.array_equal(frozen, bits)
    fresh = bits.copy()
    out = _to_gray(fresh, photometric)
    assert out.dtype == np.uint8 and np.array_equal(out, expected)
