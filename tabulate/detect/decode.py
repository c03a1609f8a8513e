"""Decode scanned pages (PNG, JPEG, TIFF, PDF of scans) straight to greyscale ``uint8`` (255 = paper).

Decoders were chosen by measurement (docs/detect.md): simplejpeg (libjpeg-turbo,
asked for greyscale so colour JPEGs skip the colour conversion), imagecodecs'
libtiff for TIFF (CCITT G4 bitonal, LZW, deflate; every page of a multi-page
file), OpenCV for PNG. The header is read first and a page whose declared
size could not be a ballot page is refused before a byte is decompressed
(decompression bombs). A PDF's pages are its embedded scans (`pdf_pages`).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import cv2
import imagecodecs
import numpy as np
import simplejpeg

from . import pdf_pages, pixel_aspect
from .errors import ReadError
from .jp2 import is_jpeg2000, jpeg2000_size

#: Hard cap on either side, whatever the paper (decompression-bomb guard).
MAX_SIDE_PX = 12000
#: Pages of one TIFF beyond which the page directory is taken to be damaged (as
#: `tabulate.central.sources.MAX_TIFF_PAGES`, which plans the pages of a scan).
MAX_TIFF_PAGES = 10000
#: Readable resolutions, implied by the image size and the election's paper size.
DPI_RANGE = (100.0, 600.0)
#: Slack on the paper's size when checking the implied resolution (scanners add margins).
SIZE_SLACK = 1.10

_TIFF_TAGS = {256: "width", 257: "height", 258: "bits", 259: "compression", 262: "photometric", 277: "samples"}


@dataclass(frozen=True)
class PageHeader:
    """What a file's header says about one page, before decoding."""

    format: str  # "jpeg" | "png" | "tiff" | "pdf" | "jp2"
    index: int
    width: int
    height: int
    photometric: int = 1  # TIFF: 0 = min-is-white, 1 = min-is-black, 2 = RGB, 3 = palette
    #: PDF: how the page is decoded ("jpeg": its DCT stream; "image": its embedded image; "render": PDFium
    #: renders the page at ``dpi``, because it is not one full-page image), or why it cannot be
    #: (``refusal``: a reason code and sentence, raised when the page is checked or decoded).
    via: str = ""
    dpi: float = 0.0
    refusal: tuple[str, str] | None = None
    #: The (x, y) resolution the header states (per inch; unit-less as stated), None if it states none: a page
    #: with two resolutions is made square on decoding (`tabulate.detect.pixel_aspect`).
    resolution: tuple[float, float] | None = None


def resampled_flags(header: PageHeader) -> tuple[str, ...]:
    """``("non_square_pixels_204x196",)`` for a page made square on decoding (its stated resolutions), else ``()``."""
    if header.resolution is None or not pixel_aspect.is_anisotropic(header.resolution):
        return ()
    return (pixel_aspect.flag(header.resolution),)


def read_source(source) -> tuple[bytes, str]:
    """The bytes of a source (a path or bytes) and a name for it; ReadError if unreadable."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), "<bytes>"
    path = Path(source)
    try:
        return path.read_bytes(), str(path)
    except OSError as e:
        raise ReadError("unreadable_file", f"cannot read {path}: {e.strerror or e}") from None


def sniff(data: bytes) -> str:
    if not data:
        raise ReadError("empty_file", "the file is empty")
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    if data[:5] == pdf_pages.PDF_SIGNATURE:
        return "pdf"
    if is_jpeg2000(data):
        return "jp2"
    if data[:4] in (b"II+\x00", b"MM\x00+"):
        raise ReadError("unsupported_image", "BigTIFF files are not supported; save the scan as classic TIFF")
    raise ReadError("not_an_image", "not a PNG, JPEG, JPEG 2000, TIFF image or PDF (unrecognised file signature)")


def _tiff_pages(data) -> Iterator[PageHeader]:
    """Walk the IFD chain of a classic TIFF, yielding each page's size and photometric tag as it is reached.

    ``data`` is any buffer (bytes, or an ``mmap`` of the file: only the directories are touched).
    """
    bo = "<" if data[:2] == b"II" else ">"
    try:
        (offset,) = struct.unpack_from(bo + "I", data, 4)
        seen: set[int] = set()
        index = 0
        while offset:
            if offset in seen:
                raise ReadError("corrupt_image", "the TIFF's page directory loops on itself")
            if index >= MAX_TIFF_PAGES:
                raise ReadError("corrupt_image", f"the TIFF has more than {MAX_TIFF_PAGES} pages")
            seen.add(offset)
            (n,) = struct.unpack_from(bo + "H", data, offset)
            tags, res = {}, {}
            for k in range(n):
                tag, typ, count, value = struct.unpack_from(bo + "HHI4s", data, offset + 2 + 12 * k)
                if tag in _TIFF_TAGS:
                    fmt = {3: "H", 4: "I"}.get(typ)
                    if fmt:
                        tags[_TIFF_TAGS[tag]] = struct.unpack_from(bo + fmt, value)[0]
                elif tag in pixel_aspect.TIFF_RESOLUTION_TAGS:
                    res[tag] = (typ, count, value)
            (offset,) = struct.unpack_from(bo + "I", data, offset + 2 + 12 * n)
            if "width" not in tags or "height" not in tags:
                raise ReadError("corrupt_image", f"TIFF page {index + 1} has no image size")
            resolution = pixel_aspect.tiff_resolution(data, bo, res)
            yield PageHeader(
                "tiff", index, tags["width"], tags["height"], tags.get("photometric", 1), resolution=resolution
            )
            index += 1
    except struct.error:
        raise ReadError("corrupt_image", "the TIFF's page directory is truncated") from None


def _tiff_headers(data: bytes) -> list[PageHeader]:
    """Every page's header of a classic TIFF."""
    pages = list(_tiff_pages(data))
    if not pages:
        raise ReadError("corrupt_image", "the TIFF has no pages")
    return pages


def tiff_page_header(data, index: int) -> PageHeader | None:
    """Page ``index`` (from 0) of a classic TIFF, or None if the file has fewer pages.

    Walks the page directories only as far as that page, so with ``data`` an
    ``mmap`` of the file, reading one page of a long multi-page TIFF takes
    memory for that page alone, whatever the file's length.
    """
    if sniff(data[:8]) != "tiff":
        raise ReadError("not_an_image", "not a TIFF image")
    for header in _tiff_pages(data):
        if header.index == index:
            return header
    return None


def _pdf_headers(data) -> list[PageHeader]:
    """Each PDF page's header: the size of its embedded scan (or of its rendering), or why it is refused."""
    pdf = pdf_pages.open_pdf(data)
    try:
        return [_pdf_header(pdf, i) for i in range(len(pdf))]
    finally:
        pdf.close()


def _pdf_header(pdf, index: int) -> PageHeader:
    """One PDF page's header; a page that cannot be read carries its refusal, so the file's other pages still read."""
    try:
        plan = pdf_pages.plan_page(pdf, index)
    except ReadError as e:
        return PageHeader("pdf", index, 0, 0, refusal=(e.code, e.reason))
    return PageHeader("pdf", index, plan["width"], plan["height"], via=plan["via"], dpi=plan["dpi"])


def page_header(data, index: int) -> PageHeader | None:
    """Page ``index`` (from 0) of a multi-page TIFF or PDF, or None if the file has fewer pages."""
    if sniff(data[:8]) == "pdf":
        pdf = pdf_pages.open_pdf(data)
        try:
            return _pdf_header(pdf, index) if 0 <= index < len(pdf) else None
        finally:
            pdf.close()
    return tiff_page_header(data, index)


def headers(data: bytes) -> list[PageHeader]:
    """Each page's header (one for PNG and JPEG), without decoding any pixels."""
    fmt = sniff(data)
    if fmt == "pdf":
        return _pdf_headers(data)
    if fmt == "jpeg":
        try:
            h, w, _cs, _sub = simplejpeg.decode_jpeg_header(data)
        except ValueError as e:
            raise ReadError("corrupt_image", f"damaged JPEG header: {e}") from None
        return [PageHeader("jpeg", 0, int(w), int(h), resolution=pixel_aspect.jpeg_resolution(data))]
    if fmt == "png":
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise ReadError("corrupt_image", "damaged PNG header")
        w, h = struct.unpack(">II", data[16:24])
        return [PageHeader("png", 0, w, h, resolution=pixel_aspect.png_resolution(data))]
    if fmt == "jp2":
        size = jpeg2000_size(data)
        if size is None:
            raise ReadError("corrupt_image", "damaged JPEG 2000 header")
        return [PageHeader("jp2", 0, *size)]
    return _tiff_headers(data)


def check_size(header: PageHeader, paper_in: tuple[float, float]) -> None:
    """Refuse a page whose declared size is no ballot page (before decoding it).

    Raises ``image_too_large`` beyond `MAX_SIDE_PX` or `DPI_RANGE`'s top
    (with `SIZE_SLACK`), ``resolution_out_of_range`` below its bottom.
    """
    if header.refusal is not None:
        raise ReadError(*header.refusal)
    w, h = header.width, header.height
    if w <= 0 or h <= 0:
        raise ReadError("corrupt_image", f"the header declares an empty image ({w} x {h} px)")
    if max(w, h) > MAX_SIDE_PX:
        raise ReadError(
            "image_too_large",
            f"the header declares {w} x {h} px, more than the {MAX_SIDE_PX} px a side allowed; refused before decoding",
        )
    long_in, short_in = max(paper_in), min(paper_in)
    dpi_long, dpi_short = max(w, h) / long_in, min(w, h) / short_in
    lo, hi = DPI_RANGE
    if max(dpi_long, dpi_short) > hi * SIZE_SLACK:
        raise ReadError(
            "image_too_large",
            f"the header declares {w} x {h} px, about "
            f"{max(dpi_long, dpi_short):.0f} DPI for {short_in:g} x {long_in:g} in paper "
            f"(limit {hi:.0f}); refused before decoding",
        )
    if min(dpi_long, dpi_short) < lo / SIZE_SLACK:
        raise ReadError(
            "resolution_out_of_range",
            f"{w} x {h} px is about {min(dpi_long, dpi_short):.0f} DPI "
            f"for {short_in:g} x {long_in:g} in paper; at least {lo:.0f} DPI is needed",
        )


def _to_gray(a: np.ndarray, photometric: int = 1) -> np.ndarray:
    """Greyscale uint8, 255 = paper. A writable bool page (a fresh bitonal decode) is converted in place."""
    if a.dtype == np.bool_:
        return _bitonal_to_gray(a, photometric)
    if a.dtype == np.uint16:
        a = (a >> 8).astype(np.uint8)
    elif a.dtype != np.uint8:
        raise ReadError("unsupported_image", f"unsupported sample type {a.dtype}")
    if a.ndim == 3:
        if a.shape[2] == 1:
            a = a[:, :, 0]
        elif a.shape[2] in (3, 4):
            a = cv2.cvtColor(np.ascontiguousarray(a[:, :, :3]), cv2.COLOR_RGB2GRAY)
        else:
            raise ReadError("unsupported_image", f"unsupported number of channels ({a.shape[2]})")
    if a.ndim != 2:
        raise ReadError("unsupported_image", f"unsupported image shape {a.shape}")
    if photometric == 0:  # TIFF min-is-white: the raw samples are ink-high
        a = 255 - a
    return np.ascontiguousarray(a)


def _bitonal_to_gray(a: np.ndarray, photometric: int) -> np.ndarray:
    """A bitonal page's bytes (0/1) as grey 0/255 in one pass over the decoder's own buffer.

    The bytes of a numpy bool array are 0 and 1. Min-is-black (1 = white): times 255.
    Min-is-white (1 = ink): minus 1, wrapping in uint8 (0 -> 255, 1 -> 0), which is
    ``255 - 255 * a`` without a second pass. In place: a fresh page is 4 MB at
    200 DPI, and a new array of that size costs more in page faults than the arithmetic.
    """
    v = a.view(np.uint8) if a.flags.writeable else a.astype(np.uint8)
    if photometric == 0:
        np.subtract(v, 1, out=v)
    else:
        np.multiply(v, 255, out=v)
    return np.ascontiguousarray(v)


def _decode_pdf(data, header: PageHeader) -> np.ndarray:
    """A PDF page's pixels; a JPEG stream goes through the same decoder as a JPEG file, so reads the same."""
    pdf = pdf_pages.open_pdf(data)
    try:
        img = pdf_pages.decode_pdf_page(pdf, header.index, header.via, header.dpi)
    finally:
        pdf.close()
    if header.via == "jpeg":
        img = simplejpeg.decode_jpeg(img.tobytes(), colorspace="GRAY")
    return img


def _decoded(data, header: PageHeader) -> np.ndarray:
    """The decoder's own array for one page (a bitonal TIFF's is ``bool``); ReadError if it does not decode."""
    if header.refusal is not None:
        raise ReadError(*header.refusal)
    try:
        if header.format == "pdf":
            img = _decode_pdf(data, header)
        elif header.format == "jpeg":
            img = simplejpeg.decode_jpeg(data, colorspace="GRAY")
        elif header.format == "jp2":
            img = imagecodecs.jpeg2k_decode(data)
        elif header.format == "png":
            img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
            if img is None:
                raise ReadError("corrupt_image", "the PNG is truncated or damaged")
        else:
            if header.photometric == 3:
                raise ReadError("unsupported_image", "palette TIFF images are not supported")
            img = imagecodecs.tiff_decode(data, index=header.index)
    except ReadError:
        raise
    except Exception as e:  # each codec has its own error types; all mean a damaged file
        raise ReadError("corrupt_image", f"the {header.format.upper()} image is truncated or damaged: {e}") from None
    return np.asarray(img)


def _check_shape(shape: tuple[int, ...], header: PageHeader) -> None:
    if shape != (header.height, header.width):
        raise ReadError(
            "corrupt_image",
            f"decoded {shape[1]} x {shape[0]} px where the header said {header.width} x {header.height}",
        )


def decode_page(data: bytes, header: PageHeader) -> np.ndarray:
    """Decode one page to greyscale uint8; ReadError ``corrupt_image`` / ``unsupported_image``.

    A page whose header states two resolutions (204 x 196 DPI) comes back at
    square pixels (`tabulate.detect.pixel_aspect`); any other exactly as decoded.

    ``data`` may be an ``mmap`` of a TIFF file: libtiff then reads that page's
    directory and strips only.
    """
    a = _decoded(data, header)
    bitonal = a.dtype == np.bool_
    img = _to_gray(a, header.photometric)
    _check_shape(img.shape, header)
    return pixel_aspect.to_square(img, header.resolution, bitonal)


@dataclass(frozen=True, eq=False)
class BitonalPage:
    """A bitonal page as its decoder gave it: one byte a pixel, 0 or 1, and the grey level of each.

    ``levels`` is ``(0, 255)`` (min-is-black: a 1 is paper) or ``(255, 0)``
    (min-is-white: a 1 is ink): the page `decode_page` gives is
    ``levels[bits]``. The reader reads it as it is
    (`tabulate.detect.read.read_image`): the target kernel looks each byte's
    level up, and the few small regions read as grey (the corner windows, the
    streak bands, the style code's crop) are converted alone (`grey`), so no
    page-wide conversion is made (docs/perf.md, "This round (branch g4direct)").
    """

    bits: np.ndarray
    levels: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return self.bits.shape  # type: ignore[return-value]

    def grey_page(self) -> np.ndarray:
        """The whole page as grey (what `decode_page` gives), a new array."""
        return grey(self.bits, self.levels)


def _levels(paper: int) -> np.ndarray:
    out = np.array((255 - paper, paper), np.uint8)
    out.flags.writeable = False
    return out


#: A bitonal page's levels by TIFF photometric (0 min-is-white: a 1 is ink; 1 min-is-black: a 1 is paper).
_LEVELS = {0: _levels(0), 1: _levels(255)}


def grey(region: np.ndarray, levels: np.ndarray | None) -> np.ndarray:
    """``region`` of a page as grey levels: itself when ``levels`` is None (a grey page), else ``levels[region]``
    for a bitonal page's bytes, a new C-contiguous array made by one numpy operation (negated, or -1, wrapping
    in uint8: 1 -> 255 and 0 -> 0, or 0 -> 255 and 1 -> 0), which cost a corner window a fifth of OpenCV's
    table look-up here."""
    if levels is None:
        return region
    if levels[1]:  # min-is-black: a 1 is paper
        return np.negative(region)
    return np.subtract(region, np.uint8(1))


def decode_native(data: bytes, header: PageHeader) -> np.ndarray | BitonalPage:
    """`decode_page`, but a bitonal TIFF page (CCITT G4) as its decoder's own bytes (`BitonalPage`).

    Converting a 200 DPI bitonal page to grey is a pass over 3.7 million
    bytes (~0.15 ms); the reader does not need it. Any other page is grey, as
    `decode_page` gives it.
    """
    a = _decoded(data, header)
    if header.format != "tiff" or a.dtype != np.bool_ or a.ndim != 2:
        img = _to_gray(a, header.photometric)
        _check_shape(img.shape, header)
        return pixel_aspect.to_square(img, header.resolution)
    _check_shape(a.shape, header)
    bits = np.ascontiguousarray(a).view(np.uint8)  # a bool's byte is 0 or 1: the decoder's buffer, not a copy
    bits = pixel_aspect.to_square(bits, header.resolution, bitonal=True)  # stays 0/1: the same pixels as decode_page
    return BitonalPage(bits, _LEVELS[0 if header.photometric == 0 else 1])
