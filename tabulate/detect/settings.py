"""Reader settings: how dark is ink, how large a local search, when a feature counts for the hand reading.

The mark thresholds (marginal, definite) are the election's
(`tabulate.election.Thresholds`); these are the reader's own measuring
choices, with defaults backed by ``benchmarks/accuracy.py`` (docs/detect.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReadSettings:
    """Measuring settings of the reader.

    Parameters
    ----------
    split
        A pixel is *dark* when it is at least this fraction of the way from the
        page's paper level to its ink level (both measured on the page's own
        registration marks, so light paper and bitonal scans need no tuning).
    residue
        A pixel between this fraction and ``split`` is light residue (an erasure).
    search_in
        Radius of the local search that absorbs leftover misregistration (inches).
    min_hits
        Dark sample points that make a sector of a band, or a column of an
        arrow's gap, count as inked (isolated specks do not).
    min_match
        A page whose median target outline match is below this is flagged
        ``outlines_faint`` (its printed outlines are hardly seen).
    majority, stroke, circled, beside_name, line_fill, write_in_ink
        Hand-count reading (31 KAR 6:030 Section 3(1)): the fraction of the
        interior darker than the split for "majority filled", and for a pen
        mark in the target (an X, a check); the fraction of the ring's sectors
        inked for "circled"; the dark fraction of the marking area's most
        inked cell for "an X or check beside the name" (three quarters of it,
        or half the ring, is partial evidence: marginal); the least dark fraction inside the target
        for a line through it; the fraction of the write-in area inked for a
        written name.
    arrow_joined
        The share of an arrow's gap (its scored columns, printed tail to
        printed head) that one connected piece of ink must span for
        "connecting the arrow" (31 KAR 6:030 Section 2(1)(a)); less, from the
        marginal threshold up, is marginal. 0.95: a bar stopping 0.03 in short
        of the head, or an X whose arms stop short, spans 0.92 or less; every
        joining mark of 2,000 simulated sheets spanned 0.95 or more.
    arrow_partial
        A piece of ink spanning less than this share of an arrow's gap (about
        0.02 in: the blur of a printed half reaching in on a rough scan, a
        pen's touch at the gap's end) is not a partial joining; a small or
        faint mark there is still found by ``arrow_erased`` and
        ``arrow_residue`` (every light pencil bar of the arrows benchmark
        that spanned less stood far above its page's residue level).
    arrow_erased, arrow_residue
        An arrow's gap not bridged is marginal when light residue covers
        ``arrow_erased`` of it, or when its darkest tenth stands
        ``arrow_residue`` above the page's arrows' blank level (a faint
        erasure or pencil stroke; `tabulate.detect.classify.arrow_class`).
    x_full
        A target with four strokes crossing its outline and less than this
        fraction dark is an X, not a fill: marginal (see `scan_class`).
    stroke_in, ref_oval_in, ref_box_in
        ``majority``, ``x_full`` and ``box_x_full`` hold for targets the size
        of ``ref_oval_in`` (the timing family's ovals as the import measures
        them, outline included: the smallest the defaults were measured on) or
        ``ref_box_in`` (the arrows family's question boxes) and larger. On a smaller target one pen
        stroke covers more of the interior, so an X or a check covers as much
        as a fill does on a large one; there the three are scaled to the same
        number of pen strokes ``stroke_in`` wide (a broad pen's line as the
        scan shows it dark, blur included; the heaviest X of 300 sheets on
        0.15 x 0.10 in ovals darkened as much as two such strokes:
        `tabulate.detect.classify.size_thresholds`).
    box_x_full, box_x_residue
        The same for a box (rectangle) target, with three strokes crossing
        its outline: an X covers up to 0.7 of a small box, a fill all of it.
        The printed frame is left out of the near band round a box, so an X's
        four arms show as two crossings about as often as four; an X is also
        told by its strokes' soft edges: light residue (feature ``erasure``)
        over ``box_x_residue`` of the box, where a fill leaves almost none
        (arrows benchmark, 2,000 sheets: X on the question boxes 0.05-0.19,
        median 0.10; partial fills median 0.025, 95 % under 0.051; fills 0).
    erased
        Light residue covering at least this fraction of a target whose score
        is below the marginal threshold is reported as an erasure.
    light_ink
        A fill whose darkest tenth darkens the paper by less than this share
        of what print does (feature ``deep``: (1 - grey / paper) / (1 - ink /
        paper)) is light ink, a light pencil rather than a pen or pencil
        stroke: marginal, not marked (see `scan_class`).
    residue_excess, noise_sigmas
        A target whose score exceeds the page's blank level (the median score
        of its targets below the marginal threshold plus ``noise_sigmas`` times
        their robust spread, `tabulate.detect.classify.page_floor`) by
        ``residue_excess`` is marginal: a faint erasure or a thin line stands
        out from the scanner's noise on the same page.
    """

    split: float = 0.25
    residue: float = 0.08
    search_in: float = 0.01
    min_hits: int = 2
    min_match: float = 0.25
    majority: float = 0.5
    stroke: float = 0.2
    circled: float = 0.6
    beside_name: float = 0.02
    line_fill: float = 0.01
    write_in_ink: float = 0.008
    erased: float = 0.1
    x_full: float = 0.65
    stroke_in: float = 0.035
    ref_oval_in: tuple[float, float] = (0.225, 0.135)
    ref_box_in: tuple[float, float] = (0.2, 0.14)
    box_x_full: float = 0.8
    box_x_residue: float = 0.06
    arrow_joined: float = 0.95
    arrow_partial: float = 0.1
    arrow_erased: float = 0.45
    arrow_residue: float = 0.035
    light_ink: float = 0.315
    residue_excess: float = 0.008
    noise_sigmas: float = 4.0


DEFAULT_SETTINGS = ReadSettings()
