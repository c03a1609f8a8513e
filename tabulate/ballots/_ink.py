"""Ink on paper: strokes and fills given in page inches, laid onto a grayscale page.

Ink darkens the paper under it multiplicatively (``out = page * (1 - cover * k)``
with ``k = 1 - pen.gray / 255``), as pigment does: a pen stroke over printed
black stays black, and a light pencil over white paper shows as light gray.
Only the patch under a mark is touched, so a mark costs microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

#: Sub-pixel precision of the coordinates handed to OpenCV (2**4 = 1/16 px).
_SHIFT = 4


@dataclass(frozen=True)
class Pen:
    """What the voter writes with, as a grayscale scanner sees it.

    ``gray`` is the ink's value on white paper (0 black, 255 invisible),
    ``width_in`` the stroke width, ``grain`` how patchy the ink is
    (0 = solid ink, 0.6 = graphite on paper tooth); see ``solid_grain``.
    """

    kind: str
    gray: float
    width_in: float
    grain: float = 0.0
    #: Size of the grain's clumps: fine for graphite, coarse for the blotches an eraser leaves.
    grain_in: float = 0.006
    #: Grain only lightens skipped clumps (by up to grain/2) around the pen's full tone: the voter's own
    #: pencil pressed into a fill. False: every pixel lightened by up to `grain` (faint, patchy strokes).
    solid_grain: bool = False

    def with_(self, **changes) -> Pen:
        return Pen(**{**self.__dict__, **changes})


@dataclass(frozen=True)
class Patch:
    """The coverage (0..1) a drawing laid down, in a window of the page."""

    row: int
    col: int
    cover: np.ndarray  # float32, (rows, cols)


def _window(points_px: np.ndarray, pad: float, shape: tuple[int, int]) -> tuple[int, int, int, int] | None:
    lo = np.floor(points_px.min(axis=0) - pad).astype(int)
    hi = np.ceil(points_px.max(axis=0) + pad).astype(int) + 1
    c0, r0 = max(lo[0], 0), max(lo[1], 0)
    c1, r1 = min(hi[0], shape[1]), min(hi[1], shape[0])
    if c1 <= c0 or r1 <= r0:
        return None
    return r0, r1, c0, c1


def _fixed(points_in: np.ndarray, dpi: float, r0: int, c0: int) -> np.ndarray:
    # Inch (x, y) -> OpenCV pixel-centre coordinates: pixel (r, c) spans [c, c+1) x [r, r+1).
    px = np.asarray(points_in, dtype=np.float64) * dpi - 0.5 - (c0, r0)
    return np.round(px * (1 << _SHIFT)).astype(np.int32)


def rasterize(
    shape: tuple[int, int],
    dpi: float,
    *,
    strokes: Sequence[np.ndarray] = (),
    polygons: Sequence[np.ndarray] = (),
    width_in: float = 0.015,
) -> Patch | None:
    """Anti-aliased coverage of some strokes (open polylines) and filled polygons, in inches."""
    pts = [np.asarray(p, dtype=np.float64) for p in (*strokes, *polygons) if len(p)]
    if not pts:
        return None
    width_px = max(1.0, width_in * dpi)
    win = _window(np.concatenate(pts) * dpi, width_px + 2, shape)
    if win is None:
        return None
    r0, r1, c0, c1 = win
    mask = np.zeros((r1 - r0, c1 - c0), np.uint8)
    if polygons:
        cv2.fillPoly(mask, [_fixed(p, dpi, r0, c0) for p in polygons if len(p) > 2], 255, cv2.LINE_AA, _SHIFT)
    if strokes:
        thickness = max(1, int(round(width_px)))
        cv2.polylines(
            mask, [_fixed(s, dpi, r0, c0) for s in strokes if len(s) > 1], False, 255, thickness, cv2.LINE_AA, _SHIFT
        )
        for s in strokes:  # a one-point stroke is a dot
            if len(s) == 1:
                cv2.circle(
                    mask,
                    tuple(_fixed(s, dpi, r0, c0)[0]),
                    max(1, thickness // 2) << _SHIFT,
                    255,
                    -1,
                    cv2.LINE_AA,
                    _SHIFT,
                )
    return Patch(r0, c0, mask.astype(np.float32) * (1.0 / 255.0))


def lay_ink(
    page: np.ndarray, patch: Patch | None, pen: Pen, rng: np.random.Generator, *, dpi: float = 200.0
) -> Patch | None:
    """Darken ``page`` in place under ``patch`` with ``pen``'s ink (and its grain).

    Returns how much each pixel was darkened, as a share of white paper (0..1).
    """
    if patch is None:
        return None
    cover = patch.cover
    if pen.grain > 0:
        # Paper tooth: random clumps of about grain_in, interpolated so they are soft, not salt-and-pepper.
        cell = max(1.0, pen.grain_in * dpi)
        small = (max(2, int(np.ceil(cover.shape[0] / cell)) + 1), max(2, int(np.ceil(cover.shape[1] / cell)) + 1))
        tex = rng.random(small, dtype=np.float32)
        tex = cv2.resize(tex, (int(small[1] * cell), int(small[0] * cell)), interpolation=cv2.INTER_LINEAR)
        tex = tex[: cover.shape[0], : cover.shape[1]]
        if tex.shape != cover.shape:
            tex = cv2.resize(tex, (cover.shape[1], cover.shape[0]), interpolation=cv2.INTER_LINEAR)
        # The voter's own pencil (solid_grain): centred on the pen's own gray: clumps of tooth the graphite skipped are lighter by up to
        # grain/2, the rest carries the pen's full tone. (Lightening every pixel by up to `grain`
        # made a solid pencil fill whose tone is darker than a bitonal scanner's threshold vanish
        # at that threshold: 12 definite marks on two sheets of a 24,000-sheet run, issue #17.)
        if pen.solid_grain:
            cover = np.minimum(cover * (1.0 + pen.grain * (0.5 - tex)), cover)
        else:  # light pencil and eraser residue: patchy throughout, as the accuracy goals were set on
            cover = cover * (1.0 - pen.grain * tex)
    dark = cover * (1.0 - pen.gray / 255.0)
    r, c = patch.row, patch.col
    window = page[r : r + cover.shape[0], c : c + cover.shape[1]]
    window[...] = np.clip(window * (1.0 - dark) + 0.5, 0, 255).astype(np.uint8)
    return Patch(r, c, dark)


def smooth_noise(t: np.ndarray, rng: np.random.Generator, amplitude: float, harmonics: int = 4) -> np.ndarray:
    """A smooth periodic wobble over angles ``t``: a few low harmonics with random phases."""
    out = np.zeros_like(t, dtype=np.float64)
    for k in range(2, 2 + harmonics):
        out += rng.normal(0, 1) / k * np.sin(k * t + rng.uniform(0, 2 * np.pi))
    return amplitude * out / max(1e-9, np.abs(out).max() if len(out) else 1.0)


def jitter_line(p0, p1, rng: np.random.Generator, bow_in: float, n: int = 6) -> np.ndarray:
    """A hand-drawn straight stroke from p0 to p1: slightly bowed, slightly wavy."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    t = np.linspace(0, 1, n)[:, None]
    d = p1 - p0
    normal = np.array([-d[1], d[0]]) / max(1e-9, np.hypot(*d))
    bow = rng.uniform(-bow_in, bow_in) * np.sin(np.pi * t)
    wave = rng.normal(0, bow_in * 0.15, (n, 1)) * np.sin(np.pi * t)
    return p0 + d * t + normal * (bow + wave)
