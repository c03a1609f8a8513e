"""A page whose header states two resolutions (204 x 196 DPI) reads as the same page at square pixels.

31 KAR 6:030 Section 2(1): "If ballots are tabulated electronically, a vote
cast on a scan voting system shall be the choice made by a voter by: (a)
Filling in the oval or box or connecting the arrow next to the candidate's
name or the question choice". Where the oval is must not depend on the
scanner writing its pixels a little taller than wide: such a page was refused
``registration_residual`` (docs/templates.md, "The sixth round"). It is made
square on decoding (`tabulate.detect.pixel_aspect`); a page with square pixels
is left exactly as decoded.
"""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from PIL import Image
from test_detect_support import election, page_image, scan
from test_kernels import MARKS

from tabulate.ballots.vendor import simulate_vendor_sheet
from tabulate.ballots.vendor.write import write_blanks
from tabulate.detect import pixel_aspect, read_page
from tabulate.detect.decode import BitonalPage, decode_native, decode_page, headers
from tabulate.templates import TemplateReader, import_templates

ANISO = (204, 196)


def _squeeze(img: np.ndarray, dpi: int = 200, res: tuple[int, int] = ANISO) -> np.ndarray:
    """The page as a scanner at ``res`` (x, y) DPI gives it."""
    return cv2.resize(img, None, fx=res[0] / dpi, fy=res[1] / dpi, interpolation=cv2.INTER_AREA)


def _file(img: np.ndarray, fmt: str, res=ANISO) -> bytes:
    """``img`` written as ``fmt`` (grey LZW TIFF, G4 TIFF, PNG, JPEG) with ``res`` in its header."""
    buf = io.BytesIO()
    if fmt == "g4":
        Image.fromarray(img >= 128).save(buf, format="TIFF", compression="group4", dpi=res)
    elif fmt == "tiff":
        Image.fromarray(img).save(buf, format="TIFF", compression="tiff_lzw", dpi=res)
    elif fmt == "png":
        Image.fromarray(img).save(buf, format="PNG", dpi=res)
    else:
        Image.fromarray(img).save(buf, format="JPEG", quality=90, dpi=res)
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["tiff", "g4", "png", "jpeg"])
def test_each_header_states_its_two_resolutions(fmt):
    head = headers(_file(np.full((300, 200), 255, np.uint8), fmt))[0]
    assert head.resolution == pytest.approx(ANISO, abs=0.02)  # PNG: whole pixels per metre
    assert pixel_aspect.is_anisotropic(head.resolution)
    square = headers(_file(np.full((300, 200), 255, np.uint8), fmt, res=(200, 200)))[0]
    assert square.resolution == pytest.approx((200, 200), abs=0.02) and not pixel_aspect.is_anisotropic(
        square.resolution
    )


def test_the_coarser_axis_is_stretched_to_the_finer_resolution():
    assert pixel_aspect.square_size((196, 100), (204.0, 196.0)) == (100, 204)
    assert pixel_aspect.square_size((100, 196), (196.0, 204.0)) == (204, 100)
    assert not pixel_aspect.is_anisotropic((200.0, 200.9))  # within 0.5 %: a rounding of the same resolution
    assert pixel_aspect.flag((203.99, 196.01)) == "non_square_pixels_204x196"


@pytest.mark.parametrize("fmt", ["tiff", "g4", "png"])
def test_a_page_with_square_pixels_is_not_resized(fmt, monkeypatch):
    """Not a byte changed, and no resize made: the decoder's pixels as they were."""
    page = page_image(marks=MARKS[:3])
    data = _file(page, fmt, res=(200, 200))
    before = decode_page(data, headers(data)[0])

    def refuse(*a, **k):
        raise AssertionError("resized a page with square pixels")

    monkeypatch.setattr(pixel_aspect.cv2, "resize", refuse)
    head = headers(data)[0]
    after = decode_page(data, head)
    assert after.shape == page.shape and np.array_equal(after, before)
    native = decode_native(data, head)
    assert (native.grey_page() if isinstance(native, BitonalPage) else native).tobytes() == before.tobytes()
    if fmt != "g4":
        assert np.array_equal(after, page)


def test_a_g4_page_stays_two_valued_and_its_bytes_give_the_grey_page():
    data = _file(_squeeze(page_image(marks=MARKS[:3])), "g4")
    head = headers(data)[0]
    grey_page = decode_page(data, head)
    native = decode_native(data, head)
    assert isinstance(native, BitonalPage)
    assert set(np.unique(native.bits)) == {0, 1} and set(np.unique(grey_page)) == {0, 255}
    assert native.shape == grey_page.shape == (round(head.height * 204 / 196), head.width)
    assert np.array_equal(native.grey_page(), grey_page)


def _marks(reading) -> dict:
    return {(t.contest_id, t.option_id): (t.scan, t.hand) for t in reading.targets}


@pytest.mark.parametrize("fmt", ["tiff", "g4", "png"])
def test_our_own_ballot_at_204_by_196_dpi_reads_as_at_square_pixels(fmt):
    """Scanned a little taller than wide, every target reads as on the same page at 200 x 200 (as the 204 DPI
    page, within the reader's tolerance), and the reading says what the header stated."""
    page = scan(page_image(marks=MARKS[:6]), angle=0.4, blur=0.7)
    square = read_page(election(), _file(page, fmt, res=(200, 200)))
    got = read_page(election(), _file(_squeeze(page), fmt))
    assert square.ok and got.ok, got.reason
    assert _marks(got) == _marks(square)
    assert "non_square_pixels_204x196" in got.flags and not any("non_square" in f for f in square.flags)
    assert list(got.scale) == pytest.approx([k * 1.02 for k in square.scale], abs=0.01)  # square, at 204 DPI


@pytest.fixture(scope="module")
def timing(tmp_path_factory):
    """The timing family, style 1's front imported alone, and sheet 1's front as scanned (200 DPI)."""
    e = election()
    tmp = tmp_path_factory.mktemp("timing")
    blanks = write_blanks(e, "timing", tmp / "blanks", styles=("1",))
    import_templates(e, [b for b in blanks if b.name == "blank-1-p1.png"], tmp / "set", score=False)
    images, truth = simulate_vendor_sheet(e, "timing", 1, 2026, population="realistic")
    assert truth["style"] == "1" and truth["images"][0]["page"] == 1
    return e, TemplateReader(str(tmp / "set")), images[0]


@pytest.mark.parametrize("fmt", ["g4", "png"])
def test_a_template_set_page_at_204_by_196_dpi_reads_as_at_square_pixels(timing, fmt):
    """The timing family's scan is bitonal: as G4 (stays two-valued) and as a PNG (read as grey). Before, the
    template reader found 0 of 18 printed anchors on it."""
    e, reader, image = timing
    assert set(np.unique(image)) <= {0, 255}
    square = read_page(e, _file(image, fmt, res=(200, 200)), reader=reader)
    got = read_page(e, _file(_squeeze(image), fmt), reader=reader)
    assert square.ok and got.ok, got.reason
    assert _marks(got) == _marks(square)
    assert "non_square_pixels_204x196" in got.flags
