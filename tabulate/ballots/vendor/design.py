"""The three vendor-style ballot designs the test material is drawn in (issue #11).

These are *other vendors'* conventions, written from scratch so that nothing
here shares code with our own layout (`tabulate.election.layout`) or renderer
(`tabulate.election.render`): the template import must find every target from
the pixels alone, as it must on a county's real ballots.

* ``boxes`` — contests in boxes with thick rules, outline ovals left of the
  names, an instruction column with pictures of filled and empty ovals, and
  a QR code with a vendor payload in the bottom-left corner. 300 DPI, grey.
* ``timing`` — timing marks down both long edges and across the top; ovals
  sit on the timing-mark grid; the style is a pattern of filled and empty
  marks in the bottom row; no QR code. 200 DPI, bitonal.
* ``arrows`` — connect-the-arrow targets (rectangles for questions) on legal
  paper (8.5 x 14 in), contests in columns under headings with no boxes.
  200 DPI, grey.
"""

from __future__ import annotations

from dataclasses import dataclass

FAMILIES = ("boxes", "timing", "arrows")


@dataclass(frozen=True)
class Design:
    """One vendor design: paper, scan resolution and target geometry (inches)."""

    family: str
    paper_in: tuple[float, float]
    dpi: int
    bitonal: bool
    #: Contest columns: (left edge, width), page inches.
    columns: tuple[tuple[float, float], ...]
    top_in: float
    bottom_in: float
    target: tuple[float, float]  # w, h of an oval or a rectangle; for an arrow, its gap
    outline_in: float
    row_in: float
    write_in_row_in: float
    #: The vendor's code: "qr" (bottom-left QR symbol) or "timing" (bottom row of timing marks).
    code: str
    # Variants of a design (`design_variant`) that real vendors print; the defaults are the shipped families.
    #: "left": targets left of the names; "right": right of them (the name, then the oval).
    target_side: str = "left"
    #: Above 0, an oval target is printed as a rectangle with corners of this radius (inches).
    target_corner_in: float = 0.0
    #: The ``boxes`` family's instruction column on the front (pictures of filled and empty ovals).
    instructions: bool = True
    #: What the back holds: "half" (the second half of the targets), "questions" (only the question
    #: contests) or "blank" (nothing: every contest on the front, the back left blank by the vendor).
    back: str = "half"
    #: A contest too long for what is left of its column continues at the top of the next column.
    continue_long: bool = False
    #: Each candidate's name broken over two lines, and the party's full name on a line of its own
    #: under it (instead of the abbreviation at the row's right end); rows must be tall enough (``row_in``).
    two_line_names: bool = False
    party_line: bool = False
    #: Instructions printed in every contest's heading under "Vote for not more than N", wrapped.
    header_note: str = ""
    #: The ``boxes`` family's contest frames, shaded headings and row rules; False: whitespace only.
    rules: bool = True
    #: A number ("number") or letter ("letter") printed inside each target, as some vendors do.
    target_text: str = ""
    #: The targets printed in a drop-out colour (RGB): blanks are written in colour, and a colour-dropout
    #: scanner sees the targets at ``dropout_grey`` (paper 255) on the voted sheets.
    target_rgb: tuple[int, int, int] | None = None
    dropout_grey: int = 0
    #: The ``boxes`` family's heading bands printed in a tint (RGB), as vendors print contest headers in a
    #: light colour: blanks are written in colour, and the voted sheets' scans show the band at ``shade_grey``
    #: (a colour scan's luminance; 255: a colour-dropout scanner took it out). None: grey 225, as shipped.
    shade_rgb: tuple[int, int, int] | None = None
    shade_grey: int = 225
    #: Above 0, every other option row printed on a band of this grey (behind the target, the name and the
    #: party), as ballots shade rows to guide the eye; in ``shade_rgb`` with the headings when that is set.
    row_shade: int = 0
    #: A question's YES and NO targets side by side on one row ("( ) YES   ( ) NO"), not one under the other.
    yes_no_across: bool = False
    #: The blanks as the county publishes its sample ballot (`tabulate.ballots.vendor.sample`): above 0, a
    #: diagonal "SAMPLE BALLOT" watermark at this grey, the heading and a footer changed; ``sample_code``
    #: False leaves the QR code off the sample. The voted sheets never show any of it.
    sample_grey: int = 0
    sample_code: bool = True
    #: Above 0, a security tint printed behind everything inside the margins, on the blanks and the voted
    #: sheets alike: thin wavy lines ("pantograph") at this grey, as some counties' ballot stock carries.
    security_tint: int = 0
    #: (style id, design key) pairs: those styles printed in another design of the vendor's (a longer paper
    #: for the styles with the most contests); every other style in this one.
    by_style: tuple[tuple[str, str], ...] = ()


#: Timing-mark grid of the ``timing`` family: marks every `TIMING_PITCH_IN` down both long edges
#: and across the top; the bottom row carries the style code.
TIMING_PITCH_IN = 0.25
TIMING_MARK_IN = (0.18, 0.07)  # w, h of one mark on the long edges (turned for the top/bottom rows)
TIMING_EDGE_IN = 0.22  # the marks' centres from the paper's edge
CODE_BITS = 12  # bottom-row marks carrying the code (after a start and before a stop mark)

DESIGNS: dict[str, Design] = {
    "boxes": Design(
        "boxes",
        (8.5, 11.0),
        300,
        False,
        ((2.35, 2.9), (5.35, 2.85)),
        1.35,
        10.35,
        (0.24, 0.14),
        0.018,
        0.30,
        0.48,
        "qr",
    ),
    "timing": Design(
        "timing",
        (8.5, 11.0),
        200,
        True,
        ((0.6, 2.4), (3.1, 2.4), (5.6, 2.3)),
        1.25,
        10.2,
        (0.22, 0.13),
        0.016,
        0.25,
        0.5,
        "timing",
    ),
    "arrows": Design(
        "arrows",
        (8.5, 14.0),
        200,
        False,
        ((0.45, 2.45), (3.05, 2.45), (5.65, 2.4)),
        1.6,
        13.2,
        (0.26, 0.08),
        0.02,
        0.32,
        0.5,
        "none",
    ),
}


def design_variant(family: str, tag: str, **changes) -> str:
    """Register a variant of a family's design (e.g. ``target_side="right"``) as ``family/tag``; returns the key.

    Every function that takes a family takes the key, so a benchmark draws, votes and
    scans a variant as it does a shipped family (`benchmarks/templates_variants.py`).
    """
    from dataclasses import replace

    key = f"{family}/{tag}"
    DESIGNS[key] = replace(DESIGNS[family], **changes)
    return key


def style_design(family: str, style_id: str) -> str:
    """The design key a style of ``family`` is printed in (`Design.by_style`; the family's own otherwise)."""
    return dict(DESIGNS[family].by_style).get(style_id, family)


def vendor_code_text(family: str, style_number: int, page: int) -> str:
    """The vendor's payload for a style's page (a pattern a template set maps to style and page)."""
    if DESIGNS[family].code == "qr":
        return f"BCV-2026-{style_number:04d}-{page}"
    return format(timing_code(style_number, page), f"0{CODE_BITS}b")


def timing_code(style_number: int, page: int) -> int:
    """The bottom-row bits of the ``timing`` family: 6 bits style, 1 bit page, 5 bits check."""
    v = ((style_number & 0x3F) << 1) | (page - 1)
    check = (v * 7 + 3) % 31
    return (v << 5) | check
