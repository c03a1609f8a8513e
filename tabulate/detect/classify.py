"""Classify each target: the scanner reading (31 KAR 6:030 Section 2) and the hand-count reading (Section 3).

The scanner reading uses the fill score alone, split by the election's
thresholds. The hand-count reading is what a person counting the paper would
find from the same evidence (the features); where the two differ, the page
is flagged so that a person looks and a hand-to-eye audit can foresee it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from ..election.layout import OUTLINE_IN
from ..election.model import Thresholds
from ..kernels.points import F
from .settings import ReadSettings
from .template import INTERIOR_MARGIN_IN

#: A target's interior never shrinks below this half-axis (inches), so a mis-sized target cannot divide by 0.
_MIN_HALF_IN = 0.005
#: One stroke never counts as covering more than this share of an interior (a full fill still reads marked).
_MAX_STROKE_SHARE = 0.95


def page_floor(features: Sequence[Sequence[float]], thresholds: Thresholds, settings: ReadSettings) -> float:
    """The page's blank level: how high a blank target's score reaches on this scan.

    The median score of the page's targets below the marginal threshold (most
    targets of a page are blank) plus ``settings.noise_sigmas`` times their
    spread (1.4826 x the median absolute deviation, a noise-robust sigma): a
    noisy or blurred scan raises both. 0 when no target is below the threshold.
    """
    low = sorted(f[F["score"]] for f in features if f[F["score"]] < thresholds.marginal)
    if not low:
        return 0.0
    med = _median(low)
    return med + settings.noise_sigmas * 1.4826 * _median(sorted(abs(v - med) for v in low))


def _median(v: list[float]) -> float:
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


@dataclass(frozen=True)
class SizeThresholds:
    """The dark fractions that tell a fill from pen strokes (an X, a check) on a target of one size."""

    majority: float
    x_full: float
    box_x_full: float


@lru_cache(maxsize=1024)
def stroke_share(shape: str, w_in: float, h_in: float, stroke_in: float) -> float:
    """The share of a target's interior that one pen stroke ``stroke_in`` wide covers, drawn corner to corner.

    The interior is the one the kernel scores (`tabulate.detect.template`: the
    target inset by the outline and ``INTERIOR_MARGIN_IN``): an ellipse for an
    oval, a rectangle otherwise. The stroke's share is its width times the
    interior's diagonal chord over the interior's area, at most 0.95.
    """
    inset = OUTLINE_IN + INTERIOR_MARGIN_IN
    a, b = max(w_in / 2 - inset, _MIN_HALF_IN), max(h_in / 2 - inset, _MIN_HALF_IN)
    if shape == "oval":  # the chord along the bounding box's diagonal through the centre
        chord, area = math.sqrt(2.0) * math.hypot(a, b), math.pi * a * b
    else:
        chord, area = 2.0 * math.hypot(a, b), 4.0 * a * b
    return min(_MAX_STROKE_SHARE, stroke_in * chord / area)


@lru_cache(maxsize=1024)
def size_thresholds(settings: ReadSettings, shape: str, size_in: tuple[float, float] | None) -> SizeThresholds:
    """``settings.majority``, ``x_full`` and ``box_x_full`` for a target of ``size_in`` (w, h inches).

    31 KAR 6:030 Section 3(1)(e) counts "an 'X', a check mark ... in or next to" the target in a
    hand count, and `scan_class` sends such a mark to a person rather than read it as "filling in
    the oval" (Section 2(1)(a)): it knows an X or a check from a fill by how much of the interior
    its ink darkens. A pen stroke is as wide on a small oval as on a large one, so on a 0.15 x 0.10
    in oval an X darkens 0.52-0.82 of the interior (0.31-0.53 on a 0.24 x 0.14 in one), above the
    thresholds set on large targets. Measured in pen strokes the thresholds do not move: ``n``
    strokes each covering a share ``c`` of the interior darken ``1 - (1 - c) ** n`` of it, so a
    threshold ``t`` set where one stroke covers ``c0`` becomes ``1 - (1 - t) ** k`` with
    ``k = ln(1 - c) / ln(1 - c0)`` (`stroke_share`). Only raised, never lowered: on targets the
    size of the reference (``settings.ref_oval_in``, ``ref_box_in``) or larger, where the defaults
    were measured, they stay as they are. ``size_in`` None: the defaults.
    """
    base = SizeThresholds(settings.majority, settings.x_full, settings.box_x_full)
    if size_in is None or shape == "arrow":
        return base
    ref = settings.ref_box_in if shape == "box" else settings.ref_oval_in
    c = stroke_share(shape, size_in[0], size_in[1], settings.stroke_in)
    c0 = stroke_share(shape, ref[0], ref[1], settings.stroke_in)
    if c <= c0:
        return base
    k = math.log(1.0 - c) / math.log(1.0 - c0)
    return SizeThresholds(*(1.0 - (1.0 - t) ** k for t in (base.majority, base.x_full, base.box_x_full)))


def scan_class(
    f: Sequence[float],
    thresholds: Thresholds,
    settings: ReadSettings,
    shape: str = "oval",
    floor: float | None = None,
    size_in: tuple[float, float] | None = None,
) -> str:
    """The scanner reading of one target.

    31 KAR 6:030 Section 2(1): a vote on a scan voting system is the choice made
    by "(a) Filling in the oval or box or connecting the arrow next to the
    candidate's name or the question choice". A score at or above
    ``thresholds.definite`` is a mark, at or above ``thresholds.marginal`` it is
    marginal and goes to a person, below it is unmarked. A mark that reaches
    ``definite`` but covers less than ``settings.majority`` of the interior (a
    check, a line through the target), or is an X (four strokes crossing the
    outline, the interior far from full), has not clearly *filled in* the
    target, so it is marginal too: a person decides it under Section 3.
    Below ``marginal``, a small dense mark (a dot: the dark fraction reaches
    ``marginal``) or light residue over ``settings.erased`` of the interior (an
    erasure, or a pencil fill too light to score) is marginal as well: the
    scanner cannot tell an erasure (Section 3(3)(a)) from a faint vote; a
    person can. So is a target whose score stands ``settings.residue_excess``
    above the page's blank level ``floor`` (`page_floor`; not tested when
    None): a faint erasure or a thin line, seen against the same scan's noise.

    A fill that reaches ``definite`` with light ink (its darkest tenth darkens
    the paper by less than ``settings.light_ink``: a light pencil, not a pen
    or pencil stroke) is marginal too: whether it was meant as a vote or is
    what an eraser left, Section 3(3)(a), is for a person to decide.
    ``f`` is the target's row of features (`tabulate.kernels.FEATURES`).
    ``size_in`` (the target's printed w, h in inches) scales the majority and
    the X thresholds to the target's size (`size_thresholds`): on a small oval
    a pen's X or check covers as much as a fill does on a large one.

    A connect-the-arrow target is read by `arrow_class`.
    """
    score, dark = f[F["score"]], f[F["dark"]]
    if shape == "arrow":
        return arrow_class(f, thresholds, settings, floor)
    if score >= thresholds.definite:
        sized = size_thresholds(settings, shape, size_in)
        # A small box's X (strokes across its corners) covers more of it than an oval's; its sides
        # cut the strokes into fewer separate crossings, and its thin strokes' soft edges leave light
        # residue a fill does not (see ReadSettings.box_x_full).
        x_mark = (
            (f[F["crossings"]] >= 3 or f[F["erasure"]] >= settings.box_x_residue) and dark < sized.box_x_full
            if shape == "box"
            else f[F["crossings"]] >= 4 and dark < sized.x_full
        )
        light = f[F["deep"]] < settings.light_ink
        return "marked" if dark >= sized.majority and not x_mark and not light else "marginal"
    if score >= thresholds.marginal or dark >= thresholds.marginal or f[F["erasure"]] >= settings.erased:
        return "marginal"
    if floor is not None and score >= floor + settings.residue_excess:
        return "marginal"
    return "unmarked"


def arrow_class(f: Sequence[float], thresholds: Thresholds, settings: ReadSettings, floor: float | None) -> str:
    """The scanner reading of a connect-the-arrow target.

    31 KAR 6:030 Section 2(1)(a): a vote is made by "connecting the arrow next
    to the candidate's name". The score is the share of the gap's columns
    (from the printed tail to the printed head, `ARROW_END_MARGIN_IN` clear
    of each) spanned by the widest *connected* piece of ink in the gap
    (`tabulate.kernels` ``_widest_span``): ink that joins tail to head,
    whatever the stroke's shape (a bar, a line, an X or a check across the
    gap), spans it all. A mark that nearly joins but leaves an opening (a bar
    stopping 0.03 in short of the head, an X whose arms stop short, two
    strokes from either end that do not meet) spans less: it has not
    connected the arrow, and whether it shows the voter's intent (Section
    3(1)(a), (e)) is for a person to decide. So ``settings.arrow_joined`` of
    the gap spanned is marked, or marginal with light ink (a light pencil, or
    what an eraser left, Section 3(3)(a)), as on an oval; less, from
    ``thresholds.marginal`` and ``settings.arrow_partial`` up, is marginal
    (a shorter piece is the blur of a printed half, or a touch). Below it,
    light residue over
    ``settings.arrow_erased`` of the gap, or a gap whose darkest tenth
    (feature ``deep``) stands ``settings.arrow_residue`` above the page's
    arrows' level ``floor`` (`arrow_floor`; not tested when None), is
    marginal too: a faint erasure or pencil stroke a person should see.
    """
    score, deep = f[F["score"]], f[F["deep"]]
    if score >= settings.arrow_joined:
        return "marked" if deep >= settings.light_ink else "marginal"
    if score >= max(thresholds.marginal, settings.arrow_partial) or f[F["erasure"]] >= settings.arrow_erased:
        return "marginal"
    if floor is not None and deep >= floor + settings.arrow_residue:
        return "marginal"
    return "unmarked"


def arrow_floor(features: Sequence[Sequence[float]], thresholds: Thresholds, settings: ReadSettings) -> float:
    """The page's arrows' blank level of feature ``deep``: as `page_floor`, over the gaps not bridged."""
    low = sorted(f[F["deep"]] for f in features if f[F["score"]] < thresholds.marginal)
    if not low:
        return 0.0
    med = _median(low)
    return med + settings.noise_sigmas * 1.4826 * _median(sorted(abs(v - med) for v in low))


def _line_through(f: Sequence[float], s: ReadSettings) -> bool:
    return f[F["crossings"]] >= 2 and f[F["dark"]] >= s.line_fill


def hand_classes(
    features: Sequence[Sequence[float]],
    contests: list[str],
    kinds: list[str],
    thresholds: Thresholds,
    settings: ReadSettings,
    shapes: Sequence[str] | None = None,
) -> list[tuple[str, tuple[str, ...]]]:
    """The hand-count reading of every target of a page: (class, clauses that decided it).

    31 KAR 6:030 Section 3(1): "The following marks made by a voter shall
    constitute a vote ... (a) The majority of an oval, box, or space ... is
    filled in; (b) The oval, box, or space next to the candidate's name ... is
    circled or underlined; ... (e) There is an "X", a check mark, a plus sign,
    an asterisk, a star, or any other mark indicating the intent of the voter
    next to the candidate's name or question choice; or (f) There is a
    diagonal, horizontal, or vertical line: A portion of which intersects two
    (2) points on the oval, box, or space ... and That does not intersect
    another oval, box, or space at any two (2) points."

    Section 3(3)(a): a pencil mark the voter erased is not a mark. A clause
    that is only partly met (a light fill between the thresholds, a partial
    ring, a little ink beside the name) makes the target marginal. On a
    connect-the-arrow target (``shapes``) a piece of ink spanning less than
    ``settings.arrow_partial`` of the gap is no partial evidence, as for
    `arrow_class`.
    """
    lines = [_line_through(f, settings) for f in features]
    partial = max(thresholds.marginal, settings.arrow_partial)
    out = []
    for t, f in enumerate(features):
        score, dark, ring = f[F["score"]], f[F["dark"]], f[F["ring"]]
        beside = f[F["marking"]] if kinds[t] != "write_in" else 0.0  # a written name is not a mark by a name
        clauses = []
        if dark >= settings.majority:
            clauses.append("6:030 s3(1)(a) majority filled")
        elif score >= thresholds.definite or dark >= settings.stroke:
            clauses.append("6:030 s3(1)(e) mark in the target")
        if ring >= settings.circled:
            clauses.append("6:030 s3(1)(b) circled")
        if beside >= settings.beside_name:
            clauses.append("6:030 s3(1)(e) mark beside the name")
        if lines[t] and dark < settings.majority:
            if not any(lines[u] and contests[u] == contests[t] for u in range(len(features)) if u != t):
                clauses.append("6:030 s3(1)(f) line through the target")
        if clauses:
            out.append(("marked", tuple(clauses)))
        elif (
            score >= (partial if shapes is not None and shapes[t] == "arrow" else thresholds.marginal)
            or ring >= settings.circled / 2
            or beside >= 0.75 * settings.beside_name
            or lines[t]
        ):
            out.append(("marginal", ("6:030 s3(1) partial evidence of a mark",)))
        elif f[F["erasure"]] >= settings.erased:
            out.append(("unmarked", ("6:030 s3(3)(a) erased",)))
        else:
            out.append(("unmarked", ()))
    return out
