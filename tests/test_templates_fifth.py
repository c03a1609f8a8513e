"""The fifth round of real paper (issue #11, docs/templates.md "The fifth round"): one page or sheet
each that the reader got wrong, or could not take, before."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from tabulate.ballots.vendor import simulate_vendor_sheet
from tabulate.ballots.vendor.design import design_variant
from tabulate.ballots.vendor.write import write_blanks
from tabulate.core.vocabulary import reason_words
from tabulate.detect import pair_pages
from tabulate.detect.read import read_pages
from tabulate.election import load_election
from tabulate.templates import TemplateReader, import_templates
from tabulate.templates.blanks import darkest_channel, load_blanks, paper_and_dpi
from tabulate.templates.sidescale import MAX_SIDES_DIFF, sides_disagree

ROOT = Path(__file__).parents[1]
GENERAL = ROOT / "samples" / "general" / "election.json"
BOXES = ROOT / "samples" / "vendor" / "boxes"


@pytest.fixture(scope="module")
def boxes_sheet(tmp_path_factory):
    """The boxes sample sheet read with a set of its own style's blanks: (election, reader, front, back)."""
    election = load_election(GENERAL)
    out = tmp_path_factory.mktemp("set")
    import_templates(election, sorted((BOXES / "blanks").glob("blank-3-*.png")), out, score=False)
    reader = TemplateReader(str(out))
    pages = [p for f in sorted(BOXES.glob("sheet-*.jpg")) for p in read_pages(election, str(f), reader=reader)]
    front, back = sorted(pages, key=lambda p: p.page)
    return election, reader, front, back


def _scaled(p, sx: float, sy: float = 1.0):
    return dataclasses.replace(p, scale=(p.scale[0] * sx, p.scale[1] * sy))


def test_a_side_fitted_at_another_scale_than_its_other_side_goes_to_a_person(boxes_sheet):
    """31 KAR 6:030 Section 2(1)(a): "Filling in the oval or box or connecting the arrow next to the
    candidate's name" is the vote; a reader that cannot say where the page lies cannot say which oval was
    filled. Both sides pass the scanner in one feed: a back fitted 0.9 % narrow where its front is not
    (arrows sheet 862 on an earlier branch, 8 of 18 anchors) was read, and a pencil mark with it."""
    election, reader, front, back = boxes_sheet
    assert pair_pages(election, [front, back], reader=reader).ok
    wrong = pair_pages(election, [front, _scaled(back, 0.991)], reader=reader)
    assert wrong.reason_code == "sides_scale_differ"
    assert "differ by 0.9% across the page" in wrong.reason and "a person reads the sheet" in wrong.reason
    assert reason_words("sides_scale_differ") == "Front and back placed at different scales"
    down = pair_pages(election, [_scaled(front, 1.0, 1.008), back], reader=reader)
    assert down.reason_code == "sides_scale_differ" and "down the page" in down.reason


def test_the_sides_of_one_clean_scan_agree_and_a_blank_back_is_not_checked(boxes_sheet):
    """Clean sheets' sides differ by at most 0.059 % (200 sheets a family): well inside the line; a page
    with no targets (a back left blank, placed as fed rather than fitted) has no vote to misplace."""
    election, reader, front, back = boxes_sheet
    assert sides_disagree(front, _scaled(back, 1.0006, 0.9994)) is None
    assert sides_disagree(front, _scaled(back, 1 + MAX_SIDES_DIFF * 1.2)) is not None
    bare = dataclasses.replace(_scaled(back, 0.97), targets=())
    assert sides_disagree(front, bare) is None
    # Our own ballots (no template reader) are paired as before.
    assert pair_pages(election, [front, _scaled(back, 0.97)]).ok


def test_a_tabloid_blank_is_11_by_17_not_legal_at_376_dpi(tmp_path):
    """A ballot printed on 11 x 17 in paper (four columns): its blank was taken for the nearest paper by shape,
    legal, at 376 DPI, every target placed 29 % off, and every scanned page refused (`registration_residual`:
    "only 0 of 18 printed anchors found")."""
    assert paper_and_dpi((5100, 3300)) == ((11.0, 17.0), 300.0)
    assert paper_and_dpi((4200, 2550)) == ((8.5, 14.0), 300.0)  # legal stays legal
    election = load_election(GENERAL)
    columns = ((2.35, 2.1), (4.55, 2.1), (6.75, 2.1), (8.95, 1.75))
    tabloid = design_variant("boxes", "tabloid-test", paper_in=(11.0, 17.0), columns=columns, bottom_in=16.3)
    images, truth = simulate_vendor_sheet(election, tabloid, 0, 2026, population="stress")
    blanks = write_blanks(election, tabloid, tmp_path / "blanks", styles=(truth["style"],))
    import_templates(election, blanks, tmp_path / "set", score=False)
    reader = TemplateReader(str(tmp_path / "set"))
    assert reader.paper_in == (11.0, 17.0)
    page = reader.read_image(election, images[0])
    assert page.ok, page.reason
    assert (page.style_id, page.page, round(page.dpi)) == (truth["style"], truth["images"][0]["page"], 300)


@pytest.mark.parametrize("family", ["boxes", "timing"])
def test_yes_and_no_side_by_side_are_each_beside_its_own_word(tmp_path, family):
    """A question's YES and NO printed on one row. 31 KAR 6:030 Section 2(1)(a): a vote is "Filling in
    the oval or box or connecting the arrow next to the candidate's name or the question choice". Before,
    the boxes' targets were taken top to bottom only and YES and NO came in the order found (6 votes
    counted for the other answer in 4 sheets); without boxes each NO made a column of its own and the
    import stopped ("contest 'president' ... has 6 targets")."""
    election = load_election(GENERAL)
    key = design_variant(family, f"yesno-test-{family}", yes_no_across=True)
    blanks = write_blanks(election, key, tmp_path / "blanks", styles=("1",))
    tset = import_templates(election, [p for p in blanks if p.stem.endswith("p2")], tmp_path / "set", score=False)
    (page,) = tset.pages
    questions = [c.id for c in election.contests if c.type == "question"]
    seen = 0
    for cid in questions:
        got = {t.option_id: t for t in page.layout.targets if t.contest_id == cid}
        if not got:
            continue
        seen += 1
        yes, no = (got[o.id] for o in election.contest(cid).options)
        assert yes.bounds.x < no.bounds.x and abs(yes.bounds.center[1] - no.bounds.center[1]) < 0.02
        assert yes.marking_area.right < no.bounds.x  # YES's area stops before the NO target
        assert no.marking_area.x > yes.bounds.right
    assert seen == 3


def test_rows_are_read_left_to_right_and_a_lone_target_beside_a_row_stays_apart():
    """The reading order of `tabulate.templates.rows`: one under the other as before, a row left to right;
    a column of second targets joins its row's first only when each is alone in its contest."""
    from tabulate.election.geometry import Rect
    from tabulate.templates.find import FoundTarget
    from tabulate.templates.rows import in_rows, row_span, side_by_side

    def oval(x: float, y: float) -> FoundTarget:
        return FoundTarget("oval", Rect(x, y, 0.24, 0.14))

    yes, no, a, b = oval(1.0, 2.0), oval(2.5, 2.01), oval(1.0, 1.0), oval(1.0, 1.3)
    assert in_rows([no, b, yes, a]) == [a, b, yes, no]
    assert row_span([a, b, yes, no], 2) == (b.bounds.center[1], None, None, no.bounds.x)
    no2 = oval(2.5, 3.01)
    left = [a, b, yes, oval(1.0, 3.0)]
    assert side_by_side(left, [no, no2], lambda p, q: True)
    assert not side_by_side(left, [no, no2], lambda p, q: False)  # one contest: a real column
    assert not side_by_side(left, [no], lambda p, q: True)  # a lone target: a drawing, as before
    assert not side_by_side(left, [no, oval(2.5, 3.5)], lambda p, q: True)  # not on a row of the left column


def test_a_heading_band_printed_in_a_light_tint_is_imported_as_a_scan_sees_it(tmp_path):
    """Contest headings on a yellow band (255, 235, 130). The colour blank was taken by its darkest channel,
    the band at 130, where a colour scan read as grey shows it at 229: the reader took the band for print
    it did not find, every score came out high, and this clean ballot (boxes, seed 2026, sheet 5) went to
    a person for a blank oval at 0.037. Wide light tints are now taken at their luminance; a target in a
    drop-out red stays print (its darkest channel)."""
    import cv2

    from tabulate.detect.decode import decode_page, headers

    election = load_election(GENERAL)
    key = design_variant("boxes", "yellow-test", shade_rgb=(255, 235, 130), shade_grey=229)
    images, truth = simulate_vendor_sheet(election, key, 5, 2026, population="realistic")
    assert not truth["needs_review"]
    blanks = write_blanks(election, key, tmp_path / "blanks", styles=(truth["style"],))
    band = load_blanks(blanks[:1])[0].image
    assert int(np.median(band[band < 250])) > 200  # the band's grey, not its darkest channel's 130
    import_templates(election, blanks, tmp_path / "set", score=False)
    reader = TemplateReader(str(tmp_path / "set"))
    pages = []
    for img in images:  # a colour scanner's RGB JPEG (cream paper), decoded as `tabulate read` decodes it
        bgr = np.dstack([img * 0.86, img * 0.95, img * 0.98 + 4]).clip(0, 255).astype(np.uint8)
        data = bytes(cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 80])[1])
        pages.append(reader.read_image(election, decode_page(data, headers(data)[0])))
    sheet = pair_pages(election, pages, reader=reader)
    assert sheet.ok, sheet.reason
    assert [t for t in sheet.targets if t.scan == "marginal" or t.scan != t.hand] == []


def test_a_target_printed_in_drop_out_red_is_still_print_on_the_blank():
    red = np.full((1100, 850, 3), 255, np.uint8)
    cv2 = pytest.importorskip("cv2")
    cv2.ellipse(red, (400, 500), (24, 14), 0, 0, 360, (100, 100, 235), 3)  # BGR: the red (235, 100, 100)
    red[100:200, 50:800] = (130, 235, 255)  # a yellow band, BGR
    grey = darkest_channel(red)
    assert grey[500, 376] == 100 and grey[150, 400] == 229
