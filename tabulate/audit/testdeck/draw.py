"""The deck on paper: marked ballots as a printable PDF and as scan-like images, with its manifest.

Each deck ballot is inked with the simulator's own marks (`tabulate.ballots`)
on the style's blank ballot: a full fill at every target the design marks and
the name written on each marked write-in line. The printable PDF holds the
inked pages as they would leave the printer; the images are those pages
through the simulated scanner (seeded, so the same deck gives the same bytes).

A *misprint* (two targets swapped, or one target moved) prints and marks the
ballots on a layout that differs from the election's, as a vendor's error
would: the accuracy test must then fail. It is there to prove the test does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable

import numpy as np

from ...ballots import SCAN_PROFILES, draw_scan, encode_page, forced_plan, scan_page, sheet_file_name
from ...ballots.simulate import ink_sheet
from ...core import TabulateError
from ...election.geometry import Rect
from ...election.layout import BallotLayout, layout_style
from ...election.model import Election
from ...election.render import write_pdf
from .design import StyleDeck, design_style_deck

#: The manifest's format name; `check_deck` refuses anything else.
DECK_FORMAT = "tabulate-test-deck/1"
DECK_DPI = 200
DECK_SEED = 2020  # 31 KAR 2:020


class DeckError(TabulateError, ValueError):
    """A deck that cannot be made or read (an unknown style, a damaged manifest)."""

    code = "test_deck"


@dataclass(frozen=True)
class Misprint:
    """A layout error to print the deck with: swap two options' targets, or move one target."""

    contest_id: str
    option_a: str
    option_b: str | None = None
    #: How far the moved target goes (inches, right and down).
    move_in: tuple[float, float] = (0.0, 0.0)

    def describe(self) -> str:
        if self.option_b is not None:
            return f"targets of {self.contest_id}/{self.option_a} and {self.option_b} swapped"
        dx, dy = self.move_in
        return f"target of {self.contest_id}/{self.option_a} moved by {dx:+.2f} in, {dy:+.2f} in"


def misprinted_layout(layout: BallotLayout, misprint: Misprint) -> BallotLayout:
    """``layout`` with the misprint applied (targets, marks and printed ovals all follow it)."""
    pages = []
    bounds = {(t.contest_id, t.option_id): t.bounds for _p, t in layout.targets()}
    a = (misprint.contest_id, misprint.option_a)
    if a not in bounds or (misprint.option_b is not None and (misprint.contest_id, misprint.option_b) not in bounds):
        raise DeckError(f"style {layout.style_id} has no such target to misprint ({misprint.describe()})")
    for page in layout.pages:
        targets = []
        for t in page.targets:
            key = (t.contest_id, t.option_id)
            if misprint.option_b is not None and key == a:
                t = replace(t, bounds=bounds[(misprint.contest_id, misprint.option_b)])
            elif misprint.option_b is not None and key == (misprint.contest_id, misprint.option_b):
                t = replace(t, bounds=bounds[a])
            elif misprint.option_b is None and key == a:
                b = t.bounds
                t = replace(t, bounds=Rect(b.x + misprint.move_in[0], b.y + misprint.move_in[1], b.w, b.h))
            targets.append(t)
        pages.append(replace(page, targets=tuple(targets)))
    return replace(layout, pages=tuple(pages))


def _ballot_pages(
    election: Election, layout: BallotLayout, deck: StyleDeck, number: int, rng: np.random.Generator
) -> list[np.ndarray]:
    ballot = deck.ballots[number - 1]
    plan = forced_plan(
        layout,
        deck.precinct_id,
        dict.fromkeys(ballot.marks, "full_fill"),
        write_ins={(c, o): name for c, o, name in ballot.write_ins},
    )
    pages, _drawn, _hands, _strays = ink_sheet(election, layout, plan, rng, dpi=DECK_DPI)
    return pages


def _write_style(
    election: Election, deck: StyleDeck, folder: Path, misprint: Misprint | None, style_index: int, printable: bool
) -> list[dict]:
    layout = layout_style(election, deck.style_id)
    if misprint is not None and misprint.contest_id in election.style(deck.style_id).contests:
        layout = misprinted_layout(layout, misprint)
    scans = folder / "scans"
    scans.mkdir(parents=True, exist_ok=True)
    pages_to_print: list[np.ndarray] = []
    entries = []
    size = (layout.pages[0].width_in, layout.pages[0].height_in)
    for b in deck.ballots:
        ink, scan = np.random.SeedSequence(DECK_SEED, spawn_key=(style_index, b.number)).spawn(2)
        pages = _ballot_pages(election, layout, deck, b.number, np.random.default_rng(ink))
        pages_to_print += pages
        sheet = draw_scan(np.random.default_rng(scan), SCAN_PROFILES["default"], dpi=DECK_DPI, page_size_in=size)
        files = []
        for side, (pg, params) in zip(("front", "back"), zip(sheet.pages, sheet.params)):
            data, ext = encode_page(
                scan_page(pages[pg - 1], params, dpi=DECK_DPI), fmt="jpeg", bitonal=False, dpi=DECK_DPI
            )
            name = sheet_file_name(b.number - 1, side, ext)
            (scans / name).write_bytes(data)
            files.append(f"scans/{name}")
        entries.append(
            {
                "number": b.number,
                "purpose": b.purpose,
                "marks": [list(m) for m in b.marks],
                "write_ins": [list(w) for w in b.write_ins],
                "files": files,
            }
        )
    if printable:
        write_pdf(pages_to_print, folder / "deck.pdf", DECK_DPI)
    return entries


def make_deck(
    election: Election,
    out: str | Path,
    *,
    styles: Iterable[str] | None = None,
    misprint: Misprint | None = None,
    printable: bool = True,
) -> dict:
    """Write the deck of every ballot style (or of ``styles``) under ``out``; return the manifest.

    ``out/style-<id>/deck.pdf`` is the printable deck, ``out/style-<id>/scans/``
    its scanned images, ``out/deck.json`` the manifest with the tally sheets.
    ``printable=False`` leaves out the PDF (the slowest part: lossless pages).
    """
    known = [s.id for s in election.ballot_styles]
    chosen = list(styles) if styles else known
    for s in chosen:
        if s not in known:
            raise DeckError(f"no ballot style {s!r} in the election (styles: {', '.join(known)})")
    root = Path(out)
    manifest: dict = {
        "format": DECK_FORMAT,
        "election": {
            "title": election.title,
            "date": election.date,
            "jurisdiction": election.jurisdiction,
            "hash": election.hash,
        },
        "dpi": DECK_DPI,
        "seed": DECK_SEED,
        "styles": {},
    }
    if misprint is not None:
        manifest["misprint"] = misprint.describe()
    for s in chosen:
        deck = design_style_deck(election, s)
        ballots = _write_style(election, deck, root / f"style-{s}", misprint, known.index(s), printable)
        manifest["styles"][s] = {
            "precinct": deck.precinct_id,
            "folder": f"style-{s}",
            "ballots": ballots,
            "tally_sheet": deck.tally.to_dict(),
        }
    (root / "deck.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest


def load_manifest(deck: str | Path, election: Election) -> dict:
    """The deck's manifest, checked to be a deck of ``election``."""
    path = Path(deck) / "deck.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DeckError(f"{path} not found: make the deck with `tabulate test-deck make`") from None
    except (OSError, ValueError) as e:
        raise DeckError(f"{path}: not a readable deck manifest ({e})") from None
    if manifest.get("format") != DECK_FORMAT:
        raise DeckError(f"{path}: not a {DECK_FORMAT} manifest")
    if manifest["election"]["hash"] != election.hash:
        raise DeckError(
            f"{path}: the deck was made for another election definition "
            f"({manifest['election']['hash'][:12]}, not {election.hash_prefix})"
        )
    return manifest
