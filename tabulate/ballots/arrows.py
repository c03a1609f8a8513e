"""Marks on a connect-the-arrow target: where a voter draws them and what each should read as.

31 KAR 6:030 Section 2(1): a vote on a scan voting system is the choice made
by "(a) Filling in the oval or box or connecting the arrow next to the
candidate's name or the question choice". On an arrow the target is the
unprinted gap between the tail and the head, and the marking area is the gap
plus the arrow: a voter draws across the gap, and ink that runs from the tail
to the head *connects the arrow*, whatever shape the stroke has. So on an
arrow, unlike an oval, an X or a check whose arms join the tail to the head
and a single line across the gap are definite votes under Section 2(1)(a)
(and under Section 3(1)(e) and (f) for the hand count). A bar that stops short
of the head has not connected the arrow: the scanner rule is not met, while a
person counting by hand sees the majority of the space filled (Section
3(1)(a)), so it goes to a person. Light pencil, a dot and an erasure stay
what they are on an oval; an X by the name, a tiny touch and a stray are
drawn and read as on an oval.

A loop drawn around the whole arrow (tail, gap and head) does not connect
it: the scanner rule of Section 2(1)(a) is not met. The hand count's
Section 3(1)(b) counts "The oval, box, or space next to the candidate's
name or the question choice is circled" as a vote, and the arrow is the
space that designates the choice on an arrow ballot (as Section 3(1)(a)'s
"majority of ... space" is read for a bar stopping short). So the two
readings differ, as for a circled oval: the reader reads it unmarked (or
marginal) by the scanner rule, the hand-count reading sees the ring, and a
person decides.

`mark_kind` gives the expected readings of a kind on a target shape; the
simulator's truth (`tabulate.ballots.truth`) and the accuracy benchmarks use it.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from ..election.layout import ARROW_HALF_IN, TargetLayout
from ._ink import Pen, jitter_line
from .mark_kinds import MARK_KINDS, MarkKind

_CONNECTS = "6:030 §2(1)(a) connecting the arrow"

#: What a kind of mark drawn on an arrow's gap reads as (only the kinds that differ from `MARK_KINDS`).
_ARROW_CHANGES = {
    "full_fill": dict(
        clause=f"{_CONNECTS}, §3(1)(a)", description="a bar over the gap from the tail to the head, filling it"
    ),
    "partial_fill": dict(
        scan="ambiguous",
        scan_accepts=("marginal", "marked"),
        clause="6:030 §2(1)(a) not connected, §3(1)(a)",
        description="a bar from one half covering 45-75 % of the gap, stopping short of the other half",
    ),
    "x_mark": dict(
        scan="marked",
        scan_accepts=("marked",),
        clause=f"{_CONNECTS}, §3(1)(e)",
        description="an X across the gap, each arm running from the tail to the head",
    ),
    "check": dict(
        scan="marked",
        scan_accepts=("marked",),
        clause=f"{_CONNECTS}, §3(1)(e)",
        description="a check across the gap, its short arm on the tail, its long arm ending on the head",
    ),
    "line_through": dict(
        scan="marked",
        scan_accepts=("marked",),
        clause=f"{_CONNECTS}, §3(1)(f)",
        description="one pen line across the gap from the tail to the head",
    ),
    "light_pencil": dict(description="a light, grainy pencil bar joining the tail to the head"),
    "circle": dict(
        scan_accepts=("unmarked", "marginal"),
        clause="6:030 §2(1)(a) not connected, §3(1)(b) circled",
        description="a loop drawn around the whole arrow (tail, gap and head), not across the gap",
    ),
}

#: Every mark kind -> its expected readings when drawn on a connect-the-arrow target.
ARROW_MARK_KINDS: Mapping[str, MarkKind] = MappingProxyType(
    {k: replace(v, **_ARROW_CHANGES.get(k, {})) for k, v in MARK_KINDS.items()}
)


def mark_kind(kind: str, shape: str = "oval") -> MarkKind:
    """The expected readings of a mark ``kind`` drawn on a target of ``shape`` (oval, box or arrow)."""
    return (ARROW_MARK_KINDS if shape == "arrow" else MARK_KINDS)[kind]


# -- drawing: (target, pen, rng) -> (strokes, polygons, pen), page inches ------------------------
Shape = tuple[list[np.ndarray], list[np.ndarray], Pen]


def _gap(t: TargetLayout) -> tuple[float, float, float, float]:
    """The gap's left end (the tail), right end (the head), centre line and half height."""
    b = t.bounds
    return b.x, b.right, b.y + b.h / 2, b.h / 2


def _bar(x0: float, x1: float, cy: float, half: float, rng: np.random.Generator) -> np.ndarray:
    """A hand-filled bar from x0 to x1: a polygon with wavy long edges and rounded ends."""
    n = 12
    xs = np.linspace(x0, x1, n)
    top = cy - half + rng.normal(0, half * 0.12, n)
    bot = cy + half + rng.normal(0, half * 0.12, n)
    return np.vstack([np.column_stack([xs, top]), np.column_stack([xs[::-1], bot[::-1]])])


def _joining_bar(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> np.ndarray:
    x0, x1, cy, hb = _gap(t)
    return _bar(x0 - rng.uniform(0.0, 0.04), x1 + rng.uniform(0.0, 0.04), cy, hb * rng.uniform(0.45, 0.9), rng)


def _full_fill(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    if rng.random() < 0.6:
        return [], [_joining_bar(t, pen, rng)], pen
    # One or two broad strokes along the shaft, over both printed halves' ends.
    x0, x1, cy, hb = _gap(t)
    wide = pen.with_(width_in=max(pen.width_in, rng.uniform(0.03, 0.05)))
    strokes = []
    for _ in range(int(rng.integers(1, 3))):
        dy = rng.uniform(-0.3, 0.3) * hb
        strokes.append(
            jitter_line((x0 - rng.uniform(0.01, 0.05), cy + dy), (x1 + rng.uniform(0.01, 0.05), cy - dy), rng, 0.006)
        )
    return strokes, [], wide


def _partial_fill(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    """A bar from one half that stops 25-55 % of the gap short of the other: not connected."""
    x0, x1, cy, hb = _gap(t)
    reach = (x1 - x0) * rng.uniform(0.45, 0.75)
    a, b = (x0 - rng.uniform(0.0, 0.03), x0 + reach) if rng.random() < 0.5 else (x1 - reach, x1 + rng.uniform(0, 0.03))
    return [], [_bar(a, b, cy, hb * rng.uniform(0.5, 0.85), rng)], pen


def _light_pencil(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    light = Pen("pencil", rng.uniform(165, 205), 0.02, grain=rng.uniform(0.3, 0.55))
    return [], [_joining_bar(t, light, rng)], light


def _x_mark(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    """Two arms, each from beyond the tail's end to beyond the head's base, crossing in the gap."""
    x0, x1, cy, hb = _gap(t)
    sy = hb * rng.uniform(0.5, 1.2)
    l0, r0 = x0 - rng.uniform(0.01, 0.05), x1 + rng.uniform(0.01, 0.05)
    l1, r1 = x0 - rng.uniform(0.01, 0.05), x1 + rng.uniform(0.01, 0.05)
    s1 = jitter_line((l0, cy - sy), (r0, cy + sy * rng.uniform(0.8, 1.0)), rng, 0.006)
    s2 = jitter_line((r1, cy - sy * rng.uniform(0.8, 1.0)), (l1, cy + sy), rng, 0.006)
    return [s1, s2], [], pen


def _check(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    """A check: short arm down from the tail's end, long arm up to the head (the ink runs tail to head)."""
    x0, x1, cy, hb = _gap(t)
    p0 = (x0 - rng.uniform(0.01, 0.04), cy - hb * rng.uniform(0.0, 0.5))
    p1 = (x0 + (x1 - x0) * rng.uniform(0.2, 0.4), cy + hb * rng.uniform(0.4, 0.8))
    p2 = (x1 + rng.uniform(0.01, 0.05), cy - hb * rng.uniform(0.4, 0.9))
    return [np.vstack([jitter_line(p0, p1, rng, 0.004, 4), jitter_line(p1, p2, rng, 0.006, 6)[1:]])], [], pen


def _line_through(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    """One line along the shaft from the tail to the head: the arrow as the instructions show it joined."""
    x0, x1, cy, hb = _gap(t)
    p0 = (x0 - rng.uniform(0.0, 0.05), cy + rng.uniform(-0.4, 0.4) * hb)
    p1 = (x1 + rng.uniform(0.0, 0.05), cy + rng.uniform(-0.4, 0.4) * hb)
    return [jitter_line(p0, p1, rng, 0.004)], [], pen


def _loop(t: TargetLayout, pen: Pen, rng: np.random.Generator) -> Shape:
    """A loop around the whole arrow, clear of the tail, the head and the gap: circling it, not joining it.

    Its ends overlap a little, as a hand's loop does; it stays in the option's row (at most 0.14 in
    above and below the shaft) and clears the printed halves (`ARROW_HALF_IN` or a little longer).
    """
    x0, x1, cy, _hb = _gap(t)
    a = (x1 - x0) / 2 + ARROW_HALF_IN + rng.uniform(0.05, 0.09)
    b = rng.uniform(0.10, 0.14)
    start = rng.uniform(0, 2 * np.pi)
    th = start + np.linspace(0, 2 * np.pi + rng.uniform(0.15, 0.6), 64)
    wob = 1 + np.convolve(rng.normal(0, 0.03, 64 + 8), np.ones(9) / 9, mode="valid")
    cx = (x0 + x1) / 2
    return [np.column_stack([cx + a * wob * np.cos(th), cy + b * wob * np.sin(th)])], [], pen


#: The kinds drawn differently on an arrow; the others are drawn as on any target (`tabulate.ballots.marks`).
ARROW_DRAW: Mapping[str, Callable[[TargetLayout, Pen, np.random.Generator], Shape]] = MappingProxyType(
    {
        "full_fill": _full_fill,
        "partial_fill": _partial_fill,
        "light_pencil": _light_pencil,
        "x_mark": _x_mark,
        "check": _check,
        "line_through": _line_through,
        "circle": _loop,
    }
)
