"""From a voter's intent to ink: which mark goes on which target, with which pen, and what else lands on the page."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..election.geometry import CORNER_WINDOW_IN, STYLE_CODE_QUIET_IN, Rect
from ..election.layout import BallotLayout, PageLayout, TargetLayout
from ..election.model import STRAIGHT_PARTY_CONTEST_ID
from ._ink import Pen
from .mark_kinds import MARK_KINDS
from .voters import ContestChoice, Population, VoterIntent, WriteIn, pick

#: The kinds a voter may use to select an option.
SELECTING_KINDS: tuple[str, ...] = tuple(k for k, v in MARK_KINDS.items() if v.selects)


@dataclass(frozen=True)
class TargetMark:
    """Ink planned at one target: a mark of ``kind`` and, on a write-in line, a written name."""

    page: int
    contest_id: str
    option_id: str
    kind: str
    write_in: WriteIn | None = None


@dataclass(frozen=True)
class SheetPlan:
    """Everything to be drawn on one sheet: the voter's pen, target marks, and stray marks (page numbers)."""

    intent: VoterIntent
    pen: Pen
    habit: str
    marks: tuple[TargetMark, ...]
    strays: tuple[int, ...] = ()


def make_pen(kind: str, rng: np.random.Generator) -> Pen:
    """A pen as a grayscale scanner sees it: black ballpoint, blue ballpoint (mid-dark gray), or pencil."""
    if kind == "black_pen":
        return Pen(kind, rng.uniform(15, 45), rng.uniform(0.012, 0.02))
    if kind == "blue_pen":
        return Pen(kind, rng.uniform(55, 100), rng.uniform(0.012, 0.02), grain=0.05)
    if kind == "pencil":
        return Pen(kind, rng.uniform(80, 130), rng.uniform(0.014, 0.022), grain=rng.uniform(0.2, 0.4), solid_grain=True)
    raise ValueError(f"no pen {kind!r} (black_pen, blue_pen, pencil)")


def target_index(layout: BallotLayout) -> dict[tuple[str, str], tuple[int, TargetLayout]]:
    """(contest id, option id) -> (page number, target) for a style's layout."""
    return {(t.contest_id, t.option_id): (page, t) for page, t in layout.targets()}


def _selection_kind(habit: str, population: Population, rng: np.random.Generator, write_in: bool) -> str:
    kind = habit
    if population.deviation and rng.random() < population.deviation:
        kind = SELECTING_KINDS[int(rng.integers(len(SELECTING_KINDS)))]
    if write_in and kind == "beside_name":
        kind = "full_fill"  # the "name" of a write-in line is the voter's own handwriting
    return kind


def plan_sheet(
    layout: BallotLayout, intent: VoterIntent, population: Population, rng: np.random.Generator
) -> SheetPlan:
    """Choose the mark for every selection, the voter's pen, and the non-vote marks (erasures, strays, ...)."""
    where = target_index(layout)
    habit = pick(rng, population.habits)
    pen = make_pen(pick(rng, population.pens), rng)
    marks: dict[tuple[str, str], TargetMark] = {}

    def put(contest_id: str, option_id: str, kind: str, write_in: WriteIn | None = None) -> None:
        page, _t = where[(contest_id, option_id)]
        marks[(contest_id, option_id)] = TargetMark(page, contest_id, option_id, kind, write_in)

    for party in intent.straight_party:
        put(STRAIGHT_PARTY_CONTEST_ID, party, _selection_kind(habit, population, rng, False))
    for choice in intent.choices:
        names = {w.option_id: w for w in choice.write_ins}
        for opt in choice.selections:
            put(choice.contest_id, opt, _selection_kind(habit, population, rng, opt in names), names.get(opt))
        for opt, w in names.items():
            if opt not in choice.selections:
                put(choice.contest_id, opt, "none", w)

    strays: list[int] = []
    for extra, p in population.extras:
        if rng.random() >= p:
            continue
        if extra == "stray":
            strays.extend(int(rng.integers(1, 3)) for _ in range(int(rng.integers(1, 3))))
            continue
        free = [k for k in where if k not in marks]
        if extra == "erasure":
            # A changed mind: residue on an option of a contest the voter did mark (31 KAR 6:030 §3(3)(a)).
            chosen = {m.contest_id for m in marks.values() if m.kind != "none"}
            near = [k for k in free if k[0] in chosen and not k[1].startswith("write-in")]
            free = near or free
        for _ in range(int(rng.integers(1, 3)) if extra == "hesitation" else 1):
            if not free:
                break
            key = free.pop(int(rng.integers(len(free))))
            put(key[0], key[1], extra)
    order = {k: i for i, k in enumerate(where)}
    ordered = tuple(sorted(marks.values(), key=lambda m: order[(m.contest_id, m.option_id)]))
    return SheetPlan(intent, pen, habit, ordered, tuple(strays))


def forced_plan(
    layout: BallotLayout,
    precinct_id: str,
    marks: dict[tuple[str, str], str],
    *,
    write_ins: dict[tuple[str, str], str] | None = None,
    pen: Pen | None = None,
    strays: tuple[int, ...] = (),
) -> SheetPlan:
    """A plan with chosen marks: ``{(contest id, option id): kind}``, and names written on write-in lines.

    For tests and test decks: the intent is read off the marks (an option is
    selected when its kind is one voters select with).
    """
    where = target_index(layout)
    write_ins = write_ins or {}
    for key in (*marks, *write_ins):
        if key not in where:
            raise KeyError(f"style {layout.style_id} has no target {key[0]}/{key[1]}")
    for kind in marks.values():
        if kind not in MARK_KINDS or kind == "stray":
            raise ValueError(f"no mark kind {kind!r} at a target")
    keys = sorted({*marks, *write_ins}, key=list(where).index)
    straight = tuple(
        o for (c, o) in keys if c == STRAIGHT_PARTY_CONTEST_ID and MARK_KINDS[marks.get((c, o), "none")].selects
    )
    choices = {}
    for c, o in keys:
        if c == STRAIGHT_PARTY_CONTEST_ID:
            continue
        kind = marks.get((c, o), "none")
        ch = choices.get(c, ContestChoice(c))
        sel = ch.selections + ((o,) if MARK_KINDS[kind].selects else ())
        wis = ch.write_ins + (
            (WriteIn(o, write_ins[(c, o)], "given", None, MARK_KINDS[kind].selects),) if (c, o) in write_ins else ()
        )
        choices[c] = ContestChoice(c, sel, wis)
    intent = VoterIntent("forced", layout.style_id, precinct_id, None, straight, tuple(choices.values()))
    wi = {(ch.contest_id, w.option_id): w for ch in choices.values() for w in ch.write_ins}
    planned = tuple(TargetMark(where[k][0], k[0], k[1], marks.get(k, "none"), wi.get(k)) for k in keys)
    return SheetPlan(intent, pen or Pen("black_pen", 25.0, 0.016), "forced", planned, tuple(strays))


def _blocked(page: PageLayout) -> list[Rect]:
    """Where a stray mark must not go: contest boxes (and so every target), corner windows, the style code."""
    w, h, c = page.width_in, page.height_in, CORNER_WINDOW_IN
    code = page.style_code.inset(-(STYLE_CODE_QUIET_IN + 0.1))
    corners = [Rect(0, 0, c, c), Rect(w - c, 0, c, c), Rect(0, h - c, c, c), Rect(w - c, h - c, c, c)]
    return [r.inset(-0.05) for _cid, r in page.contest_boxes] + corners + [code]


def _overlaps(a: Rect, b: Rect) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def stray_strokes(page: PageLayout, rng: np.random.Generator, tries: int = 60) -> list[np.ndarray]:
    """A scribble (a short wavy line, a loop, a doodle) in white space away from every target; [] if none fits."""
    blocked = _blocked(page)
    for _ in range(tries):
        size = rng.uniform(0.15, 0.5)
        x = rng.uniform(0.3, page.width_in - 0.3 - size)
        y = rng.uniform(0.3, page.height_in - 0.3 - size)
        box = Rect(x, y, size, size * 0.6)
        if any(_overlaps(box, b) for b in blocked):
            continue
        n = int(rng.integers(4, 9))
        t = np.linspace(0, 1, n * 4)
        ctrl = rng.uniform(0, 1, (n, 2))
        xs = np.interp(t, np.linspace(0, 1, n), ctrl[:, 0])
        ys = np.interp(t, np.linspace(0, 1, n), ctrl[:, 1])
        xs = np.convolve(xs, np.ones(3) / 3, mode="same")[1:-1]
        ys = np.convolve(ys, np.ones(3) / 3, mode="same")[1:-1]
        return [np.column_stack([x + xs * box.w, y + ys * box.h])]
    return []
