"""Draw a reading onto its page image: every target outlined, coloured by class, labelled with its score."""

from __future__ import annotations

import math

import cv2
import numpy as np

from ..election.layout import PageLayout, layout_style
from ..election.model import Election
from .reading import PageReading

#: BGR colours by scanner class.
COLOURS = {"marked": (40, 160, 40), "marginal": (0, 140, 255), "unmarked": (150, 150, 150)}
REJECTED = (30, 30, 220)


def _outline_in(shape: str, x: float, y: float, w: float, h: float) -> np.ndarray:
    if shape == "oval":
        t = np.linspace(0, 2 * math.pi, 40, endpoint=False)
        return np.column_stack([x + w / 2 + w / 2 * np.cos(t), y + h / 2 + h / 2 * np.sin(t)])
    return np.array([(x, y), (x + w, y), (x + w, y + h), (x, y + h)])


def annotate_page(
    election: Election, image: np.ndarray, reading: PageReading, layout: PageLayout | None = None
) -> np.ndarray:
    """A BGR copy of ``image`` with the reading drawn on it (a rejected page: its reason).

    ``layout`` is the page's layout when it is not our own (a template set's page).
    """
    out = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    scale = max(0.4, image.shape[1] / 2400)
    if not reading.ok:
        cv2.putText(
            out,
            f"REJECTED {reading.reason_code}",
            (20, int(60 * scale)),
            cv2.FONT_HERSHEY_SIMPLEX,
            1.2 * scale,
            REJECTED,
            2,
            cv2.LINE_AA,
        )
        cv2.putText(
            out,
            (reading.reason or "")[:110],
            (20, int(100 * scale)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.7 * scale,
            REJECTED,
            1,
            cv2.LINE_AA,
        )
        return out
    a = np.array(reading.transform).reshape(2, 3)
    layout = layout or layout_style(election, reading.style_id).pages[reading.page - 1]
    for t, r in zip(layout.targets, reading.targets):
        b = t.bounds
        pts = _outline_in(t.shape, b.x, b.y, b.w, b.h)
        px = pts @ a[:, :2].T + a[:, 2] + (r.feature("dx_px"), r.feature("dy_px"))
        colour = COLOURS[r.scan]
        cv2.polylines(out, [np.round(px).astype(np.int32)], True, colour, 2, cv2.LINE_AA)
        label = f"{r.score:.2f}" + ("" if r.hand == r.scan else f" h:{r.hand[:4]}")
        anchor = np.array([b.x, b.y - 0.02]) @ a[:, :2].T + a[:, 2]
        cv2.putText(
            out,
            label,
            tuple(int(v) for v in anchor),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.45 * scale * 2,
            colour,
            1,
            cv2.LINE_AA,
        )
    return out
