"""Which blank a registered page shows, by matching (the page carries no code, or it does not read).

The page, put into its own frame at `MATCH_DPI` and onto the blanks' levels
(`frame_as_blank`), is compared with every blank: one matrix product with the
blanks' unit vectors, stacked once per set (`MatchBasis`). The best must have a
correlation of at least `MIN_MATCH` and beat every other template by
`MATCH_MARGIN`; else the page is refused (``no_template_match`` or
``template_ambiguous``). Two blanks that differ only in a contest or a name
are told apart where they differ (`closer_share`, `differs_toward`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from ..detect.errors import ReadError
from ..detect.register import Registration
from .align import MATCH_DPI, closer_share, unit
from .likeness import bare_as, differs_toward, same_targets
from .model import TemplatePage, TemplateSet
from .pages import prepared

#: Matching: the winner's correlation must reach MIN_MATCH and beat the runner-up by MATCH_MARGIN.
MIN_MATCH = 0.5
MATCH_MARGIN = 0.05
#: Where two close templates' blanks differ, the page must be nearer the winner on this share of pixels.
MIN_CLOSER = 0.65
#: Or, on those pixels, the page's correlation with the winner must beat the runner-up's by this much.
MIN_DIFF_CORRELATION = 0.3


@dataclass(frozen=True, eq=False)
class MatchBasis:
    """Blanks of one shape as the rows of one matrix of unit vectors (`align.unit`): a page's correlation
    with every one of them is one matrix product."""

    pages: tuple[TemplatePage, ...]
    units: np.ndarray  # (pages, pixels) float32

    @classmethod
    def of(cls, tset: TemplateSet, coarse: bool = False) -> dict[tuple[int, int], MatchBasis]:
        """Per shape, the blanks at `MATCH_DPI` (or, ``coarse``, at `COARSE_DPI`, blurred: for ranking)."""
        by_shape: dict[tuple[int, int], list[np.ndarray]] = {}
        pages: dict[tuple[int, int], list[TemplatePage]] = {}
        for p in tset.pages:
            prep = prepared(tset, p)
            a = prep.small if coarse else prep.match
            by_shape.setdefault(a.shape, []).append(unit(a) if coarse else prep.match_unit)
            pages.setdefault(a.shape, []).append(p)
        return {shape: cls(tuple(pages[shape]), np.stack(us)) for shape, us in by_shape.items()}

    def correlations(self, a: np.ndarray) -> list[tuple[float, TemplatePage]]:
        """``a``'s normalised cross-correlation with every blank (as `align.ncc`), best first."""
        return sorted(zip(self.dots(unit(a)), self.pages), key=lambda s: -s[0])

    def dots(self, v: np.ndarray) -> list[float]:
        """Every blank's unit vector dotted with ``v``, by numpy's own loop (``einsum``), not BLAS:
        OpenBLAS runs a product this large on several threads, which then spin waiting for the next
        one while the page is read on, and their CPU came to 2-3 times the whole read's."""
        return np.einsum("ij,j->i", self.units, v.astype(np.float32, copy=False)).tolist()


def frame_as_blank(half: np.ndarray, affine_half: np.ndarray, width_in: float, height_in: float, reg: Registration):
    """The page (``half``: `half_image` of the fine page, ``affine_half`` page inches -> its pixels) in its own
    frame at `MATCH_DPI`, ink bright and put on the blanks' levels: its paper at 0, its print at 255.

    A rough scan's grey paper and faint print would otherwise be "nearer" the blank whose print is absent
    (or present) everywhere the two templates differ, whatever the page shows (`closer_share`). The warp
    stays ``uint8`` and one 256-entry table does the rest (the same float32 values as converting the
    warped page and rescaling it, in one pass instead of four).
    """
    m = np.vstack([affine_half, [0, 0, 1]]) @ np.diag([1 / MATCH_DPI, 1 / MATCH_DPI, 1.0])
    size = (round(width_in * MATCH_DPI), round(height_in * MATCH_DPI))
    out = cv2.warpAffine(
        half,
        m[:2],
        size,
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=255,
    )
    table = 255.0 - np.arange(256, dtype=np.float32)
    paper, ink = 255.0 - reg.paper, 255.0 - reg.ink
    if ink - paper >= 30:
        table = np.clip((table - paper) * (255.0 / (ink - paper)), 0.0, 255.0).astype(np.float32)
    return cv2.LUT(out, table)


def match_page(
    tset: TemplateSet,
    bases: dict[tuple[int, int], MatchBasis],
    frame: np.ndarray,
    fine: np.ndarray,
    paper: float,
) -> tuple[TemplatePage, bool]:
    """The blank ``frame`` (`frame_as_blank`) is, and whether it stands between blanks printed alike
    (`same_targets`: then the sheet's other side names the style, `tabulate.detect.pair_pages`).
    `ReadError` when no blank, or no one blank, matches."""
    basis = bases.get(frame.shape)
    if basis is None:
        raise ReadError("no_template_match", "the page matches no template page and carries no code the set maps")
    f = frame.ravel()
    _mean, std = cv2.meanStdDev(frame)
    norm = float(std[0, 0]) * math.sqrt(f.size)  # |f - mean f|; the blanks' unit vectors sum to 0
    rhos = [d / norm for d in basis.dots(f)] if norm > 0 else [0.0] * len(basis.pages)
    scores = sorted(zip(rhos, basis.pages), key=lambda s: -s[0])
    best, win = scores[0]
    # A bare page's correlation with a bare blank is mostly the scan's grain: it need not reach
    # MIN_MATCH when neither has anything to score.
    bare = not win.layout.targets and bare_as(fine, paper, prepared(tset, win).blank)
    if best < MIN_MATCH and not bare:
        raise ReadError(
            "no_template_match",
            f"the page matches no template page (best {win.key}, correlation "
            f"{best:.2f} < {MIN_MATCH}) and carries no code the set maps",
        )
    twin = False
    for rho, other in scores[1:]:
        if best - rho >= MATCH_MARGIN:
            break
        if other.page == win.page and same_targets(win, other):
            twin = True  # printed alike: no pixel can tell them apart, and no mark depends on which
            continue
        # Close overall: compare only where the two blanks differ (a contest, a name): those pixels are
        # found once per pair and process (`differing`), not on the whole frame for every page.
        where = differing(tset, win, other)
        a, b = prepared(tset, win).match.ravel()[where], prepared(tset, other).match.ravel()[where]
        f = frame.ravel()[where]
        share = closer_share(f, a, b)
        if share < MIN_CLOSER and differs_toward(f, a, b) < MIN_DIFF_CORRELATION:
            raise ReadError(
                "template_ambiguous",
                f"the page matches {win.key} and {other.key} about equally "
                f"(correlation {best:.3f} and {rho:.3f}; closer to {win.key} on {share:.0%} of "
                "where they differ), and its code does not read",
            )
    return win, twin


_DIFFERING: dict[tuple[str, str, str], np.ndarray] = {}


def differing(tset: TemplateSet, a: TemplatePage, b: TemplatePage, min_diff: float = 80.0) -> np.ndarray:
    """The flat indices of the `MATCH_DPI` pixels where blanks ``a`` and ``b`` differ by at least
    ``min_diff`` (what `closer_share` and `differs_toward` compare), made once per pair and process.
    On those pixels alone both give what they give on the whole frame: every other pixel is left out
    by their own test."""
    key = (tset.folder, a.key, b.key)
    hit = _DIFFERING.get(key)
    if hit is None:
        pa, pb = prepared(tset, a).match, prepared(tset, b).match
        hit = np.flatnonzero(np.abs(pa - pb) >= min_diff) if pa.shape == pb.shape else np.zeros(0, np.int64)
        _DIFFERING[key] = hit
    return hit
