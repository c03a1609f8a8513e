"""What a reviewer looks at: the scanned pages, the contest zoomed with its targets outlined, and crops.

The reader's affine map (page inches -> image pixels) is inverted to resample
the scan onto the layout's page, so every contest box, target, designated
marking area and write-in area is a plain rectangle in inches. Overlays
(outline and fill score of each target) are drawn into the zoomed contest
image in colours no ballot pen uses, with a key on the page; the crops of
marking and write-in areas are left as scanned.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Mapping

import cv2
import numpy as np

from ..election.geometry import Rect
from ..election.layout import PageLayout
from ..rules import OptionMark

#: Resolution of the resampled page the zooms and crops are cut from: a contest zoom is about
#: 700 px wide, so it stays sharp when a large monitor shows it wider than at 1280 px (issue 16).
ZOOM_DPI = 240
PAGE_WIDTH_PX = 900
PAD_IN = 0.04

#: Overlay colours (BGR for OpenCV): by how the scanner classed the target.
COLOURS = {"marked": (200, 60, 0), "marginal": (0, 140, 255), "unmarked": (150, 150, 150), "flagged": (180, 0, 200)}


class _LRU:
    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key, make: Callable[[], np.ndarray]) -> np.ndarray:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        value = make()
        with self.lock:
            self.items[key] = value
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return value


_cache = _LRU(12)


def cached(key, make: Callable[[], np.ndarray]) -> np.ndarray:
    """Decoded and resampled pages, by (sha256, what); a few pages' worth."""
    return _cache.get(key, make)


def png(image: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    if not ok:
        raise ValueError("cannot encode PNG")
    return buf.tobytes()


def page_view(gray: np.ndarray, width_px: int = PAGE_WIDTH_PX) -> np.ndarray:
    """The whole scan, scaled to ``width_px`` wide (area-averaged, so thin marks stay visible)."""
    h, w = gray.shape[:2]
    if w <= width_px:
        return gray
    return cv2.resize(gray, (width_px, max(1, round(h * width_px / w))), interpolation=cv2.INTER_AREA)


def rectify(gray: np.ndarray, affine: np.ndarray, page: PageLayout, dpi: int = ZOOM_DPI) -> np.ndarray:
    """Resample the scan onto the layout's page at ``dpi``: pixel (r, c) is page point (c/dpi, r/dpi) inches."""
    to_image = np.asarray(affine, dtype=np.float64) @ np.diag([1.0 / dpi, 1.0 / dpi, 1.0])
    size = (round(page.width_in * dpi), round(page.height_in * dpi))
    return cv2.warpAffine(
        gray,
        to_image,
        size,
        flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=255,
    )


def _px(rect: Rect, dpi: int, pad_in: float, shape) -> tuple[int, int, int, int]:
    x0 = max(0, int((rect.x - pad_in) * dpi))
    y0 = max(0, int((rect.y - pad_in) * dpi))
    x1 = min(shape[1], int(np.ceil((rect.x + rect.w + pad_in) * dpi)))
    y1 = min(shape[0], int(np.ceil((rect.y + rect.h + pad_in) * dpi)))
    return x0, y0, x1, y1


def crop(rectified: np.ndarray, rect: Rect, dpi: int = ZOOM_DPI, pad_in: float = PAD_IN) -> np.ndarray:
    x0, y0, x1, y1 = _px(rect, dpi, pad_in, rectified.shape)
    return rectified[y0:y1, x0:x1]


def contest_zoom(
    rectified: np.ndarray,
    page: PageLayout,
    contest_id: str,
    marks: Mapping[str, OptionMark],
    flagged: set[str],
    dpi: int = ZOOM_DPI,
) -> np.ndarray:
    """The contest's box, with each target outlined in the colour of its class and its fill score above it.

    ``flagged`` options (a reason names them) get a thicker outline in the flag colour.
    """
    box = next((r for cid, r in page.contest_boxes if cid == contest_id), None)
    if box is None:
        raise KeyError(contest_id)
    x0, y0, x1, y1 = _px(box, dpi, PAD_IN, rectified.shape)
    # A white strip left of the scan holds the scores, so no label covers the voter's ink.
    strip = 44
    scan = cv2.cvtColor(rectified[y0:y1, x0:x1], cv2.COLOR_GRAY2BGR)
    out = np.full((scan.shape[0], scan.shape[1] + strip, 3), 255, np.uint8)
    out[:, strip:] = scan
    x0 -= strip
    for t in page.targets:
        if t.contest_id != contest_id:
            continue
        mark = marks.get(t.option_id, OptionMark())
        colour = COLOURS["flagged"] if t.option_id in flagged else COLOURS.get(mark.scan, COLOURS["unmarked"])
        g = 0.025
        p0 = (round((t.bounds.x - g) * dpi) - x0, round((t.bounds.y - g) * dpi) - y0)
        p1 = (round((t.bounds.x + t.bounds.w + g) * dpi) - x0, round((t.bounds.y + t.bounds.h + g) * dpi) - y0)
        cv2.rectangle(out, p0, p1, colour, 3 if t.option_id in flagged else 2)
        if mark.score is not None:
            label = f"{mark.score:.2f}"
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.45, 1)
            org = (3, min(out.shape[0] - 2, (p0[1] + p1[1] + th) // 2))
            cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
    return out
