"""Ballot layout: one sheet front and back, nothing overlapping, corners and style code kept clear."""

import json
from itertools import combinations
from pathlib import Path

import pytest

from tabulate.election import parse_election
from tabulate.election.geometry import CORNER_WINDOW_IN, StyleCode
from tabulate.election.layout import LayoutError, layout_style

ROOT = Path(__file__).resolve().parents[1]


def general():
    return parse_election(json.loads((ROOT / "samples/general/election.json").read_text()))


def overlaps(a, b) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


@pytest.mark.parametrize("style_id", ["1", "2", "3"])
def test_every_option_of_the_style_has_exactly_one_target(style_id):
    e = general()
    layout = layout_style(e, style_id)
    placed = [(t.contest_id, t.option_id) for _, t in layout.targets()]
    expected = [(c.id, o.id) for c in e.style_contests(style_id) for o in c.options]
    assert placed == expected  # ballot order, straight party first


def test_targets_boxes_and_text_stay_on_the_page_and_out_of_the_corner_windows():
    e = general()
    for style in e.ballot_styles:
        for page in layout_style(e, style.id).pages:
            corners = [
                (0, 0),
                (page.width_in - CORNER_WINDOW_IN, 0),
                (0, page.height_in - CORNER_WINDOW_IN),
                (page.width_in - CORNER_WINDOW_IN, page.height_in - CORNER_WINDOW_IN),
            ]
            from tabulate.election.geometry import Rect

            windows = [Rect(x, y, CORNER_WINDOW_IN, CORNER_WINDOW_IN) for x, y in corners]
            for _cid, box in page.contest_boxes:
                assert box.x > 0 and box.right < page.width_in and box.y > 0 and box.bottom < page.height_in
                assert not any(overlaps(box, w) for w in windows)
                assert not overlaps(box, page.style_code)
            # Each registration mark is inside its own window only.
            for mark, window in zip(page.registration_marks, windows):
                assert window.x <= mark.rect.x and mark.rect.right <= window.right


def test_no_two_targets_or_contest_boxes_overlap():
    e = general()
    for style in e.ballot_styles:
        for page in layout_style(e, style.id).pages:
            for (_, a), (_, b) in combinations(page.contest_boxes, 2):
                assert not overlaps(a, b)
            for a, b in combinations(page.targets, 2):
                assert not overlaps(a.bounds, b.bounds)


def test_designated_marking_area_is_beside_its_target_and_write_in_area_on_write_in_lines_only():
    layout = layout_style(general(), "1")
    for _, t in layout.targets():
        assert t.marking_area.x >= t.bounds.right
        assert t.marking_area.y <= t.bounds.center[1] <= t.marking_area.bottom
        assert (t.write_in_area is not None) == (t.kind == "write_in")


def test_a_style_too_long_for_its_sheet_says_by_how_much():
    doc = json.loads((ROOT / "samples/general/election.json").read_text())
    for n in range(30):  # thirty more questions cannot fit on one sheet
        doc["contests"].append(
            {
                "id": f"q{n}",
                "type": "question",
                "title": f"Question {n}",
                "text": "Are you in favor of this long local option question " * 3,
            }
        )
        doc["ballot_styles"][0]["contests"].append(f"q{n}")
    e = parse_election(doc)
    with pytest.raises(
        LayoutError, match=r"style 1 does not fit on one sheet: \d+ contest\(s\) starting with 'q\d+' need \d+\.\d\d in"
    ):
        layout_style(e, "1")


def test_style_code_round_trips_and_refuses_foreign_text():
    code = StyleCode("abcdef012345", "3", "C301", 2)
    assert StyleCode.decode(code.encode()) == code
    with pytest.raises(ValueError, match="not a ballot style code"):
        StyleCode.decode("https://example.invalid/")
    with pytest.raises(ValueError, match="page"):
        StyleCode.decode("KYB1|abcdef012345|3|C301|3")


def test_box_and_arrow_ballots_lay_out_with_their_own_target_shapes():
    for shape in ("box", "arrow"):
        doc = json.loads((ROOT / "samples/general/election.json").read_text())
        doc["target_shape"] = shape
        layout = layout_style(parse_election(doc), "2")
        shapes = {t.shape for _, t in layout.targets()}
        assert shapes == {shape}
        if shape == "arrow":
            # The gap the voter joins lies between the two printed halves.
            page = layout.pages[0]
            t = page.targets[0]
            xs = sorted(x for poly in page.polygons for x, _ in poly.points if abs(_ - t.bounds.center[1]) < 0.1)
            assert any(abs(x - t.bounds.x) < 1e-9 for x in xs) and any(abs(x - t.bounds.right) < 1e-9 for x in xs)
