"""Text metrics for layout and rendering: one font, measured the same way everywhere.

We use the font bundled inside Pillow (``ImageFont.load_default(size=...)``),
so a ballot lays out and renders identically on every machine without a
system font dependency.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import ImageFont

#: Font sizes are in points; 72 points to the inch.
POINTS_PER_INCH = 72.0
_MEASURE_SCALE = 10  # measure at 10x so rounding in the font engine stays below 0.002 in


@lru_cache(maxsize=64)
def font(size_px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size_px)


def text_width_in(text: str, size_pt: float) -> float:
    """Width of ``text`` set at ``size_pt`` points, in inches."""
    px = round(size_pt * _MEASURE_SCALE)
    return font(px).getlength(text) / (POINTS_PER_INCH * _MEASURE_SCALE)


def wrap(text: str, size_pt: float, width_in: float) -> list[str]:
    """Greedy word wrap of ``text`` into lines no wider than ``width_in``."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}" if line else word
        if line and text_width_in(trial, size_pt) > width_in:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    return lines or [""]


def fit(text: str, size_pt: float, width_in: float) -> str:
    """``text`` shortened with an ellipsis, if needed, to fit ``width_in``."""
    if text_width_in(text, size_pt) <= width_in:
        return text
    while text and text_width_in(text + "…", size_pt) > width_in:
        text = text[:-1]
    return text + "…"
