"""The target kernel agrees with its numpy twin, and measures what it says it measures."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from test_detect_support import election, page_image, scan, turn

from tabulate.detect.register import register_page
from tabulate.detect.template import page_template
from tabulate.kernels import AREA_NOT_READ, FEATURES, F, TargetPoints, offsets_by_distance, reference, score_targets

MARKS = (
    ("straight-party", "DEM", "fill"),
    ("president", "pres-hale", "half"),
    ("president", "pres-okafor", "circle"),
    ("us-senate", "sen-caldwell", "beside"),
    ("us-house-6", "house-king", "line"),
    ("state-senate-7", "ss-mullins", "x"),
    ("state-rep-56", "sr56-boone", "light"),
    ("us-senate", "write-in-1", "write"),
)
KW = dict(split=0.25, residue=0.08, min_hits=2)
_GREY = scan(page_image(marks=MARKS), angle=0.8, paper=236, ink=22, blur=0.6)
_MARKED_SCAN = {"grey": _GREY, "bitonal": np.where(_GREY < 128, 0, 255).astype(np.uint8)}


def _both(img, **extra):
    reg = register_page(img, 8.5, 11.0)
    tpl = page_template(election(), "1", 1, 200)
    kw = dict(KW, paper=reg.paper, ink=reg.ink, offsets=offsets_by_distance(2), **extra)
    return score_targets(img, reg.affine, tpl.points, **kw), reference.score_targets(img, reg.affine, tpl.points, **kw)


@pytest.mark.parametrize("case", ["square", "rotated_2deg_scaled", "upside_down_noisy", "quarter_turn_bitonal"])
def test_kernel_agrees_with_reference(case):
    img = page_image(marks=MARKS)
    if case == "rotated_2deg_scaled":
        img = scan(img, angle=2.0, scale=1.02, shift_px=(5, -7), paper=235, ink=25, blur=0.8)
    elif case == "upside_down_noisy":
        img = turn(scan(img, angle=-1.0, paper=228, ink=30, noise=5, seed=3), 2)
    elif case == "quarter_turn_bitonal":
        img = turn(np.where(scan(img, angle=0.7, blur=1.0) < 128, 0, 255).astype(np.uint8), 1)
    skip = np.zeros(img.shape[1], bool)
    skip[200:204] = True  # a streak through the first column of targets
    wanted = np.arange(41) % 5 != 3  # some targets' marking areas not wanted at all
    for extra in (
        {},
        {"skip_cols": skip, "area_margin": 0.012},
        {"area_wanted": wanted, "area_decided": (0.5, 0.2)},  # the reader's: thresholds.definite, settings.stroke
    ):
        fast, slow = _both(img, **extra)
        assert_allclose(fast, slow, rtol=1e-9, atol=1e-12)
        assert fast.shape == (41, len(FEATURES))


def test_filled_target_scores_high_and_blank_targets_score_zero():
    fast, _ = _both(scan(page_image(marks=MARKS), angle=1.5, paper=240, ink=20, blur=0.7))
    tpl = page_template(election(), "1", 1, 200)
    by = {(t.contest_id, t.option_id): f for t, f in zip(tpl.targets, fast)}
    assert by[("straight-party", "DEM")][F["score"]] > 0.85
    assert 0.45 < by[("president", "pres-hale")][F["score"]] < 0.75
    marked = {(c, o) for c, o, _k in MARKS}
    blanks = [f[F["score"]] for k, f in by.items() if k not in marked]
    # the printed outline is never scored: blank ovals read as paper after the local search
    assert max(blanks) < 0.02


def test_features_see_the_circle_the_x_by_the_name_the_line_and_the_write_in():
    fast, _ = _both(scan(page_image(marks=MARKS), angle=-1.0, paper=238, ink=18))
    tpl = page_template(election(), "1", 1, 200)
    by = {(t.contest_id, t.option_id): f for t, f in zip(tpl.targets, fast)}
    assert by[("president", "pres-okafor")][F["ring"]] > 0.9
    assert by[("president", "pres-okafor")][F["score"]] < 0.02
    assert by[("us-senate", "sen-caldwell")][F["marking"]] > 0.02
    assert by[("us-house-6", "house-king")][F["crossings"]] == 2
    assert by[("state-senate-7", "ss-mullins")][F["crossings"]] == 4
    assert by[("us-senate", "write-in-1")][F["write_in"]] > 0.02
    assert by[("state-rep-56", "sr56-boone")][F["erasure"]] > 0.8  # light grey: residue, not dark
    untouched = by[("us-senate", "sen-brennan")]
    assert untouched[F["ring"]] == 0 and untouched[F["marking"]] == 0 and untouched[F["crossings"]] == 0


def test_local_search_absorbs_a_two_pixel_misregistration():
    img = page_image(marks=MARKS)
    reg = register_page(img, 8.5, 11.0)
    shifted = reg.affine.copy()
    shifted[:, 2] += (2.0, -1.0)  # the transform is off by (2, -1) px
    tpl = page_template(election(), "1", 1, 200)
    kw = dict(KW, paper=reg.paper, ink=reg.ink, offsets=offsets_by_distance(2))
    base = score_targets(img, reg.affine, tpl.points, **kw)
    moved = score_targets(img, shifted, tpl.points, **kw)
    assert_allclose(moved[:, F["score"]], base[:, F["score"]], atol=0.03)
    blank = base[:, F["score"]] < 0.02  # a filled target matches its outline anywhere nearby
    assert np.all(moved[blank, F["dx_px"]] == base[blank, F["dx_px"]] - 2)
    assert np.all(moved[blank, F["dy_px"]] == base[blank, F["dy_px"]] + 1)


def test_offsets_are_nearest_first():
    off = offsets_by_distance(2)
    d = off[:, 0] ** 2 + off[:, 1] ** 2
    assert tuple(off[0]) == (0, 0) and np.all(np.diff(d) >= 0) and len(off) == 21


def test_wrapper_checks_its_inputs():
    tpl = page_template(election(), "1", 1, 200)
    img = page_image()
    a = np.array([[200.0, 0, 0], [0, 200.0, 0]])
    good = dict(paper=250.0, ink=10.0, split=0.25, residue=0.08, offsets=offsets_by_distance(1))
    with pytest.raises(ValueError, match="uint8"):
        score_targets(img.astype(np.float32), a, tpl.points, **good)
    with pytest.raises(ValueError, match="affine"):
        score_targets(img, a[:, :2], tpl.points, **good)
    with pytest.raises(ValueError, match="lighter"):
        score_targets(img, a, tpl.points, **(good | {"paper": 5.0}))
    with pytest.raises(ValueError, match="residue"):
        score_targets(img, a, tpl.points, **(good | {"residue": 0.5}))


def test_point_sets_must_fit_together():
    tpl = page_template(election(), "1", 1, 200)
    p = tpl.points
    bad = TargetPoints(**{**p.__dict__, "outline_ptr": p.outline_ptr[:-1]})
    with pytest.raises(ValueError, match="outline_ptr"):
        bad.check()


def test_a_page_with_no_targets_scores_nothing():
    tpl = page_template(election(), "2", 2, 200)  # style 2 has an empty back
    assert tpl.points.n_targets == 0
    out = score_targets(
        page_image("2", 2, "B201"),
        np.array([[200.0, 0, 0], [0, 200.0, 0]]),
        tpl.points,
        paper=255.0,
        ink=0.0,
        split=0.25,
        residue=0.08,
        offsets=offsets_by_distance(2),
    )
    assert out.shape == (0, len(FEATURES))


def test_deep_feature_tells_dark_ink_from_a_light_fill():
    fast, _ = _both(scan(page_image(marks=MARKS), angle=0.5, paper=240, ink=20))
    tpl = page_template(election(), "1", 1, 200)
    by = {(t.contest_id, t.option_id): f for t, f in zip(tpl.targets, fast)}
    assert by[("straight-party", "DEM")][F["deep"]] > 0.8  # filled with ink 20: darkens the paper ~90 %
    light = by[("state-rep-56", "sr56-boone")]  # filled with grey 200: ~1 - 200 / 240 of the paper
    assert 0.1 < light[F["deep"]] < 0.25  # 1 - 200 / 240 = 0.17, over print's 1 - 20 / 240
    assert by[("us-senate", "sen-brennan")][F["deep"]] < 0.05  # untouched


def test_marking_area_is_read_only_where_the_target_alone_does_not_decide():
    """31 KAR 6:030 §3(1)(e): "an 'X', a check mark ... next to the candidate's name" is a vote in a hand count.

    A target whose interior decides it (filled, or a mark in it) gets `AREA_NOT_READ`; every
    other wanted area is read exactly as before, the X on an empty target's name included.
    """
    img = scan(page_image(marks=MARKS), angle=-1.0, paper=238, ink=18)
    tpl = page_template(election(), "1", 1, 200)
    everything, _ = _both(img)
    wanted = np.array([t.kind != "write_in" for t in tpl.targets])
    fast, slow = _both(img, area_wanted=wanted, area_decided=(0.5, 0.2))
    assert_allclose(fast, slow, rtol=1e-9, atol=1e-12)
    decided = (everything[:, F["score"]] >= 0.5) | (everything[:, F["dark"]] >= 0.2) | ~wanted
    assert decided.sum() >= 4 and (~decided).sum() >= 25
    assert np.all(fast[decided, F["marking"]] == AREA_NOT_READ)
    others = [i for i in range(len(FEATURES)) if i != F["marking"]]
    assert np.array_equal(fast[:, others], everything[:, others])  # nothing else moves
    assert np.array_equal(fast[~decided, F["marking"]], everything[~decided, F["marking"]])
    by = {(t.contest_id, t.option_id): f for t, f in zip(tpl.targets, fast)}
    assert by[("us-senate", "sen-caldwell")][F["score"]] < 0.02  # an empty target ...
    assert by[("us-senate", "sen-caldwell")][F["marking"]] > 0.02  # ... with an X on its name: still seen
    assert by[("straight-party", "DEM")][F["marking"]] == AREA_NOT_READ  # filled: decided by itself


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    st.floats(0.0, 1.2),
    st.floats(0.0, 1.2),
    st.lists(st.booleans(), min_size=41, max_size=41),
    st.sampled_from(["grey", "bitonal"]),
)
def test_skipped_marking_areas_agree_with_the_twin(score_min, dark_min, wanted, kind):
    img = _MARKED_SCAN[kind]
    fast, slow = _both(img, area_wanted=np.array(wanted), area_decided=(score_min, dark_min))
    assert_allclose(fast, slow, rtol=1e-9, atol=1e-12)
    skipped = ~np.array(wanted) | (fast[:, F["score"]] >= score_min) | (fast[:, F["dark"]] >= dark_min)
    assert np.all((fast[:, F["marking"]] == AREA_NOT_READ) == skipped)
