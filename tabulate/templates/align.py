"""Match a scanned page against a template's blank and fit the page-inch to image-pixel transform.

Without our corner squares the transform is fitted from what the template
prints, in three steps:

1. **Skew** (`print_angle`), at 50 DPI: the page's printed lines give it in
   one pass (no sweep, no template).
2. **Coarse** (`coarse`), at `COARSE_DPI`: the page and the blank, ink
   bright and blurred, turned by that skew, are aligned by phase correlation
   (shift); its response also ranks the candidate templates and the turn. A
   landscape image of a portrait page is tried turned a quarter either way;
   an upright one as it is and turned 180 degrees. The whole sweep of skews
   is kept for a page the print's skew does not register.
3. **Fine** (`refine`): each *anchor* of the template (a small patch with
   strong print in two directions: a timing mark, a box corner, a heading's
   letters, chosen at load time by `anchors`) is found near where the
   coarse fit puts it by normalised cross-correlation, first at half
   `FINE_DPI` over a wide window (half of the anchors, spread over the page:
   the scouts), then at `FINE_DPI` over a narrow one (every anchor, its
   central square), and the affine map is fitted to the anchors by least
   squares. Its RMS
   residual is reported and a page above `MAX_RESIDUAL_IN` is refused, as for
   our own ballots.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from ..kernels import affine_fit, match_anchors, skew_sums, trim_refit

COARSE_DPI = 10.0
#: Resolution of the whole-page comparison that tells similar templates apart.
MATCH_DPI = 50.0
#: Skews the coarse fit starts from (degrees): phase correlation finds shift, not rotation.
SKEW_SWEEP_DEG = 4.0
SKEW_STEP_DEG = 0.5
#: Around the skew the print's own lines give (`print_angle`), the coarse fit tries these offsets (degrees);
#: the whole sweep only when no candidate registers from them.
SKEW_NEAR_DEG = (0.0,)
FINE_DPI = 100.0
ANCHOR_IN = 0.5
#: The narrow search at full `FINE_DPI` matches only each anchor's central square this wide (inches): the
#: half-resolution search has placed it within a few pixels, where the whole patch's outer ring adds
#: little but cost (its correlations cost as the patch's area: half the work; the fits move by 0.002 in
#: at most on the simulated families).
ANCHOR_CORE_IN = 0.35
ANCHOR_SEARCH_IN = 0.1
#: Once the half-resolution search has placed the anchors, the full-resolution one looks only this far.
ANCHOR_FINE_SEARCH_IN = 0.03
MAX_ANCHORS = 18
#: The half-resolution search places this many anchors first, spread over the page (`scout_order`): it
#: only has to bring the full-resolution search within its reach, which then uses every anchor.
SCOUT_ANCHORS = 9
#: A wide anchor search that climbed from the coarse fit (`refine`'s ``climb``) is trusted up to this RMS
#: residual (inches; the whole-window search's is under 0.003 in on the simulated families); above it the
#: whole window is searched.
CLIMB_RMS_IN = 0.004
#: An anchor whose best correlation is below this was not found (a mark over it, a fold).
MIN_ANCHOR_NCC = 0.5
MAX_RESIDUAL_IN = 0.02
MIN_ANCHORS = 6


def prepare(image: np.ndarray, px_per_in: float, dpi: float, blur: float) -> np.ndarray:
    """``image`` resampled to ``dpi``, ink bright (float32), blurred by ``blur`` pixels."""
    small = shrink(image, px_per_in, dpi)
    out = 255.0 - small.astype(np.float32)
    return cv2.GaussianBlur(out, (0, 0), blur) if blur > 0 else out


def shrink(image: np.ndarray, px_per_in: float, dpi: float) -> np.ndarray:
    """``image`` resampled to ``dpi``: halved by Gaussian pyramid steps down to within 4x (fast), then
    linearly resampled (a 3:1 step samples two of every three pixels: enough to match print by)."""
    while px_per_in >= 4 * dpi:
        image = cv2.pyrDown(image)
        px_per_in /= 2
    f = dpi / px_per_in
    size = (max(8, round(image.shape[1] * f)), max(8, round(image.shape[0] * f)))
    step = round(px_per_in / dpi)
    if step % 2 == 1 and step > 1 and abs(px_per_in - step * dpi) < 1e-9 and _strided_fits(image.shape, step, size):
        # An odd whole step (a 300 DPI scan to 100 DPI): the linear resample's sample points fall on pixel
        # centres, ``(step - 1) / 2`` in from each block's corner, so it takes those pixels unchanged; the
        # same bytes by slicing, in a third of the time (`cv2.resize` still interpolates with weights 1, 0).
        o = (step - 1) // 2
        return np.ascontiguousarray(image[o::step, o::step])
    # After the pyramid the image is already smoothed: a linear resample of the last step is enough.
    return cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)


def _strided_fits(shape: tuple[int, ...], step: int, size: tuple[int, int]) -> bool:
    """Whether the image is ``size`` (w, h) blocks of ``step`` pixels: only then is OpenCV's scale exactly
    ``1 / step`` (it divides the sizes) and its sample points on pixel centres."""
    return shape[1] == size[0] * step and shape[0] == size[1] * step


def level(image: np.ndarray, q: float) -> float:
    """The grey level below which a share ``q`` of a uint8 image's pixels lie (a fast percentile)."""
    counts = cv2.calcHist([image], [0], None, [256], [0, 256]).ravel()
    return float(np.searchsorted(np.cumsum(counts), q * image.size))


def nominal(image_shape: tuple[int, int], k: int, px_per_in: float, width_in: float, height_in: float) -> np.ndarray:
    """2x3 page inches -> image px for an unskewed page turned ``k`` quarters, centred in the image."""
    h, w = image_shape
    th, tw = (w, h) if k % 2 else (h, w)  # the shape of np.rot90(image, k)
    ox, oy = (tw - width_in * px_per_in) / 2, (th - height_in * px_per_in) / 2
    m = rot_matrix(k, image_shape) @ np.array([[px_per_in, 0, ox], [0, px_per_in, oy], [0, 0, 1.0]])
    return m[:2]


def rot_matrix(k: int, shape: tuple[int, int]) -> np.ndarray:
    """3x3 map from the coordinates of ``np.rot90(a, k)`` to those of ``a`` (continuous pixels)."""
    h, w = shape
    k %= 4
    m = {
        0: [[1, 0, 0], [0, 1, 0]],
        1: [[0, -1, w], [1, 0, 0]],
        2: [[-1, 0, w], [0, -1, h]],
        3: [[0, 1, 0], [-1, 0, h]],
    }[k]
    return np.vstack([np.array(m, np.float64), [0, 0, 1]])


def _pad_to(a: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    out = np.zeros(shape, np.float32)
    h, w = min(a.shape[0], shape[0]), min(a.shape[1], shape[1])
    out[:h, :w] = a[:h, :w]
    return out


@dataclass(frozen=True)
class Coarse:
    """A coarse fit: ``warp`` maps template coarse pixels to the turned image's coarse pixels."""

    k: int
    warp: np.ndarray
    rho: float


def ncc(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised cross-correlation of two equal-shape arrays."""
    a = a - a.mean()
    b = b - b.mean()
    d = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / d) if d > 0 else 0.0


def unit(a: np.ndarray) -> np.ndarray:
    """``a`` flattened, centred and scaled to unit length (float32): ``ncc(a, b) == unit(a) @ unit(b)``."""
    v = a.astype(np.float64).ravel()
    v -= v.mean()
    n = float(np.sqrt(np.einsum("i,i->", v, v)))  # not BLAS: see `matching.MatchBasis.dots`
    return (v / n if n > 0 else v).astype(np.float32)


def closer_share(frame: np.ndarray, a: np.ndarray, b: np.ndarray, min_diff: float = 80.0) -> float:
    """Of the pixels where blanks ``a`` and ``b`` differ by at least ``min_diff``, the share where
    ``frame`` is nearer ``a`` (0.5 when they nowhere differ that much: nothing tells them apart)."""
    where = np.abs(a - b) >= min_diff
    n = int(np.count_nonzero(where))
    if n == 0:
        return 0.5
    return float(np.count_nonzero((np.abs(frame - a) < np.abs(frame - b))[where])) / n


def print_angle(image: np.ndarray) -> float:
    """The skew (degrees, within +-45) of a page's printed lines, from its own pixels in one pass.

    Printed ballots are ruled: timing marks, contest boxes, rules, text lines
    and letters' stems run along the page's two axes. Each pixel's gradient
    direction theta, taken four-fold (``4 theta``: an edge and the edge at a
    right angle to it agree), is averaged with weight ``|gradient|^4`` (the
    strong edges of print, not the scanner's noise); a quarter of the mean's
    angle is the skew. Scharr's gradient, not Sobel's: Sobel's leans towards the
    axes and reads a 3 degree skew as 2.5. No sweep, no template: the coarse
    fit starts from it.
    """
    # Every other gradient in each direction is plenty for a sum over the page (a quarter of the work);
    # one compiled pass, no gradient images (the numpy way cost ten times as much in allocation).
    c, s = skew_sums(image)
    return math.degrees(math.atan2(s, c) / 4.0) if (c or s) else 0.0


def near_angles(skew_deg: float) -> tuple[float, ...]:
    """The skews a coarse fit tries around one the print gave (`SKEW_NEAR_DEG`)."""
    return tuple(skew_deg + d for d in SKEW_NEAR_DEG)


def coarse(tpl_small: np.ndarray, img_small: np.ndarray, k: int, angles: tuple[float, ...] | None = None) -> Coarse:
    """Align a template's coarse blank to the image turned ``k`` quarters: the skew (of ``angles``,
    by default every `SKEW_STEP_DEG` up to `SKEW_SWEEP_DEG`) and shift phase correlation finds best.
    Good to a few hundredths of an inch, which the anchors (`refine`) then make exact; ``rho`` is the
    response."""
    turned = np.ascontiguousarray(np.rot90(img_small, k))
    shape = (max(tpl_small.shape[0], turned.shape[0]), max(tpl_small.shape[1], turned.shape[1]))
    a, b = _pad_to(tpl_small, shape), _pad_to(turned, shape)
    centre = (shape[1] / 2, shape[0] / 2)
    best = None
    if angles is None:
        angles = tuple(np.arange(-SKEW_SWEEP_DEG, SKEW_SWEEP_DEG + 1e-9, SKEW_STEP_DEG))
    for ang in angles:
        rot = cv2.getRotationMatrix2D(centre, float(ang), 1.0)
        (dx, dy), resp = cv2.phaseCorrelate(a, cv2.warpAffine(b, rot, (shape[1], shape[0])) if ang else b)
        if best is None or resp > best[0]:
            best = (resp, rot, dx, dy)
    assert best is not None  # the sweep has at least one angle
    _resp, rot, dx, dy = best
    inv = np.vstack([cv2.invertAffineTransform(rot), [0, 0, 1]])
    warp = (inv @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]]))[:2]
    return Coarse(k, warp, float(_resp))


def coarse_to_image(c: Coarse, img_small_shape: tuple[int, int], px_per_in: float) -> np.ndarray:
    """2x3 page inches -> full image pixels from a coarse fit."""
    s_in = np.diag([COARSE_DPI, COARSE_DPI, 1.0])
    w = np.vstack([c.warp, [0, 0, 1]])
    r = rot_matrix(c.k, img_small_shape)
    up = np.diag([px_per_in / COARSE_DPI, px_per_in / COARSE_DPI, 1.0])
    return (up @ r @ w @ s_in)[:2]


@dataclass(frozen=True)
class Anchor:
    """A patch of the blank's print the fit is made from. Patches are stored as printed (ink dark,
    ``uint8``) so a scanned page is matched as it is: the normalised correlation does not care which
    way round the grey runs, and no float copy of the page is made."""

    x_in: float
    y_in: float
    patch: np.ndarray  # the blank at FINE_DPI, ANCHOR_IN square, centred on (x_in, y_in)
    half: np.ndarray  # the same at FINE_DPI / 2 (`half_patch`), for the first, wide search


@dataclass(frozen=True, eq=False)
class AnchorStack:
    """A template's anchors as arrays, as `tabulate.kernels.match_anchors` takes them (made once per
    template and process, `tabulate.templates.pages.PreparedPage`)."""

    xy: np.ndarray  # (N, 2) page inches
    patches: np.ndarray  # (N, P, P) uint8
    halves: np.ndarray  # (N, P // 2, P // 2) uint8

    @classmethod
    def of(cls, anchor_list: Sequence[Anchor]) -> AnchorStack:
        return cls(
            np.array([(a.x_in, a.y_in) for a in anchor_list], np.float64).reshape(-1, 2),
            np.stack([a.patch for a in anchor_list]) if anchor_list else np.zeros((0, 1, 1), np.uint8),
            np.stack([a.half for a in anchor_list]) if anchor_list else np.zeros((0, 1, 1), np.uint8),
        )

    def take(self, index: np.ndarray) -> AnchorStack:
        """The anchors at ``index``, in that order."""
        return AnchorStack(self.xy[index], self.patches[index], self.halves[index])

    @cached_property
    def cores(self) -> np.ndarray:
        """Each patch's central `ANCHOR_CORE_IN` square (odd, on the same centre), made once."""
        p = self.patches.shape[1]
        c = max(0, (p - (2 * int(ANCHOR_CORE_IN * FINE_DPI / 2) + 1)) // 2)
        return np.ascontiguousarray(self.patches[:, c : p - c, c : p - c])

    @cached_property
    def scouts(self) -> AnchorStack:
        """The first `SCOUT_ANCHORS` of `scout_order` (every anchor when there are no more): made once."""
        return self.take(scout_order(self.xy)[:SCOUT_ANCHORS])


def scout_order(xy: np.ndarray) -> np.ndarray:
    """The anchors ordered to spread over the page: the strongest first (`anchors` lists them by
    strength), then each time the one farthest from all taken so far (the stronger of equals).

    An affine fit is pinned by points far apart; the strongest anchors alone can bunch in one contest
    box (the 12 strongest, tried in an earlier round, sent one clean ballot in 95 more to a person).
    """
    n = len(xy)
    if n == 0:
        return np.zeros(0, np.intp)
    order = [0]
    d2 = ((xy - xy[0]) ** 2).sum(axis=1)
    for _ in range(n - 1):
        i = int(np.argmax(d2))  # the first maximum: the stronger of equally far anchors
        order.append(i)
        d2 = np.minimum(d2, ((xy - xy[i]) ** 2).sum(axis=1))
    return np.array(order, np.intp)


def half_patch(patch: np.ndarray) -> np.ndarray:
    """An odd-sized `FINE_DPI` patch at half the resolution, smoothed as `cv2.pyrDown` smooths the page,
    with its centre still on a pixel (every other pixel from the centre out)."""
    return np.ascontiguousarray(cv2.GaussianBlur(patch, (5, 5), 0)[1::2, 1::2])


def half_image(image_fine: np.ndarray) -> np.ndarray:
    """A `FINE_DPI` page at half the resolution: pixel ``i`` is the fine page's pixel ``2 i``."""
    return cv2.pyrDown(image_fine)


def anchors(blank_fine: np.ndarray, avoid: list[tuple[float, float, float, float]]) -> list[Anchor]:
    """Patches of the blank (at `FINE_DPI`, ink bright) with strong print in two directions, spread out.

    ``avoid`` lists rectangles (x, y, w, h inches) anchors must stay clear of:
    the targets, where voters' marks change the print.
    """
    g = blank_fine.astype(np.float32)
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)
    half = int(ANCHOR_IN * FINE_DPI / 2)
    k = (2 * half + 1, 2 * half + 1)
    sxx, syy, sxy = (cv2.boxFilter(v, -1, k) for v in (gx * gx, gy * gy, gx * gy))
    tr, det = sxx + syy, sxx * syy - sxy * sxy
    lam_min = tr / 2 - np.sqrt(np.maximum(tr * tr / 4 - det, 0))
    step = int(0.25 * FINE_DPI)
    h, w = g.shape
    cands = []
    for r in range(half + 2, h - half - 2, step):
        for c in range(half + 2, w - half - 2, step):
            x, y = c / FINE_DPI, r / FINE_DPI
            if any(ax - 0.3 < x < ax + aw + 0.3 and ay - 0.3 < y < ay + ah + 0.3 for ax, ay, aw, ah in avoid):
                continue
            cands.append((float(lam_min[r, c]), r, c))
    cands.sort(reverse=True)
    best = cands[0][0] if cands else 0.0
    chosen: list[tuple[int, int]] = []
    for score, r, c in cands:
        if score < 0.05 * best or len(chosen) >= MAX_ANCHORS:
            break
        if all((r - r2) ** 2 + (c - c2) ** 2 >= (1.0 * FINE_DPI) ** 2 for r2, c2 in chosen):
            chosen.append((r, c))
    printed = np.clip(255.0 - g, 0, 255).astype(np.uint8)
    patches = [np.ascontiguousarray(printed[r - half : r + half + 1, c - half : c + half + 1]) for r, c in chosen]
    return [Anchor(c / FINE_DPI, r / FINE_DPI, p, half_patch(p)) for (r, c), p in zip(chosen, patches)]


def median(v: np.ndarray) -> float:
    """``np.median`` of a 1-D float array without NaNs, bit for bit (the middle value, or the mean of the
    middle two: their sum halved, as ``np.mean`` takes it), at a fifth of its overhead on a page's 9-18
    anchors or 9 runs (its argument checks and partition cost more than the sort)."""
    s = np.sort(v)
    m = len(s) // 2
    return float(s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2)


def fit_affine(page_xy: np.ndarray, image_xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares affine page -> image (2x3) and each point's residual (pixels).

    By the normal equations about the page points' centre (a 3 x 3 solve), compiled
    (`tabulate.kernels.affine_fit`): `np.linalg.solve` and the numpy around it cost 30-40 us a call in
    overhead on a page's 6-18 anchors, the compiled fit 2-3 us."""
    return affine_fit(page_xy, image_xy)


def refine(
    image_fine: np.ndarray,
    affine: np.ndarray,
    px_per_in: float,
    anchor_list: Sequence[Anchor] | AnchorStack,
    search_in: float = ANCHOR_SEARCH_IN,
    coarse_level: bool = False,
    climb: bool | None = None,
) -> tuple[np.ndarray, float, int]:
    """Refit ``affine`` (page inches -> full image px) from the anchors; returns (affine, RMS residual in, n used).

    ``image_fine`` is the page at `FINE_DPI`, ``uint8`` as scanned. Each anchor is looked for within
    ``search_in`` of where ``affine`` puts it. With ``coarse_level`` ``image_fine`` is `half_image` of
    the fine page and the anchors' `half` patches are matched: a wide search costs a sixteenth as
    much, and a narrow search at full `FINE_DPI` (each patch's central `AnchorStack.cores`) then makes it
    exact. With ``climb`` (by default
    at full `FINE_DPI` only) each anchor's correlation is climbed from where ``affine`` puts it
    instead of searched over the whole window (`tabulate.kernels.match_anchors`).
    """
    stack = anchor_list if isinstance(anchor_list, AnchorStack) else AnchorStack.of(anchor_list)
    if len(stack.xy) == 0:
        return affine, math.inf, 0
    res = FINE_DPI / 2 if coarse_level else FINE_DPI
    f = res / px_per_in
    lin, off = affine[:, :2] * (f / res), affine[:, 2] * f  # template px at this level -> image px
    patches = stack.halves if coarse_level else stack.cores
    half = patches.shape[1] // 2
    m = max(1, int(round(search_in * res)))
    page = stack.xy
    origins = page * res - (half + m)  # each window's corner, template px
    shifts = origins @ lin.T + off  # ... in image px
    # Every anchor's window sampled through the fit and searched in one compiled call (was a warpAffine
    # and a matchTemplate per anchor, mostly call overhead). The narrow search climbs from where the
    # wide one put the anchor.
    got = match_anchors(
        image_fine,
        lin,
        shifts,
        patches,
        m,
        climb=not coarse_level if climb is None else climb,
    )
    found = got[:, :2]
    ok = (got[:, 2] >= MIN_ANCHOR_NCC) & np.isfinite(got[:, 2])
    if ok.sum() < MIN_ANCHORS:
        return affine, math.inf, int(ok.sum())
    p = page[ok]
    q = ((origins[ok] + found[ok]) @ lin.T + off) / f
    fit, resid = trimmed_fit(p, q, 0.006 * px_per_in)
    rms = float(np.sqrt(np.mean(resid**2))) / px_per_in
    return fit, rms, int(len(resid))


def fit_anchors(
    image_fine: np.ndarray, image_half: np.ndarray, start: np.ndarray, px_per_in: float, stack: AnchorStack, need: int
) -> tuple[np.ndarray, float, int]:
    """The page's fit from its anchors, starting from the coarse fit ``start``: (affine, RMS in, n kept).

    A wide search at half resolution brings a narrow one at full resolution (every anchor, its central
    square) within reach. The wide search places the scouts first (`AnchorStack.scouts`: half the anchors,
    spread over the page), each climbed from the coarse fit. A scout fit is kept only when the narrow
    fit it leads to is tight (`CLIMB_RMS_IN`) and keeps ``need`` anchors: a wrong scout can survive the
    least-median fit of nine and lead the narrow search astray (arrows sheet 134 of the accuracy
    benchmark, seed 2026: its back page 1.8 % narrow at 0.016 in); then every anchor is placed again,
    as before the scouts. 31 KAR 6:030 Section 2(1)(a) counts "Filling in the oval or box or connecting
    the arrow next to the candidate's name or the question choice": the fit says which target lies where,
    and the 1.8 % narrow fit of sheet 134 read a light pencil mark as a fill. Speed never buys a looser fit.
    """
    first = _wide_then_narrow(image_fine, image_half, start, px_per_in, stack, stack.scouts)
    if len(stack.scouts.xy) == len(stack.xy) or (first[1] <= CLIMB_RMS_IN and first[2] >= need):
        return first
    return _wide_then_narrow(image_fine, image_half, start, px_per_in, stack, stack)


def _wide_then_narrow(
    fine: np.ndarray, half: np.ndarray, start: np.ndarray, px_per_in: float, stack: AnchorStack, wide: AnchorStack
) -> tuple[np.ndarray, float, int]:
    """`fit_anchors` from the ``wide`` anchors at half resolution: climbed (a third of the work of a whole
    search); a climb stuck on a lesser peak (a letter's neighbour) shows in the residual, and every
    anchor is climbed, then every window searched whole. Then the narrow search, twice if the first
    narrow fit is still off."""
    affine, rms, n = refine(half, start, px_per_in, wide, ANCHOR_SEARCH_IN, True, climb=True)
    if not rms <= CLIMB_RMS_IN and wide is not stack:
        affine, rms, n = refine(half, start, px_per_in, stack, ANCHOR_SEARCH_IN, True, climb=True)
    if not rms <= CLIMB_RMS_IN:
        affine, rms, n = refine(half, start, px_per_in, stack, ANCHOR_SEARCH_IN, True)
    if math.isfinite(rms):
        affine, rms, n = refine(fine, affine, px_per_in, stack, ANCHOR_FINE_SEARCH_IN)
    if math.isfinite(rms) and rms > 0.003:  # the first fit was off: once more from the better one
        affine, rms, n = refine(fine, affine, px_per_in, stack, ANCHOR_FINE_SEARCH_IN)
    return affine, rms, n


def trimmed_fit(p: np.ndarray, q: np.ndarray, floor_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Affine fit robust to anchors found in the wrong place; returns the fit and the kept residuals.

    An anchor on a long rule or a repeated box corner can be found tens of pixels off when the coarse
    fit is poor at that side of the page; a plain least-squares fit then leans so far that good anchors
    look as bad as it. So the fit starts from OpenCV's least-median-of-squares estimate (any minority
    of wrong anchors cannot move it; deterministic), keeps the anchors within three times the median
    residual (and ``floor_px``) of it, and refits them by least squares. When a plain least-squares fit
    leaves every anchor within ``floor_px`` no anchor is off (a wrong one pulls the fit and shows as a
    large residual, its own or its neighbours'): that fit is kept (the trimming would keep every anchor
    and refit them alike, but for a median fit a little off), at a tenth of the cost.
    """
    fit, res = fit_affine(p, q)
    if float(res.max()) <= floor_px:
        return fit, res
    start, _inl = cv2.estimateAffine2D(p.astype(np.float32), q.astype(np.float32), method=cv2.LMEDS)
    # The trimming and the refit in one compiled call (`tabulate.kernels.trim_refit`; was a dozen numpy
    # calls, 0.1-0.2 ms a call of overhead): the same rule, to rounding.
    return trim_refit(p, q, start if start is not None else fit, floor_px, MIN_ANCHORS)
