"""Targets side by side on one row of a contest ("( ) YES    ( ) NO"), read left to right.

Most ballots print a contest's targets one under the other, but some vendors print
a question's YES and NO on one row. The import took a contest's targets top to
bottom only: two targets at one height came in the order they were found, so YES
and NO could swap (boxes design: 6 votes counted for the other answer in 4
sheets), and without contest boxes the NO targets made a column of their own and
the contests around them merged (the import stopped). 31 KAR 6:030 Section
2(1)(a) counts "Filling in the oval or box or connecting the arrow next to the
candidate's name or the question choice": the target must be the one printed
beside its word.

So a contest's targets are taken row by row, each row left to right; a row is
targets whose centres lie within `ROW_TOL` of a target's height of each other. A
page whose targets are one under the other has one target a row: its order, and
every area drawn from it, is what it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Protocol, TypeVar

from ..election.geometry import Rect

#: Two targets are on one row when their centres are within this share of the taller one's height.
ROW_TOL = 0.5


class _Bounded(Protocol):
    @property
    def bounds(self) -> Rect: ...


T = TypeVar("T", bound=_Bounded)


def same_row(a: _Bounded, b: _Bounded) -> bool:
    """Whether two targets are printed on one row (side by side)."""
    return abs(a.bounds.center[1] - b.bounds.center[1]) <= ROW_TOL * max(a.bounds.h, b.bounds.h)


def in_rows(targets: Sequence[T]) -> list[T]:
    """Targets in reading order: rows top to bottom (a row's top is its first target's), each left to right."""
    rows: list[list[T]] = []
    for t in sorted(targets, key=lambda t: t.bounds.center[1]):
        if rows and same_row(rows[-1][0], t):
            rows[-1].append(t)
        else:
            rows.append([t])
    return [t for row in rows for t in sorted(row, key=lambda t: t.bounds.x)]


def side_by_side(left: Sequence[T], col: Sequence[T], heading: Callable[[T, T], bool]) -> bool:
    """Whether a column of targets is the second target of rows whose first is in the column ``left`` of it.

    Every target of ``col`` must share its row with a target of ``left``, and each must be alone in its
    contest (a heading between each two of them, ``heading(a, b)``): a real column of contests has
    candidates one under the other in one contest, and the rows of two columns on a timing-mark grid
    line up as well as YES and NO do. A lone target stays a column of its own (and is then left out
    as a drawing, an instruction picture beside a row, as before).
    """
    if len(col) < 2 or not all(any(same_row(t, u) for u in left) for t in col):
        return False
    ordered = sorted(col, key=lambda t: t.bounds.y)
    return all(heading(a, b) for a, b in pairwise(ordered))


def row_span(targets: Sequence[_Bounded], i: int) -> tuple[float | None, float | None, float | None, float | None]:
    """Around target ``i`` of a contest in reading order: the centre y of the row above and of the row below
    (None at the ends), and the right edge of the target before it on its row and the left edge of the
    one after it (None when it is alone on its side)."""
    t = targets[i]
    above = next((u for u in reversed(targets[:i]) if not same_row(u, t)), None)
    below = next((u for u in targets[i + 1 :] if not same_row(u, t)), None)
    before = next((u for u in reversed(targets[:i]) if same_row(u, t)), None)
    after = next((u for u in targets[i + 1 :] if same_row(u, t)), None)
    return (
        None if above is None else above.bounds.center[1],
        None if below is None else below.bounds.center[1],
        None if before is None else before.bounds.right,
        None if after is None else after.bounds.x,
    )
