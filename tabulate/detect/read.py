"""Read pages and sheets: decode -> register -> identify -> score -> classify, never raising on bad input.

Every failure becomes a reading with ``reason_code`` and ``reason``; one bad
file never stops the others (DESIGN: every sheet scanned is accounted for).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import time
from typing import Iterable, Protocol, Sequence

import numpy as np

from ..core.marks import BallotMarks, OptionMark
from ..core.pagebytes import PageBytes, page_sha256
from ..election.geometry import StyleCode
from ..election.model import PAPER_SIZES_IN, Election
from .decode import BitonalPage, check_size, decode_native, decode_page, headers, read_source, resampled_flags
from .dither import DIFFUSED_FLAG, diffused_bits, undither
from .errors import ReadError
from .identify import check_style_code, code_crop, read_style_code
from .reading import PageReading, SheetReading
from .register import register_page
from .score import score_page
from .settings import DEFAULT_SETTINGS, ReadSettings
from .streaks import streak_columns


def _rejected(base: dict, err: ReadError, timings: list, flags: tuple[str, ...] = ()) -> PageReading:
    return PageReading(**base, reason_code=err.code, reason=err.reason, flags=flags, timings_ms=tuple(timings))


#: Page flag: the page's own style code did not read; it was identified from the sheet's other side.
FROM_OTHER_SIDE = "style_code_from_other_side"
#: Page flag: a PDF page that was not one full-page scan, so was rendered by PDFium at its image's resolution
#: (`tabulate.detect.pdf_pages`) rather than read from the scanner's own pixels.
PDF_PAGE_RENDERED = "pdf_page_rendered"


def read_image(
    election: Election,
    image: np.ndarray | BitonalPage,
    *,
    source: str = "<array>",
    index: int = 0,
    digest: str = "",
    settings: ReadSettings = DEFAULT_SETTINGS,
    code: StyleCode | None = None,
    _timings: list | None = None,
) -> PageReading:
    """Read one decoded page image (greyscale ``uint8``, 255 = paper, or a bitonal page's own bytes).

    A `BitonalPage` (`decode_native`) is read as its decoder gave it, with
    the grey level of each byte: the same reading as its grey page, without
    converting the page. ``code``, when given, is used instead of reading the page's own style
    code (see `identify_from_other_side`); the reading is flagged
    ``style_code_from_other_side``. A page taken for error diffusion is read as the grey its dots
    stand for and flagged ``error_diffused`` (`tabulate.detect.dither.DIFFUSED_FLAG`), read or refused.
    """
    timings = _timings if _timings is not None else []
    base: dict = {"source": source, "index": index, "digest": digest}
    levels: np.ndarray | None = None
    diffused: tuple[str, ...] = ()
    if isinstance(image, BitonalPage) and diffused_bits(image.bits, image.levels):
        image = image.grey_page()  # error diffusion: read as the grey its dots stand for (below)
        diffused = (DIFFUSED_FLAG,)
    elif isinstance(image, BitonalPage):
        levels = image.levels
        image = image.bits
    try:
        if image.dtype != np.uint8 or image.ndim != 2:
            raise ReadError(
                "unsupported_image", f"expected a 2-D uint8 greyscale image, got {image.dtype} {image.shape}"
            )
        base.update(width_px=int(image.shape[1]), height_px=int(image.shape[0]))
        width_in, height_in = PAPER_SIZES_IN[election.paper_size]
        t0 = time.perf_counter()
        if levels is None:  # a scanner's error-diffusion dots back to grey (`tabulate.detect.dither`)
            grey = undither(image)
            diffused = (DIFFUSED_FLAG,) if grey is not image else diffused
            image = grey
        reg = register_page(image, width_in, height_in, levels=levels)
        t1 = time.perf_counter()
        timings.append(("register", (t1 - t0) * 1e3))
        base.update(reg.evidence())
        streaks = streak_columns(image, reg.dpi, reg.paper, reg.ink, levels=levels)
        given = code is not None
        if code is None:
            code = check_style_code(
                election, read_style_code(code_crop(image, reg.affine, width_in, height_in, streaks, levels))
            )
        t2 = time.perf_counter()
        timings.append(("identify", (t2 - t1) * 1e3))
        base.update(hash_prefix=code.hash_prefix, style_id=code.style_id, precinct_id=code.precinct_id, page=code.page)
        targets, flags = score_page(election, image, reg, code.style_id, code.page, settings, streaks, levels=levels)
        flags = flags + ((FROM_OTHER_SIDE,) if given else ()) + diffused
        timings.append(("score", (time.perf_counter() - t2) * 1e3))
        return PageReading(**base, targets=targets, flags=flags, timings_ms=tuple(timings))
    except ReadError as e:
        return _rejected(base, e, timings, diffused)
    except Exception as e:  # a bug must not stop the batch; the reading says so
        err = ReadError("internal_error", f"reader error {type(e).__name__}: {e}")
        return _rejected(base, err, timings, diffused)


def _file_pages(
    election: Election, source, paper_in: tuple[float, float] | None = None, native: bool = False
) -> list[tuple[dict, object]]:
    """(base fields, decoded image or ReadError) for each page of one source (``native``: `decode_native`)."""
    name = source if isinstance(source, str) else ("<bytes>" if isinstance(source, (bytes, bytearray)) else str(source))
    known = source.sha256 if isinstance(source, PageBytes) else None  # hashed once, by the worker that loaded it
    try:
        data, name = read_source(source)
    except ReadError as e:
        return [({"source": name, "index": 0}, e)]
    except (TypeError, ValueError) as e:  # not a path or bytes at all
        return [({"source": name, "index": 0}, ReadError("unreadable_file", f"cannot read {name!r}: {e}"))]
    digest = known or page_sha256(data)
    try:
        heads = headers(data)
    except ReadError as e:
        return [({"source": name, "index": 0, "digest": digest}, e)]
    except Exception as e:
        return [({"source": name, "index": 0, "digest": digest}, ReadError("corrupt_image", f"damaged header: {e}"))]
    out = []
    paper = paper_in or PAPER_SIZES_IN[election.paper_size]
    for h in heads:
        base = {"source": name, "index": h.index, "digest": digest}
        t0 = time.perf_counter()
        try:
            check_size(h, paper)
            img = (decode_native if native else decode_page)(data, h)
        except ReadError as e:
            out.append((base, e))
            continue
        base["_timings"] = [("decode", (time.perf_counter() - t0) * 1e3)]
        # A page the loader took out of a batch PDF carries the flag its new bytes cannot (`PageBytes`).
        flags = (
            ((PDF_PAGE_RENDERED,) if h.via == "render" else ())
            + resampled_flags(h)
            + (source.flags if isinstance(source, PageBytes) else ())
        )
        if flags:
            base["_flags"] = flags
        out.append((base, img))
    return out


class PageReader(Protocol):
    """Another way to read decoded pages (a template set, `tabulate.templates.TemplateReader`).

    ``read_image`` has `read_image`'s signature without the election's own
    layout; ``page_targets`` says how many targets a style's page has (for a
    one-sided sheet); ``paper_in`` is the paper size its pages are checked against.
    """

    paper_in: tuple[float, float]

    def read_image(self, election: Election, image: np.ndarray, **base) -> PageReading: ...

    def page_targets(self, election: Election, style_id: str, page: int) -> int: ...


def read_file(
    election: Election,
    source,
    *,
    settings: ReadSettings = DEFAULT_SETTINGS,
    reader: PageReader | None = None,
    native: bool = False,
) -> list[tuple[PageReading, np.ndarray | BitonalPage | None]]:
    """Each page of one file: its reading and its decoded image (None if it did not decode).

    ``reader`` reads the decoded pages instead of our own layout's reader.
    ``native`` (our own reader only): a bitonal page's image is its `BitonalPage`, not a grey copy.
    """
    out = []
    for base, item in _file_pages(election, source, reader.paper_in if reader else None, native and reader is None):
        extra = base.pop("_flags", ())
        if isinstance(item, ReadError):
            out.append((PageReading(**base, reason_code=item.code, reason=item.reason), None))
        elif reader is not None:
            out.append((reader.read_image(election, item, settings=settings, **base), item))
        else:
            out.append((read_image(election, item, settings=settings, **base), item))
        if extra:
            out[-1] = (dataclasses.replace(out[-1][0], flags=out[-1][0].flags + extra), out[-1][1])
    return out


def read_pages(
    election: Election, source, *, settings: ReadSettings = DEFAULT_SETTINGS, reader: PageReader | None = None
) -> list[PageReading]:
    """Read every page of one file (a multi-page TIFF has several), never raising."""
    return [r for r, _img in read_file(election, source, settings=settings, reader=reader)]


def read_page(
    election: Election, source, *, settings: ReadSettings = DEFAULT_SETTINGS, reader: PageReader | None = None
) -> PageReading:
    """Read the first page of a file (a path or bytes)."""
    return read_pages(election, source, settings=settings, reader=reader)[0]


def read_sheet(
    election: Election, sources, *, settings: ReadSettings = DEFAULT_SETTINGS, reader: PageReader | None = None
) -> SheetReading:
    """Read one sheet from 1-2 sources (paths or bytes) holding its two pages, in either order.

    A two-page TIFF may hold both sides. A single page is accepted only when
    the style's other side has no targets (flag ``single_side``).
    """
    if isinstance(sources, (str, bytes, bytearray)) or not isinstance(sources, Iterable):
        sources = [sources]
    items: list[tuple[PageReading, np.ndarray | BitonalPage | None]] = []
    for s in sources:
        # Our own reader reads a bitonal page's bytes as decoded (`decode_native`): no grey copy of the page.
        items.extend(read_file(election, s, settings=settings, reader=reader, native=True))
    pages = [r for r, _ in items]
    if reader is None:  # our own ballots' style codes: a side that did not read is identified from the other
        pages = identify_from_other_side(election, pages, [img for _, img in items], settings=settings)
    return pair_pages(election, pages, reader=reader)


def identify_from_other_side(
    election: Election,
    pages: Sequence[PageReading],
    images: Sequence[np.ndarray | BitonalPage | None],
    *,
    settings: ReadSettings = DEFAULT_SETTINGS,
) -> list[PageReading]:
    """Identify a page whose style code did not read from the sheet's other side, if that is safe.

    A smudged or torn QR symbol on one side should not set aside a sheet
    whose other side names its style, precinct and page. The page is read
    again as the other page of that style (``3 - page``) and kept only if
    its geometry agrees: it registers as a page of the election's paper,
    and the printed target outlines of that page of that style are found
    where its layout puts them (no ``outlines_faint``). Otherwise the page
    stays rejected and the sheet goes to a person as before. The kept page
    is flagged ``style_code_from_other_side`` in the evidence.
    """
    pages = list(pages)
    if len(pages) != 2 or len(images) != 2:
        return pages
    for bad, good in ((0, 1), (1, 0)):
        b, g = pages[bad], pages[good]
        if b.reason_code != "style_code_unreadable" or not g.ok or images[bad] is None or g.page is None:
            continue
        code = StyleCode(g.hash_prefix, g.style_id, g.precinct_id, 3 - g.page)
        again = read_image(
            election, images[bad], source=b.source, index=b.index, digest=b.digest, settings=settings, code=code
        )
        if again.ok and "outlines_faint" not in again.flags:
            pages[bad] = again
    return pages


def _ballot_id(pages: Sequence[PageReading]) -> str:
    h = hashlib.sha256()
    for p in pages:
        h.update(f"{p.digest}:{p.index};".encode())
    return h.hexdigest()[:20]


def pair_pages(election: Election, pages: Sequence[PageReading], *, reader: PageReader | None = None) -> SheetReading:
    """Check that readings are the front and back of one ballot and order them front first."""
    pages = tuple(pages)
    bid = _ballot_id(pages)

    def reject(code: str, reason: str) -> SheetReading:
        return SheetReading(pages, bid, code, reason)

    if not pages:
        return reject("missing_page", "no pages were given for the sheet")
    if len(pages) > 2:
        return reject("too_many_pages", f"{len(pages)} pages were given for one sheet (a sheet has 2 sides)")
    bad = [p for p in pages if not p.ok]
    if bad:
        return reject(
            "page_rejected",
            "; ".join(f"{p.source}" + (f" page {p.index + 1}" if p.index else "") + f": {p.reason}" for p in bad),
        )
    if len(pages) == 1:
        p = pages[0]
        if STYLE_FROM_OTHER_SIDE in p.flags:
            return reject(
                "template_ambiguous",
                f"page {p.page} is printed alike for several styles and the sheet's other side, which "
                "would name the style, was not given",
            )
        other = (reader.page_targets if reader else _page_targets)(election, p.style_id, 3 - p.page)
        if other:
            return reject(
                "missing_page",
                f"only page {p.page} of the sheet was given; page {3 - p.page} of "
                f"style {p.style_id} has {other} targets",
            )
        return SheetReading(pages, bid, style_id=p.style_id, precinct_id=p.precinct_id, flags=("single_side",))
    a, b = sorted(pages, key=lambda p: p.page)
    if (a.page, b.page) == (1, 2):
        a, b = _side_of(a, b, reader), _side_of(b, a, reader)
    if (a.style_id, a.precinct_id) != (b.style_id, b.precinct_id) or (a.page, b.page) != (1, 2):
        return reject("pages_disagree", f"the pages are not one sheet: {_describe(a)} and {_describe(b)}")
    # A reader may check the two fits against each other (a template set: `tabulate.templates.sidescale`).
    why = getattr(reader, "sides_disagree", lambda a, b: None)(a, b)
    if why:
        return reject("sides_scale_differ", why)
    return SheetReading((a, b), bid, style_id=a.style_id, precinct_id=a.precinct_id)


#: A template-set page reading's flag: matched among styles that print this page alike.
STYLE_FROM_OTHER_SIDE = "style_from_other_side"


def _side_of(p: PageReading, other: PageReading, reader: PageReader | None) -> PageReading:
    """``p`` as the other side's style when ``p`` was identified only among styles that print it alike
    (a vendor's back with the same questions, or left blank, and no code): the same marks either way,
    and the flag stays on the reading for anyone to see."""
    same = getattr(reader, "interchangeable", None)
    if STYLE_FROM_OTHER_SIDE not in p.flags or same is None or p.style_id == other.style_id:
        return p
    if STYLE_FROM_OTHER_SIDE in other.flags:  # neither side names the style: refused as the pages disagree
        return p
    if not same(p.style_id, other.style_id, p.page):
        return p
    return dataclasses.replace(p, style_id=other.style_id, precinct_id=other.precinct_id)


def _describe(p: PageReading) -> str:
    return f"style {p.style_id} precinct {p.precinct_id} page {p.page}"


def _page_targets(election: Election, style_id: str, page: int) -> int:
    from ..election.layout import layout_style

    return len(layout_style(election, style_id).pages[page - 1].targets)


def sheet_marks(reading: SheetReading, *, settings: ReadSettings = DEFAULT_SETTINGS) -> BallotMarks:
    """The marks the rules read (`tabulate.core.BallotMarks`) from a sheet that was read.

    Raises
    ------
    ValueError
        The sheet was rejected: it has no marks, only its reason.
    """
    if not reading.ok:
        raise ValueError(f"sheet {reading.ballot_id} was not read ({reading.reason_code}): {reading.reason}")
    marks: dict[str, dict[str, OptionMark]] = {}
    for t in reading.targets:
        ink = t.kind == "write_in" and t.feature("write_in") >= settings.write_in_ink
        score = round(t.score, 4)
        # Most targets of a bitonal page are blank and score exactly 0: they share one (frozen) mark.
        blank = score == 0.0 and t.scan == "unmarked" and t.hand == "unmarked" and not ink
        mark = _BLANK if blank and math.copysign(1.0, score) > 0 else OptionMark(t.scan, t.hand, ink, score)
        marks.setdefault(t.contest_id, {})[t.option_id] = mark
    return BallotMarks(reading.ballot_id, reading.style_id, marks, reading.precinct_id)


#: The mark `sheet_marks` gives a target read blank by the scanner and a hand count alike, with a score of 0.
_BLANK = OptionMark("unmarked", "unmarked", False, 0.0)
