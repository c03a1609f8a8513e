"""Dotted scanner streaks on a bitonal page: a faint streak the threshold breaks into specks.

A dust streak on a sheet-fed scanner's glass darkens one column of the image
a few grey levels down the whole feed. A dark one turns the column black, and
`tabulate.detect.streaks` finds it in the paper's top and bottom margins. A
faint one on a bitonal scan sits just under the threshold: the column comes
out white but for specks wherever the sensor's noise pushes a pixel over, a
dotted line from the top of the page to the bottom. In a margin band 0.12 in
tall it shows a speck or two, too few to count as dark. Where it crosses an
oval, the specks left inside it read as faint residue (the page's blank level
is 0 on a bitonal page, `classify.page_floor`), and where it crosses a name
as "a mark beside the name" (31 KAR 6:030 Section 3(1)(e): "any other mark
indicating the intent of the voter next to the candidate's name"): the
timing family's clean ballots sent to a person (`benchmarks/templates_triage.py`,
seed 2026, 1,000 sheets: sheets 23, 307, 523, 691, 731, 799 and 823, every one a
dotted column in the crops).

No voter's ink and no print does what such a streak does: small separate
specks (`SPECK_PX` pixels at most, `SPECK_W_PX` wide), in one column (give or
take one), in every quarter of the paper's height (`MIN_PER_QUARTER` in each).
Letters and rules are pieces larger than a speck; a pen stroke is one piece
and stops; a pencil's or an eraser's remains stay inside one target; a
scanner's noise falls anywhere, never in one column the page's length. Those
columns are skipped as the margins' streaks are (`streak_columns`); every other
column of a target is read as before.

Finding them labels the page's pieces (~0.1 s a page at 200 dpi), so a page is
looked at only when its reading would send it to a person (`suspect`).
"""

from __future__ import annotations

import cv2
import numpy as np

from ..detect.streaks import widened

#: A speck: a piece of black at most this many pixels (at 200 dpi; scaled by the area) ...
SPECK_PX = 8
#: ... and at most this wide (pixels at 200 dpi): a streak is 1-3 sensor elements wide.
SPECK_W_PX = 3
#: The paper's height is cut in this many parts; a streak shows in every one.
QUARTERS = 4
#: Specks a streak column (with its neighbours either side) shows in each part, at least.
MIN_PER_QUARTER = 6
#: Columns skipped either side of a streak found (its blur).
WIDEN = 1
#: Specks this near a target (inches) are not counted: a voter's ink, not the paper's.
TARGET_MARGIN_IN = 0.05
#: More than this share of the page's columns "streaks" is not dust: leave the page alone.
MAX_PAGE_SHARE = 0.01


def dotted_streaks(paper: np.ndarray, dpi: float, targets: np.ndarray | None = None) -> np.ndarray | None:
    """A ``bool`` per column of a bitonal page's ``paper`` rows (0 and 255 only): a dotted streak
    runs there; None when there is none (or more than dust makes, `MAX_PAGE_SHARE`).

    ``targets``: (n, 4) boxes x0, y0, x1, y1 in ``paper``'s pixels whose specks are not counted: on a
    timing-mark grid the ovals stand in columns, and a grainy pencil's fills down one column of ovals
    leave specks in every part of the page; a streak shows on the paper between them.
    """
    h, w = paper.shape
    if h < QUARTERS or w < 3:
        return None
    black = (paper < 128).astype(np.uint8)
    n, _labels, stats, centres = cv2.connectedComponentsWithStats(black, connectivity=8)
    scale = dpi / 200.0
    area, width = stats[1:n, cv2.CC_STAT_AREA], stats[1:n, cv2.CC_STAT_WIDTH]
    speck = (area <= SPECK_PX * scale * scale) & (width <= max(1, round(SPECK_W_PX * scale)))
    if not speck.any():
        return None
    x, y = centres[1:n, 0][speck], centres[1:n, 1][speck]
    if targets is not None and len(targets):
        b = np.asarray(targets, dtype=np.float64)
        inside = (
            (x[:, None] >= b[None, :, 0])
            & (x[:, None] <= b[None, :, 2])
            & (y[:, None] >= b[None, :, 1])
            & (y[:, None] <= b[None, :, 3])
        )
        x, y = x[~inside.any(axis=1)], y[~inside.any(axis=1)]
    cols = np.clip(np.rint(x).astype(np.int64), 0, w - 1)
    part = np.minimum((y * QUARTERS / h).astype(np.int64), QUARTERS - 1)
    counts = np.zeros((QUARTERS, w + 2), np.int64)
    np.add.at(counts, (part, cols + 1), 1)
    near = counts[:, :-2] + counts[:, 1:-1] + counts[:, 2:]  # a column with its neighbours: a speck's centre wanders
    streak = near.min(axis=0) >= MIN_PER_QUARTER
    if not streak.any() or np.count_nonzero(streak) > MAX_PAGE_SHARE * w:
        return None
    return widened(streak, WIDEN)


def target_boxes(targets, affine: np.ndarray, row0: int, margin_in: float) -> np.ndarray:
    """Each target's box grown by ``margin_in``, in image pixels (``affine``: page inches to image), rows
    counted from ``row0``: the (n, 4) ``targets`` of `dotted_streaks`."""
    out = []
    m = np.asarray(affine, dtype=np.float64)
    for t in targets:
        b = t.bounds
        x0, y0, x1, y1 = b.x - margin_in, b.y - margin_in, b.x + b.w + margin_in, b.y + b.h + margin_in
        px = np.array([[x0, y0, 1.0], [x1, y0, 1.0], [x0, y1, 1.0], [x1, y1, 1.0]]) @ m.T
        lo, hi = px.min(axis=0), px.max(axis=0)
        out.append((lo[0], lo[1] - row0, hi[0], hi[1] - row0))
    return np.array(out, dtype=np.float64).reshape(-1, 4)


def suspect(readings) -> bool:
    """Whether a page's readings would send it to a person (a target marginal, or scan and hand apart)."""
    return any(r.scan == "marginal" or r.scan != r.hand for r in readings)


def is_bitonal(image: np.ndarray) -> bool:
    """Whether a few of the image's rows hold only black and white (a bitonal scan)."""
    rows = image[:: max(1, image.shape[0] // 8)]
    return np.count_nonzero(rows == 0) + np.count_nonzero(rows == 255) == rows.size
