"""Print a vendor-style page: rasterize its items, timing marks and code at the design's resolution.

Drawn with Pillow's ImageDraw and the DejaVu fonts (`tabulate.ballots.vendor.fonts`);
nothing here comes from our own renderer. Grey levels: paper 255, print 0,
the shaded heading bands of the ``boxes`` family 225.
"""

from __future__ import annotations

import numpy as np
import zxingcpp
from PIL import Image, ImageDraw

from .design import CODE_BITS, DESIGNS, TIMING_EDGE_IN, TIMING_MARK_IN, TIMING_PITCH_IN
from .fonts import font
from .pages import VendorBallot, VendorPage


def _box(
    d: ImageDraw.ImageDraw,
    dpi: int,
    x: float,
    y: float,
    w: float,
    h: float,
    fill=None,
    outline=None,
    width: float = 0.0,
) -> None:
    xy = [x * dpi, y * dpi, (x + w) * dpi - 1, (y + h) * dpi - 1]
    d.rectangle(xy, fill=fill, outline=outline, width=max(1, round(width * dpi)) if outline is not None else 0)


def _item(d: ImageDraw.ImageDraw, img: Image.Image, dpi: int, it: tuple, ink=0) -> None:
    kind = it[0]
    if kind == "rect":
        _box(d, dpi, *it[1:5], fill=ink)
    elif kind == "shade":
        _box(d, dpi, *it[1:5], fill=it[5])
    elif kind == "frame":
        _box(d, dpi, *it[1:5], outline=ink, width=it[5])
    elif kind == "oval":
        x, y, w, h, lw = it[1:6]
        d.ellipse([x * dpi, y * dpi, (x + w) * dpi, (y + h) * dpi], outline=ink, width=max(1, round(lw * dpi)))
    elif kind == "rrect":
        x, y, w, h, lw, r = it[1:7]
        d.rounded_rectangle(
            [x * dpi, y * dpi, (x + w) * dpi, (y + h) * dpi], radius=r * dpi, outline=ink, width=max(1, round(lw * dpi))
        )
    elif kind == "disc":
        x, y, w, h = it[1:5]
        d.ellipse([x * dpi, y * dpi, (x + w) * dpi, (y + h) * dpi], fill=ink)
    elif kind == "line":
        x0, y0, x1, y1, lw = it[1:6]
        d.line([x0 * dpi, y0 * dpi, x1 * dpi, y1 * dpi], fill=ink, width=max(1, round(lw * dpi)))
    elif kind == "poly":
        d.polygon([(x * dpi, y * dpi) for x, y in it[1]], fill=ink)
    elif kind in ("text", "text_r", "text_c", "text_m"):
        x, y, text, pt, bold = it[1:6]
        f = font(round(pt * dpi / 72), bold)
        anchor = {"text": "la", "text_r": "ra", "text_c": "ma", "text_m": "mm"}[kind]
        d.text((x * dpi, y * dpi), text, fill=ink, font=f, anchor=anchor)
    else:
        raise ValueError(f"unknown drawing item {kind!r}")


def _qr(img: Image.Image, dpi: int, page: VendorPage) -> None:  # pasted as grey: Pillow converts it on RGB
    bc = zxingcpp.create_barcode(page.code_text, zxingcpp.BarcodeFormat.QRCode, ec_level="M")
    mods = np.asarray(bc.to_image(scale=1, add_quiet_zones=False))
    r = page.code_rect
    side = round(r.w * dpi)
    sym = Image.fromarray(np.where(mods < 128, 0, 255).astype(np.uint8)).resize((side, side), Image.Resampling.NEAREST)
    img.paste(sym, (round(r.x * dpi), round(r.y * dpi)))


def timing_positions(width_in: float, height_in: float) -> dict[str, list[tuple[float, float]]]:
    """Centres of the timing marks (page inches): ``left``, ``right``, ``top`` and the ``bottom`` code row
    (a start mark, `CODE_BITS` code positions, a stop mark)."""
    p, e = TIMING_PITCH_IN, TIMING_EDGE_IN
    rows = [k * p for k in range(2, int(height_in / p) - 1)]
    cols = [e + k * p for k in range(1, int((width_in - 2 * e) / p))]
    bottom = [(e + k * p, height_in - e) for k in range(2, 2 + CODE_BITS + 2)]
    return {
        "left": [(e, y) for y in rows],
        "right": [(width_in - e, y) for y in rows],
        "top": [(x, e) for x in cols],
        "bottom": bottom,
    }


def _timing(d: ImageDraw.ImageDraw, dpi: int, page: VendorPage) -> None:
    mw, mh = TIMING_MARK_IN
    pos = timing_positions(page.width_in, page.height_in)
    for side in ("left", "right"):
        for x, y in pos[side]:
            _box(d, dpi, x - mw / 2, y - mh / 2, mw, mh, fill=0)
    for x, y in pos["top"]:
        _box(d, dpi, x - mh / 2, y - mw / 2, mh, mw, fill=0)
    bits = "1" + page.code_text + "1"  # start and stop marks are always filled
    for (x, y), bit in zip(pos["bottom"], bits):
        if bit == "1":
            _box(d, dpi, x - mh / 2, y - mw / 2, mh, mw, fill=0)
        else:
            _box(d, dpi, x - mh / 2, y - mw / 2, mh, mw, outline=0, width=0.012)


def print_page(ballot: VendorBallot, page: VendorPage, dpi: int | None = None, colour: bool = False) -> np.ndarray:
    """The page as printed: uint8 greyscale, 255 = paper, one pixel per 1/dpi inch.

    Targets printed in a drop-out colour (``Design.target_rgb``) are drawn at the grey a colour-dropout
    scanner sees them at (``Design.dropout_grey``); with ``colour`` the page is RGB (H, W, 3) as printed.
    """
    design = DESIGNS[ballot.family]
    dpi = dpi or design.dpi
    size = (round(page.width_in * dpi), round(page.height_in * dpi))
    img = Image.new("RGB", size, (255, 255, 255)) if colour else Image.new("L", size, 255)
    d = ImageDraw.Draw(img)
    black = (0, 0, 0) if colour else 0
    tint = (design.target_rgb or black) if colour else design.dropout_grey
    if design.security_tint:
        _security_tint(d, dpi, page, design.security_tint, colour)
    for it in page.items:
        if it[0] == "shade":  # a tinted band (``Design.shade_rgb``) as printed, or as the scanner sees it
            band = design.shade_rgb if design.shade_rgb is not None else None
            grey = design.shade_grey if band is not None else it[5]
            _item(d, img, dpi, it[:5] + ((band or (grey,) * 3) if colour else grey,))
    for it in page.items:
        if it[0] == "target":
            _item(d, img, dpi, it[1], tint)
        elif it[0] != "shade":
            _item(d, img, dpi, it, black)
    if design.code == "qr":
        _qr(img, dpi, page)
    elif design.code == "timing":
        _timing(d, dpi, page)
    return np.asarray(img, dtype=np.uint8).copy()


#: The security tint's wavy lines: this far apart (inches), their wave this high and this long, inside this margin.
TINT_PITCH_IN, TINT_WAVE_IN, TINT_PERIOD_IN, TINT_MARGIN_IN = 0.1, 0.03, 0.4, 0.45


def _security_tint(d: ImageDraw.ImageDraw, dpi: int, page: VendorPage, grey: int, colour: bool) -> None:
    """Thin wavy lines at ``grey`` across the page inside `TINT_MARGIN_IN` (``Design.security_tint``)."""
    x0, x1 = TINT_MARGIN_IN * dpi, (page.width_in - TINT_MARGIN_IN) * dpi
    xs = np.arange(x0, x1, max(1.0, dpi / 50))
    fill = (grey,) * 3 if colour else grey
    y = TINT_MARGIN_IN
    while y < page.height_in - TINT_MARGIN_IN:
        ys = (y + TINT_WAVE_IN * np.sin(2 * np.pi * xs / (TINT_PERIOD_IN * dpi))) * dpi
        d.line(list(zip(xs.tolist(), ys.tolist())), fill=fill, width=max(1, round(0.006 * dpi)))
        y += TINT_PITCH_IN
