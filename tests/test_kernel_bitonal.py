"""On a bitonal page the reader's fill score is already a count of black pixels (docs/perf.md, branch g4bits).

31 KAR 6:030 Section 3(1): "The following marks made by a voter shall
constitute a vote ... (a) The majority of an oval, box, or space designating a
candidate or question choice is filled in". On a bitonal (G4) page the
target kernel's fill score and dark fraction of an oval or box are exactly the
share of the interior's points whose pixel is black (`reference.black_shares`,
a count with no grey level in it), so the hand count's "majority filled" is a
majority of black pixels, and a separate bitonal reader counting them would
read the same numbers: it was measured, not built (docs/perf.md).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_detect_support import election, page_image, scan, turn
from test_kernels import MARKS as KERNEL_MARKS

from tabulate.detect.classify import hand_classes
from tabulate.detect.register import register_page
from tabulate.detect.settings import DEFAULT_SETTINGS
from tabulate.detect.template import page_template
from tabulate.kernels import F, offsets_by_distance, reference, score_targets

# The marks test_kernels draws, but for the write-in: a bitonal count of every kind of mark.
MARKS = tuple(m for m in KERNEL_MARKS if m[2] != "write")


@settings(max_examples=12, deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from(MARKS), max_size=5, unique=True),
    st.floats(-2.0, 2.0),
    st.floats(0.98, 1.02),
    st.floats(0.0, 1.2),  # blur before the scanner's threshold: thicker or thinner print and marks
    st.integers(90, 200),  # the scanner's threshold
    st.floats(0.0, 0.02),  # specks: black pixels scattered over the page
    st.integers(0, 3),  # quarter turns
    st.booleans(),  # a streak through the first column of targets
    st.integers(0, 2**31 - 1),
)
def test_the_fill_score_of_a_bitonal_page_is_its_share_of_black_pixels(
    marks, angle, scale, blur, level, specks, turns, streak, seed
):
    rng = np.random.default_rng(seed)
    grey = scan(page_image(marks=tuple(marks)), angle=angle, scale=scale, blur=blur)
    page = np.where(grey < level, 0, 255).astype(np.uint8)
    page[rng.random(page.shape) < specks] = 0
    page = turn(page, turns)
    reg = register_page(page, 8.5, 11.0)
    tpl = page_template(election(), "1", 1, 200)
    skip = np.zeros(page.shape[1], bool)
    if streak:
        skip[200:204] = True
    for paper, ink in ((reg.paper, reg.ink), (float(rng.uniform(128, 255)), float(rng.uniform(0, 60)))):
        got = score_targets(
            page,
            reg.affine,
            tpl.points,
            paper=paper,
            ink=ink,
            split=0.25,
            residue=0.08,
            offsets=offsets_by_distance(2),
            skip_cols=skip,
        )
        at = got[:, [F["dx_px"], F["dy_px"]]].astype(np.int64)
        shares = reference.black_shares(page, reg.affine, tpl.points, at, skip)
        ovals = np.array([t.shape != "arrow" for t in tpl.targets])
        assert np.array_equal(got[ovals, F["score"]], shares[ovals])  # exactly: a count over the points
        assert np.array_equal(got[ovals, F["dark"]], shares[ovals])
        assert not got[:, F["erasure"]].any()  # no grey level between ink and paper: no light residue
        hands = hand_classes(
            got.tolist(),
            [t.contest_id for t in tpl.targets],
            [t.kind for t in tpl.targets],
            election().thresholds,
            DEFAULT_SETTINGS,
        )
        majority = [any("s3(1)(a)" in c for c in clauses) for _hand, clauses in hands]
        assert majority == list(shares >= DEFAULT_SETTINGS.majority)


def test_a_filled_oval_is_all_black_and_an_empty_one_none():
    page = np.where(page_image(marks=(MARKS[0],)) < 128, 0, 255).astype(np.uint8)
    reg = register_page(page, 8.5, 11.0)
    tpl = page_template(election(), "1", 1, 200)
    at = np.zeros((tpl.points.n_targets, 2), np.int64)
    shares = dict(
        zip(
            ((t.contest_id, t.option_id) for t in tpl.targets), reference.black_shares(page, reg.affine, tpl.points, at)
        )
    )
    assert shares[("straight-party", "DEM")] == 1.0
    assert shares[("president", "pres-hale")] == 0.0
