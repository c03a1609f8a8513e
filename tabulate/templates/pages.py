"""A template page made ready to read with: its blank at the matching, anchor and scoring resolutions.

Built once per page and process (`prepared`), from the blank image the
import stored. The scoring point sets (`scoring_template`) are the native
reader's own (`tabulate.detect.template.build_points`) with the blank's
printed ink left out exactly as our renderer's is; in addition interior
points that fall on print (a thick outline, a number printed inside an
oval) are dropped, so printed ink is never scored as a mark.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import zxingcpp

from ..detect.template import PRINT_MARGIN_IN, PageTemplate, build_points
from ..election.geometry import Rect
from ..election.layout import TargetLayout
from ..kernels import TargetPoints
from .align import COARSE_DPI, FINE_DPI, MATCH_DPI, Anchor, AnchorStack, anchors, prepare, print_angle, unit
from .codes import code_format
from .find import ARROW_GAP_INSET_IN
from .model import TemplatePage, TemplateSet
from .spread import band_runs, edge_bands

#: Interior points nearer than this (inches) to the blank's print are not scored.
INTERIOR_PRINT_MARGIN_IN = 0.006
#: For a printed box (rectangle) target: a rough scan's blur brings its sides this far in.
BOX_PRINT_MARGIN_IN = 0.012
#: Ink-level sample points: print at least this far (inches) inside its own edge.
CORE_INK_IN = 0.012


@dataclass(frozen=True, eq=False)
class PreparedPage:
    page: TemplatePage
    blank: np.ndarray
    small: np.ndarray
    anchors: tuple[Anchor, ...]
    anchor_stack: AnchorStack  # the same as arrays, for `align.refine`
    core_ink: np.ndarray  # (N, 2) page inches well inside printed ink
    match: np.ndarray  # the blank at MATCH_DPI, ink bright, for telling similar pages apart
    match_unit: np.ndarray  # ``match`` flattened, centred and of unit length: a correlation is one dot product
    angle: float  # the skew of the blank's own print (`print_angle`), degrees
    band_xy: np.ndarray  # (M, 2) page inches around print away from targets (`spread.edge_bands`)
    band: np.ndarray  # (M,) their distance band, blank pixels
    band_run: np.ndarray  # (M,) their run of the page (`spread.band_runs`), made once here
    code_format: zxingcpp.BarcodeFormat | None = None  # the bar code's symbology (`codes.code_format`)


def _ink(blank: np.ndarray) -> np.ndarray:
    _t, ink = cv2.threshold(blank, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    return ink > 0


def prepare_page(folder: Path, page: TemplatePage) -> PreparedPage:
    blank = cv2.imread(str(folder / page.blank_file), cv2.IMREAD_GRAYSCALE)
    if blank is None:
        raise FileNotFoundError(f"{folder / page.blank_file}: the template's blank page is missing")
    small = prepare(blank, page.dpi, COARSE_DPI, 1.0)
    fine = prepare(blank, page.dpi, FINE_DPI, 0.0)
    avoid = [t.bounds.as_tuple() for t in page.layout.targets]
    if page.code is not None:
        avoid.append(page.code.rect.as_tuple())  # a code may be scratched out
    anc = tuple(anchors(fine, avoid))
    ink = _ink(blank).astype(np.uint8)
    depth = cv2.distanceTransform(ink, cv2.DIST_L2, 3) / page.dpi
    rows, cols = np.nonzero(depth >= CORE_INK_IN)
    if len(rows) < 50:
        rows, cols = np.nonzero(depth >= depth.max() * 0.7) if depth.max() > 0 else (rows, cols)
    pick = np.linspace(0, len(rows) - 1, min(400, len(rows))).astype(int) if len(rows) else np.zeros(0, int)
    core = np.column_stack([(cols[pick] + 0.5) / page.dpi, (rows[pick] + 0.5) / page.dpi])
    match = prepare(blank, page.dpi, MATCH_DPI, 0.0)
    band_xy, band = edge_bands(ink > 0, page.dpi, avoid)
    return PreparedPage(
        page,
        blank,
        small,
        anc,
        AnchorStack.of(anc),
        core,
        match,
        unit(match),
        print_angle(match),
        band_xy,
        band,
        band_runs(band_xy),
        code_format(blank, page.dpi, page.code),
    )


_CACHE: dict[tuple, object] = {}
_LOCK = threading.Lock()


def prepared(tset: TemplateSet, page: TemplatePage) -> PreparedPage:
    key = ("page", tset.folder, page.key)
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is None:
        hit = prepare_page(Path(tset.folder), page)
        with _LOCK:
            _CACHE[key] = hit
    assert isinstance(hit, PreparedPage)
    return hit


def _drop_printed_interior(pts: TargetPoints, ink: np.ndarray, dpi: int, shapes: tuple[str, ...]) -> TargetPoints:
    xy = pts.interior_xy
    rows = np.clip(np.floor(xy[:, 1] * dpi).astype(np.int64), 0, ink.shape[0] - 1)
    cols = np.clip(np.floor(xy[:, 0] * dpi).astype(np.int64), 0, ink.shape[1] - 1)
    # A printed box's straight sides blur into its corners' interior more than an oval's thin outline.
    boxed = np.repeat(np.array([s == "box" for s in shapes], bool), np.diff(pts.interior_ptr))
    keep = np.ones(len(xy), bool)
    for margin, which in ((INTERIOR_PRINT_MARGIN_IN, ~boxed), (BOX_PRINT_MARGIN_IN, boxed)):
        r = max(1, int(round(margin * dpi)))
        near = cv2.dilate(ink.astype(np.uint8), np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > 0
        keep &= ~(near[rows, cols] & which)
    keep |= pts.interior_col >= 0  # an arrow's gap columns: the gap itself is unprinted by construction
    ptr = np.concatenate([[0], np.cumsum(keep)]).astype(np.int64)[pts.interior_ptr]
    return replace(
        pts,
        interior_xy=np.ascontiguousarray(xy[keep]),
        interior_col=np.ascontiguousarray(pts.interior_col[keep]),
        interior_ptr=ptr,
    )


def _printed_gap(t: TargetLayout) -> TargetLayout:
    """An arrow target with its gap as printed: the layout keeps it `ARROW_GAP_INSET_IN` short at each end."""
    b = t.bounds
    return replace(t, bounds=Rect(b.x - ARROW_GAP_INSET_IN, b.y, b.w + 2 * ARROW_GAP_INSET_IN, b.h))


def _points(targets: tuple[TargetLayout, ...], printed: np.ndarray, dist_in: np.ndarray, dpi: int) -> TargetPoints:
    """The native point sets, with an arrow's outline pattern and bands laid round its printed gap.

    The outline pattern samples the shaft's ends either side of the gap: on
    the layout's inset gap half of it fell on the gap's paper, so the local
    search slid every arrow a couple of pixels one way or the other and the
    marking area beside it caught the edge of the printed name. The gap's
    scored columns too run to `ARROW_END_MARGIN_IN` from the printed halves,
    as on our own arrows: on the layout's gap, 0.02 in shorter each end, a
    bar stopping 0.03 in short of the head covered every scored column and
    read as joined (31 KAR 6:030 Section 2(1)(a): it has not connected the
    arrow). The blur of the halves reaching in is one or two columns joined
    to nothing, which the gap's score (its widest connected piece of ink)
    does not count.
    """
    if not any(t.shape == "arrow" for t in targets):
        return build_points(targets, printed, dist_in, dpi)
    return build_points(tuple(_printed_gap(t) if t.shape == "arrow" else t for t in targets), printed, dist_in, dpi)


def scoring_template(tset: TemplateSet, page: TemplatePage, dpi: int) -> PageTemplate:
    """The (cached) sample points of a template page at the DPI class ``dpi``."""
    key = ("score", tset.folder, page.key, dpi)
    with _LOCK:
        hit = _CACHE.get(key)
    if isinstance(hit, PageTemplate):
        return hit
    blank = prepared(tset, page).blank
    f = dpi / page.dpi
    img = cv2.resize(blank, (round(blank.shape[1] * f), round(blank.shape[0] * f)), interpolation=cv2.INTER_AREA)
    ink = _ink(img)
    m = max(1, int(round(PRINT_MARGIN_IN * dpi)))
    printed = cv2.dilate(ink.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * m + 1, 2 * m + 1))) > 0
    dist_in = cv2.distanceTransform((~ink).astype(np.uint8), cv2.DIST_L2, 5) / dpi
    shapes = tuple(t.shape for t in page.layout.targets)
    pts = _drop_printed_interior(_points(page.layout.targets, printed, dist_in, dpi), ink, dpi, shapes)
    pts.check()
    tpl = PageTemplate(page.layout, dpi, pts)
    with _LOCK:
        _CACHE[key] = tpl
    return tpl
