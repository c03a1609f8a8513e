"""Where to sample each target of a page: the kernels' point sets, built once per style, page and DPI.

The points are laid out in page inches from the layout (`TargetLayout`). The
blank page is rendered once at the same resolution (`render_page`) and its
printed ink, widened to absorb residual misregistration and blur, is left
out of every feature's point set, so a feature measures ink *beyond what is
printed*. The result is cached per (election, style, page, DPI class).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import cv2
import numpy as np

from ..election.layout import ARROW_HALF_IN, OUTLINE_IN, PageLayout, TargetLayout, layout_style
from ..election.model import Election
from ..election.render import render_page
from ..kernels import TargetPoints

#: The interior is the target inset by the outline and this margin (blur, ±1 px registration).
INTERIOR_MARGIN_IN = 0.012
#: Arrows: the gap's scored columns stop this far from the printed halves.
ARROW_END_MARGIN_IN = 0.012
#: Paper ring just outside the outline used by the local search.
OUTLINE_PAPER_IN = 0.015
#: Near band (strokes crossing the outline) and outer band (a circle around the target), from the bounds.
NEAR_BAND_IN = (0.012, 0.035)
OUTER_BAND_IN = (0.04, 0.10)
N_SECTORS = 24
#: Printed ink is widened by this much before it is left out of the bands round the target
#: (its outline must never read as a stroke). The marking and write-in areas keep points at
#: least AREA_PRINT_MARGIN_IN from print, and each point's distance, so that a blurred page
#: can ask for more (`Registration.spread_px`): a voter's X lies over the printed name.
PRINT_MARGIN_IN = 0.015
AREA_PRINT_MARGIN_IN = 0.0125
#: Point pitches (inches): outline pattern, outer band, marking and write-in areas. Coarser
#: than a pixel where the thing looked for is a pen stroke (0.02 in or wider) over an area.
OUTLINE_PITCH_IN = 0.015
OUTER_PITCH_IN = 0.01
AREA_PITCH_IN = 0.02
MARK_PITCH_IN = 0.015
#: Width of the marking area's cells (an X or check beside a name is 0.1-0.15 in wide).
MARK_CELL_IN = 0.12
MAX_CELLS = 40
#: DPI classes the point sets are built at (an image's scale is rounded to the nearest).
DPI_STEP = 25


@dataclass(frozen=True, eq=False)
class PageTemplate:
    """One page's targets and their sample points at one DPI class."""

    page: PageLayout
    dpi: int
    points: TargetPoints

    @property
    def targets(self) -> tuple[TargetLayout, ...]:
        return self.page.targets


_CACHE: dict[tuple, PageTemplate] = {}
_LOCK = threading.Lock()


def dpi_class(px_per_in: float) -> int:
    """The DPI class a page is sampled at: its scale rounded to a multiple of `DPI_STEP`."""
    return max(DPI_STEP, int(round(px_per_in / DPI_STEP)) * DPI_STEP)


def _key(election: Election, style_id: str, page: int, dpi: int) -> tuple:
    return (election.hash or id(election), election.target_shape, election.paper_size, style_id, page, dpi)


def seed_template(election: Election, layout: PageLayout, dpi: int, points: TargetPoints) -> PageTemplate:
    """Keep sample points built earlier (an on-disk cache: tabulate.central.layouts_cache) as this page's template."""
    points.check()
    style_id, page = layout.style_id, layout.page
    tpl = PageTemplate(layout, dpi, points)
    with _LOCK:
        _CACHE[_key(election, style_id, page, dpi)] = tpl
    return tpl


def page_template(election: Election, style_id: str, page: int, dpi: int) -> PageTemplate:
    """The (cached) sample points of one page of a style at ``dpi`` (a `dpi_class`)."""
    key = _key(election, style_id, page, dpi)
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is not None:
        return hit
    layout = layout_style(election, style_id).pages[page - 1]
    precinct = election.style(layout.style_id).precincts[0]
    ink = render_page(election, layout, precinct, dpi=dpi) < 160
    printed = _widen(ink, PRINT_MARGIN_IN * dpi)
    dist_in = cv2.distanceTransform((~ink).astype(np.uint8), cv2.DIST_L2, 5) / dpi
    tpl = PageTemplate(layout, dpi, build_points(layout.targets, printed, dist_in, dpi))
    with _LOCK:
        if len(_CACHE) > 64:
            _CACHE.clear()
        _CACHE[key] = tpl
    return tpl


def _widen(ink: np.ndarray, margin_px: float) -> np.ndarray:
    r = max(1, int(round(margin_px)))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    return cv2.dilate(ink.astype(np.uint8), kernel) > 0


def _grid(x0: float, y0: float, x1: float, y1: float, pitch: float) -> np.ndarray:
    """Points at the centres of a ``pitch`` grid covering the rectangle."""
    nx = max(1, int(math.floor((x1 - x0) / pitch)))
    ny = max(1, int(math.floor((y1 - y0) / pitch)))
    xs = x0 + (x1 - x0 - (nx - 1) * pitch) / 2 + pitch * np.arange(nx)
    ys = y0 + (y1 - y0 - (ny - 1) * pitch) / 2 + pitch * np.arange(ny)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()])


def _ellipse_ring(cx, cy, a, b, pitch) -> np.ndarray:
    perim = math.pi * (3 * (a + b) - math.sqrt((3 * a + b) * (a + 3 * b)))
    t = np.linspace(0, 2 * math.pi, max(8, int(math.ceil(perim / pitch))), endpoint=False)
    return np.column_stack([cx + a * np.cos(t), cy + b * np.sin(t)])


def _rect_ring(x0, y0, x1, y1, pitch) -> np.ndarray:
    pts = []
    for (ax, ay), (bx, by) in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        n = max(2, int(math.ceil(math.hypot(bx - ax, by - ay) / pitch)))
        s = np.arange(n) / n
        pts.append(np.column_stack([ax + (bx - ax) * s, ay + (by - ay) * s]))
    return np.concatenate(pts)


def _outline(t: TargetLayout, pitch: float) -> tuple[np.ndarray, np.ndarray]:
    """Points on the printed target (weight +) and on the paper just outside it (weight -)."""
    b = t.bounds
    cx, cy = b.center
    half = OUTLINE_IN / 2
    if t.shape == "oval":
        ink = _ellipse_ring(cx, cy, b.w / 2 - half, b.h / 2 - half, pitch)
        paper = _ellipse_ring(cx, cy, b.w / 2 + OUTLINE_PAPER_IN, b.h / 2 + OUTLINE_PAPER_IN, pitch)
    elif t.shape == "box":
        ink = _rect_ring(b.x + half, b.y + half, b.right - half, b.bottom - half, pitch)
        d = OUTLINE_PAPER_IN
        paper = _rect_ring(b.x - d, b.y - d, b.right + d, b.bottom + d, pitch)
    else:  # arrow: the shaft ends either side of the gap, and paper above and below them
        ends = [(b.x - 0.035, b.x - 0.003), (b.right + 0.003, b.right + 0.035)]
        ink = np.concatenate([_grid(x0, cy - 0.018, x1, cy + 0.018, pitch) for x0, x1 in ends])
        paper = np.concatenate(
            [_grid(x0, y - 0.006, x1, y + 0.006, pitch) for x0, x1 in ends for y in (cy - 0.045, cy + 0.045)]
        )
    w = np.concatenate([np.full(len(ink), 1.0 / len(ink)), np.full(len(paper), -1.0 / len(paper))])
    return np.concatenate([ink, paper]), w


def _interior(t: TargetLayout, pitch: float) -> tuple[np.ndarray, np.ndarray, int]:
    b = t.bounds
    if t.shape == "arrow":
        g = _grid(b.x + ARROW_END_MARGIN_IN, b.y, b.right - ARROW_END_MARGIN_IN, b.bottom, pitch)
        xs = np.unique(g[:, 0])
        return g, np.searchsorted(xs, g[:, 0]).astype(np.int32), len(xs)
    inset = OUTLINE_IN + INTERIOR_MARGIN_IN
    g = _grid(b.x + inset, b.y + inset, b.right - inset, b.bottom - inset, pitch)
    if t.shape == "oval":
        cx, cy = b.center
        a, bb = b.w / 2 - inset, b.h / 2 - inset
        g = g[((g[:, 0] - cx) / a) ** 2 + ((g[:, 1] - cy) / bb) ** 2 <= 1.0]
    return g, np.full(len(g), -1, np.int32), 0


def _band(t: TargetLayout, inner: float, outer: float, pitch: float) -> tuple[np.ndarray, np.ndarray]:
    """Points between ``inner`` and ``outer`` inches outside the target, with their angular sector."""
    b = t.bounds
    cx, cy = b.center
    a, bb = b.w / 2, b.h / 2
    if t.shape == "arrow" and outer > NEAR_BAND_IN[1]:
        a, bb = a + ARROW_HALF_IN, max(bb, 0.06)  # circling an arrow takes in both halves
    g = _grid(cx - a - outer, cy - bb - outer, cx + a + outer, cy + bb + outer, pitch)
    dx, dy = g[:, 0] - cx, g[:, 1] - cy
    if t.shape == "oval" or (t.shape == "arrow" and outer > NEAR_BAND_IN[1]):

        def inside(d):
            return (dx / (a + d)) ** 2 + (dy / (bb + d)) ** 2 <= 1.0
    else:

        def inside(d):
            return (np.abs(dx) <= a + d) & (np.abs(dy) <= bb + d)

    keep = inside(outer) & ~inside(inner)
    g, dx, dy = g[keep], dx[keep], dy[keep]
    mid = (inner + outer) / 2
    ang = np.arctan2(dy / (bb + mid), dx / (a + mid)) % (2 * math.pi)
    sector = np.minimum((ang / (2 * math.pi) * N_SECTORS).astype(np.int32), N_SECTORS - 1)
    return g, sector


def _in_outer_band(t: TargetLayout, g: np.ndarray) -> np.ndarray:
    """Points inside the outer band's outer edge (see `_band`)."""
    b = t.bounds
    cx, cy = b.center
    a, bb = b.w / 2 + OUTER_BAND_IN[1], b.h / 2 + OUTER_BAND_IN[1]
    if t.shape == "arrow":
        a += ARROW_HALF_IN
    return ((g[:, 0] - cx) / a) ** 2 + ((g[:, 1] - cy) / bb) ** 2 <= 1.0


def _away(pts: np.ndarray, dist_in: np.ndarray, dpi: int, *extra: np.ndarray):
    """The points at least `AREA_PRINT_MARGIN_IN` from print, with ``extra`` and their distances."""
    r = np.clip(np.floor(pts[:, 1] * dpi + 0.5).astype(np.int64), 0, dist_in.shape[0] - 1)
    c = np.clip(np.floor(pts[:, 0] * dpi + 0.5).astype(np.int64), 0, dist_in.shape[1] - 1)
    d = dist_in[r, c].astype(np.float64)
    keep = d >= AREA_PRINT_MARGIN_IN
    return (pts[keep],) + tuple(e[keep] for e in extra) + (d[keep],)


def _unprinted(pts: np.ndarray, printed: np.ndarray, dpi: int, *extra: np.ndarray):
    r = np.clip(np.floor(pts[:, 1] * dpi + 0.5).astype(np.int64), 0, printed.shape[0] - 1)
    c = np.clip(np.floor(pts[:, 0] * dpi + 0.5).astype(np.int64), 0, printed.shape[1] - 1)
    keep = ~printed[r, c]
    return (pts[keep],) + tuple(e[keep] for e in extra)


def _csr(parts: list[np.ndarray], dtype, width: int | None = 2) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(len(parts) + 1, np.int64)
    ptr[1:] = np.cumsum([len(p) for p in parts])
    shape = (0, width) if width else (0,)
    flat = np.concatenate(parts).astype(dtype) if parts and ptr[-1] else np.zeros(shape, dtype)
    return np.ascontiguousarray(flat.reshape((-1, width) if width else (-1,))), ptr


def build_points(targets: tuple[TargetLayout, ...], printed: np.ndarray, dist_in: np.ndarray, dpi: int) -> TargetPoints:
    """Every point set of a page's targets (see `tabulate.kernels.points`), printed ink left out.

    ``printed`` is the blank page's ink at ``dpi`` widened by `PRINT_MARGIN_IN`
    (for the bands round the target); ``dist_in`` each pixel's distance in
    inches to the nearest printed ink (for the marking and write-in areas,
    which keep points at least `AREA_PRINT_MARGIN_IN` away and their distance).
    """
    px = 1.0 / dpi
    cols = {
        k: []
        for k in (
            "ol",
            "olw",
            "in",
            "inc",
            "ncol",
            "out",
            "outs",
            "near",
            "nears",
            "mark",
            "markc",
            "markd",
            "wi",
            "wid",
        )
    }
    for t in targets:
        xy, w = _outline(t, max(px, OUTLINE_PITCH_IN))
        cols["ol"].append(xy)
        cols["olw"].append(w)
        g, c, n = _interior(t, px)
        cols["in"].append(g)
        cols["inc"].append(c)
        cols["ncol"].append(n)
        g, s = _band(t, *OUTER_BAND_IN, OUTER_PITCH_IN)
        g, s = _unprinted(g, printed, dpi, s)
        cols["out"].append(g)
        cols["outs"].append(s)
        g, s = _band(t, *NEAR_BAND_IN, px)
        g, s = _unprinted(g, printed, dpi, s)
        cols["near"].append(g)
        cols["nears"].append(s)
        m = t.marking_area
        g = _grid(m.x, m.y, m.right, m.bottom, MARK_PITCH_IN)
        g = g[~_in_outer_band(t, g)]  # a circle round the target is the ring's, not the name's
        cell = np.minimum(((g[:, 0] - m.x) / MARK_CELL_IN).astype(np.int32), MAX_CELLS - 1)
        g, cell, d = _away(g, dist_in, dpi, cell)
        cols["mark"].append(g)
        cols["markc"].append(cell)
        cols["markd"].append(d)
        wa = t.write_in_area
        g, d = (
            (np.zeros((0, 2)), np.zeros(0))
            if wa is None
            else _away(_grid(wa.x, wa.y, wa.right, wa.bottom, AREA_PITCH_IN), dist_in, dpi)
        )
        cols["wi"].append(g)
        cols["wid"].append(d)
    ol, ol_ptr = _csr(cols["ol"], np.float64)
    olw, _ = _csr(cols["olw"], np.float64, None)
    inn, in_ptr = _csr(cols["in"], np.float64)
    inc, _ = _csr(cols["inc"], np.int32, None)
    out, out_ptr = _csr(cols["out"], np.float64)
    outs, _ = _csr(cols["outs"], np.int32, None)
    near, near_ptr = _csr(cols["near"], np.float64)
    nears, _ = _csr(cols["nears"], np.int32, None)
    mark, mark_ptr = _csr(cols["mark"], np.float64)
    markc, _ = _csr(cols["markc"], np.int32, None)
    markd, _ = _csr(cols["markd"], np.float64, None)
    wid, _ = _csr(cols["wid"], np.float64, None)
    wi, wi_ptr = _csr(cols["wi"], np.float64)
    pts = TargetPoints(
        ol,
        olw,
        ol_ptr,
        inn,
        inc,
        np.asarray(cols["ncol"], np.int32),
        in_ptr,
        out,
        outs,
        out_ptr,
        near,
        nears,
        near_ptr,
        mark,
        markc,
        markd,
        mark_ptr,
        wi,
        wid,
        wi_ptr,
        N_SECTORS,
        MAX_CELLS,
    )
    pts.check()
    return pts
