"""How to draw each kind of mark a voter makes, at a target, in ink on the page.

Every mark is drawn in page inches around the target's layout geometry, then
rasterized at the page's resolution (`tabulate.ballots._ink`), before any
scanner effect. What each kind should read as is
`tabulate.ballots.mark_kinds.MARK_KINDS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from ..election.geometry import Rect
from ..election.layout import OUTLINE_IN, TargetLayout
from ._ink import Patch, Pen, jitter_line, lay_ink, rasterize, smooth_noise


@dataclass(frozen=True)
class DrawnMark:
    """A mark as drawn: its kind, how dark it made the target's interior (0..1), where its ink lies, its coverage."""

    kind: str
    interior_ink: float
    extent_in: Rect | None
    #: Share of the interior under the mark's ink, whatever the pen's darkness (0..1).
    interior_cover: float = 0.0


# -- geometry helpers (inches) ---------------------------------------------------------
def _axes(t: TargetLayout) -> tuple[float, float, float, float]:
    b = t.bounds
    cx, cy = b.center
    return cx, cy, b.w / 2, b.h / 2


def _outline(
    t: TargetLayout,
    grow: float,
    rng: np.random.Generator,
    wobble: float = 0.0,
    n: int = 40,
    start: float = 0.0,
    sweep: float = 2 * np.pi,
) -> np.ndarray:
    """Points around the target's outline grown by ``grow`` inches (negative shrinks), hand-wobbled."""
    cx, cy, a, b = _axes(t)
    th = start + sweep * np.linspace(0.0, 1.0, n, endpoint=sweep < 2 * np.pi)
    r = 1.0 + (smooth_noise(th, rng, wobble) if wobble else 0.0)
    if t.shape == "oval":
        x, y = np.cos(th), np.sin(th)
    else:  # box or arrow gap: a rounded square (superellipse), which is how a hand fills a box
        c, s = np.cos(th), np.sin(th)
        x = np.sign(c) * np.abs(c) ** 0.25
        y = np.sign(s) * np.abs(s) ** 0.25
    return np.column_stack([cx + (a + grow) * r * x, cy + (b + grow) * r * y])


def interior_mask(t: TargetLayout, dpi: float, row: int, col: int, shape: tuple[int, int]) -> np.ndarray:
    """Boolean mask of the target's interior (inside the printed outline) over a page window."""
    cx, cy, a, b = _axes(t)
    inset = OUTLINE_IN if t.shape != "arrow" else 0.0
    ys = (np.arange(row, row + shape[0]) + 0.5) / dpi
    xs = (np.arange(col, col + shape[1]) + 0.5) / dpi
    u = (xs[None, :] - cx) / max(a - inset, 1e-6)
    v = (ys[:, None] - cy) / max(b - inset, 1e-6)
    if t.shape == "oval":
        return u * u + v * v <= 1.0
    return (np.abs(u) <= 1.0) & (np.abs(v) <= 1.0)


#: Each target's interior window and mask, by the target's identity (the entry holds the target, so its
#: id is not reused while the entry lives): the same ~40 targets a ballot style has, drawn on again and again.
_INTERIORS: dict[tuple[int, float], tuple[TargetLayout, tuple[int, int, np.ndarray, int]]] = {}


def _interior(t: TargetLayout, dpi: float) -> tuple[int, int, np.ndarray, int]:
    """The window (row, col) round ``t``'s interior, its mask there (read-only) and how many pixels are inside."""
    hit = _INTERIORS.get((id(t), dpi))
    if hit is None:
        if len(_INTERIORS) >= 4096:
            _INTERIORS.clear()
        b = t.bounds
        r0, c0 = int(np.floor(b.y * dpi)) - 1, int(np.floor(b.x * dpi)) - 1
        rows, cols = int(np.ceil(b.h * dpi)) + 3, int(np.ceil(b.w * dpi)) + 3
        inside = interior_mask(t, dpi, r0, c0, (rows, cols))
        inside.setflags(write=False)
        hit = _INTERIORS[(id(t), dpi)] = (t, (r0, c0, inside, int(inside.sum())))
    return hit[1]


def interior_ink(t: TargetLayout, dpi: float, *patches: Patch | None) -> tuple[float, ...]:
    """Mean of each patch over the target's interior: its darkening (0 = clean, 1 = black) or its coverage.

    One interior mask for all the patches (they are the same mark's, measured two ways)."""
    r0, c0, inside, n = _interior(t, dpi)
    rows, cols = inside.shape
    out = []
    for patch in patches:
        if patch is None or not n:
            out.append(0.0)
            continue
        cover = np.zeros((rows, cols), np.float32)
        pr, pc, pv = patch.row - r0, patch.col - c0, patch.cover
        rs, cs = max(pr, 0), max(pc, 0)
        re, ce = min(pr + pv.shape[0], rows), min(pc + pv.shape[1], cols)
        if re > rs and ce > cs:
            cover[rs:re, cs:ce] = pv[rs - pr : re - pr, cs - pc : ce - pc]
        out.append(float(cover[inside].sum() / n))
    return tuple(out)


def _clip_halfplane(poly: np.ndarray, u: np.ndarray, q: float) -> np.ndarray:
    """Sutherland-Hodgman: the part of ``poly`` where ``p . u <= q``."""
    out = []
    d = poly @ u - q
    for i in range(len(poly)):
        j = (i + 1) % len(poly)
        if d[i] <= 0:
            out.append(poly[i])
        if (d[i] <= 0) != (d[j] <= 0):
            s = d[i] / (d[i] - d[j])
            out.append(poly[i] + s * (poly[j] - poly[i]))
    return np.array(out) if out else np.zeros((0, 2))


# -- one function per kind: (target, pen, rng) -> (strokes, polygons, pen) ------------------
Shape = tuple[list[np.ndarray], list[np.ndarray], Pen]


def _full_fill(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    if rng.random() < 0.6:  # solid, sometimes a little over the outline
        return [], [_outline(t, rng.uniform(-0.004, 0.02), rng, wobble=0.06)], pen
    # Scribbled back and forth with a broad stroke.
    cx, cy, a, b = _axes(t)
    wide = pen.with_(width_in=max(pen.width_in, 0.024))
    step = wide.width_in * rng.uniform(0.55, 0.8)
    ys = np.arange(cy - b + step / 2, cy + b, step)
    pts = []
    for i, y in enumerate(ys):
        half = a * np.sqrt(max(0.0, 1 - ((y - cy) / b) ** 2)) if t.shape == "oval" else a
        half = half * rng.uniform(0.95, 1.1)
        pts.append((cx + (half if i % 2 else -half), y + rng.normal(0, step * 0.1)))
    return [np.array(pts)], [_outline(t, -0.02, rng, wobble=0.05)], wide


def _partial_fill(t: TargetLayout, pen: Pen, rng: np.random.Generator, dpi: float = 400.0) -> Shape:
    """A majority of the interior, 55-85 % (31 KAR 6:030 §3(1)(a)), cut off at a random side."""
    goal = rng.uniform(0.55, 0.85)
    poly = _outline(t, rng.uniform(0.0, 0.01), rng, wobble=0.04)
    ang = rng.uniform(0, 2 * np.pi)
    u = np.array([np.cos(ang), np.sin(ang)])
    # Choose the cut so that the interior share is `goal`, measured on a fine grid.
    whole = rasterize((100000, 100000), dpi, polygons=[poly])
    b = t.bounds
    r0, c0 = whole.row, whole.col
    inside = interior_mask(t, dpi, r0, c0, whole.cover.shape) & (whole.cover > 0.5)
    rows, cols = np.nonzero(inside)
    proj = ((cols + c0 + 0.5) / dpi) * u[0] + ((rows + r0 + 0.5) / dpi) * u[1]
    n_interior = max(
        1,
        int(
            interior_mask(
                t, dpi, int(b.y * dpi) - 2, int(b.x * dpi) - 2, (int(b.h * dpi) + 5, int(b.w * dpi) + 5)
            ).sum()
        ),
    )
    k = min(len(proj) - 1, int(np.ceil(goal * n_interior)))
    q = float(np.sort(proj)[k]) if len(proj) else 0.0
    return [], [_clip_halfplane(poly, u, q)], pen


def _light_pencil(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    light = Pen("pencil", rng.uniform(165, 205), 0.02, grain=rng.uniform(0.3, 0.55))
    return [], [_outline(t, rng.uniform(-0.004, 0.012), rng, wobble=0.06)], light


def _x_mark(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    cx, cy, a, b = _axes(t)
    sx, sy = a * rng.uniform(0.8, 1.4), b * rng.uniform(1.0, 1.7)
    s1 = jitter_line((cx - sx, cy - sy), (cx + sx * rng.uniform(0.85, 1.1), cy + sy), rng, 0.008)
    s2 = jitter_line((cx + sx, cy - sy * rng.uniform(0.85, 1.1)), (cx - sx, cy + sy), rng, 0.008)
    return [s1, s2], [], pen


def _check_strokes(cx: float, cy: float, a: float, b: float, rng: np.random.Generator) -> list[np.ndarray]:
    p0 = (cx - a * rng.uniform(0.5, 0.8), cy - b * rng.uniform(-0.1, 0.3))
    p1 = (cx - a * rng.uniform(0.0, 0.25), cy + b * rng.uniform(0.8, 1.1))
    p2 = (cx + a * rng.uniform(1.0, 1.4), cy - b * rng.uniform(1.4, 1.9))
    return [np.vstack([jitter_line(p0, p1, rng, 0.004, 4), jitter_line(p1, p2, rng, 0.01, 6)[1:]])]


def _check(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    return _check_strokes(*_axes(t), rng), [], pen


def _line_through(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    """One line meeting the outline at two points (§3(1)(f)); it ends well before any other target."""
    cx, cy, a, b = _axes(t)
    ang = np.deg2rad(rng.choice([0.0, 90.0, 45.0, -45.0]) + rng.uniform(-10, 10))
    d = np.array([np.cos(ang), np.sin(ang)])
    off = np.array([-d[1], d[0]]) * rng.uniform(-0.3, 0.3) * min(a, b)
    p = np.array([cx, cy]) + off
    # Half-chord of the ellipse along d through p, then extend 0.03-0.07 in past the outline each side.
    A = (d[0] / a) ** 2 + (d[1] / b) ** 2
    B = 2 * ((p[0] - cx) * d[0] / a**2 + (p[1] - cy) * d[1] / b**2)
    C = ((p[0] - cx) / a) ** 2 + ((p[1] - cy) / b) ** 2 - 1
    disc = np.sqrt(max(B * B - 4 * A * C, 0.0))
    t0, t1 = (-B - disc) / (2 * A), (-B + disc) / (2 * A)
    p0 = p + d * (t0 - rng.uniform(0.03, 0.07))
    p1 = p + d * (t1 + rng.uniform(0.03, 0.07))
    return [jitter_line(p0, p1, rng, 0.004)], [], pen


def _dot(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    cx, cy, a, b = _axes(t)
    r = rng.uniform(0.015, 0.028)
    c = (cx + rng.uniform(-0.3, 0.3) * a, cy + rng.uniform(-0.25, 0.25) * b)
    th = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    return [], [np.column_stack([c[0] + r * np.cos(th), c[1] + r * 0.9 * np.sin(th)])], pen


def _circle(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    """A loop around the target (§3(1)(b)); its inner edge stays clear of the printed outline."""
    grow = rng.uniform(0.04, 0.06) + pen.width_in / 2
    sweep = 2 * np.pi + rng.uniform(0.15, 0.7)
    pts = _outline(t, grow, rng, wobble=0.03, n=56, start=rng.uniform(0, 2 * np.pi), sweep=sweep)
    return [pts], [], pen


def _beside_name(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    """An X or a check on the printed name (the designated marking area, §3(1)(e)), not the target."""
    m = t.marking_area
    size = rng.uniform(0.055, 0.085)
    x = m.x + rng.uniform(0.15, max(0.16, min(0.9, m.w - 0.2)))
    y = t.bounds.center[1] + rng.uniform(-0.02, 0.02)
    if rng.random() < 0.5:
        return (
            [
                jitter_line((x - size, y - size), (x + size, y + size), rng, 0.006),
                jitter_line((x + size, y - size), (x - size, y + size), rng, 0.006),
            ],
            [],
            pen,
        )
    return _check_strokes(x, y, size, size * 0.7, rng), [], pen


def _erasure(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    residue = Pen("eraser", rng.uniform(200, 232), 0.015, grain=rng.uniform(0.8, 1.0), grain_in=0.03)
    return [], [_outline(t, rng.uniform(-0.006, 0.01), rng, wobble=0.08)], residue


def _hesitation(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    cx, cy, a, b = _axes(t)
    th = rng.uniform(0, 2 * np.pi)
    r = 1.0 + rng.uniform(-0.05, 0.12)
    p = np.array([cx + a * r * np.cos(th), cy + b * r * np.sin(th)])
    tick = np.array([np.cos(th + np.pi / 2), np.sin(th + np.pi / 2)]) * rng.uniform(0.0, 0.02)
    return [np.array([p, p + tick]) if tick.any() else p[None, :]], [], pen


_DRAW: Mapping[str, Callable[[TargetLayout, Pen, np.random.Generator], Shape]] = {
    "full_fill": _full_fill,
    "partial_fill": _partial_fill,
    "light_pencil": _light_pencil,
    "x_mark": _x_mark,
    "check": _check,
    "line_through": _line_through,
    "dot": _dot,
    "circle": _circle,
    "beside_name": _beside_name,
    "erasure": _erasure,
    "hesitation": _hesitation,
}


def mark_shape(kind: str, target: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    """The strokes and polygons (page inches) of one mark at one target, and the pen they are drawn with."""
    if kind == "none":
        return [], [], pen
    if kind not in _DRAW:
        raise ValueError(f"no mark kind {kind!r} at a target (kinds: {', '.join(sorted(_DRAW))})")
    if target.shape == "arrow":
        # Imported here: the arrow module builds its table from this one's.
        from .arrows import ARROW_DRAW

        if kind in ARROW_DRAW:  # drawn across the gap, where a voter joins the arrow
            return ARROW_DRAW[kind](target, pen, rng)
    return _DRAW[kind](target, pen, rng)


def _extent(strokes, polygons, pad: float) -> Rect | None:
    pts = [p for p in (*strokes, *polygons) if len(p)]
    if not pts:
        return None
    allp = np.concatenate(pts)
    lo, hi = allp.min(axis=0) - pad, allp.max(axis=0) + pad
    return Rect(float(lo[0]), float(lo[1]), float(hi[0] - lo[0]), float(hi[1] - lo[1]))


def draw_mark(
    page: np.ndarray, kind: str, target: TargetLayout, *, dpi: float, pen: Pen, rng: np.random.Generator
) -> DrawnMark:
    """Draw one mark of ``kind`` at ``target`` on ``page`` (uint8, 255 = paper) in place."""
    strokes, polygons, used = mark_shape(kind, target, pen, rng)
    patch = rasterize(page.shape, dpi, strokes=strokes, polygons=polygons, width_in=used.width_in)
    dark = lay_ink(page, patch, used, rng, dpi=dpi)
    ink, cover = interior_ink(target, dpi, dark, patch) if patch is not None else (0.0, 0.0)
    return DrawnMark(kind, ink, _extent(strokes, polygons, used.width_in / 2), cover)


def draw_strokes(
    page: np.ndarray, strokes: list[np.ndarray], *, dpi: float, pen: Pen, rng: np.random.Generator
) -> Rect | None:
    """Draw free strokes (handwriting, stray scribbles) given in page inches; return their extent."""
    patch = rasterize(page.shape, dpi, strokes=strokes, width_in=pen.width_in)
    lay_ink(page, patch, pen, rng, dpi=dpi)
    return _extent(strokes, [], pen.width_in / 2)
