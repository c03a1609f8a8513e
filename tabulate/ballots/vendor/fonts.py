"""Fonts for vendor-style test ballots: DejaVu, which matplotlib (a dependency) ships, via Pillow."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PIL import ImageFont


@lru_cache(maxsize=4)
def _font_path(bold: bool) -> str:
    import matplotlib

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name)


@lru_cache(maxsize=64)
def font(size_px: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans (bold) at ``size_px`` pixels."""
    return ImageFont.truetype(_font_path(bold), max(4, int(size_px)))


def text_width_in(text: str, pt: float, bold: bool = False) -> float:
    """Width of ``text`` set at ``pt`` points, in inches (measured at 600 px per inch)."""
    return font(round(pt * 600 / 72), bold).getlength(text) / 600


def wrap_in(text: str, pt: float, width_in: float, bold: bool = False) -> list[str]:
    """``text`` broken into lines no wider than ``width_in`` (a word longer than a line stands alone)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and text_width_in(trial, pt, bold) > width_in:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    return lines or [""]
