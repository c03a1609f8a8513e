"""Template-set accuracy fixes (issue #11): what a scan adds to the blank's print is not a voter's mark.

31 KAR 6:030 Section 3(1)(e) counts "an 'X', a check mark ... or any other
mark indicating the intent of the voter next to the candidate's name or
question choice". The reader looks for such marks in each option's
designated marking area, leaving out the points near the blank's print. These
tests pin down what ``benchmarks/templates_triage.py`` found sending clean
ballots to a person or leaving pages unidentified: fattened print read as ink
beside a name, a marking area reaching across the page to specks by the
timing marks, a rough scan's grain read as erasures, anchors found on the
wrong stretch of a rule, and close templates told apart under a rough scan.
"""

from __future__ import annotations

import numpy as np

from tabulate.templates.importer import ROW_MARGIN_IN, _row_end
from tabulate.templates.spread import CHUNKS, MAX_BANDS, MIN_SPREAD_PX, band_runs, edge_bands, measure_spread

DPI = 200


def _printed_page() -> np.ndarray:
    """A blank at 200 DPI (3 x 2 in): a heading bar, a rule, letters as blocks."""
    img = np.full((400, 600), 255, np.uint8)
    img[40:60, 50:550] = 0  # heading
    img[120:123, 20:580] = 0  # a rule
    for x in range(60, 520, 40):
        img[200:230, x : x + 12] = 0  # letters
        img[300:330, x + 5 : x + 20] = 0
    return img


def _fattened(img: np.ndarray, px: int) -> np.ndarray:
    """Every dark pixel grown by ``px`` pixels: what a rough bitonal scan does to thin print."""
    import cv2

    return cv2.erode(img, np.ones((2 * px + 1, 2 * px + 1), np.uint8))


def _spread(scan: np.ndarray, blank: np.ndarray) -> float:
    xy, band = edge_bands(blank < 128, DPI, [])
    affine = np.array([[DPI, 0.0, 0.0], [0.0, DPI, 0.0]])
    return measure_spread(scan, affine, xy, band, DPI, 255.0, 0.0)


def test_print_spread_is_measured_against_the_blank():
    blank = _printed_page()
    assert _spread(blank, blank) == MIN_SPREAD_PX  # the blank itself: nothing grew
    assert 1.7 <= _spread(_fattened(blank, 2), blank) <= 2.3
    assert 2.7 <= _spread(_fattened(blank, 3), blank) <= 3.3


def test_a_scribble_over_some_print_does_not_move_the_spread():
    blank = _printed_page()
    scan = _fattened(blank, 1)
    scan[190:240, 60:200] = 0  # a voter's scribble over a few letters
    assert 0.7 <= _spread(scan, blank) <= 1.3


def _spread_run_by_run(image, affine, xy, band, blank_dpi, paper, ink) -> float:
    """`measure_spread` as first written (one run and band at a time): the oracle of its bincount form."""
    px = xy @ affine[:, :2].T + affine[:, 2]
    c = np.clip(px[:, 0].astype(np.int64), 0, image.shape[1] - 1)
    r = np.clip(px[:, 1].astype(np.int64), 0, image.shape[0] - 1)
    dark = image[r, c] < paper - 0.25 * (paper - ink)
    order = np.lexsort((xy[:, 0], np.floor(xy[:, 1] * 2)))
    per_run = []
    for run in np.array_split(order, CHUNKS):
        if len(run):
            per_run.append(
                sum(float(dark[run[band[run] == b]].mean()) for b in range(1, MAX_BANDS + 1) if (band[run] == b).any())
            )
    scale = float(np.hypot(affine[0, 0], affine[1, 0]) + np.hypot(affine[0, 1], affine[1, 1])) / 2 / blank_dpi
    return max(MIN_SPREAD_PX, float(np.median(per_run)) * scale)


def test_spread_with_runs_made_once_is_the_run_by_run_figure():
    """The reader makes each template's runs once (`band_runs`); the spread is the same figure."""
    rng = np.random.default_rng(5)
    blank = _printed_page()
    xy, band = edge_bands(blank < 128, DPI, [])
    runs = band_runs(xy)
    for px in (0, 1, 2, 3):
        scan = _fattened(blank, px) if px else blank.copy()
        scan[rng.random(scan.shape) < 0.02] = 0  # specks
        affine = np.array([[DPI * 1.01, 0.02, 1.5], [-0.02, DPI * 0.99, -2.0]])
        want = _spread_run_by_run(scan, affine, xy, band, DPI, 255.0, 0.0)
        assert measure_spread(scan, affine, xy, band, DPI, 255.0, 0.0, runs=runs) == want
        assert measure_spread(scan, affine, xy[:5], band[:5], DPI, 255.0, 0.0) == _spread_run_by_run(
            scan, affine, xy[:5], band[:5], DPI, 255.0, 0.0
        )  # fewer points than runs: the empty runs are no runs


def test_marking_area_ends_past_the_names_row_not_at_the_timing_marks():
    """Section 3(1)(e): "next to the candidate's name"; a speck by the far margin is not next to it."""
    ink = np.zeros((400, 1700), np.uint8)
    ink[100:130, 220:420] = 255  # the name, 1.1 in to 2.1 in
    ink[100:130, 500:560] = 255  # the party, to 2.8 in
    ink[100:130, 1620:1660] = 255  # a timing mark at the page edge
    end = _row_end(ink, DPI, 1.1, 8.2, 0.45, 0.7)
    assert abs(end - (2.8 + ROW_MARGIN_IN)) < 0.01
    assert _row_end(np.zeros_like(ink), DPI, 1.1, 8.2, 0.45, 0.7) == 1.1 + 1.5  # no print: the minimum width
    assert _row_end(ink, DPI, 1.1, 2.0, 0.45, 0.7) == 2.0  # never past the contest's area


def test_registration_fit_ignores_anchors_found_on_the_wrong_stretch_of_a_rule():
    from tabulate.templates.align import fit_affine, trimmed_fit

    rng = np.random.default_rng(11)
    true = np.array([[294.5, 3.7, 62.8], [-3.7, 294.5, 131.9]])
    page = rng.uniform([0.5, 0.5], [8.0, 10.5], size=(16, 2))
    image = page @ true[:, :2].T + true[:, 2] + rng.normal(0, 0.4, size=(16, 2))
    image[[3, 7, 11]] += [68.0, 0.0]  # three anchors slid along a rule, 0.23 in off
    fit, res = trimmed_fit(page, image, 1.8)
    assert np.abs(fit - true).max() < 0.5 and len(res) == 13 and res.max() < 2.0
    plain, _ = fit_affine(page, image)
    assert np.abs(plain - true).max() > 2.0  # what the plain least-squares fit made of it


def test_registration_fit_of_anchors_all_near_a_plain_fit_is_that_fit_and_matches_lstsq():
    from tabulate.templates.align import fit_affine, trimmed_fit

    rng = np.random.default_rng(12)
    true = np.array([[199.1, -2.1, 40.0], [2.1, 200.6, 75.5]])
    page = rng.uniform([0.5, 0.5], [8.0, 13.5], size=(12, 2))
    image = page @ true[:, :2].T + true[:, 2] + rng.normal(0, 0.2, size=(12, 2))
    a = np.column_stack([page, np.ones(len(page))])
    sol, *_ = np.linalg.lstsq(a, image, rcond=None)  # the textbook least squares the fit must equal
    plain, res = fit_affine(page, image)
    assert np.abs(plain - sol.T).max() < 1e-9 and np.abs(res - np.hypot(*(a @ sol - image).T)).max() < 1e-9
    fit, kept = trimmed_fit(page, image, 1.2)
    assert np.array_equal(fit, plain) and len(kept) == 12  # every anchor near: nothing to trim


def _features(erasure: list[float], score: float = 0.01) -> np.ndarray:
    from tabulate.kernels.points import FEATURES, F

    f = np.zeros((len(erasure), len(FEATURES)))
    f[:, F["score"]] = score
    f[:, F["erasure"]] = erasure
    return f


def test_erasure_bar_follows_the_pages_own_blank_targets():
    """Section 3(3)(a) erasures still go to a person; a rough scan's grain alone does not."""
    from tabulate.detect.classify import scan_class
    from tabulate.detect.settings import DEFAULT_SETTINGS
    from tabulate.election.model import Thresholds
    from tabulate.templates.noise import page_settings

    th = Thresholds(0.035, 0.18)
    rng = np.random.default_rng(3)
    grain = list(np.clip(rng.normal(0.08, 0.01, 40), 0, 1))  # rough grey scan: blank interiors 8 % light residue
    rough = page_settings(_features(grain), th, DEFAULT_SETTINGS)
    assert rough.erased > max(grain) > DEFAULT_SETTINGS.erased
    blank = _features([max(grain)])[0]
    assert scan_class(blank, th, DEFAULT_SETTINGS) == "marginal"  # the fixed bar: sent for nothing
    assert scan_class(blank, th, rough) == "unmarked"
    erased = _features([0.4])[0]
    assert scan_class(erased, th, rough) == "marginal"
    clean = page_settings(_features([0.0] * 40), th, DEFAULT_SETTINGS)
    assert clean is DEFAULT_SETTINGS  # a clean scan: the fixed setting stands
    few = page_settings(_features(grain[:4]), th, DEFAULT_SETTINGS)
    assert few is DEFAULT_SETTINGS  # too few blank targets to tell grain from marks


def test_page_told_from_a_close_template_by_what_differs_under_a_rough_scan():
    """Two styles' blanks differ in one name: a grainy, blurred page of the first must still be told
    apart by matching (its code scratched out), and a page showing neither name must not."""
    import cv2

    from tabulate.templates.likeness import differs_toward as _differs_toward

    rng = np.random.default_rng(8)
    a = np.zeros((120, 100), np.float32)
    a[20:24, 10:90] = 255  # shared print: a rule
    b = a.copy()
    a[50:56, 20:40] = 255  # style A's name
    b[50:56, 55:80] = 255  # style B's name in its place
    page = cv2.GaussianBlur(a * 0.7 + 25, (0, 0), 1.2) + rng.normal(0, 18, a.shape).astype(np.float32)
    assert _differs_toward(page, a, b) > 0.3
    assert _differs_toward(page, b, a) < -0.3
    neither = cv2.GaussianBlur(np.where(a == b, a, 0) * 0.7 + 25, (0, 0), 1.2) + rng.normal(0, 18, a.shape)
    assert abs(_differs_toward(neither.astype(np.float32), a, b)) < 0.3
    assert _differs_toward(page, a, a) == 0.0  # identical blanks: nothing tells them apart


def test_page_frame_on_the_blanks_levels_is_the_warped_page_rescaled_paper_0_print_255():
    import cv2

    from tabulate.detect.register import Registration
    from tabulate.templates.matching import frame_as_blank

    rng = np.random.default_rng(5)
    half = rng.integers(0, 256, (600, 450), dtype=np.uint8)
    affine = np.array([[49.8, 0.9, 7.3], [-0.9, 50.2, 11.1]])  # page inches -> half-image pixels
    m = np.vstack([affine, [0, 0, 1]]) @ np.diag([1 / 50, 1 / 50, 1.0])
    warped = cv2.warpAffine(half, m[:2], (425, 550), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=255)
    for paper, ink in ((230.0, 40.0), (250.5, 20.25)):
        reg = Registration(affine, 0, 0.0, (1.0, 1.0), 100.0, 0.0, paper, ink, 0.5, ())
        want = np.clip(((255 - warped.astype(np.float64)) - (255 - paper)) * 255 / (paper - ink), 0, 255)
        got = frame_as_blank(half, affine, 8.5, 11.0, reg)
        assert got.shape == (550, 425) and np.abs(got - want).max() < 1e-3
    faint = Registration(affine, 0, 0.0, (1.0, 1.0), 100.0, 0.0, 200.0, 180.0, 0.5, ())  # print hardly seen
    assert np.array_equal(frame_as_blank(half, affine, 8.5, 11.0, faint), 255.0 - warped.astype(np.float32))
