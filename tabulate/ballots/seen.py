"""What a scanned bitonal image shows inside a target: its black pixels, dust streaks left out.

A bitonal scanner's threshold decides what is left of a light mark: a light
pencil fill darker than the threshold turns black, one lighter than it
vanishes but for specks. The truth (`tabulate.ballots.truth.expected_reading`)
and the accuracy benchmark ask the image itself, located with the
simulator's own transform (not a reader's registration), over the target's
interior clear of its printed outline. A dust streak is a line of the
scanner's, not the voter's ink: its columns are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..election.layout import TargetLayout

#: How far inside the target's outer edge the samples stay (inches): clear of the printed outline and its blur.
INSET_IN = 0.03


@dataclass(frozen=True)
class InteriorPixels:
    """Black pixels among the image pixels sampled inside one target's interior."""

    black: int
    sampled: int

    @property
    def share(self) -> float:
        return self.black / self.sampled if self.sampled else 0.0


def _grid(target: TargetLayout) -> np.ndarray:
    """(x, y, 1) page inches on a 25 x 13 grid over the interior (an ellipse for an oval, else the box)."""
    (cx, cy), a, b = target.bounds.center, target.bounds.w / 2 - INSET_IN, target.bounds.h / 2 - INSET_IN
    u, v = np.meshgrid(np.linspace(-1, 1, 25), np.linspace(-1, 1, 13))
    inside = u**2 + v**2 <= 1.0 if target.shape == "oval" else np.ones_like(u, bool)
    return np.column_stack([cx + a * u[inside], cy + b * v[inside], np.ones(int(inside.sum()))])


def interior_black(
    image: np.ndarray, page_to_image: np.ndarray, target: TargetLayout, streaks: tuple | list = ()
) -> InteriorPixels:
    """Black (< 128) pixels inside ``target`` in ``image``, leaving out the columns a dust streak
    (``(column, width, gray change)`` in image columns) runs down, widened by a pixel for the blur."""
    pts = _grid(target) @ np.asarray(page_to_image, dtype=np.float64).T
    c = np.clip(pts[:, 0].astype(int), 0, image.shape[1] - 1)
    r = np.clip(pts[:, 1].astype(int), 0, image.shape[0] - 1)
    keep = np.ones(len(c), bool)
    for col, width, _delta in streaks:
        keep &= (c < col - 1) | (c > col + width)
    return InteriorPixels(int((image[r[keep], c[keep]] < 128).sum()), int(keep.sum()))
