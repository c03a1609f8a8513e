"""Compiled image kernels: pure functions over numpy arrays (numba), each with a numpy twin.

The kernels import nothing else of ours. Public wrappers check shapes and
dtypes, allocate the output and call the private ``_*.py`` kernel; the slow
twins in `tabulate.kernels.reference` are the test oracle.
"""

from __future__ import annotations

import numpy as np

from ._targets import AREA_NOT_READ, N_FEATURES, score_targets_kernel
from .alignment import affine_fit, match_anchors, new_ink, skew_sums, spread_runs, trim_refit
from .marks import MarkMeasures, MarkWindow, mark_components, refine_mark
from .points import FEATURES, F, TargetPoints, offsets_by_distance

__all__ = [
    "AREA_NOT_READ",
    "F",
    "FEATURES",
    "MarkMeasures",
    "MarkWindow",
    "TargetPoints",
    "affine_fit",
    "mark_components",
    "match_anchors",
    "new_ink",
    "offsets_by_distance",
    "refine_mark",
    "score_targets",
    "skew_sums",
    "spread_runs",
    "trim_refit",
    "warm",
]

assert len(FEATURES) == N_FEATURES


def score_targets(
    image: np.ndarray,
    affine: np.ndarray,
    points: TargetPoints,
    *,
    paper: float,
    ink: float,
    split: float,
    residue: float,
    offsets: np.ndarray,
    min_hits: int = 2,
    skip_cols: np.ndarray | None = None,
    area_margin: float = 0.0,
    area_wanted: np.ndarray | None = None,
    area_decided: tuple[float, float] = (np.inf, np.inf),
    levels: np.ndarray | None = None,
) -> np.ndarray:
    """Score every target of a page: fill score and features, one row per target.

    Parameters
    ----------
    image
        The page, ``uint8`` (rows, cols), C-contiguous.
    affine
        ``(2, 3)`` float64 map from page inches ``(x_in, y_in, 1)`` to image ``(col, row)``.
    points
        The page's sample points (`TargetPoints`).
    paper, ink
        The page's own paper and ink grey levels (``paper > ink``). Each target
        re-bases the paper level on the mean of the paper points beside its
        outline that are lighter than the page's split (uneven lighting), when
        at least a quarter of them are.
    split
        Where "dark" starts, as a fraction of the way from paper to ink.
    residue
        Where light residue (an erasure) starts, as a fraction from paper to ink (``< split``).
    offsets
        ``(K, 2)`` int64 local-search offsets (image col, row), nearest first
        (`offsets_by_distance`); the target takes the first offset whose outline
        match is best, so the printed outline is matched, never scored.
    min_hits
        Dark points that make a sector (or an arrow's column) count as inked.
    skip_cols
        Optional ``bool`` per image column: columns not to read (a scanner
        streak); their points count as paper, like points outside the image.
    area_margin
        Marking- and write-in-area points nearer than this (inches) to
        printed ink are not read (blur or a bitonal threshold widens print).
    area_wanted
        Optional ``bool`` per target: whether its marking area is of use at
        all (a write-in line's is not: a written name is no mark beside a
        name). None: every target's.
    area_decided
        ``(score, dark)``: a target whose interior reaches either (its fill
        score, or its dark fraction) is decided by the target alone, and its
        marking area is not read. Either way its "marking" feature is then
        `AREA_NOT_READ` (-1). Default: every wanted marking area is read.
    levels
        Optional ``uint8`` grey level of each byte value the image holds: a
        bitonal page as its decoder gave it (bytes 0 and 1) is read with
        ``levels`` ``[0, 255]`` (min-is-black) or ``[255, 0]`` (min-is-white)
        and gives exactly the numbers of the same page converted to grey,
        without the page-wide conversion. Every byte of the image must be
        below ``len(levels)``. None: the bytes are grey levels.

    Returns
    -------
    ndarray
        ``(T, len(FEATURES))`` float64; columns named by `FEATURES`.
    """
    if image.dtype != np.uint8 or image.ndim != 2:
        raise ValueError(f"image must be 2-D uint8, got {image.dtype} with shape {image.shape}")
    affine = np.ascontiguousarray(affine, dtype=np.float64)
    if affine.shape != (2, 3):
        raise ValueError(f"affine must be (2, 3), got {affine.shape}")
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if offsets.ndim != 2 or offsets.shape[1] != 2 or len(offsets) == 0:
        raise ValueError(f"offsets must be (K, 2) with K >= 1, got {offsets.shape}")
    if not paper > ink:
        raise ValueError(f"paper level {paper} must be lighter than ink level {ink}")
    if not 0.0 < residue < split < 1.0:
        raise ValueError(f"need 0 < residue ({residue}) < split ({split}) < 1")
    image = np.ascontiguousarray(image)
    if skip_cols is None:
        skip_cols = np.zeros(image.shape[1], np.bool_)
    skip_cols = np.ascontiguousarray(skip_cols, dtype=np.bool_)
    if skip_cols.shape != (image.shape[1],):
        raise ValueError(f"skip_cols must have one entry per image column ({image.shape[1]}), got {skip_cols.shape}")
    if area_wanted is None:
        area_wanted = np.ones(points.n_targets, np.bool_)
    area_wanted = np.ascontiguousarray(area_wanted, dtype=np.bool_)
    if area_wanted.shape != (points.n_targets,):
        raise ValueError(f"area_wanted must have one entry per target ({points.n_targets}), got {area_wanted.shape}")
    # A copy: a read-only array (a page's levels are) would be a second compiled signature, not the one `warm` loads.
    levels = _NO_LEVELS if levels is None else np.array(levels, dtype=np.uint8)
    if levels.ndim != 1 or len(levels) > 256:
        raise ValueError(f"levels must be 1-D with at most 256 entries, got shape {levels.shape}")
    out = np.zeros((points.n_targets, N_FEATURES), dtype=np.float64)
    p = points
    score_targets_kernel(
        image,
        skip_cols,
        affine,
        offsets,
        float(paper),
        float(ink),
        float(split),
        float(residue),
        int(min_hits),
        int(p.n_sectors),
        float(area_margin),
        p.outline_xy,
        p.outline_w,
        p.outline_ptr,
        p.interior_xy,
        p.interior_col,
        p.interior_ncols,
        p.interior_ptr,
        p.outer_xy,
        p.outer_sector,
        p.outer_ptr,
        p.near_xy,
        p.near_sector,
        p.near_ptr,
        p.mark_xy,
        p.mark_cell,
        p.mark_dist,
        int(p.n_cells),
        p.mark_ptr,
        p.write_in_xy,
        p.write_in_dist,
        p.write_in_ptr,
        area_wanted,
        float(area_decided[0]),
        float(area_decided[1]),
        levels,
        out,
    )
    return out


#: `score_targets`' ``levels`` for a grey page: none (the bytes are grey levels).
_NO_LEVELS = np.zeros(0, np.uint8)


def warm() -> None:
    """Load every kernel's compiled code (numba's on-disk cache, or compile it once) before any page is read.

    Loading the cached machine code of the three kernels costs ~0.9 s of CPU
    the first time each is called in a process. `tabulate scan`'s forkserver
    calls this once, so the workers it forks inherit the loaded code instead
    of each paying for it on its first sheet (docs/perf.md, start-up).
    The arguments have the real calls' types, so the same compiled
    signatures are loaded.
    """
    win = np.full((8, 8), 255, np.uint8)
    mark_components(win, 3)
    refine_mark(win, 128, 5, win, 255.0)
    xy, f64 = np.zeros((0, 2)), np.zeros(0)
    i32, ptr = np.zeros(0, np.int32), np.zeros(1, np.int64)
    nothing = TargetPoints(
        xy, f64, ptr, xy, i32, i32, ptr, xy, i32, ptr, xy, i32, ptr, xy, i32, f64, ptr, xy, f64, ptr, 8, 4
    )
    score_targets(win, np.eye(2, 3), nothing, paper=255.0, ink=0.0, split=0.25, residue=0.08, offsets=np.zeros((1, 2)))
    # (a bitonal page's levels have the same type as a grey page's none: one compiled signature serves both)
    match_anchors(win, np.eye(2), np.zeros((1, 2)), np.zeros((1, 3, 3), np.uint8), 1)
    match_anchors(win, np.eye(2), np.zeros((1, 2)), np.zeros((1, 3, 3), np.uint8), 1, climb=True)
    skew_sums(win)
    tri = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    affine_fit(tri, tri)
    trim_refit(tri, tri, np.eye(2, 3), 1.0, 3)
    spread_runs(win, np.eye(2, 3), np.zeros((1, 2)), np.zeros(1, np.int64), np.zeros(1, np.int64), 128.0, 1, 1)
