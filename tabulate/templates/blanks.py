"""Load blank ballot pages: every image format `tabulate read` takes, and PDF pages.

PDF pages are rasterized with pypdfium2 (Google's PDFium, the renderer in
Chrome, as a self-contained wheel: no Ghostscript or poppler to install, and
it renders vector ballots exactly) at `PDF_DPI`. A PDF page states its size: a
page the size of a ballot paper is that paper at exactly `PDF_DPI` (its crop box
widened to the paper when it cuts inside it), and a landscape page is turned
upright as a landscape scan is.

A colour blank is taken by its darkest channel, not its luminance: vendors
print targets in a drop-out colour (red, pink) that a colour-dropout scanner
does not see, and in luminance a pink oval is as light as paper grain; in its
darkest channel it is print like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..detect.decode import decode_page, headers
from ..detect.errors import ReadError
from ..election.model import PAPER_SIZES_IN
from .model import TemplateError
from .securitytint import strip_security_tint
from .tintstreaks import tint_bands
from .watermark import strip_watermark

PDF_DPI = 300
#: A PDF page box within this of a ballot paper's size (inches, each side) is that paper.
PAPER_SLACK_IN = 0.06
#: Paper a blank may be printed on (width, length in inches): the election's letter and legal, the long
#: ballots vendors print for long elections (ES&S and Dominion scanners take 8.5 x 17 and 8.5 x 19 in), and
#: tabloid, 11 x 17 in, which some counties' ballots are printed on (taken for legal at 376 DPI before: every
#: target 29 % off and its pages refused `registration_residual`).
BALLOT_PAPERS_IN = (*PAPER_SIZES_IN.values(), (8.5, 17.0), (8.5, 19.0), (11.0, 17.0))


@dataclass(frozen=True)
class Blank:
    """One blank page: its image (greyscale, 255 = paper), resolution and paper size, and where it came from."""

    name: str
    image: np.ndarray
    dpi: float
    paper_in: tuple[float, float]
    #: A sample ballot's grey watermark painted out of ``image`` (square inches; `strip_watermark`).
    watermark_in2: float = 0.0
    #: Its tinted bands, found before a watermark was left out (`tintstreaks.tint_bands`, page inches; only
    #: when one was).
    tint_in: tuple[tuple[float, float, float, float], ...] = ()


def _blank(name: str, img: np.ndarray, dpi: float, paper: tuple[float, float]) -> Blank:
    """A blank page with a sample ballot's watermark left out (the voted scans never show it)."""
    img, _tint = strip_security_tint(img)  # thin pale lines behind the print: taken for print otherwise
    stripped, area = strip_watermark(img, dpi)
    if area == 0:  # the reader finds the tinted bands on the blank stored (`tintstreaks.page_bands`)
        return Blank(name, img, dpi, paper)
    # A band the watermark's grey took with it would be lost to the reader: the bands as printed.
    bands = tuple((b[0], b[1], b[2], b[3]) for b in tint_bands(img, dpi).round(3).tolist())
    return Blank(name, stripped, dpi, paper, area, bands)


def paper_and_dpi(shape: tuple[int, int]) -> tuple[tuple[float, float], float]:
    """The paper size whose shape the image has (portrait), and the image's pixels per inch."""
    rows, cols = shape
    if cols > rows:
        rows, cols = cols, rows
    best = min(BALLOT_PAPERS_IN, key=lambda p: abs(p[1] / p[0] - rows / cols))
    return best, (cols / best[0] + rows / best[1]) / 2


def _pdf_pages(path: Path) -> list[Blank]:
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
    except Exception as e:  # pypdfium2 raises its own PdfiumError for a damaged file
        raise TemplateError(f"{path}: cannot open the PDF: {e}") from None
    out = []
    for i in range(len(pdf)):
        page = pdf[i]
        paper = _whole_paper(page)
        bitmap = page.render(scale=PDF_DPI / 72)
        img = darkest_channel(bitmap.to_numpy().reshape(bitmap.height, bitmap.width, -1))
        if paper is None:  # not a paper size: as a scan of it, by its shape
            paper, dpi = paper_and_dpi(img.shape)
        else:
            dpi = float(PDF_DPI)
        if img.shape[1] > img.shape[0]:
            img = np.ascontiguousarray(np.rot90(img, -1))  # a landscape page of a portrait blank, as for scans
        out.append(_blank(f"{path.name}#{i + 1}" if len(pdf) > 1 else path.name, img, dpi, paper))
    pdf.close()
    return out


def _paper_of(w_pt: float, h_pt: float) -> tuple[float, float] | None:
    """The ballot paper a PDF box of ``w_pt`` x ``h_pt`` points is (either way up), within `PAPER_SLACK_IN`."""
    w, h = sorted((w_pt / 72, h_pt / 72))
    return next(
        (p for p in BALLOT_PAPERS_IN if abs(p[0] - w) <= PAPER_SLACK_IN and abs(p[1] - h) <= PAPER_SLACK_IN), None
    )


def _whole_paper(page) -> tuple[float, float] | None:
    """The ballot paper a PDF page is printed on, its crop box widened to the whole paper when the crop box
    cuts inside a paper-sized media box; None when neither box is a ballot paper.

    A PDF page's size is known, unlike a scan's: its box in points. An EMS's export (or a scan saved as PDF)
    may set a crop box inside the paper, which a viewer (and the renderer) shows alone: rasterized as it
    stood, a letter page cropped 0.25 in all round was taken for letter paper at 284 DPI and every target
    placed 2-6 % off. Layout inches are the paper's, so the whole paper is rendered."""
    crop, media = page.get_cropbox(), page.get_mediabox()
    whole = _paper_of(crop[2] - crop[0], crop[3] - crop[1])
    if whole is not None:
        return whole
    whole = _paper_of(media[2] - media[0], media[3] - media[1])
    if (
        whole is not None
        and all(crop[k] >= media[k] - 1 for k in (0, 1))
        and all(crop[k] <= media[k] + 1 for k in (2, 3))
    ):
        page.set_cropbox(*media)
        return whole
    return None


#: A light tint (luminance at least `TINT_LUMA`, its darkest channel `TINT_COLOUR` below that) printed over an
#: area wider than `TINT_WIDE_IN` each way (a heading band, a shaded row) is taken as a scan sees it.
TINT_LUMA = 170
TINT_COLOUR = 20
TINT_WIDE_IN = 0.2
#: Print narrower than this inside a tinted area (text on a band) is bridged when measuring the area.
TINT_TEXT_IN = 0.08


def darkest_channel(img: np.ndarray) -> np.ndarray:
    """A colour page (H, W, 3 or 4 in OpenCV's BGR order: alpha left out) as grey by its darkest channel,
    but for light tinted areas; a grey page as it is.

    The darkest channel keeps a target printed in a drop-out colour as print (the import must find it).
    A light tint over a wide area is not a target: a contest heading printed on a yellow band is 130 in
    its darkest channel where a colour scan read as grey shows it at 229, and the reader took the band
    for print it then did not find (a boxes page with yellow headings: 1 ambiguous mark of 27 not sent,
    2 clean ballots of 4 sent, 8 sheets). Such areas (wider than `TINT_WIDE_IN` each way: thin outlines,
    small ovals and text are not) are taken at their luminance, as a grey or colour scan sees them.
    """
    if img.ndim == 2:
        return np.ascontiguousarray(img)
    bgr = np.ascontiguousarray(img[:, :, :3])
    dark = bgr.min(axis=2)
    luma = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    tint = ((luma >= TINT_LUMA) & (dark.astype(np.int16) <= luma.astype(np.int16) - TINT_COLOUR)).astype(np.uint8)
    if not tint.any():
        return np.ascontiguousarray(dark)
    px = min(img.shape[:2]) / 8.5  # about the pixels an inch (the paper's width)
    box = lambda inches: cv2.getStructuringElement(cv2.MORPH_RECT, (max(3, round(inches * px)),) * 2)
    wide = cv2.morphologyEx(
        cv2.morphologyEx(tint, cv2.MORPH_CLOSE, box(TINT_TEXT_IN)), cv2.MORPH_OPEN, box(TINT_WIDE_IN)
    )
    return np.ascontiguousarray(np.where((wide > 0) & (tint > 0), luma, dark))


def _decode(data: bytes, header) -> np.ndarray:
    """One page of an image file as grey, a colour PNG or JPEG by its darkest channel (`darkest_channel`)."""
    if header.format in ("png", "jpeg"):
        colour = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        if colour is not None and not _grey(colour):
            return darkest_channel(colour)
    return decode_page(data, header)


def _grey(img: np.ndarray) -> bool:
    return bool(np.array_equal(img[:, :, 0], img[:, :, 1]) and np.array_equal(img[:, :, 1], img[:, :, 2]))


def load_blanks(paths: list[Path]) -> list[Blank]:
    """Every page of every file, in order; `TemplateError` naming a file that cannot be read."""
    out: list[Blank] = []
    for path in paths:
        path = Path(path)
        if not path.is_file():
            raise TemplateError(f"no such blank page file: {path}")
        if path.suffix.lower() == ".pdf":
            out.extend(_pdf_pages(path))
            continue
        data = path.read_bytes()
        try:
            heads = headers(data)
            pages = [_decode(data, h) for h in heads]
        except ReadError as e:
            raise TemplateError(f"{path}: {e.reason}") from None
        for i, img in enumerate(pages):
            paper, dpi = paper_and_dpi(img.shape)
            if img.shape[1] > img.shape[0]:
                img = np.ascontiguousarray(np.rot90(img, -1))  # a landscape scan of a portrait blank
            out.append(_blank(f"{path.name}#{i + 1}" if len(pages) > 1 else path.name, img, dpi, paper))
    return out
