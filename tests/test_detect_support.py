"""Test material for the reader: rendered pages, simple marks and simple scanner effects.

No tests here; the detect and kernel tests import these helpers.
"""

from __future__ import annotations

import io
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from tabulate.election import load_election
from tabulate.election.layout import layout_style
from tabulate.election.render import render_page

SAMPLE = Path(__file__).parents[1] / "samples" / "general" / "election.json"


@lru_cache(maxsize=1)
def election():
    return load_election(SAMPLE)


@lru_cache(maxsize=16)
def _blank(style: str, page: int, precinct: str, dpi: int) -> np.ndarray:
    e = election()
    return render_page(e, layout_style(e, style).pages[page - 1], precinct, dpi=dpi)


def target(style: str, page: int, contest: str, option: str):
    for t in layout_style(election(), style).pages[page - 1].targets:
        if (t.contest_id, t.option_id) == (contest, option):
            return t
    raise KeyError((contest, option))


def page_image(
    style: str = "1", page: int = 1, precinct: str = "A101", *, dpi: int = 200, marks: tuple = ()
) -> np.ndarray:
    """A rendered page with marks: (contest, option, kind), kind one of fill, half, circle, beside, line, x."""
    img = _blank(style, page, precinct, dpi).copy()
    for contest, option, kind in marks:
        draw_mark(img, target(style, page, contest, option), kind, dpi, ink=20)
    return img


def draw_mark(img: np.ndarray, t, kind: str, dpi: int, ink: int = 20) -> None:
    b = t.bounds
    cx, cy = b.center
    c = (int(round(cx * dpi)), int(round(cy * dpi)))
    ax = (int(round(b.w / 2 * dpi)), int(round(b.h / 2 * dpi)))
    pen = max(2, int(round(0.018 * dpi)))
    if kind == "fill":
        cv2.ellipse(img, c, ax, 0, 0, 360, ink, -1)
    elif kind == "half":  # the left 60 % of the oval
        mask = np.zeros_like(img)
        cv2.ellipse(mask, c, ax, 0, 0, 360, 255, -1)
        mask[:, int((b.x + 0.6 * b.w) * dpi) :] = 0
        img[mask > 0] = ink
    elif kind == "light":  # a light grey fill: between paper and the split
        cv2.ellipse(img, c, ax, 0, 0, 360, 200, -1)
    elif kind == "circle":
        cv2.ellipse(img, c, (ax[0] + int(0.07 * dpi), ax[1] + int(0.07 * dpi)), 0, 0, 360, ink, pen)
    elif kind == "beside":  # an X on the name
        x0, y0 = int((t.marking_area.x + 0.3) * dpi), int((cy - 0.06) * dpi)
        s = int(0.12 * dpi)
        cv2.line(img, (x0, y0), (x0 + s, y0 + s), ink, pen)
        cv2.line(img, (x0 + s, y0), (x0, y0 + s), ink, pen)
    elif kind == "line":  # a horizontal line through the target, past both sides
        cv2.line(img, (int((b.x - 0.06) * dpi), c[1]), (int((b.right + 0.06) * dpi), c[1]), ink, pen)
    elif kind == "x":
        cv2.line(
            img,
            (int((b.x - 0.02) * dpi), int((b.y - 0.03) * dpi)),
            (int((b.right + 0.02) * dpi), int((b.bottom + 0.03) * dpi)),
            ink,
            pen,
        )
        cv2.line(
            img,
            (int((b.right + 0.02) * dpi), int((b.y - 0.03) * dpi)),
            (int((b.x - 0.02) * dpi), int((b.bottom + 0.03) * dpi)),
            ink,
            pen,
        )
    elif kind == "write":  # scribble a "name" in the write-in area
        w = t.write_in_area
        for k in range(6):
            x = int((w.x + 0.1 + 0.12 * k) * dpi)
            cv2.line(img, (x, int((w.y + 0.08) * dpi)), (x + int(0.08 * dpi), int((w.bottom - 0.05) * dpi)), ink, pen)
    else:
        raise ValueError(kind)


def scan(
    img: np.ndarray,
    *,
    angle: float = 0.0,
    scale: float = 1.0,
    shift_px=(0, 0),
    canvas=None,
    paper: int = 255,
    ink: int = 0,
    noise: float = 0.0,
    blur: float = 0.0,
    seed: int = 0,
) -> np.ndarray:
    """Turn a rendered page like a scanner would: rotate (degrees, counter-clockwise) and scale about
    the centre, shift, on a canvas of ``canvas`` (rows, cols) (default: the page's size), then set
    paper and ink levels, blur and add noise."""
    h, w = img.shape
    rows, cols = canvas or (h, w)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    m[:, 2] += ((cols - w) / 2 + shift_px[0], (rows - h) / 2 + shift_px[1])
    out = cv2.warpAffine(img, m, (cols, rows), flags=cv2.INTER_LINEAR, borderValue=255)
    out = ink + out.astype(np.float32) * (paper - ink) / 255.0
    if blur:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    if noise:
        out = out + np.random.default_rng(seed).normal(0, noise, out.shape)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def turn(img: np.ndarray, quarter_turns: int) -> np.ndarray:
    """Rotate by multiples of 90 degrees counter-clockwise (a sheet fed sideways or upside down)."""
    return np.ascontiguousarray(np.rot90(img, quarter_turns))


def encode(img: np.ndarray, fmt: str, **kw) -> bytes:
    """Encode a page as PNG, JPEG or TIFF bytes (``compression`` for TIFF: group4, tiff_lzw, tiff_adobe_deflate)."""
    buf = io.BytesIO()
    pil = Image.fromarray(img)
    if fmt == "tiff" and kw.get("compression") == "group4":
        pil = pil.point(lambda v: 255 if v >= 128 else 0).convert("1")
    pil.save(buf, format=fmt.upper() if fmt != "jpeg" else "JPEG", dpi=(200, 200), **kw)
    return buf.getvalue()
