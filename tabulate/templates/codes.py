"""Page codes a template set can map to a style and page: a barcode / QR symbol, or a row of timing marks.

On a blank (`find_code`) the code is looked for over the whole page: any
barcode zxing-cpp reads, else a row of tall narrow timing marks near the
bottom edge whose filled (1) and empty (0) marks spell a bit string. On a
scanned page (`read_code`) only the place the blank's code was printed is
looked at, through the registered transform.
"""

from __future__ import annotations

import cv2
import numpy as np
import zxingcpp

from ..election.geometry import Rect
from .model import PageCode

#: Timing-code marks: at least this many in a row, each taller than wide.
MIN_CODE_MARKS = 6
CODE_CROP_MARGIN_IN = 0.3


def _qr(blank: np.ndarray, dpi: float) -> PageCode | None:
    found = zxingcpp.read_barcodes(blank)
    for b in found:
        if not b.valid or not b.text:
            continue
        p = b.position
        xs = [p.top_left.x, p.top_right.x, p.bottom_left.x, p.bottom_right.x]
        ys = [p.top_left.y, p.top_right.y, p.bottom_left.y, p.bottom_right.y]
        r = Rect(min(xs) / dpi, min(ys) / dpi, (max(xs) - min(xs)) / dpi, (max(ys) - min(ys)) / dpi)
        return PageCode("qr", b.text, r)
    return None


def _timing_row(blank: np.ndarray, dpi: float) -> PageCode | None:
    h = blank.shape[0]
    band0 = int(h - 0.7 * dpi)
    _t, ink = cv2.threshold(blank[band0:], 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    n, _lab, stats, _c = cv2.connectedComponentsWithStats(ink, 8, cv2.CV_32S)  # type: ignore[call-overload]
    marks = []
    for j in range(1, n):
        x, y, w, hh, area = (int(v) for v in stats[j])
        if 0.1 * dpi <= hh <= 0.3 * dpi and 0.03 * dpi <= w <= 0.12 * dpi and hh > 1.5 * w:
            marks.append((x + w / 2, y + hh / 2 + band0, w, hh, area / float(w * hh)))
    if len(marks) < MIN_CODE_MARKS:
        return None
    marks.sort()
    ys = np.array([m[1] for m in marks])
    row = [m for m in marks if abs(m[1] - np.median(ys)) < 0.05 * dpi]
    if len(row) < MIN_CODE_MARKS:
        return None
    bits = "".join("1" if m[4] > 0.7 else "0" for m in row)
    w_in, h_in = float(np.median([m[2] for m in row])) / dpi, float(np.median([m[3] for m in row])) / dpi
    left, right = row[0][0] / dpi - w_in, row[-1][0] / dpi + w_in
    y_in = float(np.median([m[1] for m in row])) / dpi
    return PageCode(
        "timing",
        bits,
        Rect(left, y_in - h_in, right - left, 2 * h_in),
        tuple((round(m[0] / dpi, 4), round(m[1] / dpi, 4)) for m in row),
        (round(w_in, 4), round(h_in, 4)),
    )


def find_code(blank: np.ndarray, dpi: float) -> PageCode | None:
    """The code printed on a blank page, or None (see the module docstring)."""
    return _qr(blank, dpi) or _timing_row(blank, dpi)


def _to_px(affine: np.ndarray, x: float, y: float) -> tuple[float, float]:
    v = affine @ np.array([x, y, 1.0])
    return float(v[0]), float(v[1])


def read_code(
    image: np.ndarray,
    affine: np.ndarray,
    code: PageCode,
    paper: float,
    ink: float,
    formats: zxingcpp.BarcodeFormats | None = None,
    shrink: int = 1,
) -> str | None:
    """The text of ``code`` read on a scanned page where the template printed it; None if it does not read.

    ``formats``: the symbologies the set's blanks print (`code_format`); None tries every one zxing-cpp
    knows. ``shrink``: a bar code's crop is averaged down by this factor first (`read_qr_near`)."""
    if code.kind == "qr":
        crop = _crop(image, affine, code.rect.inset(-CODE_CROP_MARGIN_IN))
        if crop is None:
            return None
        if shrink > 1 and min(crop.shape) >= 8 * shrink:
            crop = cv2.resize(crop, None, fx=1 / shrink, fy=1 / shrink, interpolation=cv2.INTER_AREA)
        # Where the set's code sits, printed dark on light: zxing-cpp need not also try downscaled or
        # inverted copies (a third of the time), nor symbologies the set does not print (half of what is
        # left). A bar code turned a quarter (a page fed sideways) needs its rotated search; upright or
        # upside down it reads as it is.
        turned = bool(abs(affine[0, 0]) < abs(affine[0, 1]))
        if formats is None:
            b = zxingcpp.read_barcode(crop, try_rotate=turned, try_downscale=False, try_invert=False)
        else:
            b = zxingcpp.read_barcode(crop, formats, try_rotate=turned, try_downscale=False, try_invert=False)
        return b.text if b is not None and b.valid else None
    return _timing_bits(image, affine, code, paper - 0.5 * (paper - ink))


def _timing_bits(image: np.ndarray, affine: np.ndarray, code: PageCode, split: float) -> str | None:
    """A timing code's bits: 1 where most of the window round a mark's centre is darker than ``split``.

    Every window has the same size, so all are taken in one gather; a window the image's edge cuts
    (a page fed off-centre) is taken alone, cut as it is."""
    sx = float(np.hypot(*affine[:, 0]))
    rx = max(1, int(code.mark_size[0] * sx * 0.2))
    ry = max(1, int(code.mark_size[1] * sx * 0.25))
    if not code.marks:
        return ""
    px = np.asarray(code.marks, np.float64) @ affine[:, :2].T + affine[:, 2]
    cols, rows = (np.round(px[:, 0]).astype(np.int64), np.round(px[:, 1]).astype(np.int64))  # round half even
    h, w = image.shape[:2]
    inside = (rows - ry >= 0) & (rows + ry < h) & (cols - rx >= 0) & (cols + rx < w)
    dy, dx = np.mgrid[-ry : ry + 1, -rx : rx + 1]
    share = np.zeros(len(px))
    if inside.any():
        dark = image[rows[inside, None, None] + dy, cols[inside, None, None] + dx] < split
        share[inside] = dark.reshape(int(inside.sum()), -1).mean(axis=1)
    for i in np.flatnonzero(~inside):
        row, col = int(rows[i]), int(cols[i])
        win = image[max(0, row - ry) : row + ry + 1, max(0, col - rx) : col + rx + 1]
        if win.size == 0:
            return None
        share[i] = float(np.mean(win < split))
    return "".join("1" if v > 0.6 else "0" for v in share)


def _crop(image: np.ndarray, affine: np.ndarray, r: Rect) -> np.ndarray | None:
    """The image's axis-aligned crop round page rectangle ``r`` placed by ``affine`` (None when empty)."""
    pts = np.array(
        [_to_px(affine, x, y) for x, y in ((r.x, r.y), (r.right, r.y), (r.x, r.bottom), (r.right, r.bottom))]
    )
    c0, r0 = np.floor(pts.min(axis=0)).astype(int)
    c1, r1 = np.ceil(pts.max(axis=0)).astype(int)
    crop = np.ascontiguousarray(image[max(0, r0) : max(0, r1), max(0, c0) : max(0, c1)])
    return crop if crop.size else None


#: Before the fit a bar code's crop is read at no more than this resolution (pixels per inch): a vendor's
#: page code has modules of 0.02 in or more, 3 pixels at 150, and zxing-cpp's time grows with the pixels.
#: When it does not read so, the page is identified by its fit and the code read again at the scan's
#: own resolution (`tabulate.templates.read`), so a small code is never lost, only found later.
QR_FIRST_DPI = 150.0


def read_qr_near(
    image: np.ndarray,
    affine: np.ndarray,
    rect: Rect,
    margin_in: float = 0.5,
    formats: zxingcpp.BarcodeFormats | None = None,
    dpi: float = 0.0,
) -> str | None:
    """A QR symbol's text read in the crop round ``rect`` (page inches) placed by ``affine``, or None.

    A ``dpi`` scan of at least twice `QR_FIRST_DPI` is read from its crop averaged down by whole steps."""
    shrink = max(1, int(dpi // QR_FIRST_DPI))
    code = PageCode("qr", "", rect.inset(CODE_CROP_MARGIN_IN - margin_in))
    return read_code(image, affine, code, 255, 0, formats, shrink)


def code_format(blank: np.ndarray, dpi: float, code: PageCode | None) -> zxingcpp.BarcodeFormat | None:
    """The symbology of the bar code a blank prints where ``code`` says (None: not a bar code, or the
    blank's crop does not read again, and then every symbology is tried on its scans)."""
    if code is None or code.kind != "qr":
        return None
    affine = np.array([[dpi, 0.0, 0.0], [0.0, dpi, 0.0]])
    crop = _crop(blank, affine, code.rect.inset(-CODE_CROP_MARGIN_IN))
    found = zxingcpp.read_barcodes(crop) if crop is not None else []
    for b in found:
        if b.valid and b.text == code.text:
            return b.format
    return None
