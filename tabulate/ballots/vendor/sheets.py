"""Voted, scanned vendor-style sheets with their truth: the simulator's voters and scanner on foreign layouts.

Voter intent, mark kinds, pens, handwriting and the scanner model are the
simulator's own (`tabulate.ballots.voters`, `.plan`, `.marks`, `.scanner`,
`.truth`), so marks mean the same as on our ballots. What real paper adds
is drawn here: names and initials written in the margins, bleed-through of
a felt pen from the other side, specks, fold lines, a vendor code scratched
out (the page must then be identified by matching) and a quarter-turned feed.

Every random choice comes from ``numpy.random.default_rng`` seeded by
``SeedSequence(seed, spawn_key=(index,))`` split into voter, ink and scanner
streams, so sheet k is the same whatever the number of sheets.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from ...election.geometry import Rect
from ...election.model import Election
from ..handwriting import handwriting_strokes
from ..marks import draw_mark, draw_strokes
from ..plan import plan_sheet, stray_strokes, target_index
from ..scanner import SCAN_PROFILES, draw_scan, scan_page
from ..truth import sheet_truth
from ..voters import POPULATIONS, draw_voter
from .draw import print_page
from .pages import VendorBallot
from .place import vendor_layout

MARGIN_WORDS = ("OK", "JD", "done", "vote!", "no", "M.R.", "Smith", "?", "yes")


@dataclass(frozen=True)
class PaperEffects:
    """How often real paper's extras happen, per sheet (code scratches per page)."""

    margin_writing: float = 0.15
    bleed_through: float = 0.15
    specks: float = 0.3
    fold: float = 0.3
    code_scratched: float = 0.10
    quarter_turn: float = 0.04
    #: Bleed-through strength (share of the other side's ink) and a fold's darkening (grey levels).
    bleed_strength: tuple[float, float] = (0.08, 0.16)
    fold_depth: tuple[int, int] = (12, 28)
    #: The fold runs through the middle of one of the page's targets, not at a third of the page.
    fold_through_target: bool = False


@lru_cache(maxsize=64)
def ballot(election: Election, style_id: str, family: str) -> VendorBallot:
    return vendor_layout(election, style_id, family)


@lru_cache(maxsize=64)
def _blank(election: Election, style_id: str, family: str, page: int) -> np.ndarray:
    b = ballot(election, style_id, family)
    img = print_page(b, b.pages[page - 1])
    img.setflags(write=False)
    return img


def blank_pages(election: Election, style_id: str, family: str) -> list[np.ndarray]:
    """Writable copies of a style's two printed blank pages at the design's resolution."""
    return [_blank(election, style_id, family, p).copy() for p in (1, 2)]


def colour_blank_pages(election: Election, style_id: str, family: str) -> list[np.ndarray]:
    """A style's two blank pages as printed in colour (RGB): the targets in the design's drop-out colour."""
    b = ballot(election, style_id, family)
    return [print_page(b, p, colour=True) for p in b.pages]


def _rngs(seed: int, index: int):
    voter, ink, scan = np.random.SeedSequence(seed, spawn_key=(index,)).spawn(3)
    return np.random.default_rng(voter), np.random.default_rng(ink), np.random.default_rng(scan)


def _scratch(img: np.ndarray, r: Rect, dpi: int, pen, rng: np.random.Generator) -> None:
    """A voter's pen scribbled hard over the vendor code (zig-zags across its whole area)."""
    n = 14
    xs = np.where(np.arange(n) % 2 == 0, r.x - 0.02, r.right + 0.02) + rng.uniform(-0.02, 0.02, n)
    ys = np.linspace(r.y - 0.02, r.bottom + 0.02, n)
    draw_strokes(img, [np.column_stack([xs, ys])], dpi=dpi, pen=pen.with_(width_in=0.06), rng=rng)


def _paper(
    pages: list[np.ndarray],
    blanks: list[np.ndarray],
    b: VendorBallot,
    fx: PaperEffects,
    pen,
    rng: np.random.Generator,
    dpi: int,
) -> dict:
    """Margin writing, specks, folds, bleed-through and scratched codes; returns what was done."""
    done: dict = {"margin_writing": [], "specks": 0, "fold": False, "bleed_through": False, "code_scratched": []}
    for img, page in zip(pages, b.pages):
        if rng.random() < fx.margin_writing and page.margins:
            area = page.margins[int(rng.integers(len(page.margins)))]
            word = MARGIN_WORDS[int(rng.integers(len(MARGIN_WORDS)))]
            strokes, _hand = handwriting_strokes(word, Rect(area.x, area.y, min(area.w, 1.2), area.h), rng)
            draw_strokes(img, strokes, dpi=dpi, pen=pen.with_(width_in=min(pen.width_in, 0.016)), rng=rng)
            done["margin_writing"].append(page.page)
        if rng.random() < fx.code_scratched:
            _scratch(
                img,
                page.code_rect if b.design.code != "timing" else Rect(0.6, page.height_in - 0.34, 2.4, 0.24),
                dpi,
                pen,
                rng,
            )
            done["code_scratched"].append(page.page)
    if rng.random() < fx.bleed_through:  # a felt pen soaks through: a faint mirror image of the other side
        ink = [cv2.subtract(bl, img) for img, bl in zip(pages, blanks)]
        k = float(rng.uniform(*fx.bleed_strength))
        for i in (0, 1):
            ghost = cv2.GaussianBlur(cv2.flip(ink[1 - i], 1), (0, 0), 1.5 * dpi / 200)
            pages[i][:] = cv2.subtract(pages[i], (ghost * k).astype(np.uint8))
        done["bleed_through"] = True
    if rng.random() < fx.fold:  # a fold: a faint grey crease across the page at a third of its height
        i = int(rng.integers(2))
        row = int(pages[i].shape[0] * rng.uniform(0.3, 0.37))
        if fx.fold_through_target and b.pages[i].targets:
            ts = b.pages[i].targets
            row = int(ts[len(ts) // 2].bounds.center[1] * dpi)
        band = pages[i][row : row + 2].astype(np.int16) - int(rng.integers(*fx.fold_depth))
        pages[i][row : row + 2] = np.clip(band, 0, 255).astype(np.uint8)
        done["fold"] = True
    if rng.random() < fx.specks:
        boxes = [r for p in b.pages for _c, r in p.contest_areas]
        for _ in range(int(rng.integers(1, 6))):
            i = int(rng.integers(2))
            x, y = rng.uniform(0.3, b.pages[i].width_in - 0.3), rng.uniform(0.3, b.pages[i].height_in - 0.3)
            if any(
                r.x - 0.1 < x < r.right + 0.1 and r.y - 0.1 < y < r.bottom + 0.1 for _c, r in b.pages[i].contest_areas
            ):
                continue
            cv2.circle(pages[i], (int(x * dpi), int(y * dpi)), max(1, int(rng.uniform(0.004, 0.012) * dpi)), 40, -1)
            done["specks"] += 1
        del boxes
    return done


def simulate_vendor_sheet(
    election: Election,
    family: str,
    index: int,
    seed: int,
    *,
    population: str = "realistic",
    scan_profile: str = "default",
    effects: PaperEffects = PaperEffects(),
) -> tuple[tuple[np.ndarray, np.ndarray], dict]:
    """Sheet ``index`` (0-based) of a vendor-family run: its two images in scan order and its truth record."""
    pop, prof = POPULATIONS[population], SCAN_PROFILES[scan_profile]
    r_voter, r_ink, r_scan = _rngs(seed, index)
    intent = draw_voter(election, r_voter, pop)
    b = ballot(election, intent.style_id, family)
    design = b.design  # the style's own (`Design.by_style`: a longer paper for some styles)
    dpi = design.dpi
    layout = b.ballot_layout()
    plan = plan_sheet(layout, intent, pop, r_voter)
    pages = blank_pages(election, intent.style_id, family)
    blanks = [p.copy() for p in pages]
    where = target_index(layout)
    drawn, hands, strays = {}, {}, []
    for m in plan.marks:
        _pg, target = where[(m.contest_id, m.option_id)]
        img = pages[m.page - 1]
        if m.write_in is not None:
            strokes, hand = handwriting_strokes(m.write_in.name, target.write_in_area, r_ink)
            draw_strokes(img, strokes, dpi=dpi, pen=plan.pen.with_(width_in=min(plan.pen.width_in, 0.016)), rng=r_ink)
            hands[(m.contest_id, m.option_id)] = hand
        drawn[(m.contest_id, m.option_id)] = draw_mark(img, m.kind, target, dpi=dpi, pen=plan.pen, rng=r_ink)
    for page_no in plan.strays:
        strokes = stray_strokes(layout.pages[page_no - 1], r_ink)
        strays.append(
            (page_no, draw_strokes(pages[page_no - 1], strokes, dpi=dpi, pen=plan.pen, rng=r_ink) if strokes else None)
        )
    extras = _paper(pages, blanks, b, effects, plan.pen, r_ink, dpi)
    scan = draw_scan(r_scan, prof, bitonal=design.bitonal, dpi=dpi, page_size_in=design.paper_in)
    images = [scan_page(pages[pg - 1], params, dpi=dpi) for pg, params in zip(scan.pages, scan.params)]
    turns = 0
    if r_scan.random() < effects.quarter_turn:  # fed sideways: both images a quarter turn
        turns = 1 if r_scan.random() < 0.5 else 3
        images = [np.ascontiguousarray(np.rot90(im, turns)) for im in images]
    truth = sheet_truth(
        election,
        layout,
        plan,
        drawn,
        hands,
        strays,
        scan,
        index=index,
        dpi=dpi,
        population=pop.name,
        scan_profile=prof.name,
    )
    truth["vendor"] = {"family": family, "style_number": b.style_number, "quarter_turns": turns, **extras}
    return (images[0], images[1]), truth
