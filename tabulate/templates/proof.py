"""The proof picture of an imported page: every target outlined and labelled with its contest and option.

A person checks it against the election before the election: contest areas
in blue, targets in red with ``contest / option``, designated marking areas
in light grey, write-in areas in green. Drawn at `PROOF_DPI` to keep the file small.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..election.layout import PageLayout

PROOF_DPI = 150


def proof_image(blank: np.ndarray, dpi: float, layout: PageLayout) -> np.ndarray:
    """A BGR picture of the blank with the layout drawn on it."""
    f = PROOF_DPI / dpi
    small = cv2.resize(blank, (round(blank.shape[1] * f), round(blank.shape[0] * f)), interpolation=cv2.INTER_AREA)
    out = cv2.cvtColor(small, cv2.COLOR_GRAY2BGR)
    s = PROOF_DPI

    def box(r, colour, width=1):
        cv2.rectangle(out, (int(r.x * s), int(r.y * s)), (int(r.right * s), int(r.bottom * s)), colour, width)

    for _cid, r in layout.contest_boxes:
        box(r, (200, 90, 0), 2)
    for t in layout.targets:
        box(t.marking_area, (190, 190, 190))
        if t.write_in_area is not None:
            box(t.write_in_area, (60, 170, 60))
        box(t.bounds, (0, 0, 220), 2)
        label = f"{t.contest_id} / {t.option_id}"
        cv2.putText(
            out,
            label,
            (int(t.marking_area.x * s) + 2, int(t.bounds.bottom * s) + 9),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.3,
            (0, 0, 200),
            1,
            cv2.LINE_AA,
        )
    if layout.style_code.w > 0:
        box(layout.style_code, (160, 0, 160), 2)
    cv2.putText(
        out,
        f"style {layout.style_id} page {layout.page}: {len(layout.targets)} targets",
        (10, 20),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.6,
        (0, 0, 200),
        1,
        cv2.LINE_AA,
    )
    return out
