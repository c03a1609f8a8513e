"""The county's published "SAMPLE BALLOT": the blank pages as a county posts them, not as the voters get them.

Counties publish their sample ballots as PDFs before an election, and those are
often the only blank pages at hand for a template set. They differ from the
printed ballot in what a voted scan never shows: a grey diagonal "SAMPLE
BALLOT" watermark across the page, "SAMPLE BALLOT" in place of the
"OFFICIAL BALLOT" heading, a footer saying the ballot cannot be voted, and
often no ballot code. `stamp_sample` draws those on a blank page
(``Design.sample_grey``, ``Design.sample_code``); the voted sheets are printed
without them, as the county's real ballots are.
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw

from .design import Design
from .fonts import font
from .pages import VendorPage

WATERMARK = "SAMPLE BALLOT"
#: The watermark's letters are as tall as this share of the page's width.
WATERMARK_HEIGHT = 0.12


def _paper_white(img: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> None:
    img[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = 255


def _watermark(shape: tuple[int, int], dpi: int, grey: int) -> np.ndarray:
    """A page-sized grey layer (255 = nothing) with `WATERMARK` across the page's diagonal."""
    h, w = shape
    size = round(w * WATERMARK_HEIGHT)
    f = font(size, True)
    left, top, right, bottom = f.getbbox(WATERMARK)
    text = Image.new("L", (right - left + 2 * size, bottom - top + 2 * size), 255)
    ImageDraw.Draw(text).text((size - left, size - top), WATERMARK, fill=grey, font=f)
    turned = text.rotate(math.degrees(math.atan2(h, w)), expand=True, fillcolor=255, resample=Image.Resampling.BILINEAR)
    layer = Image.new("L", (w, h), 255)
    layer.paste(turned, ((w - turned.width) // 2, (h - turned.height) // 2))
    return np.asarray(layer, dtype=np.uint8)


def stamp_sample(img: np.ndarray, page: VendorPage, design: Design) -> np.ndarray:
    """``img`` (a printed blank page, grey or RGB) as the county's sample ballot shows it."""
    dpi = design.dpi
    out = img.copy()
    w_in, h_in = page.width_in, page.height_in
    # "SAMPLE BALLOT" where the ballot prints "OFFICIAL BALLOT" (`place._page_furniture`: 0.32 in down).
    _paper_white(out, round(1.2 * dpi), round(0.25 * dpi), round((w_in - 1.2) * dpi), round(0.56 * dpi))
    if not design.sample_code and design.code == "qr":
        r = page.code_rect
        _paper_white(out, round(r.x * dpi), round(r.y * dpi), round(r.right * dpi), round(r.bottom * dpi))
    layer = Image.new("L", (out.shape[1], out.shape[0]), 255)
    d = ImageDraw.Draw(layer)
    d.text((w_in / 2 * dpi, 0.30 * dpi), "SAMPLE BALLOT", fill=0, font=font(round(14 * dpi / 72), True), anchor="ma")
    foot = "This is a sample ballot. It cannot be voted."
    d.text((w_in / 2 * dpi, (h_in - 0.5) * dpi), foot, fill=0, font=font(round(7 * dpi / 72)), anchor="ma")
    print_ = np.minimum(np.asarray(layer, dtype=np.uint8), _watermark(out.shape[:2], dpi, design.sample_grey))
    if out.ndim == 3:
        print_ = print_[:, :, None]
    return np.minimum(out, print_)  # the stamp is printed over the page: the darker ink wins
