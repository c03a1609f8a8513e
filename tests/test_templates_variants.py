"""Vendor ballots our three families do not print (issue #11, `benchmarks/templates_variants.py`).

Each test is one page (or one style) of a generator variant that broke the
import or the reader before it was fixed: the targets printed right of the
names, a back page the vendor left blank, a back that several styles print
alike with no code to tell them apart.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabulate.ballots.vendor import simulate_vendor_sheet, vendor_layout
from tabulate.ballots.vendor.design import design_variant
from tabulate.ballots.vendor.write import write_blanks
from tabulate.detect import pair_pages
from tabulate.election import load_election, parse_election
from tabulate.templates import TemplateReader, import_templates
from tabulate.templates.importer import _fits, resolve_pages

ROOT = Path(__file__).parents[1]
GENERAL = ROOT / "samples" / "general" / "election.json"


def _trimmed(n: int, **changes):
    """The sample election with each style's first ``n`` contests only (a one-sided ballot fits its front)."""
    doc = json.loads(GENERAL.read_text(encoding="utf-8"))
    doc.update(changes)
    for s in doc["ballot_styles"]:
        s["contests"] = s["contests"][:n]
    return parse_election(doc)


@pytest.mark.parametrize("family", ["timing", "boxes"])
def test_targets_right_of_the_names_import_with_the_name_as_marking_area(family, tmp_path):
    """31 KAR 6:030 Section 3(1)(e): a mark counts when made "next to the candidate's name or question
    choice". With the oval printed after the name, the name is on the oval's left: the designated
    marking area must cover it (it used to run from the oval rightwards, over the box's rule; and
    without contest boxes the headings, printed left of the ovals, were not seen: the import stopped)."""
    election = load_election(GENERAL)
    key = design_variant(family, "right", target_side="right")
    blanks = write_blanks(election, key, tmp_path / "blanks", styles=("2",))
    tset = import_templates(election, blanks, tmp_path / "set", score=False)
    printed = vendor_layout(election, "2", key)
    for page in printed.pages:
        got = {(t.contest_id, t.option_id): t for t in tset.page_for("2", page.page).layout.targets}
        assert len(got) == len(page.targets)
        for want in page.targets:
            t = got[(want.contest_id, want.option_id)]
            assert abs(t.bounds.x - want.bounds.x) < 0.02 and abs(t.bounds.y - want.bounds.y) < 0.02
            area, name = t.marking_area, want.marking_area  # the generator's: the name's row
            assert area.right <= t.bounds.x, (want.option_id, area)
            assert area.x <= name.x + 0.1 and area.right >= name.right - 0.1, (want.option_id, area, name)


def test_a_page_with_no_targets_fits_the_back_of_every_style_and_the_front_before_it_settles_which():
    election = load_election(GENERAL)
    assert _fits(election, "back.png", []) == [("1", 2), ("2", 2), ("3", 2)]
    front = [len(c.options) for c in election.style_contests("2")]
    names = ["front.png", "back.png"]
    assert resolve_pages(names, [_fits(election, "front.png", front), _fits(election, "back.png", [])]) == [
        ("2", 1),
        ("2", 2),
    ]


def test_a_back_left_blank_imports_with_no_targets_and_reads_with_its_front(tmp_path):
    """A vendor's back page with nothing on it but the heading, no code, alike for every style: it imports
    as a page with no targets and reads without refusing; the sheet's style comes from its front."""
    election = _trimmed(8, paper_size="legal", target_shape="arrow")
    key = design_variant("arrows", "bback", back="blank")
    blanks = write_blanks(election, key, tmp_path / "blanks", styles=("1", "2"))
    tset = import_templates(election, blanks, tmp_path / "set", score=False)
    assert [len(tset.page_for(s, 2).layout.targets) for s in ("1", "2")] == [0, 0]
    reader = TemplateReader(str(tmp_path / "set"))
    images, truth = next(
        (ims, t) for k in range(6) for ims, t in [simulate_vendor_sheet(election, key, k, 11)] if t["style"] == "2"
    )
    pages = [reader.read_image(election, im, source=f"p{i}") for i, im in enumerate(images)]
    assert all(p.ok for p in pages), [p.reason for p in pages]
    sheet = pair_pages(election, pages, reader=reader)
    assert sheet.ok, sheet.reason
    assert sheet.style_id == "2"
    back = next(p for p in sheet.pages if p.page == 2)
    assert back.targets == () and back.style_id == "2"


def test_a_contest_continued_in_the_next_column_imports_as_one_contest(tmp_path):
    """A vendor prints a contest that does not fit the rest of its column on at the top of the next one
    (here style 2's back: amendment 1's YES in one column, its NO in the next, under "(CONTINUED)"):
    the two groups are one contest, its options in reading order."""
    election = load_election(GENERAL)
    key = design_variant("boxes", "cont", continue_long=True)
    printed = vendor_layout(election, "2", key).pages[1]
    ids = [c for c, _r in printed.contest_areas]
    assert ids.count("amendment-1") == 2  # the generator did split it
    blanks = write_blanks(election, key, tmp_path / "blanks", styles=("2",))
    tset = import_templates(election, blanks, tmp_path / "set", score=False)
    got = {(t.contest_id, t.option_id): t.bounds for t in tset.page_for("2", 2).layout.targets}
    assert len(got) == len(printed.targets)
    for want in printed.targets:
        b = got[(want.contest_id, want.option_id)]
        assert abs(b.x - want.bounds.x) < 0.02 and abs(b.y - want.bounds.y) < 0.02, want.option_id


def _same_targets(tset, printed, style: str) -> None:
    for page in printed.pages:
        got = {(t.contest_id, t.option_id): t.bounds for t in tset.page_for(style, page.page).layout.targets}
        assert len(got) == len(page.targets), page.page
        for want in page.targets:
            b = got[(want.contest_id, want.option_id)]
            assert abs(b.x - want.bounds.x) < 0.02 and abs(b.y - want.bounds.y) < 0.02, want.option_id


def test_ovals_printed_in_a_drop_out_red_import_from_the_colour_blank(tmp_path):
    """A vendor prints the ovals in red so that a colour-dropout scanner sees only the voters' marks. In a
    colour blank's luminance the red (235, 100, 100) is grey 146, lighter than the Otsu split between
    paper and black print: the import found no targets and took the front for a blank back. Taken by its
    darkest channel, red print is print."""
    election = load_election(GENERAL)
    key = design_variant("boxes", "red", target_rgb=(235, 100, 100), dropout_grey=238)
    blanks = write_blanks(election, key, tmp_path / "blanks", styles=("2",))
    tset = import_templates(election, blanks, tmp_path / "set", score=False)
    _same_targets(tset, vendor_layout(election, "2", key), "2")


def test_contests_without_rules_import_and_a_qr_codes_finder_squares_are_no_targets(tmp_path):
    """Contests set apart by white space only (no boxes, no rules): the QR code's three finder squares
    (a square ring round a solid square) used to pass for box targets, two of them stacked as a column,
    and the import stopped (`us-house-6 ... has 1 targets`). A target's hole is paper on a blank."""
    election = load_election(GENERAL)
    key = design_variant("boxes", "norules", rules=False)
    blanks = write_blanks(election, key, tmp_path / "blanks", styles=("2",))
    tset = import_templates(election, blanks, tmp_path / "set", score=False)
    _same_targets(tset, vendor_layout(election, "2", key), "2")
