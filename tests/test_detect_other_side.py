"""A sheet whose one side's style code did not read is identified from its other side (issue #17).

On a 24,000-sheet run, 4 sheets were set aside only because a smudge or a
streak defeated one side's QR symbol while the other side's read. The page
is then read as the other page of the style the readable side names, and
kept only if its printed target outlines are where that page's layout puts
them; otherwise it stays rejected as before.
"""

from __future__ import annotations

from test_detect_support import election, encode, page_image, scan

from tabulate.detect import read_sheet, sheet_marks
from tabulate.detect.read import FROM_OTHER_SIDE
from tabulate.election.geometry import style_code_rect

FRONT = (("president", "pres-okafor", "fill"),)


def _smudge_code(img):
    """Paint over the inside of the style code (as a torn or smudged symbol): zxing finds nothing."""
    out = img.copy()
    r = style_code_rect(8.5, 11.0)
    out[int(r.y * 200) + 20 : int(r.bottom * 200) - 20, int(r.x * 200) + 20 : int(r.right * 200) - 20] = 255
    return out


def _sheet(front, back):
    return [
        encode(scan(front, angle=0.6, paper=236, ink=22, noise=2, seed=1), "png"),
        encode(scan(back, angle=-0.6, paper=236, ink=22, noise=2, seed=2), "png"),
    ]


def _marks(reading):
    return {(c, o): m.scan for c, opts in sheet_marks(reading).marks.items() for o, m in opts.items()}


def test_front_without_a_readable_code_is_identified_from_the_back():
    front, back = page_image("1", 1, "A101", marks=FRONT), page_image("1", 2, "A101")
    whole = read_sheet(election(), _sheet(front, back))
    assert whole.ok, whole.reason
    r = read_sheet(election(), _sheet(_smudge_code(front), back))
    assert r.ok, r.reason
    assert (r.style_id, r.precinct_id) == ("1", "A101")
    assert [p.page for p in r.pages] == [1, 2]
    assert FROM_OTHER_SIDE in r.pages[0].flags and FROM_OTHER_SIDE not in r.pages[1].flags
    assert _marks(r) == _marks(whole)
    assert _marks(r)[("president", "pres-okafor")] == "marked"
    assert r.to_dict()["pages"][0]["flags"].count(FROM_OTHER_SIDE) == 1  # the evidence says so


def test_back_without_a_readable_code_is_identified_from_the_front_fed_in_either_order():
    front, back = page_image("1", 1, "A101", marks=FRONT), page_image("1", 2, "A101")
    pages = _sheet(front, _smudge_code(back))
    r = read_sheet(election(), pages[::-1])  # fed face down: the back's image first
    assert r.ok, r.reason
    assert [p.page for p in r.pages] == [1, 2] and FROM_OTHER_SIDE in r.pages[1].flags


def test_a_page_that_does_not_fit_the_other_sides_layout_stays_rejected():
    # The readable side says page 1; the unreadable one is another page 1 (a mis-assembled sheet):
    # its outlines are not where page 2's layout puts them, so it is not guessed into the sheet.
    front = page_image("1", 1, "A101", marks=FRONT)
    r = read_sheet(election(), _sheet(front, _smudge_code(page_image("1", 1, "A101"))))
    assert not r.ok
    assert r.reason_code == "page_rejected" and "style code" in r.reason


def test_both_codes_unreadable_is_still_rejected():
    front, back = page_image("1", 1, "A101", marks=FRONT), page_image("1", 2, "A101")
    r = read_sheet(election(), _sheet(_smudge_code(front), _smudge_code(back)))
    assert not r.ok and r.reason_code == "page_rejected"
    assert all(p.reason_code == "style_code_unreadable" for p in r.pages)
