"""The scanner reading's tests on feature rows: light ink, and faint residue against the page's noise."""

from __future__ import annotations

import math

import pytest

from tabulate.detect.classify import page_floor, scan_class, size_thresholds, stroke_share
from tabulate.detect.settings import DEFAULT_SETTINGS as S
from tabulate.election import Thresholds
from tabulate.kernels import FEATURES, F

TH = Thresholds()


def row(score=0.0, dark=0.0, erasure=0.0, deep=0.0, crossings=0.0):
    f = [0.0] * len(FEATURES)
    for name, v in (("score", score), ("dark", dark), ("erasure", erasure), ("deep", deep), ("crossings", crossings)):
        f[F[name]] = v
    f[F["paper"]] = 240.0
    return f


def test_a_dense_fill_in_dark_ink_is_marked():
    assert scan_class(row(score=0.45, dark=1.0, deep=0.45), TH, S) == "marked"


def test_a_dense_fill_in_light_ink_goes_to_a_person():
    # a light pencil: the score passes `definite` and every pixel is past the split, but no pixel is
    # as dark as a pencil stroke
    assert scan_class(row(score=0.28, dark=1.0, deep=0.27), TH, S) == "marginal"
    assert scan_class(row(score=0.28, dark=1.0, deep=S.light_ink), TH, S) == "marked"


def test_page_floor_is_the_blank_median_plus_its_spread():
    quiet = [row(score=0.0)] * 20 + [row(score=0.9, dark=1.0, deep=0.9)] * 5
    assert page_floor(quiet, TH, S) == 0.0
    noisy = [row(score=0.004 + 0.001 * (k % 5)) for k in range(20)]
    level = page_floor(noisy, TH, S)
    assert 0.006 < level < 0.02
    assert page_floor([row(score=0.9, dark=1.0)], TH, S) == 0.0  # nothing blank: no level


def test_faint_residue_above_the_page_noise_goes_to_a_person():
    faint = row(score=0.02)  # below `marginal`, no dark pixel, residue under `erased`
    assert scan_class(faint, TH, S) == "unmarked"  # without the page's level: the old reading
    assert scan_class(faint, TH, S, floor=0.0) == "marginal"  # a clean page: stands out
    assert scan_class(faint, TH, S, floor=0.015) == "unmarked"  # a noisy scan: within its noise
    assert scan_class(row(score=0.005), TH, S, floor=0.0) == "unmarked"


def test_an_x_on_a_small_box_goes_to_a_person_when_two_arms_or_none_are_seen():
    """31 KAR 6:030 Section 3(1)(e) counts an X by hand; Section 2(1)(a) asks the scanner for a box
    *filled in*. A box's printed frame is left out of the band round it, so an X's four arms often
    show as two crossings or none (arrows benchmark: X on the question boxes, dark 0.5-0.65, read
    marked); its thin strokes' soft edges leave light residue a fill does not."""
    x_two_arms = row(score=0.45, dark=0.6, erasure=0.1, deep=0.85, crossings=2)
    assert scan_class(x_two_arms, TH, S, "box") == "marginal"
    assert scan_class(row(score=0.45, dark=0.6, erasure=0.07, deep=0.85), TH, S, "box") == "marginal"
    assert scan_class(row(score=0.45, dark=0.6, erasure=0.025, deep=0.85, crossings=2), TH, S, "box") == "marked"
    assert scan_class(row(score=0.8, dark=0.95, erasure=0.1, deep=0.9, crossings=3), TH, S, "box") == "marked"
    assert scan_class(x_two_arms, TH, S, "oval") == "marked"  # an oval's X is four crossings (`x_full`)


SMALL = (0.15, 0.10)  # a vendor's small oval (docs/templates.md "Variants")
LARGE = (0.24, 0.15)  # our own ovals


def test_an_x_or_a_check_on_a_small_oval_goes_to_a_person():
    """31 KAR 6:030 Section 3(1)(e): "There is an 'X', a check mark ... next to the candidate's name"
    is a vote in a hand count; the scanner sends such marks to a person, as it cannot tell them from
    "Filling in the oval" (Section 2(1)(a)) alone. On a 0.15 x 0.10 in oval a pen's X darkens 0.52-0.82
    of the interior and a check 0.23-0.61 (small-oval variant, 60 sheets): above the thresholds set on
    large ovals, so both were read marked by scan and hand alike and reached no one."""
    x_small = row(score=0.48, dark=0.75, erasure=0.1, deep=0.87, crossings=4)
    check_small = row(score=0.42, dark=0.56, erasure=0.07, deep=0.91, crossings=1)
    assert scan_class(x_small, TH, S) == "marked"  # the old reading: no size given
    assert scan_class(x_small, TH, S, size_in=SMALL) == "marginal"
    assert scan_class(check_small, TH, S, size_in=SMALL) == "marginal"
    assert scan_class(x_small, TH, S, size_in=LARGE) == "marked"  # that much ink is a fill on a large oval
    assert scan_class(check_small, TH, S, size_in=LARGE) == "marked"
    fill = row(score=0.85, dark=1.0, deep=0.88, crossings=2)
    assert scan_class(fill, TH, S, size_in=SMALL) == "marked"
    assert scan_class(fill, TH, S, size_in=(0.08, 0.06)) == "marked"  # a full fill still reads on a tiny target


@pytest.mark.parametrize(
    "shape, size",
    [
        ("oval", (0.24, 0.15)),
        ("oval", (0.225, 0.135)),
        ("oval", (0.36, 0.13)),
        ("box", (0.16, 0.16)),
        ("box", (0.2, 0.14)),
    ],
)
def test_the_thresholds_do_not_move_on_targets_they_were_measured_on(shape, size):
    t = size_thresholds(S, shape, size)
    assert (t.majority, t.x_full, t.box_x_full) == (S.majority, S.x_full, S.box_x_full)


def strokes(dark: float, c: float) -> float:
    """How many strokes each covering ``c`` of an interior darken ``dark`` of it."""
    return math.log(1 - dark) / math.log(1 - c)


def test_the_thresholds_are_the_same_number_of_pen_strokes_at_every_size():
    """n strokes each covering a share c of the interior darken 1 - (1 - c) ** n of it: a threshold
    counted in strokes at the reference size is counted in the same strokes on a smaller target."""
    c0 = stroke_share("oval", *S.ref_oval_in, S.stroke_in)
    n_x, n_major = strokes(S.x_full, c0), strokes(S.majority, c0)
    last = S.x_full
    for w, h in ((0.2, 0.125), (0.18, 0.12), (0.15, 0.10), (0.12, 0.08)):
        t, c = size_thresholds(S, "oval", (w, h)), stroke_share("oval", w, h, S.stroke_in)
        assert strokes(t.x_full, c) == pytest.approx(n_x) and strokes(t.majority, c) == pytest.approx(n_major)
        assert last < t.x_full < 1.0 and t.majority < t.x_full
        last = t.x_full
    assert 1 - (1 - stroke_share("oval", *SMALL, S.stroke_in)) ** 2 < size_thresholds(S, "oval", SMALL).x_full
