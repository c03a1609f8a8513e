"""A template page's fit from too few of its anchors is never counted silently (issue #11).

31 KAR 6:030 Section 2(1)(a): a vote is "Filling in the oval or box or connecting the arrow next to
the candidate's name or the question choice". The reader must know where each target lies; a fit kept
from a third of the template's printed anchors can pass the residual check and still put the page
2.5 % too narrow, so a light pencil mark is scored as a fill. Such a fit is made again over the whole
search windows, and when that too keeps too few anchors the page goes to a person (``fit_few_anchors``).
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from tabulate.ballots.vendor import simulate_vendor_sheet
from tabulate.ballots.vendor.write import write_blanks
from tabulate.core.vocabulary import reason_words
from tabulate.detect.errors import ReadError
from tabulate.election import load_election
from tabulate.templates import TemplateReader, import_templates
from tabulate.templates.align import ANCHOR_IN, FINE_DPI, shrink
from tabulate.templates.pages import prepared
from tabulate.templates.placement import MIN_ANCHOR_SHARE, anchors_needed, enough_anchors, place_page

GENERAL = Path(__file__).parents[1] / "samples" / "general" / "election.json"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The timing family's style-2 set and one clean scanned front page of that style, with its fit."""
    election = load_election(GENERAL)
    tmp = tmp_path_factory.mktemp("fitguard")
    import_templates(election, write_blanks(election, "timing", tmp / "blanks", styles=("2",)), tmp / "set")
    reader = TemplateReader(str(tmp / "set"))
    for k in range(40):
        images, truth = simulate_vendor_sheet(election, "timing", k, 5)
        if truth["style"] == "2":
            image = images[0]
            tp, reg = reader.identify_and_register(image)
            return election, reader, image, tp, reg
    raise AssertionError("no sheet of style 2")


def _scale(affine: np.ndarray, dpi: float) -> tuple[float, float]:
    return math.hypot(affine[0, 0], affine[1, 0]) / dpi, math.hypot(affine[0, 1], affine[1, 1]) / dpi


def test_the_line_is_three_quarters_of_the_anchors():
    assert MIN_ANCHOR_SHARE == 0.75
    assert [anchors_needed(n) for n in (18, 12, 8, 4)] == [14, 9, 6, 3]


def test_a_clean_page_is_untouched(page):
    election, reader, image, tp, reg = page
    prep = prepared(reader.tset, tp)
    fine = shrink(image, reg.dpi, FINE_DPI)
    total = len(prep.anchor_stack.xy)
    kept = enough_anchors(image, fine, reg.affine, reg.residual_in, total, reg.dpi, 0, prep, reg.paper)
    plain = place_page(image, reg.affine, reg.dpi, reg.residual_in, 0, prep, total, reg.paper)
    assert np.array_equal(kept.affine, plain.affine) and kept.scale == plain.scale
    reading = reader.read_image(election, image)
    assert reading.ok and reading.reason_code is None


def test_a_fit_from_few_anchors_at_a_wrong_scale_is_made_again_from_every_anchor(page):
    """Sheet 862's back page (arrows, seed 2026): 6 of 18 anchors, the page 2.5 % too narrow."""
    _election, reader, image, tp, reg = page
    prep = prepared(reader.tset, tp)
    dpi = reg.dpi
    fine = shrink(image, dpi, FINE_DPI)
    narrow = reg.affine.copy()
    centre = np.array([tp.layout.width_in / 2, tp.layout.height_in / 2])
    narrow[:, 0] *= 0.975  # x squeezed about the page's centre
    narrow[:, 2] += reg.affine[:, 0] * centre[0] * 0.025
    assert _scale(narrow, dpi)[0] < 0.98 * _scale(reg.affine, dpi)[0]
    fixed = enough_anchors(image, fine, narrow, 0.0023, 6, dpi, 0, prep, reg.paper)
    assert abs(fixed.scale[0] - reg.scale[0]) < 0.003 and abs(fixed.scale[1] - reg.scale[1]) < 0.003
    corners = np.array([[0, 0], [tp.layout.width_in, tp.layout.height_in]])
    moved = corners @ fixed.affine[:, :2].T + fixed.affine[:, 2] - (corners @ reg.affine[:, :2].T + reg.affine[:, 2])
    assert float(np.abs(moved).max()) < 0.01 * dpi


def _cover_anchors(image: np.ndarray, affine: np.ndarray, dpi: float, xy: np.ndarray, paper: float) -> np.ndarray:
    """``image`` with a square of paper painted over each anchor at page inches ``xy``."""
    out = image.copy()
    r = ANCHOR_IN * dpi / 2  # the patch the anchor is matched by
    for x, y in xy @ affine[:, :2].T + affine[:, 2]:
        cv2.rectangle(out, (int(x - r), int(y - r)), (int(x + r), int(y + r)), int(paper), -1)
    return out


def test_a_page_with_most_anchors_covered_goes_to_a_person(page):
    """All but 7 of the 18 printed anchors painted over: the old reader fitted the page from those 7 (at
    least `MIN_ANCHORS`, a small residual) and read it; now the fit keeps fewer than three quarters of
    them, a whole-window search finds no more, and the page is refused, never read silently."""
    election, reader, image, tp, reg = page
    xy = prepared(reader.tset, tp).anchor_stack.xy
    covered = _cover_anchors(image, reg.affine, reg.dpi, xy[: len(xy) - 7], reg.paper)
    reading = reader.read_image(election, covered)
    assert not reading.ok
    assert reading.reason_code == "fit_few_anchors", reading.reason
    assert f"of its {len(xy)} printed anchors" in reading.reason
    assert reason_words("fit_few_anchors") == "Page placed from too few printed anchors"
    with pytest.raises(ReadError) as e:
        reader.identify_and_register(covered)
    assert e.value.code == "fit_few_anchors"
