"""PDF of scans: taking each page's embedded scan out against rendering the page (why `detect/pdf_pages.py` extracts).

    nice -n 10 python benchmarks/pdf_pages.py [--dpi 200] [--repeat 5]

Simulates one grey JPEG sheet and one bitonal G4 sheet (`tabulate samples make`, seed 2026), wraps
each side in a PDF as a scanner does (the JPEG's own bytes as a DCT stream; Pillow's CCITT G4), and
times, per page, in one run: the file itself decoded as `read` decodes a JPEG / TIFF, the page's scan
extracted (`decode_page` on the PDF), and the page rendered by PDFium in grey at the same DPI. Prints
milliseconds a page, the ratio of rendering to extracting, and whether each gives the file's pixels.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
from PIL import Image

from tabulate.cli import main
from tabulate.detect.decode import decode_page, headers
from tabulate.detect.pdf_pages import open_pdf, render_scale

GENERAL = Path(__file__).parents[1] / "samples" / "general" / "election.json"


def _best_ms(fn, repeat: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def _jpeg_pdf(path: Path, dpi: int) -> bytes:
    pdf = pdfium.PdfDocument.new()
    img = pdfium.PdfImage.new(pdf)
    img.load_jpeg(io.BytesIO(path.read_bytes()), inline=False)
    w, h = img.get_px_size()
    page = pdf.new_page(w * 72 / dpi, h * 72 / dpi)
    img.set_matrix(pdfium.PdfMatrix(w * 72 / dpi, 0, 0, h * 72 / dpi, 0, 0))
    page.insert_obj(img)
    page.gen_content()
    buf = io.BytesIO()
    pdf.save(buf)
    return buf.getvalue()


def _g4_pdf(path: Path, dpi: int) -> bytes:
    buf = io.BytesIO()
    Image.open(path).save(buf, "PDF", resolution=dpi)
    return buf.getvalue()


def _row(kind: str, file_bytes: bytes, pdf_bytes: bytes, dpi: int, repeat: int) -> None:
    want = decode_page(file_bytes, headers(file_bytes)[0])
    (h,) = headers(pdf_bytes)
    file_ms = _best_ms(lambda: decode_page(file_bytes, headers(file_bytes)[0]), repeat)
    got = decode_page(pdf_bytes, h)
    extract_ms = _best_ms(lambda: decode_page(pdf_bytes, headers(pdf_bytes)[0]), repeat)

    def render() -> np.ndarray:
        pdf = open_pdf(pdf_bytes)
        try:
            return pdf[0].render(scale=render_scale(dpi), grayscale=True).to_numpy()
        finally:
            pdf.close()

    rendered = render()
    render_ms = _best_ms(render, repeat)
    same_render = rendered.shape == want.shape and bool(np.array_equal(rendered, want))
    print(
        f"| {kind} | {h.via} | {file_ms:.1f} | {extract_ms:.1f} | {render_ms:.1f} | {render_ms / extract_ms:.1f}x "
        f"| {np.array_equal(got, want)} | {same_render} |"
    )


def run(dpi: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "s"
        for fmt, bitonal in (("jpeg", "0"), ("tiff", "1")):
            args = ["samples", "make", str(GENERAL), "--out", str(out / fmt), "--ballots", "1", "--seed", "2026"]
            main([*args, "--format", fmt, "--bitonal-fraction", bitonal, "--dpi", str(dpi), "--quiet"])
        jpeg = sorted((out / "jpeg").glob("*.jpg"))[0]
        g4 = sorted((out / "tiff").glob("*.tif"))[0]
        print(f"{dpi} DPI letter page, best of {repeat}, ms a page")
        print(
            "| page | via | file decode | PDF extract | PDF render | render / extract | extract = file | render = file |"
        )
        print("|---|---|---|---|---|---|---|---|")
        _row("grey JPEG", jpeg.read_bytes(), _jpeg_pdf(jpeg, dpi), dpi, repeat)
        _row("bitonal G4", g4.read_bytes(), _g4_pdf(g4, dpi), dpi, repeat)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpi", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args(sys.argv[1:])
    run(a.dpi, a.repeat)
