"""Dotted dust streaks on a bitonal page (issue #11, docs/templates.md "Dotted dust streaks"): a faint streak the
threshold breaks into specks is the scanner's, not a voter's; a light pencil's remains are still sent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tabulate.ballots.vendor import simulate_vendor_sheet
from tabulate.ballots.vendor.sheets import ballot
from tabulate.ballots.vendor.write import write_blanks
from tabulate.election import load_election
from tabulate.templates import TemplateReader, import_templates
from tabulate.templates.dotted import dotted_streaks

ROOT = Path(__file__).parents[1]
GENERAL = ROOT / "samples" / "general" / "election.json"


@pytest.fixture(scope="module")
def sheet23(tmp_path_factory):
    """The timing family's style 1 imported alone, and clean sheet 23 from the "rough" scanner (seed 2026):
    both pages bitonal, fed upside down, dust streaks on the glass the margins do not show as dark (the
    1,000-sheet triage sent it for county-commissioner's blank ovals): (election, reader, images, truth)."""
    election = load_election(GENERAL)
    tmp = tmp_path_factory.mktemp("dotted")
    blanks = write_blanks(election, "timing", tmp / "blanks")
    import_templates(election, [b for b in blanks if b.name.startswith("blank-1-")], tmp / "set", score=False)
    images, truth = simulate_vendor_sheet(election, "timing", 23, 2026, population="realistic", scan_profile="rough")
    assert truth["style"] == "1" and not truth["needs_review"] and truth["vendor"]["quarter_turns"] == 0
    return election, TemplateReader(str(tmp / "set")), images, truth


def _sent(page) -> list[str]:
    return [t.option_id for t in page.targets if t.scan == "marginal" or t.scan != t.hand]


def test_a_dotted_streak_through_blank_ovals_does_not_send_a_clean_ballot(sheet23):
    """31 KAR 6:030 Section 3(3)(a): "the voter may erase the mark"; a bitonal page's blank ovals score 0, so
    any ink left inside one goes to a person. Here the ink was a dust streak's specks, one column from the
    top of the page to the bottom: the old reader sent county-commissioner's blank ovals (0.017, 0.019)."""
    election, reader, images, truth = sheet23
    pages = [reader.read_image(election, img, source=f"s23-{i}") for i, img in enumerate(images)]
    assert all(p.ok for p in pages)
    assert all(set(np.unique(img)) <= {0, 255} for img in images)
    assert [o for p in pages for o in _sent(p)] == []
    voted = {t["option"] for t in truth["targets"]}
    assert {t.option_id for p in pages for t in p.targets if t.scan == "marked"} == voted


def test_a_light_pencil_residue_in_the_streaks_oval_is_still_sent(sheet23):
    """What an eraser or a light pencil leaves (Section 3(3)(a): a person decides) is still sent when it lies in
    an oval the streak crosses: only the streak's few columns are skipped, the residue's other specks count."""
    election, reader, images, truth = sheet23
    layout = ballot(election, truth["style"], "timing")
    where = {t.option_id: (p.page, t) for p in layout.pages for t in p.targets}
    page_no, target = where["cc-holt"]
    i = next(i for i, it in enumerate(truth["images"]) if it["page"] == page_no)
    m = np.array(truth["images"][i]["transform"]["page_to_image"], dtype=float)
    (cx, cy), a, b = target.bounds.center, target.bounds.w / 2 - 0.035, target.bounds.h / 2 - 0.035
    img = images[i].copy()
    rng = np.random.default_rng(11)
    for _ in range(7):  # seven 2 x 2 px specks of graphite spread over the interior
        r, th = np.sqrt(rng.uniform(0.05, 0.8)), rng.uniform(0, 2 * np.pi)
        x, y = np.array([cx + a * r * np.cos(th), cy + b * r * np.sin(th), 1.0]) @ m.T
        img[int(y) : int(y) + 2, int(x) : int(x) + 2] = 0
    got = {t.option_id: t for t in reader.read_image(election, img, source="residue").targets}
    assert got["cc-holt"].scan == "marginal"
    assert 0.008 <= got["cc-holt"].score < 0.035  # the page's blank level sent it, not the marginal threshold


def _page(seed: int) -> np.ndarray:
    """A white bitonal page at 200 dpi with print (blocks, rules) and the scanner's noise: single black pixels."""
    rng = np.random.default_rng(seed)
    page = np.full((2200, 1700), 255, np.uint8)
    for y in range(100, 2100, 90):  # lines of "text": pieces far larger than a speck
        for x in range(200, 1500, 70):
            page[y : y + 18, x : x + 40] = 0
    page[rng.integers(0, 2200, 600), rng.integers(0, 1700, 600)] = 0  # noise anywhere
    return page


def test_dotted_streaks_are_specks_down_one_column_in_every_quarter():
    page = _page(1)
    rows = np.arange(0, 2200, 9)
    page[rows, 620] = 0  # a faint streak: a speck every 9 rows, one column, top to bottom
    page[np.arange(1200, 2200, 9), 1000] = 0  # specks down the lower half only: not dust on the glass
    found = dotted_streaks(page, 200.0)
    assert found is not None and set(np.flatnonzero(found)) <= set(range(617, 624)) and found[620]
    assert dotted_streaks(_page(1), 200.0) is None  # print and noise alone


def test_a_column_of_grainy_pencil_fills_is_not_a_streak():
    """On a timing-mark grid the ovals stand in columns; a grainy pencil's fills down one column leave specks in
    every quarter of the page, but inside the targets: the test counts the paper's specks, between them. (A
    guard: the 1,000 sheets of the triage did not need it.)"""
    page = _page(2)
    rng = np.random.default_rng(3)
    boxes = []
    for y in range(150, 2200, 300):  # an oval every 1.5 in down column 800, each with a pencil's grain
        boxes.append((770.0, y - 15.0, 830.0, y + 35.0))
        page[y + 2 * np.arange(10), 800 + rng.integers(-1, 2, 10)] = 0  # separate grains, one column wide
    assert dotted_streaks(page, 200.0) is not None  # counted everywhere, the fills would look like a streak
    assert dotted_streaks(page, 200.0, np.array(boxes)) is None
