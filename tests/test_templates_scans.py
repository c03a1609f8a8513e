"""Scans real scanners make that our simulator does not (issue #11, `benchmarks/templates_variants.py`).

Each test is one page that the reader got wrong before it was fixed: a scan
area larger than the page (the scanner's black background above and below
the paper) read every column as a scanner streak and every mark as paper.
"""

from __future__ import annotations

import numpy as np

from tabulate.detect.streaks import streak_columns

DPI = 100


def _page_with_a_streak(border_in: float) -> np.ndarray:
    """A 4 x 6 in page at 100 DPI: paper 245, a printed line of text, one dust streak down column 200;
    on a black background ``border_in`` deep above and below it."""
    page = np.full((600, 400), 245, np.uint8)
    page[300:310, 50:350] = 20  # print
    page[:, 200] = 150  # the streak: the whole height of the image
    b = round(border_in * DPI)
    out = np.full((600 + 2 * b, 400), 18, np.uint8)
    out[b : b + 600] = page
    out[:, 200] = np.where(out[:, 200] > 100, 150, out[:, 200])
    return out


def test_a_streak_is_found_below_the_scanners_black_background_and_the_background_is_no_streak():
    """The streak bands are the paper's first and last 0.03-0.15 in, not the image's: with 0.3 in of
    black above and below the page, every column used to read as a streak, so the target kernel
    skipped them all and every mark on the page read as unmarked."""
    for border in (0.0, 0.3):
        got = streak_columns(_page_with_a_streak(border), DPI, 245.0, 20.0)
        assert np.flatnonzero(got).tolist() == [200], border
