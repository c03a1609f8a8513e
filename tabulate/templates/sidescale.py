"""A sheet's two sides were fitted at the same scale, or one of the fits is wrong.

A template page's fit can keep many of its printed anchors, pass the residual,
scale and skew checks, and still place the page wrong: arrows sheet 862 (seed
2026, docs/templates.md "A fit from too few anchors") fitted its back 0.4 %
narrow (x 0.996) where its front read 1.005, and a light pencil mark there read
marked. Both sides of a sheet pass the scanner in one feed, at one resolution,
so their pages come out the same number of pixels to the inch, within what the
fit itself can tell apart. A sheet whose sides differ by more is not counted
silently: it goes to a person (``sides_scale_differ``).

31 KAR 6:030 Section 2(1)(a) counts "Filling in the oval or box or connecting
the arrow next to the candidate's name": a reader that cannot say where the
page lies cannot say which target was filled.

The line, from the data (`benchmarks/templates_accuracy.py --sheets 200`, seed
2026, every sheet whose two sides registered): the two sides' pixels per inch
along the page's x and y differ by at most 0.039 % (boxes), 0.024 % (timing)
and 0.059 % (arrows); the wrong fits seen differ by 0.9 % (sheet 862) and 2.5 %
(6 of 18 anchors, `tests/test_templates_fitguard.py`). `MAX_SIDES_DIFF` is 0.5 %:
ten times the most a clean sheet showed, for what the simulator does not draw
(a duplex scanner's two sensors calibrated apart, a back printed after the
paper shrank in a laser printer's fuser), and under half the smallest wrong fit.
"""

from __future__ import annotations

from ..detect.reading import PageReading

#: The most the two sides' pixels per inch (along the page's x, or its y) may differ, as a share.
MAX_SIDES_DIFF = 0.005


def pixels_per_inch(p: PageReading) -> tuple[float, float] | None:
    """A registered page's pixels per inch of its template along the page's x and y (None if not registered)."""
    if p.scale is None or p.dpi is None:
        return None
    return (p.scale[0] * p.dpi, p.scale[1] * p.dpi)


def sides_disagree(front: PageReading, back: PageReading) -> str | None:
    """Why the sheet's two sides cannot both be placed right (their scales differ by more than
    `MAX_SIDES_DIFF`), or None when they agree, either side's scale is unknown, or either side has no
    targets (a back left blank is placed as fed, not fitted, and has no vote to misplace)."""
    a, b = pixels_per_inch(front), pixels_per_inch(back)
    if a is None or b is None or not front.targets or not back.targets:
        return None
    for axis, name in ((0, "across"), (1, "down")):
        diff = a[axis] / b[axis] - 1.0
        if abs(diff) > MAX_SIDES_DIFF:
            return (
                f"page {front.page} and page {back.page} of one sheet were placed at scales that differ by "
                f"{abs(diff):.1%} {name} the page ({a[axis]:.1f} and {b[axis]:.1f} pixels to the inch; the "
                f"two sides of one scan differ by under {MAX_SIDES_DIFF:.1%}): one side's fit is wrong, so a "
                "person reads the sheet"
            )
    return None
