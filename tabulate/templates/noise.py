"""A scan's paper noise: how much light residue a blank target shows on this page.

31 KAR 6:030 Section 3(3)(a): a pencil mark the voter erased is not a vote,
and the scanner cannot tell an erasure from a faint vote; the reader sends a
target with light residue over `ReadSettings.erased` of its interior to a
person (`tabulate.detect.classify.scan_class`). On a rough grey scan of a
foreign ballot (dark, grainy paper, 300 DPI) a tenth of a *blank* target's
interior already falls in that light band, and every ballot would go to a
person for nothing. So, as `tabulate.detect.classify.page_floor` does for
the fill score, the page's own blank targets set the bar: the erasure
feature's median over the targets below the marginal threshold, plus
`NOISE_SIGMAS` robust deviations, plus `RESIDUE_ABOVE_NOISE`. On a clean scan
that is below the fixed setting and nothing changes.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..detect.settings import ReadSettings
from ..election.model import Thresholds
from ..kernels.points import F
from .align import median

#: Robust deviations (1.4826 x MAD) above the blank targets' median.
NOISE_SIGMAS = 6.0
#: How much more of the interior an erasure must cover than the page's noise.
RESIDUE_ABOVE_NOISE = 0.02
#: Fewer blank targets than this on a page: too few to tell noise from marks; the fixed setting stands.
MIN_BLANK_TARGETS = 6


def erasure_floor(features: np.ndarray, thresholds: Thresholds) -> float:
    """The light-residue share a blank target of this page reaches (0 when there are too few blanks)."""
    if len(features) == 0:
        return 0.0
    low = features[features[:, F["score"]] < thresholds.marginal, F["erasure"]]
    if len(low) < MIN_BLANK_TARGETS:
        return 0.0
    med = median(low)  # np.median bit for bit, without its overhead (two calls were 0.1 ms a page)
    mad = median(np.abs(low - med))
    return med + NOISE_SIGMAS * 1.4826 * mad + RESIDUE_ABOVE_NOISE


def page_settings(features: np.ndarray, thresholds: Thresholds, settings: ReadSettings) -> ReadSettings:
    """``settings`` with the erasure share raised to the page's noise (`erasure_floor`), never lowered."""
    floor = erasure_floor(features, thresholds)
    return settings if floor <= settings.erased else replace(settings, erased=round(floor, 4))
