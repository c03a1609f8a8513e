"""Reading sheets: classes by 31 KAR 6:030, the hand-count reading, pairing, JSON, and never raising."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from test_detect_support import draw_mark, election, encode, page_image, scan, target, turn

from tabulate.core.marks import BallotMarks, OptionMark
from tabulate.detect import REASON_CODES, read_image, read_sheet, sheet_marks
from tabulate.detect.reading import PageReading, SheetReading, TargetReading
from tabulate.election.layout import layout_style
from tabulate.election.render import render_page
from tabulate.kernels import AREA_NOT_READ

FRONT_MARKS = (
    ("straight-party", "DEM", "fill"),
    ("president", "pres-hale", "half"),
    ("president", "pres-okafor", "circle"),
    ("us-senate", "sen-caldwell", "beside"),
    ("us-house-6", "house-king", "line"),
    ("state-senate-7", "ss-mullins", "x"),
    ("state-rep-56", "sr56-boone", "light"),
    ("us-senate", "write-in-1", "write"),
    ("us-senate", "write-in-1", "fill"),
)


@pytest.fixture(scope="module")
def front():
    return read_image(election(), scan(page_image(marks=FRONT_MARKS), angle=0.8, paper=238, ink=22, noise=3))


def _by(reading):
    return {(t.contest_id, t.option_id): t for t in reading.targets}


def test_a_filled_target_is_a_vote_for_scanner_and_hand_count(front):
    t = _by(front)[("straight-party", "DEM")]
    assert (t.scan, t.hand) == ("marked", "marked")
    assert "6:030 s3(1)(a) majority filled" in t.hand_clauses


def test_a_majority_fill_is_marked(front):
    t = _by(front)[("president", "pres-hale")]
    assert t.scan == "marked" and t.hand == "marked"


def test_a_circled_target_is_a_hand_vote_only(front):
    """31 KAR 6:030 s3(1)(b): circled is a vote by hand; the scanner sees no fill."""
    t = _by(front)[("president", "pres-okafor")]
    assert (t.scan, t.hand) == ("unmarked", "marked") and "6:030 s3(1)(b) circled" in t.hand_clauses
    assert "scan_hand_disagreement" in front.flags


def test_an_x_beside_the_name_is_a_hand_vote_only(front):
    t = _by(front)[("us-senate", "sen-caldwell")]
    assert (t.scan, t.hand) == ("unmarked", "marked")
    assert "6:030 s3(1)(e) mark beside the name" in t.hand_clauses


def test_the_marking_area_is_read_beside_an_empty_target_not_beside_a_filled_one():
    """31 KAR 6:030 s3(1)(e): "an 'X', a check mark ... next to the candidate's name" is a vote by hand.

    The same X on two names: beside the empty target it is how the hand count finds the vote; beside
    the filled one the fill decides (s3(1)(a)), so the area is not read and its clause not listed.
    """
    marks = (
        ("us-senate", "sen-caldwell", "beside"),
        ("us-house-6", "house-king", "fill"),
        ("us-house-6", "house-king", "beside"),
    )
    by = _by(read_image(election(), scan(page_image(marks=marks), angle=-0.6, paper=240, ink=20, noise=3)))
    empty, filled = by[("us-senate", "sen-caldwell")], by[("us-house-6", "house-king")]
    assert (empty.scan, empty.hand) == ("unmarked", "marked")
    assert empty.hand_clauses == ("6:030 s3(1)(e) mark beside the name",)
    assert empty.feature("marking") > 0.02
    assert (filled.scan, filled.hand) == ("marked", "marked")
    assert filled.feature("marking") == AREA_NOT_READ
    assert "6:030 s3(1)(a) majority filled" in filled.hand_clauses
    assert not any("beside" in c for c in filled.hand_clauses)


def test_a_line_through_one_target_is_a_hand_vote_and_goes_to_a_person(front):
    """s3(1)(f): a line meeting the oval at two points; the scanner cannot call it filled."""
    t = _by(front)[("us-house-6", "house-king")]
    assert t.scan in ("marginal", "unmarked") and t.hand == "marked"
    assert "6:030 s3(1)(f) line through the target" in t.hand_clauses


def test_an_x_across_the_target_is_marginal_for_the_scanner(front):
    t = _by(front)[("state-senate-7", "ss-mullins")]
    assert t.scan == "marginal" and t.hand == "marked"


def test_a_light_grey_fill_goes_to_a_person(front):
    t = _by(front)[("state-rep-56", "sr56-boone")]
    assert t.scan == "marginal"


def test_blank_targets_are_unmarked(front):
    marked = {(c, o) for c, o, _ in FRONT_MARKS}
    rest = [t for k, t in _by(front).items() if k not in marked]
    assert all(t.scan == "unmarked" and t.hand == "unmarked" for t in rest)
    assert max(t.score for t in rest) < 0.02


def test_a_line_through_two_targets_is_not_a_vote_for_either():
    """s3(1)(f): the line must not intersect another oval at two points."""
    img = page_image().copy()
    a, b = target("1", 1, "us-senate", "sen-caldwell"), target("1", 1, "us-senate", "sen-brennan")
    x = int(a.bounds.center[0] * 200)
    import cv2

    cv2.line(img, (x, int((a.bounds.y - 0.06) * 200)), (x, int((b.bounds.bottom + 0.06) * 200)), 20, 4)
    by = _by(read_image(election(), img))
    for key in (("us-senate", "sen-caldwell"), ("us-senate", "sen-brennan")):
        assert "6:030 s3(1)(f) line through the target" not in by[key].hand_clauses


def _sheet_files(tmp_path, style="1", precinct="A101", swap=False, flip=False):
    pages = []
    for n in (1, 2):
        img = page_image(style, n, precinct, marks=FRONT_MARKS[:2] if n == 1 else ())
        img = turn(img, 2) if flip else img
        path = tmp_path / f"{style}-{precinct}-{n}.jpg"
        path.write_bytes(encode(img, "jpeg", quality=90))
        pages.append(path)
    return pages[::-1] if swap else pages


@pytest.mark.parametrize("swap,flip", [(False, False), (True, True)])
def test_front_and_back_pair_in_either_order(tmp_path, swap, flip):
    sheet = read_sheet(election(), _sheet_files(tmp_path, swap=swap, flip=flip))
    assert sheet.ok, sheet.reason
    assert [p.page for p in sheet.pages] == [1, 2]
    assert (sheet.style_id, sheet.precinct_id) == ("1", "A101")
    assert len(sheet.ballot_id) == 20
    again = read_sheet(election(), _sheet_files(tmp_path, swap=swap, flip=flip))
    assert again.ballot_id == sheet.ballot_id  # the id comes from the images' content


def test_sheet_marks_are_what_the_rules_read(tmp_path):
    marks = sheet_marks(read_sheet(election(), _sheet_files(tmp_path)))
    assert isinstance(marks, BallotMarks) and marks.style_id == "1" and marks.precinct_id == "A101"
    assert marks.marks["straight-party"]["DEM"].scan == "marked"
    assert marks.marks["straight-party"]["REP"].scan == "unmarked"
    assert set(marks.marks) >= {"president", "amendment-1", "local-option"}  # both pages
    assert marks.marks["president"]["pres-hale"].score > 0.4


def test_write_in_ink_is_reported(front):
    t = _by(front)[("us-senate", "write-in-1")]
    assert t.scan == "marked" and t.feature("write_in") > 0.02
    assert "write_in_ink" in front.flags


def test_pages_of_two_ballots_do_not_make_a_sheet(tmp_path):
    a = _sheet_files(tmp_path, "1", "A101")
    b = _sheet_files(tmp_path, "1", "A102")
    sheet = read_sheet(election(), [a[0], b[1]])
    assert sheet.reason_code == "pages_disagree" and "A102" in sheet.reason
    two_fronts = read_sheet(election(), [a[0], a[0]])
    assert two_fronts.reason_code == "pages_disagree"


def test_a_single_page_is_a_sheet_only_when_the_other_side_is_empty(tmp_path):
    style1 = _sheet_files(tmp_path, "1", "A101")
    assert read_sheet(election(), style1[0]).reason_code == "missing_page"
    style2 = _sheet_files(tmp_path, "2", "B201")  # style 2's back has no targets
    single = read_sheet(election(), [style2[0]])
    assert single.ok and single.flags == ("single_side",)


def test_too_many_pages_and_rejected_pages_are_sheet_reasons(tmp_path):
    files = _sheet_files(tmp_path)
    assert read_sheet(election(), files + files[:1]).reason_code == "too_many_pages"
    bad = tmp_path / "blank.png"
    bad.write_bytes(encode(np.full((2200, 1700), 245, np.uint8), "png"))
    sheet = read_sheet(election(), [files[0], bad])
    assert sheet.reason_code == "page_rejected" and "no registration marks" in sheet.reason
    with pytest.raises(ValueError, match="not read"):
        sheet_marks(sheet)


def test_readings_serialise_to_json(tmp_path, front):
    sheet = read_sheet(election(), _sheet_files(tmp_path))
    doc = json.loads(json.dumps(sheet.to_dict()))
    assert doc["ok"] and doc["pages"][0]["style_code"]["style_id"] == "1"
    assert len(doc["pages"][0]["transform"]) == 6 and doc["pages"][0]["targets"][0]["features"]["ring"] == 0.0
    assert json.loads(json.dumps(front.to_dict()))["targets"][1]["scan"] == "marked"


@pytest.mark.parametrize("junk", [b"", b"\x00" * 100, b"GIF89a....", np.zeros((5, 5), np.uint8).tobytes()])
def test_reading_never_raises(junk):
    sheet = read_sheet(election(), [junk, junk])
    assert not sheet.ok and sheet.reason_code in REASON_CODES
    assert all(p.reason_code in REASON_CODES for p in sheet.pages)


def test_an_image_array_of_the_wrong_kind_is_a_reason_not_a_crash():
    r = read_image(election(), np.zeros((10, 10, 3), np.float32))
    assert r.reason_code == "unsupported_image"


@pytest.mark.parametrize("shape", ["box", "arrow"])
def test_boxes_and_arrows_are_read_too(shape):
    e = dataclasses.replace(election(), target_shape=shape)
    layout = layout_style(e, "1").pages[0]
    img = render_page(e, layout, "A101", dpi=200).copy()
    t = next(t for t in layout.targets if t.option_id == "DEM")
    if shape == "box":
        draw_mark(img, t, "fill", 200)
    else:  # connect the arrow: a line across the gap
        y = int(t.bounds.center[1] * 200)
        img[y - 3 : y + 3, int(t.bounds.x * 200) - 4 : int(t.bounds.right * 200) + 4] = 20
    by = _by(read_image(e, scan(img, angle=1.0)))
    assert by[("straight-party", "DEM")].scan == "marked"
    assert by[("straight-party", "REP")].scan == "unmarked"


def test_a_reader_bug_is_a_reason_too(monkeypatch):
    import tabulate.detect.read as read_module

    def boom(*_a, **_k):
        raise ZeroDivisionError("synthetic")

    monkeypatch.setattr(read_module, "score_page", boom)
    r = read_image(election(), page_image())
    assert r.reason_code == "internal_error" and "ZeroDivisionError" in r.reason
    assert r.style_id == "1"  # identification had succeeded


def test_a_two_page_g4_tiff_is_one_sheet():
    import io

    from PIL import Image

    pages = [
        Image.fromarray(np.where(turn(page_image("1", n, "A103"), 2) < 128, 0, 255).astype(np.uint8)).convert("1")
        for n in (2, 1)
    ]  # back first, both upside down: a sheet fed face down and reversed
    buf = io.BytesIO()
    pages[0].save(buf, format="TIFF", compression="group4", save_all=True, append_images=pages[1:])
    sheet = read_sheet(election(), buf.getvalue())
    assert sheet.ok, sheet.reason
    assert [p.page for p in sheet.pages] == [1, 2] and [p.index for p in sheet.pages] == [1, 0]
    assert all(p.rotation == 180 for p in sheet.pages) and sheet.precinct_id == "A103"


def test_a_source_that_is_neither_a_path_nor_bytes_is_a_reason():
    sheet = read_sheet(election(), [12345, None])
    assert sheet.reason_code == "page_rejected"
    assert {p.reason_code for p in sheet.pages} == {"unreadable_file"}


@pytest.mark.parametrize("dpi", [150, 300])
def test_pages_at_150_and_300_dpi_are_read(dpi):
    img = page_image(dpi=dpi, marks=(("straight-party", "LIB", "fill"), ("president", "pres-okafor", "circle")))
    r = read_image(election(), scan(img, angle=-1.2, paper=240, ink=20, noise=3))
    assert r.ok, r.reason
    assert r.dpi == dpi
    by = _by(r)
    assert by[("straight-party", "LIB")].scan == "marked"
    assert (by[("president", "pres-okafor")].scan, by[("president", "pres-okafor")].hand) == ("unmarked", "marked")
    assert sum(t.scan != "unmarked" for t in r.targets) == 1


def test_blank_targets_share_one_mark_and_every_other_reading_keeps_its_own():
    """`sheet_marks` gives a target read blank by the scanner (31 KAR 6:030 Section 2(1)) and a hand count
    (Section 3(1)) alike, with a score of exactly 0, one shared mark equal to the one it would build; a score
    of -0.0, a light score, a hand-count mark or ink on a write-in line each keep a mark of their own."""

    def read_as(option, kind="candidate", score=0.0, hand="unmarked", write_in=0.0):
        feats = (score, 0.0, 0.0, 0.0, 0.0, -1.0, write_in, 0.0, 0.0, 0.5, 255.0, 0.0)
        return TargetReading("c", option, kind, score, feats, "unmarked", hand)

    targets = (
        read_as("a"),
        read_as("b"),
        read_as("neg", score=-0.0),
        read_as("light", score=0.0004),
        read_as("hand", hand="marked"),
        read_as("w", kind="write_in", write_in=0.5),
        read_as("w-empty", kind="write_in"),
    )
    marks = sheet_marks(SheetReading((PageReading("p", targets=targets),), "id", style_id="1")).marks["c"]
    assert marks["a"] is marks["b"] is marks["w-empty"]
    assert marks["a"] == OptionMark("unmarked", "unmarked", False, 0.0)
    assert math.copysign(1.0, marks["neg"].score) == -1.0  # -0.0 stays -0.0 in the marks' JSON
    assert marks["light"] == OptionMark("unmarked", "unmarked", False, 0.0004)
    assert marks["hand"] == OptionMark("unmarked", "marked", False, 0.0)
    assert marks["w"] == OptionMark("unmarked", "unmarked", True, 0.0)
