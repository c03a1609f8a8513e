"""The third round of what real vendors and scanners produce (issue #11, `benchmarks/templates_variants.py`).

Each test is one page the import or the reader got wrong before it was fixed:
a county's published sample ballot (a grey "SAMPLE BALLOT" watermark across
the page) as the blank; a vendor's image export holding more than the page
(an "AuditMark" strip below it, a longer scan area, both sides side by side);
long ballots (8.5 x 17 and 8.5 x 19 in); and a streak in the bright corner of
an unevenly lit page.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tabulate.ballots.vendor import simulate_vendor_sheet, vendor_layout
from tabulate.ballots.vendor.design import design_variant
from tabulate.ballots.vendor.write import write_blanks
from tabulate.detect.errors import ReadError
from tabulate.detect.register import image_dpi
from tabulate.detect.streaks import streak_columns
from tabulate.election import load_election, parse_election
from tabulate.templates import TemplateReader, import_templates
from tabulate.templates import read as template_read
from tabulate.templates.blanks import load_blanks, paper_and_dpi
from tabulate.templates.exports import page_dpi, paper_rows
from tabulate.templates.watermark import strip_watermark

ROOT = Path(__file__).parents[1]
GENERAL = ROOT / "samples" / "general" / "election.json"


def test_a_sample_ballots_watermark_is_left_out_and_every_target_imports(tmp_path):
    """The county's "SAMPLE BALLOT" PDF is often the only blank at hand. Its grey watermark (here at grey
    110) runs through contests and ovals; its strokes joined the ovals' outlines and the import stopped
    (`'president' (style 3 page 1) has 3 targets`). The voted scans never show it: it is painted paper."""
    election = load_election(GENERAL)
    key = design_variant("boxes", "sampled", sample_grey=110)
    front = write_blanks(election, key, tmp_path / "blanks", styles=("3",))[:1]
    tset = import_templates(election, front, tmp_path / "set", score=False)
    for page in vendor_layout(election, "3", key).pages[:1]:
        tp = tset.page_for("3", page.page)
        assert tp is not None and tp.watermark_in2 > 1.0
        got = {(t.contest_id, t.option_id): t.bounds for t in tp.layout.targets}
        assert sorted(got) == sorted((t.contest_id, t.option_id) for t in page.targets)
        for t in page.targets:
            assert abs(got[(t.contest_id, t.option_id)].x - t.bounds.x) < 0.02


def test_a_ballot_with_no_watermark_is_left_byte_for_byte(tmp_path):
    """Grey shading behind a heading (grey 225, a tint the scans show too) and a drop-out red oval's thin
    outline are the ballot's own print: nothing is taken out of a blank without a watermark."""
    election = load_election(GENERAL)
    red = design_variant("boxes", "red", target_rgb=(235, 100, 100), dropout_grey=238)
    for key in ("boxes", red):
        (blank,) = load_blanks(write_blanks(election, key, tmp_path / key.replace("/", "-"), styles=("1",))[:1])
        again, area = strip_watermark(blank.image, blank.dpi)
        assert area == 0.0 and again is blank.image and blank.watermark_in2 == 0.0


def test_an_auditmark_strip_or_a_longer_scan_area_keeps_the_scans_resolution():
    """A Dominion-style export appends the machine's interpretation as text below the page, and a scanner
    set to a longer page leaves paper (or its black background) below it: the image is longer than the
    paper. Taken from both sides, the resolution came out 8-19 % high and the fit failed
    (`registration_residual`); the page fills the image's width, so the width gives it."""
    letter, legal = (8.5, 11.0), (8.5, 14.0)
    for shape, paper, want in [
        ((3300 + 600, 2550), letter, (300.0, False)),  # 2 in AuditMark strip at 300 DPI
        ((2200 + 600, 1700), letter, (200.0, False)),  # 3 in more scan area at 200 DPI
        ((2550 + 600, 3300), letter, (300.0, True)),  # a page fed sideways, the strip below it
        ((2800 + 400, 1700), legal, (200.0, False)),
    ]:
        assert page_dpi(shape, *paper) == want, (shape, image_dpi(shape, *paper))
    # A page with a margin round it, and a page exactly: as our own reader takes them.
    for shape in [(3300, 2550), (3480, 2730), (2550, 3300)]:
        assert page_dpi(shape, *letter) == image_dpi(shape, *letter)


def test_front_and_back_side_by_side_in_one_image_is_refused_with_what_to_do():
    for shape, paper in [((3300, 5100), (8.5, 11.0)), ((2800, 3400), (8.5, 14.0)), ((3400, 3400), (8.5, 17.0))]:
        with pytest.raises(ReadError) as e:
            page_dpi(shape, *paper)
        assert e.value.code == "two_pages_in_image"
        assert "each side as an image of its own" in e.value.reason and "\n" not in e.value.reason


@pytest.mark.parametrize("length", [17.0, 19.0])
def test_a_long_ballot_blank_is_taken_at_its_own_length(length):
    """ES&S and Dominion print long elections on 8.5 x 17 and 8.5 x 19 in. A blank's paper was the
    nearer of letter and legal by shape: an 8.5 x 17 in page at 200 DPI was taken as legal at 221 DPI."""
    assert paper_and_dpi((round(length * 200), 1700)) == ((8.5, length), 200.0)
    assert paper_and_dpi((2200, 1700)) == ((8.5, 11.0), 200.0)


def test_a_long_ballots_back_that_slid_onto_a_sibling_style_finds_its_own_template(tmp_path, monkeypatch):
    """The back of an 8.5 x 19 in arrows ballot (style 1, fed sideways) is a third empty; put on the set's
    common frame it sat 3 in low, where the other styles' backs print the same contests, and its own
    template ranked last of six: every fit tried slid off the image and the page was refused. A slid fit
    now ranks the templates by each one's own coarse fit. (The backs alone here, so two tries stand for
    the three of a whole set.)"""
    monkeypatch.setattr(template_read, "FIT_TRIES", 2)
    doc = json.loads(GENERAL.read_text(encoding="utf-8"))
    doc.update(paper_size="legal", target_shape="arrow")
    election = parse_election(doc)
    key = design_variant("arrows", "long19", paper_in=(8.5, 19.0), bottom_in=18.2)
    backs = [p for p in write_blanks(election, key, tmp_path / "blanks", pdf=False) if p.stem.endswith("p2")]
    import_templates(election, backs, tmp_path / "set", score=False)
    reader = TemplateReader(str(tmp_path / "set"))
    images, truth = simulate_vendor_sheet(election, key, 1, 2026)
    assert truth["style"] == "1" and truth["vendor"]["quarter_turns"] == 3
    page = reader.read_image(election, images[1])
    assert page.ok, page.reason
    assert (page.style_id, page.page) == ("1", truth["images"][1]["page"])


def test_a_streak_in_the_bright_corner_of_an_unevenly_lit_page_is_found():
    """Uneven light (60 % at the far corner): a dust streak in the bright corner is lighter than the
    page's paper level allows, was not found, and read as "a mark beside the name" on every row of the
    column it crossed (1 clean arrows ballot in 4 sent to a person). In the dark corner every column is
    darker than the page's paper; none is a streak."""
    rows, cols = 600, 400
    light = 1.0 - 0.4 * (np.add.outer(np.arange(rows) / rows, np.arange(cols) / cols) / 2)
    page = np.full((rows, cols), 240.0) * light
    page[300:310, 50:350] = 20  # print
    page[:, 60] -= 35  # the streak, in the bright left half
    got = streak_columns(np.clip(page, 0, 255).astype(np.uint8), 100, float(np.median(page)), 20.0)
    assert np.flatnonzero(got).tolist() == [60]


def test_a_streak_is_measured_on_the_paper_not_on_an_appended_auditmark_strip():
    """A dust streak on the glass runs down the paper, never down the "AuditMark" strip a Dominion-style
    export appends below it. The streak bands were the image's last rows (the strip's): no streak was
    found, and on the timing family a streak through a name read as a mark beside it (1 clean ballot of
    4 sent to a person). The bands are now the registered paper's."""
    page = np.full((600, 400), 240, np.uint8)
    page[300:310, 50:350] = 20
    page[:, 120] = 170  # the streak
    strip = np.full((200, 400), 255, np.uint8)
    strip[60:70, 40:300] = 0  # the machine's interpretation, as text
    image = np.vstack([page, strip])
    affine = np.array([[100.0, 0.0, 0.0], [0.0, 100.0, 0.0]])  # 4 x 6 in at 100 DPI, at the image's top
    r0, r1 = paper_rows(image.shape, affine, 4.0, 6.0, 100)
    assert (r0, r1) == (0, 605)
    assert np.flatnonzero(streak_columns(image[r0:r1], 100, 240.0, 20.0)).tolist() == [120]
    assert not streak_columns(image, 100, 240.0, 20.0).any()  # in the strip's rows: not seen
    assert paper_rows(page.shape, affine, 4.0, 6.0, 100) == (0, 600)  # the paper fills the image: as before
