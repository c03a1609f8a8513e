"""The blanks as an election management system's PDFs whose pages are images, for `templates_variants.py`.

A county's sample ballots are not always the vendor's vector PDF: an EMS export, or a scan of the printed
sample saved as PDF, holds each page as a raster, at its own resolution, sometimes stored a quarter turn
round with /Rotate set to show it upright, sometimes as a landscape page, sometimes with a crop box inside
the paper. Built here with Pillow (the raster pages) and pypdfium2 (rotation, crop box).
"""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pypdfium2 as pdfium
from PIL import Image

#: Inches the "cropbox" PDF's crop box sits inside the paper on every side.
CROP_IN = 0.25


def _raster_pdf(pages: list[np.ndarray], dpi: float) -> bytes:
    buf = io.BytesIO()
    imgs = [Image.fromarray(p) for p in pages]
    imgs[0].save(buf, format="PDF", resolution=float(dpi), save_all=True, append_images=imgs[1:])
    return buf.getvalue()


def image_pdf(pages: list[np.ndarray], dpi: int, how: str) -> bytes:
    """One style's blank pages (grey, at ``dpi``) as a PDF of images, changed as ``how`` says."""
    if how == "150":  # a JPEG raster (Pillow writes grey pages as DCT) at 150 DPI
        k = 150 / dpi
        return _raster_pdf([cv2.resize(p, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) for p in pages], 150)
    if how == "sideways":  # the scan saved as it lay on the glass: a landscape page
        return _raster_pdf([np.ascontiguousarray(np.rot90(p, 1)) for p in pages], dpi)
    if how == "rotated":  # stored a quarter turn round, shown upright by the page's /Rotate
        pdf = pdfium.PdfDocument(_raster_pdf([np.ascontiguousarray(np.rot90(p, 1)) for p in pages], dpi))
        for i in range(len(pdf)):
            pdf[i].set_rotation(90)
    elif how == "cropbox":
        pdf = pdfium.PdfDocument(_raster_pdf(pages, dpi))
        c = CROP_IN * 72
        for i in range(len(pdf)):
            left, bottom, right, top = pdf[i].get_mediabox()
            pdf[i].set_cropbox(left + c, bottom + c, right - c, top - c)
    else:
        raise ValueError(f"unknown image PDF {how!r}")
    out = io.BytesIO()
    pdf.save(out)
    pdf.close()
    return out.getvalue()


def image_pdfs(blanks: list[Path], out: Path, dpi: int, how: str) -> list[Path]:
    """The blank PNGs (two a style, in order) as one PDF of images a style."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(0, len(blanks), 2):
        pages = [np.asarray(Image.open(p).convert("L")) for p in blanks[k : k + 2]]
        path = out / f"{blanks[k].stem.rsplit('-p', 1)[0]}.pdf"
        path.write_bytes(image_pdf(pages, dpi, how))
        paths.append(path)
    return paths
