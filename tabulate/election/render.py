"""Render a page layout to a grayscale image: the printed, unvoted ballot.

Rendering is a pure function of (election, layout page, precinct, dpi): the
same inputs give the same pixels, so detection can re-render a blank page as
the reference for "ink beyond what is printed".
"""

from __future__ import annotations

import io
import zlib
from functools import lru_cache
from pathlib import Path

import numpy as np
import zxingcpp
from PIL import Image, ImageDraw

from .geometry import StyleCode
from .layout import OUTLINE_IN, BallotLayout, PageLayout
from .model import Election
from .text import POINTS_PER_INCH, font


def style_code_text(election: Election, style_id: str, precinct_id: str, page: int) -> str:
    return StyleCode(election.hash_prefix, style_id, precinct_id, page).encode()


@lru_cache(maxsize=256)
def _qr_modules(text: str) -> np.ndarray:
    """The QR symbol's modules (True = dark), without quiet zone."""
    bc = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.QRCode, ec_level="M")
    img = np.asarray(bc.to_image(scale=1, add_quiet_zones=False))
    return img < 128


def _px(v_in: float, dpi: float) -> int:
    return int(round(v_in * dpi))


def render_page(election: Election, page: PageLayout, precinct_id: str, *, dpi: int = 200) -> np.ndarray:
    """Draw one blank page; return a ``uint8`` array (rows, cols), 255 = paper.

    Parameters
    ----------
    election, page
        The election and one page of `tabulate.election.layout.layout_style`.
    precinct_id
        Printed in the style code (a style may serve several precincts).
    dpi
        Pixels per inch.
    """
    w, h = _px(page.width_in, dpi), _px(page.height_in, dpi)
    img = Image.new("L", (w, h), 255)
    draw = ImageDraw.Draw(img)
    line_px = max(1, _px(OUTLINE_IN, dpi))

    for mark in page.registration_marks:
        r = mark.rect
        draw.rectangle((_px(r.x, dpi), _px(r.y, dpi), _px(r.right, dpi) - 1, _px(r.bottom, dpi) - 1), fill=0)

    for _cid, r in page.contest_boxes:
        draw.rectangle((_px(r.x, dpi), _px(r.y, dpi), _px(r.right, dpi), _px(r.bottom, dpi)), outline=0, width=line_px)
    for ln in page.lines:
        draw.line(
            (_px(ln.x0, dpi), _px(ln.y0, dpi), _px(ln.x1, dpi), _px(ln.y1, dpi)),
            fill=0,
            width=max(1, _px(ln.width, dpi)),
        )
    for poly in page.polygons:
        draw.polygon([(p[0] * dpi, p[1] * dpi) for p in poly.points], fill=0)
    for t in page.targets:
        b = t.bounds
        box = (_px(b.x, dpi), _px(b.y, dpi), _px(b.right, dpi), _px(b.bottom, dpi))
        if t.shape == "oval":
            draw.ellipse(box, outline=0, width=line_px)
        elif t.shape == "box":
            draw.rectangle(box, outline=0, width=line_px)
    for item in page.texts:
        f = font(max(4, round(item.size_pt * dpi / POINTS_PER_INCH)))
        anchor = {"left": "la", "right": "ra", "center": "ma"}[item.anchor]
        x, y = item.x * dpi, item.y * dpi
        draw.text((x, y), item.text, fill=0, font=f, anchor=anchor)
        if item.bold:  # the bundled font has no bold face: overstrike
            draw.text((x + max(1, dpi // 200), y), item.text, fill=0, font=f, anchor=anchor)

    code = _qr_modules(style_code_text(election, page.style_id, precinct_id, page.page))
    r = page.style_code
    side = _px(r.w, dpi)
    qr = Image.fromarray(np.where(code, 0, 255).astype(np.uint8)).resize((side, side), Image.Resampling.NEAREST)
    img.paste(qr, (_px(r.x, dpi), _px(r.y, dpi)))
    return np.asarray(img)


def render_sheet(election: Election, layout: BallotLayout, precinct_id: str, *, dpi: int = 200) -> list[np.ndarray]:
    """Both pages of a sheet, front then back."""
    return [render_page(election, p, precinct_id, dpi=dpi) for p in layout.pages]


def png_bytes(image: np.ndarray, dpi: int) -> bytes:
    """Encode deterministically (no timestamps; fixed compression)."""
    buf = io.BytesIO()
    Image.fromarray(image).save(buf, format="PNG", dpi=(dpi, dpi), compress_level=6)
    return buf.getvalue()


def pdf_bytes(pages: list[np.ndarray], dpi: int) -> bytes:
    """A printable PDF, one page per grayscale image, sized so the image prints at ``dpi``.

    Written by hand rather than with Pillow, whose PDF writer stamps the
    creation time and the file name into the file and stores grayscale images
    as JPEG: we want the same bytes every run and lossless ballots.
    """
    objects: list[bytes] = []  # object n is objects[n - 1]

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in once the page tree exists
    tree = add(b"")
    kids = []
    for img in pages:
        img = np.ascontiguousarray(img, dtype=np.uint8)
        rows, cols = img.shape
        data = zlib.compress(img.tobytes(), 9)
        image = add(
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
            % (cols, rows, len(data))
            + data
            + b"\nendstream"
        )
        w_pt, h_pt = cols * 72.0 / dpi, rows * 72.0 / dpi
        draw = b"q %.4f 0 0 %.4f 0 0 cm /Im0 Do Q" % (w_pt, h_pt)
        content = add(b"<< /Length %d >>\nstream\n" % len(draw) + draw + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.4f %.4f] "
                b"/Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>" % (tree, w_pt, h_pt, image, content)
            )
        )
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    objects[tree - 1] = (
        b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids) + b"] /Count %d >>" % len(kids)
    )

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref)
    return bytes(out)


def write_pdf(pages: list[np.ndarray], path: Path, dpi: int) -> None:
    """Write `pdf_bytes` to ``path``: a printable, lossless PDF, byte-identical every run."""
    Path(path).write_bytes(pdf_bytes(pages, dpi))
