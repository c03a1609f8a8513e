"""Error-diffused bitonal scans back to grey: the template reader uses the native reader's own check.

The detection and the blur live in `tabulate.detect.dither`, which both readers import (our own
ballots scanned in a scanner's error-diffusion mode lost their corner marks: every page refused).
"""

from __future__ import annotations

from ..detect.dither import ISOLATED_MIN, SIGMA_PX, STEP, isolated_share, undither

__all__ = ["ISOLATED_MIN", "SIGMA_PX", "STEP", "isolated_share", "undither"]
