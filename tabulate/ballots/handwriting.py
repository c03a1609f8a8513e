"""Handwritten-looking names for write-in lines, from the Hershey stroke fonts.

Each glyph is a set of pen strokes (the Hershey fonts were designed for pen
plotters), so a name is drawn the way a hand draws it: with a pen width, per
letter wobble in size and baseline, a slant, a drifting baseline and a smooth
tremor. Cursive ('scripts', 'cursive') and hand printing ('futural', mixed
case or capitals) are mixed, as voters do.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..election.geometry import Rect

#: Hand styles and how often voters use them.
HANDS: tuple[tuple[str, float], ...] = (("scripts", 0.35), ("cursive", 0.10), ("futural", 0.40), ("caps", 0.15))


@lru_cache(maxsize=8)
def _font(name: str) -> dict:
    """One Hershey font: char -> (strokes in font units, y down; left edge; advance), and its cap and base lines."""
    from HersheyFonts import HersheyFonts

    font = HersheyFonts()
    font.load_default_font(name)
    glyphs = {}
    chars = [chr(c) for c in range(32, 127)]
    for ch, g in zip(chars, font.glyphs_for_text("".join(chars))):
        strokes = tuple(np.array(s, dtype=np.float64) for s in g.strokes if len(s))
        glyphs[ch] = (strokes, float(g.left_offset), float(g.char_width))
    some = next(iter(font.glyphs_for_text("H")))
    return {"glyphs": glyphs, "cap": float(some.cap_line), "base": float(some.base_line)}


def handwriting_strokes(
    text: str, area: Rect, rng: np.random.Generator, *, hand: str | None = None, cap_height_in: float | None = None
) -> tuple[list[np.ndarray], str]:
    """Strokes (page inches) writing ``text`` on the line at the bottom of ``area``.

    Returns the strokes and the hand used. The text is scaled down, if needed,
    to fit the area's width, and sits on a baseline a little above its bottom.
    """
    if hand is None:
        names, p = zip(*HANDS)
        hand = str(rng.choice(names, p=np.array(p) / sum(p)))
    font = _font("futural" if hand == "caps" else hand)
    if hand == "caps":
        text = text.upper()
    cursive = hand in ("scripts", "cursive")
    units = font["base"] - font["cap"]  # cap height in font units
    cap = cap_height_in or (rng.uniform(0.11, 0.16) if cursive else rng.uniform(0.09, 0.14))
    slant = rng.uniform(0.05, 0.35) if cursive else rng.uniform(-0.08, 0.18)

    # Lay the glyphs out in font units, each with its own size, baseline and spacing wobble.
    strokes, x = [], 0.0
    for ch in text:
        glyph = font["glyphs"].get(ch) or font["glyphs"]["?"]
        g_strokes, left, advance = glyph
        sx, sy = rng.uniform(0.88, 1.1), rng.uniform(0.88, 1.1)
        dy = rng.normal(0, 0.04 * units)
        rot = np.deg2rad(rng.normal(0, 1.5 if cursive else 4.0))
        c, s_ = np.cos(rot), np.sin(rot)
        for s in g_strokes:
            gx, gy = (s[:, 0] - left) * sx, (s[:, 1] - font["base"]) * sy
            # Hand printing wobbles: every letter turned a little, strokes bent a little.
            bend = rng.normal(0, 0.02 * units, len(s)) if not cursive else 0.0
            strokes.append(np.column_stack([x + gx * c - gy * s_ + bend, gx * s_ + gy * c + dy]))
        x += advance * sx * (1.0 if cursive else 0.92) + rng.normal(0, 0.04 * units)
    if not strokes:
        return [], hand

    scale = cap / units
    width_in = x * scale
    room = area.w - 0.08
    if width_in > room:
        scale *= room / width_in
        width_in = room
    x0 = area.x + rng.uniform(0.02, max(0.03, min(0.3, area.w - width_in - 0.04)))
    base = area.bottom - rng.uniform(0.03, 0.06)
    tilt = np.deg2rad(rng.uniform(-2.0, 2.0))
    amp, freq, phase = rng.uniform(0.002, 0.005), rng.uniform(3, 7), rng.uniform(0, 2 * np.pi)

    out = []
    for s in strokes:
        px, py = s[:, 0] * scale, s[:, 1] * scale
        px = px - slant * py  # y is negative above the baseline, so a positive slant leans right
        rx = px * np.cos(tilt) - py * np.sin(tilt)
        ry = px * np.sin(tilt) + py * np.cos(tilt)
        ry = ry + amp * np.sin(freq * rx / max(width_in, 0.1) * 2 * np.pi + phase)
        out.append(np.column_stack([x0 + rx, base + ry]))
    return out, hand
