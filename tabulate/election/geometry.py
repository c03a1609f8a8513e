"""Page geometry shared by layout, rendering and detection (all in page inches, origin top-left).

Registration marks
------------------
Four solid black squares, one near each corner, centred ``MARK_INSET_IN`` from
both edges. The top-left one is larger (``MARK_BIG_IN``) than the other three
(``MARK_SMALL_IN``). Why this design:

* Four points over-determine an affine page-to-image transform (8 equations,
  6 unknowns), so the fit has a residual we can report and use to reject a
  page whose marks were misread; an affine map absorbs rotation, skew up to
  any angle, anisotropic scale (a photocopy at 90 %) and shift.
* The one big mark breaks the square's four-fold symmetry: whichever image
  corner holds it is the page's top-left, so 90, 180 and 270 degree
  rotations (a sheet fed upside down) are recovered exactly. The size ratio
  (area 2.25x) survives scale +-5 % and blur easily.
* A solid square's centroid is stable under blur, noise, bitonal
  thresholding and small skew, and is found with a connected-component pass
  over a small corner window (``CORNER_WINDOW_IN``) rather than the page.
* Nothing else is printed within ``CORNER_WINDOW_IN`` of a corner, so the
  search window holds the mark and paper only, even after a 5 degree skew.
"""

from __future__ import annotations

from dataclasses import dataclass

MARK_INSET_IN = 0.35
MARK_BIG_IN = 0.30
MARK_SMALL_IN = 0.20
#: Side of the square window, at each image corner, searched for a mark.
CORNER_WINDOW_IN = 1.2
#: Side of the style-code QR symbol and its distance above the bottom edge.
STYLE_CODE_SIZE_IN = 0.75
STYLE_CODE_BOTTOM_IN = 0.25
#: Clear area around the style code that nothing else is printed in (the QR quiet zone).
STYLE_CODE_QUIET_IN = 0.12

MARK_ROLES = ("top_left", "top_right", "bottom_left", "bottom_right")


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle on the page, in inches (x right, y down)."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)

    def inset(self, d: float) -> Rect:
        return Rect(self.x + d, self.y + d, self.w - 2 * d, self.h - 2 * d)

    def as_tuple(self) -> tuple[float, float, float, float]:
        return (self.x, self.y, self.w, self.h)


@dataclass(frozen=True)
class RegistrationMark:
    role: str
    x: float  # centre
    y: float
    size: float

    @property
    def rect(self) -> Rect:
        return Rect(self.x - self.size / 2, self.y - self.size / 2, self.size, self.size)


def registration_marks(width_in: float, height_in: float) -> tuple[RegistrationMark, ...]:
    """The four corner marks of a page of the given size (see module docstring)."""
    m = MARK_INSET_IN
    return (
        RegistrationMark("top_left", m, m, MARK_BIG_IN),
        RegistrationMark("top_right", width_in - m, m, MARK_SMALL_IN),
        RegistrationMark("bottom_left", m, height_in - m, MARK_SMALL_IN),
        RegistrationMark("bottom_right", width_in - m, height_in - m, MARK_SMALL_IN),
    )


def style_code_rect(width_in: float, height_in: float) -> Rect:
    """Where the style-code QR symbol is printed: bottom centre, clear of the corner windows."""
    s = STYLE_CODE_SIZE_IN
    return Rect((width_in - s) / 2, height_in - STYLE_CODE_BOTTOM_IN - s, s, s)


# -- the style code -------------------------------------------------------------
STYLE_CODE_PREFIX = "KYB1"


@dataclass(frozen=True)
class StyleCode:
    """What the QR symbol on every page says: which election, style, precinct and page."""

    hash_prefix: str
    style_id: str
    precinct_id: str
    page: int

    def encode(self) -> str:
        return "|".join((STYLE_CODE_PREFIX, self.hash_prefix, self.style_id, self.precinct_id, str(self.page)))

    @classmethod
    def decode(cls, text: str) -> StyleCode:
        """Parse a style code; raise ValueError with a plain reason if it is not one of ours."""
        parts = text.split("|")
        if len(parts) != 5 or parts[0] != STYLE_CODE_PREFIX:
            raise ValueError(f"not a ballot style code: {text[:60]!r}")
        if parts[4] not in ("1", "2"):
            raise ValueError(f"style code names page {parts[4]!r}; a sheet has pages 1 and 2")
        return cls(parts[1], parts[2], parts[3], int(parts[4]))
