"""The sample points a page's targets are scored at, as flat arrays (page inches).

Every target of a page is described by several point sets, each stored in
compressed-sparse-row form: one ``(N, 2)`` float64 array of ``(x_in, y_in)``
page positions for all targets, and an ``int64`` pointer array of length
``T + 1`` so that target ``t`` owns rows ``ptr[t]:ptr[t + 1]``. The kernels
loop over these arrays; nothing about ballots, shapes or layouts reaches them.

The point sets (built by `tabulate.detect.template`):

outline
    Where the printed target is (weight > 0) and paper right beside it
    (weight < 0); the local search moves the target to the offset that best
    matches this pattern.
interior
    The target's interior, inset past the printed outline, at the image's
    pixel pitch. The fill score is the interior's mean darkness, normalised
    between the paper beside the target (0) and the page's ink (1): the
    fraction of the interior darker than the split, averaged over every split
    from paper to ink (on a bitonal page, exactly the fraction of black
    pixels). It weighs a mark's coverage by its density, which is what
    separates a light pencil fill from the patchy residue of an erasure.
    ``interior_col`` is the column index of each point for connect-the-arrow
    targets (-1 otherwise); an arrow's score is the fraction of columns across
    the gap that hold ink.
outer, near
    Bands around the target split into ``n_sectors`` angular sectors: the
    outer band catches a circle drawn around the target, the near band the
    strokes that cross the outline. Printed ink is left out of both.
mark, write_in
    The designated marking area beside the target and the write-in area,
    without the points where something is printed. The marking area is cut
    into cells (``mark_cell``, at most ``n_cells`` per target) and its feature
    is the darkest cell's dark fraction: an X or check is compact, while
    noise and the blurred edges of the printed name are spread thin.
    ``mark_dist`` and ``write_in_dist`` are each point's distance (inches) to
    the nearest printed ink; a page read with ``area_margin`` skips the points
    nearer than that (a blurred scan's print reaches further).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Columns of the array returned by `tabulate.kernels.score_targets`.
FEATURES: tuple[str, ...] = (
    "score",  # fill score: mean normalised darkness of the interior (0 paper, 1 ink); arrows: columns joined
    "dark",  # fraction of the interior darker than the split
    "erasure",  # fraction of the interior between paper and the split: light residue
    "ring",  # fraction of outer-band sectors holding ink: a circle around the target
    "crossings",  # separate strokes crossing the near band: a line through the target gives 2
    "marking",  # the marking area's most inked cell: fraction of its unprinted points holding ink
    "write_in",  # fraction of the write-in area's unprinted points holding ink
    "dx_px",  # local-search offset chosen, image columns
    "dy_px",  # and image rows
    "match",  # outline match at that offset (-1..1; a printed target seen where expected is > 0.3)
    "paper",  # the paper grey right beside the target, that the levels are re-based on
    "deep",  # the interior's darkest tenth: its darkening of the paper as a share of print's (light pencil < 0.32)
)
F = {name: i for i, name in enumerate(FEATURES)}


@dataclass(frozen=True, eq=False)
class TargetPoints:
    """All sample points of one page's targets (see the module docstring)."""

    outline_xy: np.ndarray
    outline_w: np.ndarray
    outline_ptr: np.ndarray
    interior_xy: np.ndarray
    interior_col: np.ndarray
    interior_ncols: np.ndarray
    interior_ptr: np.ndarray
    outer_xy: np.ndarray
    outer_sector: np.ndarray
    outer_ptr: np.ndarray
    near_xy: np.ndarray
    near_sector: np.ndarray
    near_ptr: np.ndarray
    mark_xy: np.ndarray
    mark_cell: np.ndarray
    mark_dist: np.ndarray
    mark_ptr: np.ndarray
    write_in_xy: np.ndarray
    write_in_dist: np.ndarray
    write_in_ptr: np.ndarray
    n_sectors: int
    n_cells: int

    @property
    def n_targets(self) -> int:
        return len(self.outline_ptr) - 1

    def check(self) -> None:
        """Raise ValueError if the arrays do not fit together (called once per build)."""
        t = self.n_targets
        for name in ("outline", "interior", "outer", "near", "mark", "write_in"):
            xy, ptr = getattr(self, f"{name}_xy"), getattr(self, f"{name}_ptr")
            if xy.dtype != np.float64 or xy.ndim != 2 or xy.shape[1] != 2:
                raise ValueError(f"{name}_xy must be float64 (N, 2), got {xy.dtype} {xy.shape}")
            if ptr.dtype != np.int64 or ptr.shape != (t + 1,) or ptr[0] != 0 or ptr[-1] != len(xy):
                raise ValueError(f"{name}_ptr must be int64 of length {t + 1} running 0..{len(xy)}")
            if np.any(np.diff(ptr) < 0):
                raise ValueError(f"{name}_ptr must not decrease")
        for name, n in (
            ("outline_w", len(self.outline_xy)),
            ("interior_col", len(self.interior_xy)),
            ("outer_sector", len(self.outer_xy)),
            ("near_sector", len(self.near_xy)),
            ("mark_cell", len(self.mark_xy)),
            ("mark_dist", len(self.mark_xy)),
            ("write_in_dist", len(self.write_in_xy)),
        ):
            a = getattr(self, name)
            if a.shape != (n,):
                raise ValueError(f"{name} must have shape ({n},), got {a.shape}")
        if self.interior_ncols.shape != (t,):
            raise ValueError(f"interior_ncols must have shape ({t},)")
        for name, n in (("outer_sector", self.n_sectors), ("near_sector", self.n_sectors), ("mark_cell", self.n_cells)):
            a = getattr(self, name)
            if a.dtype != np.int32:
                raise ValueError(f"{name} must be int32")
            if len(a) and (a.min() < 0 or a.max() >= n):
                raise ValueError(f"{name} must lie in 0..{n - 1}")


def offsets_by_distance(radius_px: int) -> np.ndarray:
    """Integer (d_col, d_row) offsets within ``radius_px``, nearest first (ties: row-major).

    The local search visits them in this order and moves only on a strict
    improvement, so among equally good positions the one nearest the
    registered position wins.
    """
    r = int(radius_px)
    d = np.array(
        [(dc, dr) for dr in range(-r, r + 1) for dc in range(-r, r + 1) if dc * dc + dr * dr <= r * r + r],
        dtype=np.int64,
    )
    order = np.argsort(d[:, 0] ** 2 + d[:, 1] ** 2, kind="stable")
    return np.ascontiguousarray(d[order])
