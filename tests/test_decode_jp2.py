"""JPEG 2000 pages (``.jp2``, ``.j2k``): read as the same page saved as PNG, and listed as scans."""

from __future__ import annotations

import imagecodecs
import numpy as np
import pytest
from test_detect_support import election, encode, page_image

from tabulate.central.sources import IMAGE_SUFFIXES
from tabulate.detect import read_pages
from tabulate.detect.decode import decode_page, headers
from tabulate.detect.errors import ReadError


@pytest.fixture(scope="module")
def page():
    return page_image(marks=(("straight-party", "DEM", "fill"),))


@pytest.mark.parametrize("codecformat", ["jp2", "j2k"])
def test_a_lossless_jpeg2000_page_decodes_to_the_same_pixels_and_reads_the_same(page, codecformat):
    """An export keeping its ballot images as lossless JPEG 2000 was refused `not_an_image` before."""
    data = imagecodecs.jpeg2k_encode(page, level=0, codecformat=codecformat)
    (head,) = headers(data)
    assert (head.format, head.width, head.height) == ("jp2", page.shape[1], page.shape[0])
    assert np.array_equal(decode_page(data, head), page)
    e = election()
    (as_jp2,) = read_pages(e, data)
    (as_png,) = read_pages(e, encode(page, "png"))
    assert as_jp2.ok and as_png.ok
    assert [(t.option_id, t.scan, t.hand, t.score) for t in as_jp2.targets] == [
        (t.option_id, t.scan, t.hand, t.score) for t in as_png.targets
    ]


def test_a_colour_jpeg2000_page_is_read_as_grey_and_a_damaged_header_is_one_line(page):
    rgb = np.dstack([page, page, page])
    data = imagecodecs.jpeg2k_encode(rgb, level=0)
    (head,) = headers(data)
    assert np.array_equal(decode_page(data, head), page)
    with pytest.raises(ReadError) as err:
        headers(data[:40].replace(b"ihdr", b"xxxx"))
    assert err.value.code == "corrupt_image"
    assert {".jp2", ".j2k"} <= IMAGE_SUFFIXES
