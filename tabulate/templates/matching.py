"""Which blank a registered page shows, by matching (the page carries no code, or it does not read).

The page, put into its own frame at `SCREEN_DPI` and onto the blanks' levels
(`frame_as_blank`), is compared with every blank: one matrix product with the
blanks' unit vectors, stacked once per set (`MatchBasis`). The best must have a
correlation of at least `MIN_MATCH` and beat every other template by
`MATCH_MARGIN`; else the page is refused (``no_template_match`` or
``template_ambiguous``). Two blanks that differ only in a contest or a name
are told apart where they differ (`closer_share`, `differs_toward`), at
`MATCH_DPI`: only those pixels of the page are sampled (`PagePixels`), not its
whole frame.
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
#: Resolution of the whole-frame comparison (is the page one of the set's, and which is nearest). Half of
#: `MATCH_DPI` each way: a quarter of the pixels to warp, level and correlate. Telling two close blanks apart
#: (a name, a contest) stays at `MATCH_DPI`, on the pixels where they differ.
SCREEN_DPI = MATCH_DPI / 2
#: At `SCREEN_DPI` a page's correlation with its own blank runs 0.08-0.13 above its correlation at
#: `MATCH_DPI` (the pyramid step smooths the scan's grain away; 200 arrows pages of seed 2026, rough scans
#: included: 0.82-0.97 against 0.73-0.87). A winner under this is held to `MIN_MATCH` at `MATCH_DPI` over
#: the whole frame, as before; above it, less the largest gain measured, it is still 0.57 or more there.
SURE_MATCH = 0.7
#: At `SCREEN_DPI` a runner-up this close (or closer) is compared where it differs from the winner. Pages
#: of close templates come 0.017-0.026 apart and the rest 0.109 or more (0.021-0.027 and 0.098 at
#: `MATCH_DPI`, same pages): `MATCH_MARGIN` would do; the wider margin keeps the check's reach.
SCREEN_MARGIN = 0.08


@dataclass(frozen=True, eq=False)
class MatchBasis:
    """Blanks of one shape as the rows of one matrix of unit vectors (`align.unit`): a page's correlation
    with every one of them is one matrix product."""

    pages: tuple[TemplatePage, ...]
    units: np.ndarray  # (pages, pixels) float32

    @classmethod
    def of(cls, tset: TemplateSet, coarse: bool = False) -> dict[tuple[int, int], MatchBasis]:
        """Per shape, the blanks at `SCREEN_DPI` (or, ``coarse``, at `COARSE_DPI`, blurred: for ranking)."""
        by_shape: dict[tuple[int, int], list[np.ndarray]] = {}
        pages: dict[tuple[int, int], list[TemplatePage]] = {}
        for p in tset.pages:
            prep = prepared(tset, p)
            a = prep.small if coarse else screen_blank(prep.match)
            by_shape.setdefault(a.shape, []).append(unit(a))
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


def screen_blank(match: np.ndarray) -> np.ndarray:
    """A blank at `MATCH_DPI` (``PreparedPage.match``) brought to `SCREEN_DPI` the way the page is
    (`screen_image`): one Gaussian pyramid step."""
    return cv2.pyrDown(match)


def screen_image(half: np.ndarray) -> np.ndarray:
    """The page's `half_image` (at `MATCH_DPI`) brought to `SCREEN_DPI`: one Gaussian pyramid step, so
    the frame's warp samples a smoothed page, as the blanks' (`screen_blank`)."""
    return cv2.pyrDown(half)


def levels_table(reg: Registration) -> np.ndarray:
    """The 256-entry table taking a page's grey levels to the blanks' (ink bright): its paper to 0, its
    print to 255 (as fed, ink bright, when its print is too faint to tell from paper)."""
    table = 255.0 - np.arange(256, dtype=np.float32)
    paper, ink = 255.0 - reg.paper, 255.0 - reg.ink
    if ink - paper >= 30:
        table = np.clip((table - paper) * (255.0 / (ink - paper)), 0.0, 255.0).astype(np.float32)
    return table


def _frame_map(affine: np.ndarray, dpi: float) -> np.ndarray:
    """Frame pixels at ``dpi`` -> the image pixels ``affine`` (page inches -> image pixels) gives: 2 x 3."""
    return (np.vstack([affine, [0, 0, 1]]) @ np.diag([1 / dpi, 1 / dpi, 1.0]))[:2]


def frame_as_blank(
    image: np.ndarray,
    affine: np.ndarray,
    width_in: float,
    height_in: float,
    reg: Registration,
    dpi: float = MATCH_DPI,
) -> np.ndarray:
    """The page (``image``, ``affine`` page inches -> its pixels) in its own frame at ``dpi``, ink bright
    and put on the blanks' levels: its paper at 0, its print at 255.

    A rough scan's grey paper and faint print would otherwise be "nearer" the blank whose print is absent
    (or present) everywhere the two templates differ, whatever the page shows (`closer_share`). The warp
    stays ``uint8`` and one 256-entry table does the rest (the same float32 values as converting the
    warped page and rescaling it, in one pass instead of four).
    """
    size = (round(width_in * dpi), round(height_in * dpi))
    if dpi == SCREEN_DPI:  # the blanks' shape there: `screen_blank` of theirs at MATCH_DPI
        size = ((round(width_in * MATCH_DPI) + 1) // 2, (round(height_in * MATCH_DPI) + 1) // 2)
    out = cv2.warpAffine(
        image,
        _frame_map(affine, dpi),
        size,
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=255,
    )
    return cv2.LUT(out, levels_table(reg))


#: Points a row of `PagePixels.at_xy`'s sampling maps.
_MAP_ROW = 4096


@dataclass(frozen=True, eq=False)
class PagePixels:
    """The page's frame at `MATCH_DPI`, on the blanks' levels (as `frame_as_blank`), sampled only at the
    pixels asked for: where two blanks differ is a few per cent of the frame, and warping the rest of it
    only to look at those was most of matching's time."""

    half: np.ndarray  # the page's `half_image` (uint8, at MATCH_DPI)
    affine_half: np.ndarray  # page inches -> ``half``'s pixels
    table: np.ndarray  # `levels_table` of the page

    def at(self, where: np.ndarray, width: int) -> np.ndarray:
        """The frame's pixels at flat indices ``where`` of a frame ``width`` pixels wide (float32), by
        `cv2.remap`'s bilinear sampling: what `frame_as_blank` gives there, to a grey level."""
        if where.size == 0:
            return np.zeros(0, np.float32)
        y, x = np.divmod(where, width)
        return self.at_xy(x.astype(np.float32), y.astype(np.float32))

    def at_xy(self, xf: np.ndarray, yf: np.ndarray) -> np.ndarray:
        """`at` for frame pixel columns ``xf`` and rows ``yf`` (float32, not empty)."""
        m = _frame_map(self.affine_half, MATCH_DPI).astype(np.float32)
        n = len(xf)
        # `cv2.remap` takes maps under 32,767 pixels a side: the points as rows of `_MAP_ROW`, the last padded.
        rows = -(-n // _MAP_ROW)
        mx, my = np.zeros((2, rows * _MAP_ROW), np.float32)
        mx[:n] = m[0, 0] * xf + m[0, 1] * yf + m[0, 2]
        my[:n] = m[1, 0] * xf + m[1, 1] * yf + m[1, 2]
        shape = (rows, _MAP_ROW) if rows > 1 else (1, n)
        got = cv2.remap(
            self.half,
            mx[: shape[0] * shape[1]].reshape(shape),
            my[: shape[0] * shape[1]].reshape(shape),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=255,
        )
        return cv2.LUT(got, self.table).ravel()[:n]

    def correlation(self, blank: np.ndarray, blank_unit: np.ndarray) -> float:
        """The page's whole-frame correlation with a blank at `MATCH_DPI` (``PreparedPage.match`` and its
        ``match_unit``): `MIN_MATCH`'s own measure, for a winner not clear at `SCREEN_DPI`."""
        h, w = blank.shape
        out = cv2.warpAffine(
            self.half,
            _frame_map(self.affine_half, MATCH_DPI),
            (w, h),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=255,
        )
        return float(np.einsum("i,i->", unit(cv2.LUT(out, self.table)), blank_unit))


def match_page(
    tset: TemplateSet,
    bases: dict[tuple[int, int], MatchBasis],
    frame: np.ndarray,
    pixels: PagePixels,
    fine: np.ndarray,
    paper: float,
) -> tuple[TemplatePage, bool]:
    """The blank ``frame`` (`frame_as_blank` at `SCREEN_DPI`) is, and whether it stands between blanks
    printed alike (`same_targets`: then the sheet's other side names the style, `tabulate.detect.pair_pages`).
    ``pixels`` gives the page at `MATCH_DPI` where two close blanks differ. `ReadError` when no blank, or
    no one blank, matches."""
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
    whole = best
    if best < SURE_MATCH and not bare:  # not clear at SCREEN_DPI: MIN_MATCH's own test, at MATCH_DPI
        whole = pixels.correlation(prepared(tset, win).match, prepared(tset, win).match_unit)
    if whole < MIN_MATCH and not bare:
        raise ReadError(
            "no_template_match",
            f"the page matches no template page (best {win.key}, correlation "
            f"{whole:.2f} < {MIN_MATCH}) and carries no code the set maps",
        )
    twin = False
    for rho, other in scores[1:]:
        if best - rho >= SCREEN_MARGIN:
            break
        if other.page == win.page and same_targets(win, other):
            twin = True  # printed alike: no pixel can tell them apart, and no mark depends on which
            continue
        # Close overall: compare only where the two blanks differ (a contest, a name), at MATCH_DPI: those
        # pixels are found once per pair and process (`differing`), and only they are sampled from the page.
        where = differing(tset, win, other)
        wa = prepared(tset, win).match
        a, b = wa.ravel()[where], prepared(tset, other).match.ravel()[where]
        f = pixels.at(where, wa.shape[1])
        share = closer_share(f, a, b)
        if share < MIN_CLOSER and differs_toward(f, a, b) < MIN_DIFF_CORRELATION:
            raise ReadError(
                "template_ambiguous",
                f"the page matches {win.key} and {other.key} about equally "
                f"(correlation {best:.3f} and {rho:.3f}; closer to {win.key} on {share:.0%} of "
                "where they differ), and its code does not read",
            )
    return win, twin


#: A page its code names is compared with each other blank of its shape on at most about this many of the
#: pixels where the two differ (evenly spaced): the share and correlation `match_page` takes a winner by,
#: to a few per cent, at a fraction of the cost on every coded page. The rule's lines, 65 % and 0.3, stand
#: far from what a page shows toward another blank than its own (40 sheets of seed 2026: boxes at most
#: 21 % and -0.93, timing 6 % and -0.76).
CONFIRM_PIXELS = 1000


def confirm_code(tset: TemplateSet, named: TemplatePage, pixels: PagePixels) -> None:
    """Refuse (``template_code_mismatch``) a page whose code names ``named`` but whose print is another
    blank's: where the two differ the page is nearer the other by the rule that would make the other the
    winner in `match_page` (`MIN_CLOSER` of the pixels, or `MIN_DIFF_CORRELATION`). Blanks printed alike
    (`same_targets`) are not compared: there only the code tells the style, and no mark depends on which.
    Without this a mis-coded page (a vendor's misprint, a pasted label) would be read against the wrong
    template: its votes counted for the options printed somewhere else.

    Every other blank at once: one sample of the page (`PagePixels.at`) and a few sums per blank
    (`np.add.reduceat` over each one's run of pixels), the same share and correlations as `closer_share`
    and `differs_toward` on those pixels."""
    c = _confirm_pixels(tset, named)
    if c is None:
        return
    share, toward = _toward_others(c, pixels.at_xy(c.x, c.y))
    hit = np.flatnonzero((share >= MIN_CLOSER) | (toward >= MIN_DIFF_CORRELATION))
    if hit.size:
        other = c.others[int(hit[0])]
        raise ReadError(
            "template_code_mismatch",
            f"the page's code names {named.key} but its print is {other.key}'s (nearer it on "
            f"{share[hit[0]]:.0%} of where the two differ): a mis-coded ballot, for a person to look at",
        )


def _toward_others(c: _Confirm, page: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per other blank of ``c``, on its run of ``page``'s sampled pixels: the share nearer it than the
    named blank (`closer_share`) and the correlation with it less that with the named blank
    (`differs_toward`)."""
    f = page.astype(np.float64)
    share = np.add.reduceat((np.abs(f - c.theirs) < np.abs(f - c.own)).astype(np.float64), c.starts) / c.sizes
    fc = f - np.repeat(np.add.reduceat(f, c.starts) / c.sizes, c.sizes)
    nf = np.sqrt(np.add.reduceat(fc * fc, c.starts))
    toward = _ratio(np.add.reduceat(fc * c.theirs_c, c.starts), nf * c.theirs_n) - _ratio(
        np.add.reduceat(fc * c.own_c, c.starts), nf * c.own_n
    )
    return share, toward


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den``, 0 where ``den`` is 0 (`align.ncc`'s correlation of a flat run)."""
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=den > 0)
    return out


@dataclass(frozen=True, eq=False)
class _Confirm:
    """`confirm_code`'s pixels for one named blank: each other blank's run of sample pixels, one after
    another (``starts``, ``sizes``), with both blanks' values there, and centred with their lengths."""

    others: tuple[TemplatePage, ...]
    width: int
    where: np.ndarray
    x: np.ndarray  # ``where``'s frame columns and rows, float32 (`PagePixels.at_xy`)
    y: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray
    own: np.ndarray
    theirs: np.ndarray
    own_c: np.ndarray
    theirs_c: np.ndarray
    own_n: np.ndarray
    theirs_n: np.ndarray


_CONFIRM: dict[tuple[str, str], _Confirm | None] = {}


def _confirm_pixels(tset: TemplateSet, named: TemplatePage) -> _Confirm | None:
    """Every other blank of ``named``'s shape not printed alike, with an even sample of at most about
    `CONFIRM_PIXELS` of the pixels where the two differ (left out when they differ on fewer than 10);
    None when there is none. Made once per named blank and process."""
    key = (tset.folder, named.key)
    if key in _CONFIRM:
        return _CONFIRM[key]
    own = prepared(tset, named).match.ravel().astype(np.float64)
    runs = []
    for other in tset.pages:
        if other is named or same_targets(named, other):
            continue
        where = differing(tset, named, other)
        if where.size >= 10:
            runs.append((other, where[:: max(1, where.size // CONFIRM_PIXELS)]))
    hit = None
    if runs:
        sizes = np.array([len(w) for _o, w in runs])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        a = np.concatenate([own[w] for _o, w in runs])
        b = np.concatenate([prepared(tset, o).match.ravel()[w].astype(np.float64) for o, w in runs])
        ac = a - np.repeat(np.add.reduceat(a, starts) / sizes, sizes)
        bc = b - np.repeat(np.add.reduceat(b, starts) / sizes, sizes)
        width = prepared(tset, named).match.shape[1]
        where = np.concatenate([w for _o, w in runs])
        y, x = np.divmod(where, width)
        hit = _Confirm(
            tuple(o for o, _w in runs),
            width,
            where,
            x.astype(np.float32),
            y.astype(np.float32),
            starts,
            sizes,
            a,
            b,
            ac,
            bc,
            np.sqrt(np.add.reduceat(ac * ac, starts)),
            np.sqrt(np.add.reduceat(bc * bc, starts)),
        )
    _CONFIRM[key] = hit
    return hit


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
