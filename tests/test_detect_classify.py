"""The scanner reading's tests on feature rows: light ink, and faint residue against the page's noise."""

from __future__ import annotations

from tabulate.detect.classify import page_floor, scan_class
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
