"""Print the template has and the page lacks: a page of a style the set does not hold is not read as a
look-alike.

Matching compares a page with every blank over the whole frame and, where two blanks are close, where they
differ (`tabulate.templates.matching`). A page whose own blank is *not in the set* has no such rival: two
styles that differ in one contest's names correlate 0.85 over the whole frame, as a page does with its own
blank, and the page was read as the style that is in the set, its marks counted for the names printed on
the other style (40 arrows sheets, a set of style 1 only: 29 pages of styles 2 and 3 read as 1-p1). Marks,
write-ins, specks and bleed-through add ink; nothing a voter or a scanner does takes the vendor's print
away. So, in tiles an inch square (and again half a tile over), the share of the blank's print where the
page shows paper must stay under `MAX_MISSING`: genuine pages reach 0.091 at most (200 sheets a family,
seed 2026, rough scans included), a missing style of the simulator's 1.0, two blanks differing only in one
contest's names (the test's) 0.38. Else the page is refused ``no_template_match``, as the issue asks of "a
page that matches no template".

Only the points that fall on the scanned image count (a page fed off the scanner's edge lost its print to
the feed, not to the printer).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..detect.errors import ReadError
from .align import MATCH_DPI
from .matching import PagePixels
from .model import TemplatePage, TemplateSet
from .pages import prepared

#: A blank's pixel at `MATCH_DPI` (ink bright, 0-255) this bright is print.
BLANK_PRINT = 160.0
#: A page's pixel on the blanks' levels (`matching.levels_table`: paper 0, print 255) this dark is paper.
PAGE_PAPER = 50.0
#: Tiles a side (inches); a second grid is offset by half a tile, so a name across a tile's edge is whole in one.
TILE_IN = 1.0
#: A tile with fewer of the blank's print pixels than this (of those sampled, a chequerboard's half) is not
#: judged.
MIN_TILE_PRINT = 20
#: Print this near a page's corner (inches, both ways) is not judged: a corner torn off (or a staple's tear)
#: takes the vendor's print with the paper.
CORNER_IN = 1.25
#: A page missing this share of a tile's print or more is not the blank's.
MAX_MISSING = 0.25


@dataclass(frozen=True, eq=False)
class _Print:
    """A blank's print pixels at `MATCH_DPI` (float32 columns and rows) and each one's tile in both grids."""

    x: np.ndarray
    y: np.ndarray
    tiles: tuple[np.ndarray, np.ndarray]


_PRINT: dict[tuple[str, str], _Print] = {}


def _print_of(tset: TemplateSet, tp: TemplatePage) -> _Print:
    key = (tset.folder, tp.key)
    hit = _PRINT.get(key)
    if hit is None:
        blank = prepared(tset, tp).match
        ys, xs = np.nonzero(blank >= BLANK_PRINT)
        h, w = blank.shape
        c = CORNER_IN * MATCH_DPI
        corner = ((xs < c) | (xs >= w - c)) & ((ys < c) | (ys >= h - c))
        # Every other pixel, as a chequerboard (half the sampling, every stroke kept); not the corners.
        keep = ((xs + ys) % 2 == 0) & ~corner
        ys, xs = ys[keep], xs[keep]
        t = TILE_IN * MATCH_DPI
        cols = int(blank.shape[1] // t) + 2
        tiles = tuple((((ys + o) // t) * cols + (xs + o) // t).astype(np.int64) for o in (0.0, t / 2))
        hit = _PRINT[key] = _Print(xs.astype(np.float32), ys.astype(np.float32), tiles)  # type: ignore[arg-type]
    return hit


def missing_print(tset: TemplateSet, tp: TemplatePage, pixels: PagePixels) -> float:
    """The largest share of a tile's print of ``tp``'s blank that the page shows as paper (0 when no tile
    has `MIN_TILE_PRINT` print pixels on the scan)."""
    pr = _print_of(tset, tp)
    if pr.x.size == 0:
        return 0.0
    on = pixels.inside_xy(pr.x, pr.y)
    gone = on & (pixels.at_xy(pr.x, pr.y) <= PAGE_PAPER)
    worst = 0.0
    for tiles in pr.tiles:
        n = np.bincount(tiles, weights=on)
        lost = np.bincount(tiles, weights=gone)
        judged = n >= MIN_TILE_PRINT
        if judged.any():
            worst = max(worst, float((lost[judged] / n[judged]).max()))
    return worst


def check_print(tset: TemplateSet, tp: TemplatePage, pixels: PagePixels) -> None:
    """Refuse (``no_template_match``) a page missing `MAX_MISSING` of some tile's print of ``tp``."""
    share = missing_print(tset, tp, pixels)
    if share >= MAX_MISSING:
        raise ReadError(
            "no_template_match",
            f"the page lacks print template {tp.key} has ({share:.0%} of an inch-square tile's print is paper "
            "on the page): a page of a style not in the set, or a misprint; it carries no code the set maps",
        )
