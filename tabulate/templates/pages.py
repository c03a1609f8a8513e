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

from ..detect.template import PRINT_MARGIN_IN, PageTemplate, build_points
from ..kernels import TargetPoints
from .align import COARSE_DPI, FINE_DPI, MATCH_DPI, Anchor, anchors, prepare, print_angle, unit
from .model import TemplatePage, TemplateSet

#: Interior points nearer than this (inches) to the blank's print are not scored.
INTERIOR_PRINT_MARGIN_IN = 0.006
#: Ink-level sample points: print at least this far (inches) inside its own edge.
CORE_INK_IN = 0.012


@dataclass(frozen=True, eq=False)
class PreparedPage:
    page: TemplatePage
    blank: np.ndarray
    small: np.ndarray
    anchors: tuple[Anchor, ...]
    core_ink: np.ndarray  # (N, 2) page inches well inside printed ink
    match: np.ndarray  # the blank at MATCH_DPI, ink bright, for telling similar pages apart
    match_unit: np.ndarray  # ``match`` flattened, centred and of unit length: a correlation is one dot product
    angle: float  # the skew of the blank's own print (`print_angle`), degrees


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
    return PreparedPage(page, blank, small, anc, core, match, unit(match), print_angle(match))


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


def _drop_printed_interior(pts: TargetPoints, ink: np.ndarray, dpi: int) -> TargetPoints:
    r = max(1, int(round(INTERIOR_PRINT_MARGIN_IN * dpi)))
    near = cv2.dilate(ink.astype(np.uint8), np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > 0
    xy = pts.interior_xy
    rows = np.clip(np.floor(xy[:, 1] * dpi).astype(np.int64), 0, near.shape[0] - 1)
    cols = np.clip(np.floor(xy[:, 0] * dpi).astype(np.int64), 0, near.shape[1] - 1)
    keep = ~near[rows, cols]
    keep |= pts.interior_col >= 0  # an arrow's gap columns: the gap itself is unprinted by construction
    ptr = np.concatenate([[0], np.cumsum(keep)]).astype(np.int64)[pts.interior_ptr]
    return replace(
        pts,
        interior_xy=np.ascontiguousarray(xy[keep]),
        interior_col=np.ascontiguousarray(pts.interior_col[keep]),
        interior_ptr=ptr,
    )


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
    pts = _drop_printed_interior(build_points(page.layout.targets, printed, dist_in, dpi), ink, dpi)
    pts.check()
    tpl = PageTemplate(page.layout, dpi, pts)
    with _LOCK:
        _CACHE[key] = tpl
    return tpl
