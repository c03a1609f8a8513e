"""Scanned pages delivered as a PDF: each page one side, its scanner's image taken out as it was made.

Vendors' systems and office scanners save a voted sheet (or a batch) as a PDF
whose pages are each one scanned image (JPEG/DCT, CCITT G4 or Flate). Such a
page is read from the embedded image itself, at the image's own resolution,
so the pixels are the scanner's, not a re-rendering of them:

* a DCT (JPEG) stream is handed to our own JPEG decoder byte for byte, so a
  page reads exactly as the same JPEG saved as a file would;
* any other encoding (CCITT G4, Flate, JBIG2, ...) is decoded by PDFium
  (pypdfium2, already used for blank ballots) at its native pixel size,
  which for a G4 page gives exactly the pixels libtiff gives for the same strip.

Only a page that is not one upright full-page image (several images, vector
drawing over the scan, a mirrored image) is rendered through PDFium, in
grey at the resolution of its largest image; its header says so
(``via="render"``). Measured (`benchmarks/pdf_pages.py`, docs/scanning.md): a 200 DPI
grey JPEG page extracted in 16 ms against 102 ms rendered, a G4 page 8 ms against 20 ms.

A PDF that cannot be a scan is refused with one line: encrypted
(``pdf_encrypted``), a page with nothing on it (``pdf_page_empty``), or a
page of vector drawing and text only, which is a printer's PDF of a blank
ballot (``pdf_not_a_scan``).
"""

from __future__ import annotations

import io
import math

import numpy as np

from .errors import ReadError

PDF_SIGNATURE = b"%PDF-"
#: An image whose box is within this share of the page's on each side covers the page.
FULL_PAGE_SLACK = 0.02
#: PDFium's error code for a document that needs a password (FPDF_ERR_PASSWORD).
_ERR_PASSWORD = 4


class _BufferFile(io.RawIOBase):
    """A read-only file over a buffer (an ``mmap`` of the batch PDF), so PDFium reads only the blocks it needs
    of a long file instead of a copy of the whole of it for every page."""

    def __init__(self, buffer):
        self._view, self._pos = memoryview(buffer).cast("B"), 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = max(0, min(len(b), len(self._view) - self._pos))
        b[:n] = self._view[self._pos : self._pos + n]
        self._pos += n
        return n

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self._pos = offset + (0, self._pos, len(self._view))[whence]
        return self._pos

    def tell(self) -> int:
        return self._pos


def open_pdf(data):
    """The PDF in ``data`` (bytes or a buffer such as an ``mmap``) opened with PDFium; ReadError if it cannot be."""
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(data if isinstance(data, bytes) else _BufferFile(data))
    except pdfium.PdfiumError as e:
        if getattr(e, "err_code", None) == _ERR_PASSWORD:
            raise ReadError(
                "pdf_encrypted", "the PDF is encrypted (it needs a password): export it unprotected"
            ) from None
        raise ReadError("corrupt_image", f"the PDF is damaged: {e}") from None


def _objects(page) -> tuple[list, int]:
    """The page's image objects, and how many drawing objects (paths, shadings) it has besides them.

    Text is not counted: a scanner's "searchable PDF" lays invisible OCR text over the scan.
    """
    import pypdfium2.raw as raw

    images, drawings = [], 0
    for obj in page.get_objects():
        if obj.type == raw.FPDF_PAGEOBJ_IMAGE:
            images.append(obj)
        elif obj.type in (raw.FPDF_PAGEOBJ_PATH, raw.FPDF_PAGEOBJ_SHADING):
            drawings += 1
    return images, drawings


def _has_content(page) -> bool:
    return any(True for _ in page.get_objects())


def _full_page(image, page) -> bool:
    """Whether ``image`` is drawn upright, unmirrored, over the whole page (its pixels are the page as shown)."""
    a, b, c, d, _e, _f = image.get_matrix().get()
    if b != 0 or c != 0 or a <= 0 or d <= 0:
        return False
    left, bottom, right, top = image.get_bounds()
    w, h = page.get_width(), page.get_height()
    return right - left >= w * (1 - FULL_PAGE_SLACK) and top - bottom >= h * (1 - FULL_PAGE_SLACK)


def _image_dpi(image) -> float:
    """An image's resolution on the page: its pixels over its drawn width in inches."""
    left, _bottom, right, _top = image.get_bounds()
    px_w, _px_h = image.get_px_size()
    return px_w / max((right - left) / 72.0, 1e-6)


def plan_page(pdf, index: int) -> dict:
    """How page ``index`` (from 0) will be decoded: ``via`` ("jpeg" | "image" | "render"), pixel size, DPI."""
    page = pdf[index]
    images, drawings = _objects(page)
    n = index + 1
    if not images:
        if not _has_content(page):
            raise ReadError("pdf_page_empty", f"PDF page {n} has no image and no content")
        raise ReadError(
            "pdf_not_a_scan",
            f"PDF page {n} is vector drawing and text, no scanned image: this looks like a printer's PDF, "
            "not a scan: use `tabulate templates import`",
        )
    if len(images) == 1 and drawings == 0 and _full_page(images[0], page):
        img = images[0]
        width, height = img.get_px_size()
        via = "jpeg" if img.get_filters() == ["DCTDecode"] else "image"
        return {"via": via, "width": int(width), "height": int(height), "dpi": _image_dpi(img)}
    # To a hundredth: PDF boxes are floats, and 149.9999 DPI should not render one row more than 150 does.
    dpi = round(max(_image_dpi(i) for i in images), 2)
    scale = render_scale(dpi)
    width, height = math.ceil(page.get_width() * scale), math.ceil(page.get_height() * scale)
    if page.get_rotation() in (90, 270):
        width, height = height, width
    return {"via": "render", "width": width, "height": height, "dpi": dpi}


def render_scale(dpi: float) -> float:
    """PDFium's scale for ``dpi``, one float step below it: PDFium sizes the bitmap by rounding up, and
    792 pt x (150 / 72) is 1650.0000000000002 in floats, one row more than a 150 DPI letter scan has."""
    return float(np.nextafter(dpi / 72.0, 0.0))


def file_page_count(f) -> int:
    """How many pages the PDF in open binary file ``f`` has (PDFium reads its page tree only); 1 when it cannot
    be opened: the reader then refuses that page with its own reason (``pdf_encrypted``, ``corrupt_image``)."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(f)
    except pdfium.PdfiumError:
        return 1
    try:
        return max(len(pdf), 1)
    finally:
        pdf.close()


def decode_pdf_page(pdf, index: int, via: str, dpi: float) -> np.ndarray:
    """Page ``index``'s pixels: the JPEG stream's bytes (for `decode`'s JPEG decoder to take, returned as
    ``uint8`` bytes in a 1-D array), PDFium's decode of the embedded image, or PDFium's rendering (grey)."""
    page = pdf[index]
    if via == "render":
        return page.render(scale=render_scale(dpi), grayscale=True).to_numpy()
    images, _ = _objects(page)
    if via == "jpeg":
        return np.frombuffer(bytes(images[0].get_data(decode_simple=False)), np.uint8)
    return _bitmap_gray(images[0].get_bitmap(render=False).to_numpy())


def _bitmap_gray(a: np.ndarray) -> np.ndarray:
    """PDFium's bitmap (grey, or BGR/BGRx/BGRA) as grey; a grey image stored as colour keeps its exact values."""
    if a.ndim == 2 or a.shape[2] == 1:
        return np.ascontiguousarray(a.reshape(a.shape[0], a.shape[1]))
    bgr = a[:, :, :3]
    if np.array_equal(bgr[:, :, 0], bgr[:, :, 1]) and np.array_equal(bgr[:, :, 1], bgr[:, :, 2]):
        return np.ascontiguousarray(bgr[:, :, 0])
    import cv2

    return cv2.cvtColor(np.ascontiguousarray(bgr), cv2.COLOR_BGR2GRAY)
