"""The page as a fit places it: scale and skew checked, paper on the image, levels and print spread.

A fit (`tabulate.templates.align`) gives an affine map from the template's page to the scan;
`place_page` turns it into the `Registration` the native scoring takes, or refuses the page with a
reason, as our own ballots' registration does (`tabulate.detect.register`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..detect.errors import ReadError
from ..detect.register import Registration
from ..detect.score import score_page
from ..detect.settings import DEFAULT_SETTINGS
from ..detect.template import dpi_class
from ..election.model import Election, Thresholds
from .align import ANCHOR_FINE_SEARCH_IN, ANCHOR_SEARCH_IN, MAX_RESIDUAL_IN, half_image, level, refine
from .model import TemplatePage, TemplateSet
from .pages import PreparedPage, prepared, scoring_template
from .spread import measure_spread

#: A page's scale (per axis, against the template's) and skew must fall within these.
SCALE_RANGE = (0.95, 1.05)
MAX_SKEW_DEG = 5.0
#: A page's final fit must keep at least this share of its template's anchors (`enough_anchors`). Clean
#: simulated pages keep 17-18 of 18 (every accepted page of 200 sheets in each family, seed 2026); fits
#: that slid onto a sibling template's print kept 6-12 of 18, and the arrows back page fitted 2.5 %
#: narrow (sheet 862) kept 6. Three quarters (14 of 18) sits three anchors under the clean pages' least.
MIN_ANCHOR_SHARE = 0.75


def place_page(
    image: np.ndarray,
    affine: np.ndarray,
    dpi: float,
    rms_in: float,
    k: int,
    prep: PreparedPage,
    anchors_n: int,
    paper: float | None = None,
) -> Registration:
    """The page's `Registration`: scale and skew checked, paper and ink levels, and how far its print
    spreads past the blank's (`tabulate.templates.spread`)."""
    core_ink = prep.core_ink
    sx = math.hypot(affine[0, 0], affine[1, 0])
    sy = math.hypot(affine[0, 1], affine[1, 1])
    scale = (sx / dpi, sy / dpi)
    if not all(SCALE_RANGE[0] <= s <= SCALE_RANGE[1] for s in scale):
        raise ReadError(
            "scale_out_of_range",
            f"the printed page is {scale[0]:.1%} x {scale[1]:.1%} of the template's "
            f"size (allowed {SCALE_RANGE[0]:.0%}-{SCALE_RANGE[1]:.0%})",
        )
    rotation = (90 * k) % 360
    angle = math.degrees(math.atan2(affine[1, 0], affine[0, 0]))
    skew = (angle - rotation + 180.0) % 360.0 - 180.0
    if abs(skew) > MAX_SKEW_DEG:
        raise ReadError("skew_out_of_range", f"the page is skewed {skew:.1f} deg (limit {MAX_SKEW_DEG:g} deg)")
    check_on_image(image.shape, affine, dpi, prep.page.layout.width_in, prep.page.layout.height_in)
    step = max(1, int(dpi / 50))
    paper = paper if paper is not None else level(np.ascontiguousarray(image[::step, ::step]), 0.75)
    if len(core_ink):
        px = core_ink @ affine[:, :2].T + affine[:, 2]
        c = np.clip(px[:, 0].astype(int), 0, image.shape[1] - 1)
        r = np.clip(px[:, 1].astype(int), 0, image.shape[0] - 1)
        ink = _quartile(image[r, c])  # the blur lightens thin print's middle: take the darker
    else:
        ink = level(np.ascontiguousarray(image[::step, ::step]), 0.01)
    if not paper - ink > 30:
        ink = max(0.0, paper - 120.0)  # print hardly seen: fall back to a nominal contrast
    # Print reaches past the blank's by the scan's own spread, and may sit up to the fit's residual
    # off where the fit puts it: both are kept clear of in the marking and write-in areas.
    spread = measure_spread(image, affine, prep.band_xy, prep.band, prep.page.dpi, paper, ink, runs=prep.band_run)
    spread += rms_in * dpi * (scale[0] + scale[1]) / 2
    return Registration(np.ascontiguousarray(affine), rotation, skew, scale, dpi, rms_in, paper, ink, spread, ())


def anchors_needed(total: int) -> int:
    """How many of a template's ``total`` anchors a page's final fit must keep (`MIN_ANCHOR_SHARE`)."""
    return math.ceil(MIN_ANCHOR_SHARE * total - 1e-9)


def enough_anchors(
    image: np.ndarray,
    fine: np.ndarray,
    affine: np.ndarray,
    rms_in: float,
    n: int,
    dpi: float,
    k: int,
    prep: PreparedPage,
    paper: float | None = None,
) -> Registration:
    """`place_page` for a fit kept from ``n`` anchors, refused unless it keeps enough of them.

    31 KAR 6:030 Section 2(1) counts a vote by "filling in the oval or box or connecting the arrow next
    to the candidate's name": the reader must know which target lies where. A fit from a third of the
    template's anchors can pass the residual, scale and skew checks and still put the page 2.5 % too
    narrow (a light pencil mark then scores as a fill). So a fit that keeps fewer than `anchors_needed`
    is made again with every anchor searched over its whole window, starting from that fit; if that
    too keeps too few, the page is refused (``fit_few_anchors``) and a person reads it, never counted
    silently. `place_page`'s own checks come first, so a fit slid off the image is still an `OffImage`.
    """
    reg = place_page(image, affine, dpi, rms_in, k, prep, n, paper)
    total = len(prep.anchor_stack.xy)
    need = anchors_needed(total)
    if n >= need:
        return reg
    again, rms2, n2 = refine(half_image(fine), affine, dpi, prep.anchor_stack, ANCHOR_SEARCH_IN, True, climb=False)
    for _ in range(2):  # the narrow search twice, as a first fit is made (`TemplateReader._register`)
        if math.isfinite(rms2):
            again, rms2, n2 = refine(fine, again, dpi, prep.anchor_stack, ANCHOR_FINE_SEARCH_IN)
    if n2 >= need and rms2 <= MAX_RESIDUAL_IN:
        return place_page(image, again, dpi, rms2, k, prep, n2, paper)
    raise ReadError(
        "fit_few_anchors",
        f"the page's fit to template {prep.page.key} keeps only {max(n, n2)} "
        f"of its {total} printed anchors (at least {need} needed): a person reads this page",
    )


def _quartile(v: np.ndarray) -> float:
    """``np.percentile(v, 25)`` (linear interpolation) by one partial sort: a tenth of numpy's overhead."""
    pos = 0.25 * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    part = np.partition(v, (lo, hi)).astype(np.float64)
    return float(part[lo] + (part[hi] - part[lo]) * (pos - lo))


#: How far (inches) a corner of the template's paper may fall outside the scanned image.
OFF_IMAGE_IN = 0.5


class OffImage(ReadError):
    """A fit that slid the template's paper off the image (`check_on_image`): the page printed like this
    template lower or higher up, so another template (a sibling style's page) is worth a try. Each one
    carries the page's reason code, ``registration_residual``; the class's own code tells it apart."""

    code = "template_off_image"


def check_on_image(shape: tuple[int, ...], affine: np.ndarray, dpi: float, w_in: float, h_in: float) -> None:
    """Refuse a fit that puts the template's paper off the scanned image.

    A scanner images the whole sheet, so every corner of the page lies in the image (up to a margin
    for skew, scale and a trimmed border). A fit that slides a template inches along the page, its
    rules and boxes landing on a *different* template's print lower down, can leave a tiny residual
    on the anchors it finds; the page's corners show it is the wrong page (found on the arrows
    family: style 2's back page fitted to style 1's, 3 in lower).
    """
    corners = np.array([[0.0, 0.0], [w_in, 0.0], [0.0, h_in], [w_in, h_in]]) @ affine[:, :2].T + affine[:, 2]
    rows, cols = shape[:2]
    m = OFF_IMAGE_IN * dpi
    off = np.maximum.reduce(
        [-m - corners[:, 0], corners[:, 0] - cols - m, -m - corners[:, 1], corners[:, 1] - rows - m]
    )
    worst = float(off.max())
    if worst > 0:
        raise OffImage(
            "registration_residual",
            f"the fit puts the template's paper {worst / dpi + OFF_IMAGE_IN:.1f} in off the scanned image",
        )


def blank_scores(election: Election, tset: TemplateSet, tp: TemplatePage, blank: np.ndarray) -> list[float]:
    """Every target's fill score on the page's own blank (its printed outline must score as paper)."""
    affine = np.array([[tp.dpi, 0.0, 0.0], [0.0, tp.dpi, 0.0]])
    reg = place_page(blank, affine, tp.dpi, 0.0, 0, prepared(tset, tp), 0)
    tpl = scoring_template(tset, tp, dpi_class(tp.dpi))
    targets, _flags = score_page(
        election,
        blank,
        reg,
        tp.style_id,
        tp.page,
        DEFAULT_SETTINGS,
        tpl=tpl,
        thresholds=Thresholds(tset.marginal, tset.definite),
    )
    return [t.score for t in targets]


def columns_upright(image: np.ndarray, reg: Registration) -> tuple[np.ndarray, Registration]:
    """The image a quarter turn round when the page was fed sideways, with its transform to match.

    A scanner's streak runs along the feed: down the image's columns on a page
    fed upright, along its rows on one fed sideways. Streaks are found and
    skipped by column (`tabulate.detect.streaks`), so a sideways page is
    scored turned, its page's x running along the image's columns again.
    """
    a = reg.affine
    if abs(a[0, 0]) >= abs(a[0, 1]):
        return image, reg
    # np.rot90 (k=1): new column = old row, new row = (width - 1) - old column.
    w = image.shape[1]
    turned = np.array([a[1], [-a[0, 0], -a[0, 1], (w - 1) - a[0, 2]]], dtype=np.float64)
    return np.ascontiguousarray(np.rot90(image)), replace(reg, affine=turned)
