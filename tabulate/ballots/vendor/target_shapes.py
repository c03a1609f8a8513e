"""A vendor ballot's voting targets: where an oval, box or arrow sits on its row, and how it is drawn."""

from __future__ import annotations

from dataclasses import replace

from ...election.geometry import Rect
from .design import Design

#: A number or letter printed inside a target (``Design.target_text``), in points.
LABEL_PT = 6.0


def target_rect(d: Design, shape: str, x: float, y_mid: float) -> Rect:
    w, h = (0.2, 0.14) if shape == "box" else d.target
    return Rect(x, y_mid - h / 2, w, h)


def draw_target(items: list, d: Design, shape: str, b: Rect, n: int = 0) -> None:
    if d.target_rgb is not None and shape != "arrow":  # printed in a drop-out colour (`draw.print_page`)
        mine: list = []
        draw_target(mine, replace(d, target_rgb=None), shape, b, n)
        items.extend(("target", it) for it in mine)
        return
    if d.target_text and shape != "arrow":  # a number or a letter inside the target
        label = str(n + 1) if d.target_text == "number" else "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[n % 26]
        items.append(("text_m", b.x + b.w / 2, b.y + b.h / 2, label, LABEL_PT, False))
    if shape == "oval" and d.target_corner_in > 0:  # a rounded rectangle (some vendors' "oval")
        items.append(("rrect", b.x, b.y, b.w, b.h, d.outline_in, d.target_corner_in))
    elif shape == "oval":
        items.append(("oval", b.x, b.y, b.w, b.h, d.outline_in))
    elif shape == "box":
        items.append(("frame", b.x, b.y, b.w, b.h, d.outline_in))
    else:  # a tail left of the gap, a head right of it: the voter joins them
        cy = b.y + b.h / 2
        items.append(("rect", b.x - 0.16, cy - 0.022, 0.16, 0.044))
        hx = b.right
        items.append(
            (
                "poly",
                (
                    (hx, cy - 0.022),
                    (hx + 0.06, cy - 0.022),
                    (hx + 0.06, cy - 0.065),
                    (hx + 0.16, cy),
                    (hx + 0.06, cy + 0.065),
                    (hx + 0.06, cy + 0.022),
                    (hx, cy + 0.022),
                ),
            )
        )
