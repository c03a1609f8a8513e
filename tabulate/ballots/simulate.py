"""Simulate voted, scanned sheets with their truth: voter -> marks -> scanner.

Every random choice comes from ``numpy.random.default_rng`` seeded by a
`numpy.random.SeedSequence` of ``(seed, sheet index)``, with separate streams
for the voter, the ink and the scanner. So sheet k is the same whatever the
number of sheets, and changing the scanner profile leaves every voter's marks
as they were.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..election.layout import BallotLayout, PageLayout, layout_style
from ..election.model import Election
from ..election.render import render_page
from .handwriting import handwriting_strokes
from .marks import DrawnMark, draw_mark, draw_strokes
from .plan import SheetPlan, plan_sheet, stray_strokes, target_index
from .scanner import SCAN_PROFILES, ScanProfile, SheetScan, draw_scan, scan_page
from .seen import interior_black
from .truth import sheet_truth
from .voters import POPULATIONS, Population, VoterIntent, draw_voter


@dataclass(frozen=True)
class SimulatedSheet:
    """One simulated sheet: its page images in scan order (front image first) and its truth record."""

    index: int
    pages: tuple[np.ndarray, np.ndarray]
    truth: dict

    @property
    def bitonal(self) -> bool:
        return bool(self.truth["images"][0]["bitonal"])


#: Rendered blank pages and style layouts, keyed by the identity of the election and page objects (each
#: entry holds them, so an id is never reused while its entry lives). An `lru_cache` keyed by the objects
#: themselves hashed the whole election and page layout, deeply, on every call: 3 ms of CPU a sheet.
_BY_IDENTITY: dict[tuple, tuple] = {}


def _memo(key: tuple, keep: tuple, make):
    hit = _BY_IDENTITY.get(key)
    if hit is None:
        if len(_BY_IDENTITY) >= 64:
            _BY_IDENTITY.clear()
        hit = _BY_IDENTITY[key] = (keep, make())
    return hit[1]


def _blank_page(election: Election, page: PageLayout, precinct_id: str, dpi: int) -> np.ndarray:
    def render() -> np.ndarray:
        img = render_page(election, page, precinct_id, dpi=dpi)
        img.setflags(write=False)
        return img

    return _memo(("blank", id(election), id(page), precinct_id, dpi), (election, page), render)


def _layout(election: Election, style_id: str) -> BallotLayout:
    return _memo(("layout", id(election), style_id), (election,), lambda: layout_style(election, style_id))


def _targets(layout: BallotLayout) -> dict:
    return _memo(("targets", id(layout)), (layout,), lambda: target_index(layout))


def blank_sheet(election: Election, layout: BallotLayout, precinct_id: str, *, dpi: int = 200) -> list[np.ndarray]:
    """Writable copies of a style's two blank pages (rendered once per process and cached)."""
    return [_blank_page(election, p, precinct_id, dpi).copy() for p in layout.pages]


def sheet_rngs(seed: int, index: int) -> tuple[np.random.Generator, np.random.Generator, np.random.Generator]:
    """The voter, ink and scanner generators of sheet ``index`` (0-based) of a run seeded ``seed``."""
    voter, ink, scan = np.random.SeedSequence(seed, spawn_key=(index,)).spawn(3)
    return np.random.default_rng(voter), np.random.default_rng(ink), np.random.default_rng(scan)


def ink_sheet(
    election: Election, layout: BallotLayout, plan: SheetPlan, rng: np.random.Generator, *, dpi: int = 200
) -> tuple[list[np.ndarray], dict, dict, list]:
    """Draw a plan on the blank pages: returns pages, drawn marks and handwriting hands by target, strays."""
    pages = blank_sheet(election, layout, plan.intent.precinct_id, dpi=dpi)
    where = _targets(layout)
    drawn: dict[tuple[str, str], DrawnMark] = {}
    hands: dict[tuple[str, str], str] = {}
    for m in plan.marks:
        _page, target = where[(m.contest_id, m.option_id)]
        img = pages[m.page - 1]
        if m.write_in is not None:
            strokes, hand = handwriting_strokes(m.write_in.name, target.write_in_area, rng)
            draw_strokes(img, strokes, dpi=dpi, pen=plan.pen.with_(width_in=min(plan.pen.width_in, 0.016)), rng=rng)
            hands[(m.contest_id, m.option_id)] = hand
        drawn[(m.contest_id, m.option_id)] = draw_mark(img, m.kind, target, dpi=dpi, pen=plan.pen, rng=rng)
    strays = []
    for page_no in plan.strays:
        strokes = stray_strokes(layout.pages[page_no - 1], rng)
        strays.append(
            (page_no, draw_strokes(pages[page_no - 1], strokes, dpi=dpi, pen=plan.pen, rng=rng) if strokes else None)
        )
    return pages, drawn, hands, strays


def _population(p: str | Population) -> Population:
    if isinstance(p, Population):
        return p
    if p not in POPULATIONS:
        raise ValueError(f"no voter population {p!r} (choose from {', '.join(POPULATIONS)})")
    return POPULATIONS[p]


def _profile(p: str | ScanProfile) -> ScanProfile:
    if isinstance(p, ScanProfile):
        return p
    if p not in SCAN_PROFILES:
        raise ValueError(f"no scan profile {p!r} (choose from {', '.join(SCAN_PROFILES)})")
    return SCAN_PROFILES[p]


def simulate_sheet(
    election: Election,
    index: int,
    seed: int,
    *,
    dpi: int = 200,
    population: str | Population = "varied",
    scan_profile: str | ScanProfile = "default",
    bitonal_fraction: float = 0.0,
    intent: VoterIntent | None = None,
    plan: SheetPlan | None = None,
    scan: SheetScan | None = None,
) -> SimulatedSheet:
    """Simulate sheet ``index`` (0-based) of the run seeded ``seed``.

    ``intent``, ``plan`` and ``scan`` replace the drawn voter, marks or
    scanner settings (to force a mark kind at a known target, or a scan
    effect); everything not replaced is drawn as usual.
    """
    pop, prof = _population(population), _profile(scan_profile)
    r_voter, r_ink, r_scan = sheet_rngs(seed, index)
    if plan is None:
        intent = intent or draw_voter(election, r_voter, pop)
        plan = plan_sheet(_layout(election, intent.style_id), intent, pop, r_voter)
    layout = _layout(election, plan.intent.style_id)
    bitonal = bool(r_scan.random() < bitonal_fraction)
    size = (layout.pages[0].width_in, layout.pages[0].height_in)
    scan = scan or draw_scan(r_scan, prof, bitonal=bitonal, dpi=dpi, page_size_in=size)
    pages, drawn, hands, strays = ink_sheet(election, layout, plan, r_ink, dpi=dpi)
    images = tuple(scan_page(pages[pg - 1], params, dpi=dpi) for pg, params in zip(scan.pages, scan.params))
    shares = _black_shares(layout, plan, scan, images, dpi) if scan.params[0].bitonal else None
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
        black_shares=shares,
    )
    return SimulatedSheet(index, images, truth)


def _black_shares(
    layout: BallotLayout, plan: SheetPlan, scan: SheetScan, images: tuple[np.ndarray, ...], dpi: int
) -> dict[tuple[str, str], float]:
    """For each light pencil fill on a bitonal sheet: the share of its interior the threshold turned black."""
    where = _targets(layout)
    out = {}
    for m in plan.marks:
        if m.kind != "light_pencil":
            continue
        page_no, target = where[(m.contest_id, m.option_id)]
        if target.shape == "arrow":  # a gap reads by its own table (`arrows.ARROW_MARK_KINDS`)
            continue
        i = scan.pages.index(page_no)
        p = scan.params[i]
        size = (layout.pages[0].width_in, layout.pages[0].height_in)
        seen = interior_black(images[i], p.page_to_image(*size, dpi), target, p.streaks)
        out[(m.contest_id, m.option_id)] = seen.share
    return out


def simulate_sheets(election: Election, n: int, seed: int, *, start: int = 0, **options) -> Iterator[SimulatedSheet]:
    """Sheets ``start`` .. ``start + n - 1`` of the run seeded ``seed`` (see `simulate_sheet` for options)."""
    for k in range(start, start + n):
        yield simulate_sheet(election, k, seed, **options)
