"""Does a page matched to a blank print that blank's names? (``template_foreign_print``)

31 KAR 6:030 Section 2(1)(a): a vote is the choice made by "filling in the oval or box or connecting the
arrow next to the candidate's name or the question choice". A page read by matching (no code, or one that
does not read) is given the template it correlates with best, by a margin over the set's *other* blanks
(`tabulate.templates.matching`). A page from outside the set - another election printed in the same
vendor's layout, a style whose blank was not imported - has no rival there: with one contest's names
changed it still correlates with the look-alike as well as a page does with its own blank, and its marks
would be counted for names it does not print.

So every name beside a target (the target's marking area; write-in lines left out: a voter writes there)
is a unit, and the page must print each one: its correlation with the blank over the unit at least the
set's floor. Both are sampled at `FINE_DPI` on the same points of the page's frame and blurred alike
(`UNIT_BLUR`): at the 50 DPI of matching a name printed in another's place still correlates 0.76-0.78
with it (a genuine page's worst name 0.82). Correlation, not a share of print: it is blind to the local
paper and ink levels (an unevenly lit scan, a faint corner), which sank an earlier share-of-print check
(docs/templates.md, branch `tplarrows6`); and only the names are judged, not a heading, a footer or a
sample ballot's watermark, where voted ballots may differ from the blank.

The floor is the set's own (`likeness`), measured from its blanks when the set is first read: the best
correlation any other blank of the set shows over a unit where the two differ (another candidate's name
at the same place, a contest moved by a row) is what a wrong name looks like in this design; the floor
lies `FLOOR_MARGIN` of the way from there to 1, and never under `MIN_FLOOR`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from ..detect.errors import ReadError
from .align import FINE_DPI, shrink
from .likeness import same_targets
from .model import TemplatePage, TemplateSet
from .pages import prepared

#: A unit whose blank varies less than this (grey levels, standard deviation) prints nothing to judge.
MIN_UNIT_STD = 20.0
#: Inset (inches) of a marking area: its edges touch the target's outline and the contest's rules.
UNIT_INSET_IN = 0.02
#: Both the page's and the blank's units are blurred by this (pixels at `FINE_DPI`, Gaussian sigma): the
#: scan's grain and a registration off by a fraction of a stroke would otherwise weigh like a wrong letter.
UNIT_BLUR = 0.7
#: A blank pixel printing under this share of its unit's contrast is paper; a page pixel over
#: `EXTRA_INK` of the page unit's contrast darker than its paper is ink.
BLANK_PAPER = 0.1
EXTRA_INK = 0.3
#: A unit of another blank correlating at least this well with the blank's prints the same thing.
SAME_UNIT = 0.95
#: Where the floor lies between the best wrong unit of the set and 1.
FLOOR_MARGIN = 0.25
#: The floor when the set's blanks show no wrong unit (one style), or only unlike ones.
MIN_FLOOR = 0.75


@dataclass(frozen=True, eq=False)
class Unit:
    """One name's rectangle of `FINE_DPI` pixels in the blank's frame and the blank's blurred values there."""

    label: str
    x0: int
    y0: int
    own: np.ndarray  # (rows, cols) float32, blurred
    #: Where the blank prints nothing (under `BLANK_PAPER` of the unit's contrast): a page's ink there is
    #: left out of the comparison (`_one_sided`).
    paper: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return self.own.shape  # type: ignore[return-value]

    @classmethod
    def of(cls, label: str, x0: int, y0: int, own: np.ndarray) -> Unit:
        hi, lo = float(own.max()), float(own.min())
        return cls(label, x0, y0, own, (hi - own) < BLANK_PAPER * (hi - lo))


@dataclass(frozen=True, eq=False)
class Likeness:
    """A blank's units and the floor each must reach on a page matched to it."""

    units: tuple[Unit, ...]
    floor: float
    #: The best correlation another blank of the set showed over a unit where it differs (-1: none).
    wrong: float

    @cached_property
    def points(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every unit's pixels as page inches (x, y; one unit after another) and where each unit starts."""
        xs, ys = [], []
        for u in self.units:
            h, w = u.shape
            yy, xx = np.mgrid[u.y0 : u.y0 + h, u.x0 : u.x0 + w]
            xs.append(xx.ravel())
            ys.append(yy.ravel())
        starts = np.cumsum([0] + [u.own.size for u in self.units])
        if not xs:
            return np.zeros(0), np.zeros(0), starts
        return np.concatenate(xs) / FINE_DPI, np.concatenate(ys) / FINE_DPI, starts


def _blur(a: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(a.astype(np.float32), (0, 0), UNIT_BLUR)


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    a = a - a.mean()
    b = b - b.mean()
    d = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / d) if d > 0 else 0.0


def _one_sided(raw: np.ndarray, u: Unit) -> float:
    """`_ncc` of the page's unit (``raw``, ``uint8``, `UNIT_BLUR` applied here) with the blank's, leaving out
    the page's ink where the blank prints nothing (a voter's mark beside the name, in 31 KAR 6:030's marking
    area): what counts is the blank's print missing from the page, and print where the page has none."""
    counts = np.cumsum(np.bincount(raw.ravel(), minlength=256))
    paper = float(np.searchsorted(counts, 0.9 * counts[-1]))  # the page's paper here: a name is a tenth or less
    contrast = max(paper - float(raw.min()), 1.0)
    page = _blur(raw)
    keep = ~(u.paper & ((paper - page) > EXTRA_INK * contrast))
    return _ncc(page[keep], u.own[keep])


def _fine(tset: TemplateSet, tp: TemplatePage) -> np.ndarray:
    """The blank at `FINE_DPI` as a page is brought there (`align.shrink`), paper bright."""
    return shrink(prepared(tset, tp).blank, tp.dpi, FINE_DPI)


def page_units(fine: np.ndarray, tp: TemplatePage) -> tuple[Unit, ...]:
    """The names beside ``tp``'s targets (write-in lines left out) that print something, from its blank."""
    h, w = fine.shape
    out = []
    for t in tp.layout.targets:
        if t.write_in_area is not None:
            continue
        r = t.marking_area
        x0, x1 = int(np.ceil((r.x + UNIT_INSET_IN) * FINE_DPI)), int((r.x + r.w - UNIT_INSET_IN) * FINE_DPI)
        y0, y1 = int(np.ceil((r.y + UNIT_INSET_IN) * FINE_DPI)), int((r.y + r.h - UNIT_INSET_IN) * FINE_DPI)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 - x0 < 5 or y1 - y0 < 5 or float(fine[y0:y1, x0:x1].std()) < MIN_UNIT_STD:
            continue
        out.append(Unit.of(f"{t.contest_id}/{t.option_id}", x0, y0, _blur(fine[y0:y1, x0:x1])))
    return tuple(out)


def wrong_unit_best(tset: TemplateSet, tp: TemplatePage, units: tuple[Unit, ...]) -> float:
    """The best correlation any other blank of ``tp``'s paper (not printed alike) shows with ``tp`` over a
    unit where it prints something else: what a wrong name looks like in this set; -1 if none.

    A unit the other blank prints alike within `SAME_SHIFT_PX` (the same name a little higher, its
    contest moved by a rule's width) is the same name, not a wrong one: arrows styles 2 and 3 print their
    backs' names 0.02 in apart, and took them for wrong names at 0.92."""
    best = -1.0
    shape = _fine(tset, tp).shape
    for other in tset.pages:
        if other is tp or same_targets(tp, other):
            continue
        of = _fine(tset, other)
        if of.shape != shape:
            continue
        for u in units:
            h, w = u.shape
            rho = _one_sided(of[u.y0 : u.y0 + h, u.x0 : u.x0 + w], u)
            if rho < SAME_UNIT and not _alike_nearby(of, u):
                best = max(best, rho)
    return best


#: How far (pixels at `FINE_DPI`) another blank's name may lie from a unit's and still be the same name.
SAME_SHIFT_PX = 4


def _alike_nearby(fine: np.ndarray, u: Unit) -> bool:
    """Whether ``fine`` (a blank at `FINE_DPI`) prints ``u``'s content within `SAME_SHIFT_PX` of its place."""
    s, (h, w) = SAME_SHIFT_PX, u.shape
    y0, x0 = max(u.y0 - s, 0), max(u.x0 - s, 0)
    crop = _blur(fine[y0 : u.y0 + h + s, x0 : u.x0 + w + s])
    if crop.shape[0] < h or crop.shape[1] < w:
        return False
    return float(cv2.matchTemplate(crop, u.own, cv2.TM_CCOEFF_NORMED).max()) >= SAME_UNIT


_LIKENESS: dict[tuple[str, str], Likeness] = {}


def likeness(tset: TemplateSet, tp: TemplatePage) -> Likeness:
    """``tp``'s units and floor, measured from the set's blanks once per page and process."""
    key = (tset.folder or tset.digest, tp.key)
    hit = _LIKENESS.get(key)
    if hit is None:
        units = page_units(_fine(tset, tp), tp)
        wrong = wrong_unit_best(tset, tp, units) if units else -1.0
        floor = max(MIN_FLOOR, wrong + FLOOR_MARGIN * (1.0 - wrong))
        hit = _LIKENESS[key] = Likeness(units, floor, wrong)
    return hit


def unit_correlations(fine: np.ndarray, affine: np.ndarray, lk: Likeness) -> np.ndarray:
    """The page's correlation with the blank over each of ``lk``'s units: the page (``fine``, at
    `FINE_DPI`; ``affine`` page inches -> its pixels) sampled at the units' points of the page's frame
    (`cv2.remap`, one call), blurred as the blank's."""
    if not lk.units:
        return np.zeros(0)
    x, y, starts = lk.points
    mx = (affine[0, 0] * x + affine[0, 1] * y + affine[0, 2]).astype(np.float32)
    my = (affine[1, 0] * x + affine[1, 1] * y + affine[1, 2]).astype(np.float32)
    got = _remap_points(fine, mx, my)
    return np.array([_one_sided(got[starts[i] : starts[i + 1]].reshape(u.shape), u) for i, u in enumerate(lk.units)])


#: Points a row of `_remap_points`'s map holds (`cv2.remap` takes maps under 32,767 pixels a side).
_MAP_ROW = 4096


def _remap_points(image: np.ndarray, mx: np.ndarray, my: np.ndarray) -> np.ndarray:
    n = len(mx)
    rows = -(-n // _MAP_ROW)
    px, py = np.zeros((2, rows * _MAP_ROW), np.float32)
    px[:n], py[:n] = mx, my
    got = cv2.remap(
        image,
        px.reshape(rows, _MAP_ROW),
        py.reshape(rows, _MAP_ROW),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=255,
    )
    return got.ravel()[:n]


def check_own_print(tset: TemplateSet, tp: TemplatePage, fine: np.ndarray, affine: np.ndarray) -> None:
    """Refuse (``template_foreign_print``) a page matched to ``tp`` that does not print ``tp``'s name beside
    every target: over some name its correlation with the blank is under the set's floor (`likeness`).
    ``fine`` is the page at `FINE_DPI`, ``affine`` page inches -> its pixels."""
    lk = likeness(tset, tp)
    rho = unit_correlations(fine, affine, lk)
    if rho.size == 0:
        return
    worst = int(np.argmin(rho))
    if rho[worst] < lk.floor:
        raise ReadError(
            "template_foreign_print",
            f"the page looks like {tp.key} but does not print its name at {lk.units[worst].label} "
            f"(correlation {rho[worst]:.2f} < {lk.floor:.2f}) and carries no code the set maps: a ballot of "
            "another election or of a style the set lacks, for a person to look at",
        )
