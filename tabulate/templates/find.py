"""Find the voting targets on a blank page and group them into contests.

Targets are found from the pixels alone:

* an *oval* or a *box* is a closed outline with one hole that fills most of
  it (thin print round paper), 0.12-0.5 in wide and 0.07-0.35 in tall; a
  box's outline fills its bounding rectangle (ratio above 0.9), an oval's
  about pi/4 of it;
* a *connect-the-arrow* target is the gap between a solid horizontal bar
  (the tail) and a solid arrowhead on the same line, 0.1-0.5 in apart, with
  nothing printed in the gap (31 KAR 6:030 Section 2(1)(a): "connecting the
  arrow next to the candidate's name").

Contests are the printed contest boxes (thick rules round a group of
targets) when the page has them; otherwise the targets are split into
columns by their left edges and each column at the headings printed between
targets. Drawings outside the contest areas (the instruction pictures of
filled and empty ovals, logos) are never targets: with boxes, a target must
lie in one; without, a target must share its column with another target.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import cv2
import numpy as np

from ..election.geometry import Rect
from .rows import in_rows, side_by_side

#: Size limits (inches) of an oval or box target: (min w, max w, min h, max h).
TARGET_SIZE_IN = (0.12, 0.5, 0.07, 0.35)
#: A contest box: at least this wide and tall (inches), its rule at least this thick.
BOX_MIN_IN = (1.2, 0.4)
BOX_RULE_MIN_IN = 0.02
#: Targets whose left edges are within this (inches) are one column.
COLUMN_TOL_IN = 0.35
#: Printed ink between two targets of a column at least this tall (inches) is a heading: a new contest.
HEADING_MIN_IN = 0.05
#: An arrow's gap is taken this much narrower at each end than printed (blur from the halves).
ARROW_GAP_INSET_IN = 0.02


@dataclass(frozen=True)
class FoundTarget:
    """A target found on a blank: its shape and printed bounds (for an arrow, the gap) in inches."""

    shape: str
    bounds: Rect
    #: For an arrow, how far its head reaches right of the gap (the name starts after it).
    head_in: float = 0.0


@dataclass(frozen=True)
class FoundGroup:
    """The targets of one contest in reading order, and the area they and their names occupy."""

    targets: tuple[FoundTarget, ...]
    area: Rect
    #: The names are printed left of the targets (some vendors print the oval after the name).
    names_left: bool = False


def ink_mask(blank: np.ndarray) -> np.ndarray:
    """Printed ink of a blank page (Otsu split of its grey levels): uint8 0/255."""
    _t, ink = cv2.threshold(blank, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    return ink


def _closed_outlines(ink: np.ndarray, dpi: float) -> list[FoundTarget]:
    contours, hier = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return []
    wmin, wmax, hmin, hmax = (v * dpi for v in TARGET_SIZE_IN)
    found = []
    for i, (_nxt, _prev, child, parent) in enumerate(hier[0]):
        if parent != -1 or child == -1:
            continue
        x, y, w, h = cv2.boundingRect(contours[i])
        if not (wmin <= w <= wmax and hmin <= h <= hmax) or w < 0.9 * h:
            continue
        holes = []
        c = child
        while c != -1:
            holes.append(cv2.contourArea(contours[c]))
            c = hier[0][c][0]
        outer = cv2.contourArea(contours[i])
        if len([a for a in holes if a > 0.02 * outer]) != 1 or max(holes) < 0.45 * outer:
            continue  # a letter, a crossed-out picture, or a filled shape
        hole = max((c for c in _siblings(hier[0], child)), key=lambda c: cv2.contourArea(contours[c]))
        if _hole_ink(ink, contours[hole]) > HOLE_INK_MAX:
            continue  # a QR code's finder pattern, a picture of a marked target: print inside, not paper
        fill = outer / float(w * h)
        shape = "box" if fill > 0.9 else "oval" if 0.7 < fill <= 0.9 else None
        if shape:
            found.append(FoundTarget(shape, Rect(x / dpi, y / dpi, w / dpi, h / dpi)))
    return found


def _siblings(hier: np.ndarray, first: int) -> list[int]:
    out, c = [], first
    while c != -1:
        out.append(c)
        c = int(hier[c][0])
    return out


#: A target's hole is paper on a blank: at most this share of it printed (a number or a letter in the
#: oval: 0.05-0.16); a QR code's finder pattern holds a solid square (0.3-0.5), and is no target.
HOLE_INK_MAX = 0.25


def _hole_ink(ink: np.ndarray, hole: np.ndarray) -> float:
    """The printed share of a closed outline's hole (whatever is printed inside it)."""
    x, y, w, h = cv2.boundingRect(hole)
    filled = np.zeros((h, w), np.uint8)
    cv2.drawContours(filled, [hole - np.array([x, y])], -1, 255, -1)
    mask = cv2.erode(filled, np.ones((3, 3), np.uint8), iterations=2)  # the contour runs on the outline's pixels
    area = np.count_nonzero(mask)
    inside = np.count_nonzero(cv2.bitwise_and(ink[y : y + h, x : x + w], mask))
    return inside / area if area else 1.0


def _arrows(ink: np.ndarray, dpi: float) -> list[FoundTarget]:
    n, _lab, stats, _c = cv2.connectedComponentsWithStats(ink, 8, cv2.CV_32S)  # type: ignore[call-overload]
    tails, heads = [], []
    for j in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[j])
        fill = area / float(w * h)
        if 0.08 * dpi <= w <= 0.4 * dpi and 0.02 * dpi <= h <= 0.08 * dpi and fill > 0.85 and w > 2 * h:
            tails.append((x, y, w, h))
        elif 0.08 * dpi <= w <= 0.35 * dpi and 0.08 * dpi <= h <= 0.25 * dpi and 0.35 < fill < 0.85:
            heads.append((x, y, w, h))
    found = []
    for x, y, w, h in tails:
        cy = y + h / 2
        best = None
        for hx, hy, hw, hh in heads:
            gap = hx - (x + w)
            # An arrowhead is centred on its tail and at least twice as tall (a letter is neither).
            if 0.1 * dpi <= gap <= 0.5 * dpi and abs(hy + hh / 2 - cy) < 0.015 * dpi and hh >= 1.8 * h:
                if best is None or gap < best[0]:
                    best = (gap, hx, hw)
        if best is None:
            continue
        gap, hx, hw = best
        r0, r1 = int(cy - 0.03 * dpi), int(cy + 0.03 * dpi) + 1
        if np.count_nonzero(ink[r0:r1, x + w + 1 : hx - 1]) > 0.02 * gap * (r1 - r0):
            continue  # the gap is printed over: a drawn, already connected arrow
        # The gap stops ARROW_GAP_INSET_IN short of the printed halves: a blurred scan spreads them into it.
        gh, inset = 0.08, ARROW_GAP_INSET_IN
        found.append(
            FoundTarget(
                "arrow", Rect((x + w) / dpi + inset, cy / dpi - gh / 2, gap / dpi - 2 * inset, gh), hw / dpi + inset
            )
        )
    return found


def contest_boxes(ink: np.ndarray, dpi: float) -> list[Rect]:
    """Rectangles ruled thickly enough to be contest boxes (outer edges, inches)."""
    contours, hier = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return []
    boxes = []
    for i, (_n, _p, child, parent) in enumerate(hier[0]):
        if parent != -1 or child == -1:
            continue
        x, y, w, h = cv2.boundingRect(contours[i])
        if w < BOX_MIN_IN[0] * dpi or h < BOX_MIN_IN[1] * dpi:
            continue
        if cv2.contourArea(contours[i]) < 0.9 * w * h:
            continue
        rule = BOX_RULE_MIN_IN * dpi
        band = ink[y + int(h * 0.4) : y + int(h * 0.6), x : x + int(rule * 2)]
        left = np.count_nonzero(band.min(axis=0)) if band.size else 0  # columns fully inked: the rule's width
        if left >= rule * 0.8:
            boxes.append(Rect(x / dpi, y / dpi, w / dpi, h / dpi))
    return boxes


def find_targets(blank: np.ndarray, dpi: float) -> tuple[list[FoundTarget], list[Rect]]:
    """Every target on a blank page, and its contest boxes (empty when it has none)."""
    ink = ink_mask(blank)
    return _closed_outlines(ink, dpi) + _arrows(ink, dpi), contest_boxes(ink, dpi)


def _inside(t: FoundTarget, r: Rect) -> bool:
    cx, cy = t.bounds.center
    return r.x < cx < r.right and r.y < cy < r.bottom


def _reading_order(rects: list[Rect]) -> list[int]:
    """Indices of rectangles in reading order: columns (by left edge) left to right, each top to bottom."""
    order = sorted(range(len(rects)), key=lambda i: rects[i].x)
    cols: list[list[int]] = []
    for i in order:
        if cols and abs(rects[i].x - rects[cols[-1][0]].x) < 0.5:
            cols[-1].append(i)
        else:
            cols.append([i])
    return [i for col in cols for i in sorted(col, key=lambda i: rects[i].y)]


def _heading_between(ink: np.ndarray, dpi: float, a: FoundTarget, b: FoundTarget) -> bool:
    x0, x1 = int(min(a.bounds.x, b.bounds.x) * dpi), int(max(a.bounds.right, b.bounds.right) * dpi)
    y0, y1 = int(a.bounds.bottom * dpi) + 2, int(b.bounds.y * dpi) - 2
    if y1 <= y0:
        return False
    rows = np.count_nonzero(ink[y0:y1, x0:x1], axis=1) > 0
    return int(np.count_nonzero(rows)) >= HEADING_MIN_IN * dpi


#: With the names left of the targets, print this tall between two targets' rows is a heading.
LEFT_HEADING_MIN_IN = 0.1


def _heading_left_of(ink: np.ndarray, dpi: float, a: FoundTarget, b: FoundTarget, left: float, pitch: float) -> bool:
    """A heading between two targets of a column whose names are printed left of its targets.

    The heading is printed in the names' column, not over the targets, so the rows are looked at from
    the column's left edge to the targets; a name's own rows (half the column's usual spacing about
    its target: a running mate's line, a write-in line) are left out.
    """
    x0, x1 = int(left * dpi), int(max(a.bounds.right, b.bounds.right) * dpi)
    y0 = int((a.bounds.center[1] + pitch / 2) * dpi)
    y1 = int((b.bounds.center[1] - pitch / 2) * dpi)
    if y1 <= y0:
        return False
    rows = np.count_nonzero(ink[y0:y1, max(0, x0) : x1], axis=1) > 0
    return int(np.count_nonzero(rows)) >= LEFT_HEADING_MIN_IN * dpi


def text_ink(ink: np.ndarray, dpi: float) -> np.ndarray:
    """The print without its vertical rules (a contest box's side, a column rule): text, ovals, marks."""
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (1, max(3, int(0.3 * dpi))))
    return cv2.subtract(ink, cv2.morphologyEx(ink, cv2.MORPH_OPEN, k))


#: A name starts within this (inches) of its target; print further off is another column's.
NAME_NEAR_IN = 0.25


def names_left_of(text: np.ndarray, dpi: float, targets: list[FoundTarget] | tuple[FoundTarget, ...]) -> bool:
    """Whether a column's names are printed left of its targets (the name, then the oval).

    A name starts right beside its target (within `NAME_NEAR_IN`), so most targets have print (`text_ink`,
    rules left out) that near on their right when the names are on the right. When they do not, and have
    print within 3 in on their left, the names are on the left: a short name ends well before its
    target, and the next column's names begin further off than any name of this column would.
    """
    near, m, far = int(NAME_NEAR_IN * dpi), int(0.03 * dpi), int(3.0 * dpi)
    right = left = 0
    for t in targets:
        r0, r1 = int(t.bounds.y * dpi), int(t.bounds.bottom * dpi) + 1
        x, xr = int(t.bounds.x * dpi), int((t.bounds.right + t.head_in) * dpi)
        right += bool(np.count_nonzero(text[r0:r1, xr + m : xr + near]))
        left += bool(np.count_nonzero(text[r0:r1, max(0, x - far) : max(0, x - m)]))
    return 2 * right <= len(targets) and 2 * left > len(targets)


def group_targets(
    blank: np.ndarray,
    dpi: float,
    targets: list[FoundTarget],
    boxes: list[Rect],
    ignore: frozenset[int] | set[int] = frozenset(),
) -> list[FoundGroup]:
    """Targets grouped into contests in reading order (see the module docstring)."""
    targets = [t for i, t in enumerate(targets) if i not in ignore]
    width_in = blank.shape[1] / dpi
    if boxes:
        order = _reading_order(boxes)
        groups = []
        text = text_ink(ink_mask(blank), dpi)
        for i in order:
            inside = in_rows([t for t in targets if _inside(t, boxes[i])])
            if inside:
                groups.append(FoundGroup(tuple(inside), boxes[i], names_left_of(text, dpi, inside)))
        return groups
    ink = ink_mask(blank)
    text = text_ink(ink, dpi)
    cols: list[list[FoundTarget]] = []
    for t in sorted(targets, key=lambda t: t.bounds.x):
        if cols and abs(t.bounds.x - cols[-1][0].bounds.x) < COLUMN_TOL_IN:
            cols[-1].append(t)
        else:
            cols.append([t])
    cols = _rows_across(ink, dpi, cols)
    cols = [c for c in cols if len(c) > 1]  # a lone target is a drawing (an instruction picture)
    groups = []
    for k, col in enumerate(cols):
        col[:] = in_rows(col)
        flip = names_left_of(text, dpi, col)
        if flip:  # the column runs from the one before it to just past its targets
            left = max(t.bounds.right + t.head_in for t in cols[k - 1]) + 0.15 if k else 0.3
            right = max(t.bounds.right for t in col) + 0.15
        else:
            left = min(t.bounds.x for t in col) - 0.3
            right = (min(t.bounds.x for t in cols[k + 1]) - 0.35) if k + 1 < len(cols) else width_in - 0.3
        pitch = float(np.median(np.diff([t.bounds.center[1] for t in col])))
        run = [col[0]]
        for a, b in pairwise(col):
            if _heading_left_of(ink, dpi, a, b, left, pitch) if flip else _heading_between(ink, dpi, a, b):
                groups.append(_group(run, left, right, flip))
                run = []
            run.append(b)
        groups.append(_group(run, left, right, flip))
    return groups


def _rows_across(ink: np.ndarray, dpi: float, cols: list[list[FoundTarget]]) -> list[list[FoundTarget]]:
    """Columns with a column of second targets on their rows (a question's NO beside its YES) merged into them
    (`tabulate.templates.rows.side_by_side`); every other column as it was."""
    out: list[list[FoundTarget]] = []
    for col in cols:
        if out and side_by_side(out[-1], col, lambda a, b: _heading_between(ink, dpi, a, b)):
            out[-1] = out[-1] + col
        else:
            out.append(col)
    return out


def _group(run: list[FoundTarget], left: float, right: float, names_left: bool = False) -> FoundGroup:
    top = run[0].bounds.y - 0.1
    bottom = run[-1].bounds.bottom + 0.4
    return FoundGroup(tuple(run), Rect(left, top, right - left, bottom - top), names_left)
