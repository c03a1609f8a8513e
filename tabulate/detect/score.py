"""Score a registered, identified page: call the target kernel, classify each target, flag the page."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from ..election.model import Election, Thresholds
from ..kernels import F, score_targets
from ..kernels.points import offsets_by_distance
from .classify import _median, arrow_floor, hand_classes, page_floor, scan_class
from .reading import TargetReading
from .register import Registration
from .settings import ReadSettings
from .streaks import streak_columns, widened
from .template import AREA_PRINT_MARGIN_IN, PageTemplate, dpi_class, page_template


@lru_cache(maxsize=16)
def _offsets(radius_px: int) -> np.ndarray:
    return offsets_by_distance(radius_px)


def page_features(
    election: Election,
    image: np.ndarray,
    reg: Registration,
    style_id: str,
    page: int,
    settings: ReadSettings,
    streaks: np.ndarray | None = None,
    tpl: PageTemplate | None = None,
    area_slack_in: float = 0.0,
    decided: Thresholds | None = None,
    levels: np.ndarray | None = None,
):
    """(template, features array) for one page: the kernel's row per target.

    ``streaks`` (a bool per image column, `streak_columns`) is found here when not given.
    ``tpl`` replaces our own layout's sample points (a template set's page, `tabulate.templates`).
    ``area_slack_in`` keeps the marking and write-in areas' points that much further from print.
    ``decided`` (the thresholds the page is classified with): read a marking area only where it
    can matter (`areas_to_read`); None reads every one.
    ``levels``: ``image`` is a bitonal page's bytes, read with their grey levels (`tabulate.kernels.score_targets`).
    """
    dpi = dpi_class(reg.px_per_in)
    tpl = tpl or page_template(election, style_id, page, dpi)
    radius = max(1, int(round(settings.search_in * reg.px_per_in)))
    if streaks is None:
        streaks = streak_columns(image, reg.dpi, reg.paper, reg.ink, levels=levels)
    skip = widened(streaks, radius + 1)
    feats = score_targets(
        image,
        reg.affine,
        tpl.points,
        paper=reg.paper,
        ink=reg.ink,
        split=settings.split,
        residue=settings.residue,
        offsets=_offsets(radius),
        min_hits=settings.min_hits,
        skip_cols=skip,
        area_margin=AREA_PRINT_MARGIN_IN + reg.spread_px / reg.px_per_in + area_slack_in,
        **(areas_to_read(tpl, decided, settings) if decided is not None else {}),
        levels=levels,
    )
    return tpl, feats


def areas_to_read(tpl: PageTemplate, thresholds: Thresholds, settings: ReadSettings) -> dict:
    """The kernel's ``area_wanted`` and ``area_decided``: the marking areas that can change a reading.

    31 KAR 6:030 Section 3(1)(e) counts "an 'X', a check mark ... or any other
    mark indicating the intent of the voter next to the candidate's name" in a
    hand count, so the reader looks at the designated marking area beside each
    target. `hand_classes` reads a target ``marked`` whatever its marking area
    holds once its interior alone decides it: "(a) The majority of an oval ...
    is filled in" (dark fraction at least ``settings.majority``) or a mark in
    the target (score at least ``thresholds.definite``, or dark fraction at
    least ``settings.stroke``); and the scanner reading (Section 2) never looks
    at the area. There the area is not read (feature ``marking`` -1: the
    clause "mark beside the name" is then not listed beside the target's own).
    A write-in line's area is never used (a written name is not a mark beside
    a name). Every other target's area is read: a mark beside an empty
    target is how a hand count finds a vote the scanner cannot see.
    """
    wanted = np.array([t.kind != "write_in" for t in tpl.targets], np.bool_)
    return {"area_wanted": wanted, "area_decided": (thresholds.definite, min(settings.stroke, settings.majority))}


def score_page(
    election: Election,
    image: np.ndarray,
    reg: Registration,
    style_id: str,
    page: int,
    settings: ReadSettings,
    streaks: np.ndarray | None = None,
    *,
    tpl: PageTemplate | None = None,
    thresholds: Thresholds | None = None,
    area_slack_in: float = 0.0,
    creases_in: tuple[float, ...] | Callable[[], tuple[float, ...]] = (),
    features: np.ndarray | None = None,
    levels: np.ndarray | None = None,
) -> tuple[tuple[TargetReading, ...], tuple[str, ...]]:
    """Every target's reading and the page's flags (``area_slack_in``: see `page_features`).

    ``creases_in`` are the page y (inches) of fold lines across the page: a
    target one crosses is read without the faint-residue test (the crease
    explains a faint line through it; `scan_class` ``floor``). Given as a
    function, it is called only when the floor test alone makes a target
    marginal (finding creases costs more than scoring: most pages never ask).

    A page whose printed outlines are hardly seen (median outline match below
    ``settings.min_match``: a bitonal scan thresholded too light washes thin
    lines out) is flagged ``outlines_faint``; its marks are still read at the
    registered positions, where the local search has nothing to move to.
    ``features`` (given with ``tpl``): the page's features when the caller has measured them already.
    ``levels``: ``image`` is a bitonal page's bytes (`page_features`).
    """
    if features is None or tpl is None:
        tpl, feats = page_features(
            election,
            image,
            reg,
            style_id,
            page,
            settings,
            streaks,
            tpl,
            area_slack_in,
            thresholds or election.thresholds,
            levels,
        )
    else:  # measured already by the caller (a template set's reader looks at them first)
        feats = features
    targets = tpl.targets
    rows = feats.tolist()  # plain floats: indexing a numpy row per feature costs more than the kernel
    # The median in plain Python: np.median's overhead on a page's ~40 values was ~2 % of a G4 sheet.
    faint = len(targets) > 0 and _median(sorted(f[F["match"]] for f in rows)) < settings.min_match
    th = thresholds or election.thresholds
    hands = hand_classes(
        rows, [t.contest_id for t in targets], [t.kind for t in targets], th, settings, [t.shape for t in targets]
    )
    floors = _floors(rows, [t.shape for t in targets], th, settings)
    readings = []
    creases = creases_in
    for t, f, (hand, clauses) in zip(targets, rows, hands):
        size = (t.bounds.w, t.bounds.h)  # the X and majority thresholds scale with the target (`size_thresholds`)
        scan = scan_class(f, th, settings, t.shape, floors[t.shape], size)
        if scan == "marginal" and (bare := scan_class(f, th, settings, t.shape, None, size)) != scan:
            # Only the page's blank level made it marginal: a crease through it explains a faint line.
            if callable(creases):
                creases = creases()
            scan = bare if _creased(t, creases) else scan
        readings.append(TargetReading(t.contest_id, t.option_id, t.kind, f[0], tuple(f), scan, hand, clauses))
    return tuple(readings), _flags(readings, settings) + (("outlines_faint",) if faint else ())


def _creased(t, creases_in: tuple[float, ...]) -> bool:
    b = t.bounds
    return any(b.y - 0.02 <= y <= b.bottom + 0.02 for y in creases_in)


def _floors(rows: list, shapes: list[str], th: Thresholds, settings: ReadSettings) -> dict[str, float]:
    """Each target shape's blank level on the page: an arrow's score (columns joined) is not an oval's darkness."""
    out = {}
    for shape in set(shapes):
        mine = [f for f, s in zip(rows, shapes) if s == shape]
        out[shape] = arrow_floor(mine, th, settings) if shape == "arrow" else page_floor(mine, th, settings)
    return out


def _flags(readings: list[TargetReading], settings: ReadSettings) -> tuple[str, ...]:
    flags = []
    if any(r.scan == "marginal" for r in readings):
        flags.append("marginal_mark")
    if any(r.scan != r.hand for r in readings):
        flags.append("scan_hand_disagreement")
    if any("6:030 s3(3)(a) erased" in r.hand_clauses for r in readings):
        flags.append("erasure")
    if any(r.kind == "write_in" and r.feature("write_in") >= settings.write_in_ink for r in readings):
        flags.append("write_in_ink")
    if readings and not any(r.scan == "marked" for r in readings):
        flags.append("no_marks")
    return tuple(flags)
