"""The sixth round of real paper (issue #11, docs/templates.md "The sixth round"): one page each that the
reader got wrong, or could not take, before."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tabulate.ballots.vendor import simulate_vendor_sheet
from tabulate.ballots.vendor.design import design_variant
from tabulate.ballots.vendor.write import write_blanks
from tabulate.election import load_election
from tabulate.templates import TemplateReader, import_templates
from tabulate.templates.securitytint import strip_security_tint
from tabulate.templates.tintstreaks import tint_bands, tint_streaks

ROOT = Path(__file__).parents[1]
GENERAL = ROOT / "samples" / "general" / "election.json"
ZEBRA = design_variant("timing", "zebra-test", row_shade=200)
BESIDE = "6:030 s3(1)(e) mark beside the name"


@pytest.fixture(scope="module")
def zebra(tmp_path_factory):
    """The timing family with every other option row shaded at grey 200, style 1's front imported alone, and
    clean sheet 23's front as the bitonal scanner gave it (dust streaks on the glass): (election, reader,
    image, set folder, the options voted on the sheet)."""
    election = load_election(GENERAL)
    tmp = tmp_path_factory.mktemp("zebra")
    blanks = write_blanks(election, ZEBRA, tmp / "blanks")
    import_templates(election, [b for b in blanks if b.name == "blank-1-p1.png"], tmp / "set", score=False)
    images, truth = simulate_vendor_sheet(election, ZEBRA, 23, 2026, population="realistic")
    assert not truth["needs_review"] and truth["images"][0]["page"] == 1 and truth["style"] == "1"
    voted = {t["option"] for t in truth["targets"]}
    return election, TemplateReader(str(tmp / "set")), images[0], tmp / "set", voted


def test_a_streak_only_the_shaded_rows_show_is_not_a_mark_beside_a_name(zebra):
    """31 KAR 6:030 Section 3(1)(e): "an 'X', a check mark ... or any other mark indicating the intent of the
    voter next to the candidate's name" is a vote by hand. A dust streak on the glass stays white on a
    bitonal scan's paper but pushes a grey-200 band under the threshold: a black line exactly as tall as
    each shaded row, through the names. The hand reading took four of them for marks beside the name on
    this clean ballot (`templates_variants.py`, "timing, every other row shaded": 4 of 20 clean sent)."""
    election, reader, image, _set, voted = zebra
    assert set(np.unique(image)) <= {0, 255}  # bitonal, as the family is scanned
    page = reader.read_image(election, image, source="s23")
    assert page.ok and len(voted) >= 2
    assert [t.option_id for t in page.targets if t.option_id not in voted and t.hand != "unmarked"] == []
    assert all(t.scan == t.hand == "marked" for t in page.targets if t.option_id in voted)


def test_an_x_over_a_shaded_name_is_still_a_mark_beside_it(zebra):
    """The streak's columns are skipped, not the band: a voter's X drawn over a shaded candidate's name (and a
    line of pen along the band that stops inside it) is read as it was."""
    election, reader, image, set_dir, voted = zebra
    doc = json.loads((set_dir / "templates.json").read_text())
    page = doc["pages"][0]
    assert page["tint_bands"], "the import records the blank's shaded bands"
    bands = np.array(page["tint_bands"])
    dem = next(t for t in page["layout"]["targets"] if t["option_id"] == "DEM")
    m = dem["marking_area"]
    assert any(b[1] <= m["y"] + m["h"] / 2 <= b[3] for b in bands), "DEM's row is a shaded one"
    marked = image.copy()
    # The page is fed straight here (no quarter turn): its inches map onto the image near 1:1 at 200 DPI.
    x0, y0 = int((m["x"] + 0.3) * 200) + 40, int((m["y"] + 0.04) * 200) + 40
    cv2.line(marked, (x0, y0), (x0 + 40, y0 + 30), 0, 3)
    cv2.line(marked, (x0, y0 + 30), (x0 + 40, y0), 0, 3)
    got = {t.option_id: t for t in reader.read_image(election, marked, source="x").targets}
    assert got["DEM"].hand == "marked" and BESIDE in got["DEM"].hand_clauses
    assert [o for o, t in got.items() if t.hand != "unmarked" and o != "DEM" and o not in voted] == []


def test_tint_streaks_need_two_bands_and_white_paper_between():
    """A thin column black over the height of two bands and white between them is a streak; a voter's line
    running on past a band, one band alone, two filled ovals one above the other, or a band printed darker
    than the threshold, is not."""
    dpi = 100.0
    img = np.full((400, 300), 255, np.uint8)
    bands = np.array([[0.5, 0.5, 2.5, 0.8], [0.5, 1.5, 2.5, 1.8], [0.5, 2.5, 2.5, 2.8]])
    affine = np.array([[dpi, 0.0, 0.0], [0.0, dpi, 0.0]])
    for y0, y1 in ((50, 80), (150, 180), (250, 280)):
        img[y0:y1, 100] = 0  # a streak in every band
        img[y0:y1, 150] = 0 if y0 == 150 else 255  # a stroke in one band only
    img[40:190, 200] = 0  # a voter's line through two bands and the paper between them
    for y0 in (55, 255):  # two filled ovals, one above the other, each from the top of its band down
        img[y0 - 5 : y0 + 18, 220:262] = 0
    streak = tint_streaks(img, affine, lambda: bands, dpi)
    assert streak is not None and np.nonzero(streak)[0].tolist() == [99, 100, 101]
    dark = img.copy()
    dark[50:80, 60:240] = 0  # the first band printed under the threshold: no column of it is a streak
    dark[150:180, 60:240] = 0
    assert tint_streaks(dark, affine, lambda: bands, dpi) is None
    assert tint_streaks(img.astype(np.uint8) // 2 + 64, affine, lambda: bands, dpi) is None  # grey scans: left alone
    blank = np.full((400, 300), 255, np.uint8)
    blank[50:80, 40:260] = 200
    blank[60:70, 80:120] = 0  # a name printed over the band
    found = tint_bands(blank, dpi)
    assert found.shape == (1, 4) and np.allclose(found[0], [0.4, 0.5, 2.6, 0.8])


def test_a_blank_on_security_tinted_stock_imports_and_a_plain_blank_is_untouched(tmp_path):
    """Thin wavy lines at grey 150 behind every contest (a security tint): darker than the Otsu split, they were
    taken for print, joined every oval's outline, and the import found no target ("fits style 1 page 2 and
    style 2 page 2 ... equally"). The tint is painted paper; a blank without one is the same object."""
    election = load_election(GENERAL)
    tinted = design_variant("timing", "tint-test", security_tint=150)
    blanks = write_blanks(election, tinted, tmp_path / "blanks")
    front = [b for b in blanks if b.name == "blank-1-p1.png"]
    import_templates(election, front, tmp_path / "set", score=False)
    doc = json.loads((tmp_path / "set" / "templates.json").read_text())
    assert len(doc["pages"][0]["layout"]["targets"]) == 25
    grey = cv2.imread(str(front[0]), cv2.IMREAD_GRAYSCALE)
    clean, share = strip_security_tint(grey)
    assert 0.02 < share < 0.1 and not ((clean > 140) & (clean < 160)).sum() > 0.001 * clean.size
    plain = cv2.imread(str(ROOT / "samples" / "vendor" / "boxes" / "blanks" / "blank-1-p1.png"), cv2.IMREAD_GRAYSCALE)
    assert strip_security_tint(plain)[0] is plain
