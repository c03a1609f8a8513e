"""Voted scans delivered as PDF (issue #11): each page one side, read from its embedded scan.

The PDFs are made here from our own simulated scans: JPEG pages embedded as
their own bytes (pypdfium2), G4 pages by Pillow (CCITTFaxDecode), grey PNG
pages as a Flate image in a PDF written by hand (`_pdf`). Each must read
exactly as the same images as files.
"""

from __future__ import annotations

import dataclasses
import io
import zlib
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

from tabulate.central import PageSource, ScanPlan, load_page
from tabulate.cli import main
from tabulate.detect.decode import check_size, decode_page, headers, page_header
from tabulate.detect.read import read_pages
from tabulate.election import load_election

ROOT = Path(__file__).parents[1]
GENERAL = ROOT / "samples" / "general" / "election.json"
LETTER = (8.5, 11.0)


@pytest.fixture(scope="module")
def scans_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("scans")


@pytest.fixture
def tmp_path(tmp_path, scans_dir):
    """Each test's own folder, with the module's simulated scans shared (`_scans` makes each kind once)."""
    (tmp_path / ".scans").symlink_to(scans_dir)
    return tmp_path


def _scans(tmp_path: Path, fmt: str, bitonal: float = 0.0) -> list[Path]:
    out = tmp_path / ".scans" / f"{fmt}-{bitonal}"
    if out.is_dir():
        return sorted(p for p in out.iterdir() if p.suffix != ".json")
    ballots = "2" if (fmt, bitonal) == ("jpeg", 0.0) else "1"  # two sheets where a batch is paired, else one
    args = ["samples", "make", str(GENERAL), "--out", str(out), "--ballots", ballots, "--seed", "11"]
    assert main([*args, "--format", fmt, "--bitonal-fraction", str(bitonal), "--dpi", "150", "--quiet"]) == 0
    return sorted(p for p in out.iterdir() if p.suffix != ".json")


def _jpeg_pdf(paths: list[Path], out: Path) -> Path:
    """A PDF whose pages are the JPEG files' own bytes (a DCT stream each), drawn over the whole page."""
    pdf = pdfium.PdfDocument.new()
    for p in paths:
        img = pdfium.PdfImage.new(pdf)
        img.load_jpeg(io.BytesIO(p.read_bytes()), inline=False)
        w, h = img.get_px_size()
        page = pdf.new_page(w * 72 / 150, h * 72 / 150)
        img.set_matrix(pdfium.PdfMatrix(w * 72 / 150, 0, 0, h * 72 / 150, 0, 0))
        page.insert_obj(img)
        page.gen_content()
    pdf.save(str(out))
    return out


def _pdf(pages: list[tuple[bytes, tuple[int, int, bytes] | None]], size_pt=(612, 792)) -> bytes:
    """A minimal PDF: each page its content stream and, optionally, one grey Flate image ``/Im0`` (w, h, pixels)."""
    objs: list[bytes] = [b"", b""]  # 1: catalog, 2: page tree (filled below)
    kids = []
    for content, image in pages:
        res = b"<< >>"
        if image is not None:
            w, h, px = image
            data = zlib.compress(px, 1)
            head = b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray" % (w, h)
            objs.append(head + b" /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n" % len(data))
            objs[-1] += data + b"\nendstream"
            res = b"<< /XObject << /Im0 %d 0 R >> >>" % len(objs)
        objs.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        objs.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources %s /Contents %d 0 R >>"
            % (*size_pt, res, len(objs))
        )
        kids.append(b"%d 0 R" % len(objs))
    objs[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objs[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def _flate_pdf(paths: list[Path]) -> bytes:
    pages = []
    for p in paths:
        a = np.asarray(Image.open(p).convert("L"))
        h, w = a.shape
        draw = b"q %.4f 0 0 %.4f 0 0 cm /Im0 Do Q" % (w * 72 / 150, h * 72 / 150)
        pages.append((draw, (w, h, a.tobytes())))
    return _pdf(pages, size_pt=(round(w * 72 / 150), round(h * 72 / 150)))


def _same(pdf_readings, file_readings):
    """Readings equal but for where the page came from (file, index in it, the file's sha256)."""
    assert len(pdf_readings) == len(file_readings)
    for got, want in zip(pdf_readings, file_readings):
        assert got.ok and want.ok, (got.reason, want.reason)
        assert dataclasses.replace(got, source=want.source, index=want.index, digest=want.digest) == want


@pytest.mark.parametrize("kind", ["jpeg", "g4", "flate"])
def test_a_pdf_of_scans_reads_exactly_as_the_same_images_as_files(tmp_path, kind):
    election = load_election(GENERAL)
    if kind == "jpeg":
        files = _scans(tmp_path, "jpeg")
        data = _jpeg_pdf(files, tmp_path / "b.pdf").read_bytes()
    elif kind == "g4":
        files = _scans(tmp_path, "jpeg", bitonal=1.0)
        ims = [Image.open(p) for p in files]
        assert all(im.mode == "1" for im in ims)
        buf = io.BytesIO()
        ims[0].save(buf, "PDF", resolution=150, save_all=True, append_images=ims[1:])
        data = buf.getvalue()
    else:
        files = _scans(tmp_path, "png")
        data = _flate_pdf(files)
    heads = headers(data)
    assert [h.via for h in heads] == ["jpeg" if kind == "jpeg" else "image"] * len(files)
    want = [r for f in files for r in read_pages(election, str(f))]
    _same(read_pages(election, data), want)


def test_a_template_set_reads_a_pdf_as_it_reads_the_jpegs(tmp_path):
    from tabulate.templates import TemplateReader, import_templates

    election = load_election(GENERAL)
    vendor = ROOT / "samples" / "vendor" / "boxes"
    blanks = sorted((vendor / "blanks").glob("blank-3-*.png"))  # the sample sheet's style: a set of one is enough
    import_templates(election, blanks, tmp_path / "set", score=False)
    reader = TemplateReader(str(tmp_path / "set"))
    files = sorted(vendor.glob("sheet-*.jpg"))
    pdf = _jpeg_pdf(files, tmp_path / "v.pdf")
    want = [r for f in files for r in read_pages(election, str(f), reader=reader)]
    _same(read_pages(election, str(pdf), reader=reader), want)


def test_a_batch_pdf_pairs_like_a_multi_page_tiff_and_each_page_is_found_again(tmp_path):
    files = _scans(tmp_path, "jpeg")
    pdf = _jpeg_pdf(files, tmp_path / "batch" / "batch.pdf") if (tmp_path / "batch").mkdir() is None else None
    sheets = list(ScanPlan([tmp_path / "batch"]))
    assert [[(p.path, p.page) for p in s.pages] for s in sheets] == [
        [(str(pdf), 1), (str(pdf), 2)],
        [(str(pdf), 3), (str(pdf), 4)],
    ]
    # One page found again by (file, page): the same pixels as the JPEG, and the same bytes every time.
    data, digest = load_page(PageSource(str(pdf), 3), LETTER)
    assert load_page(PageSource(str(pdf), 3), LETTER)[1] == digest
    img = decode_page(data, headers(data)[0])
    jpeg = files[2].read_bytes()
    assert np.array_equal(img, decode_page(jpeg, headers(jpeg)[0]))
    assert page_header(pdf.read_bytes(), 4) is None


def test_scan_verify_images_and_the_review_app_find_each_pdf_page(tmp_path, capsys):
    from tabulate.adjudicate.source import StoreSource
    from tabulate.store import open_store

    files = _scans(tmp_path, "jpeg")
    (tmp_path / "batch").mkdir()
    _jpeg_pdf(files, tmp_path / "batch" / "batch.pdf")
    db = str(tmp_path / "s.db")
    args = ["scan", str(tmp_path / "batch"), "--election", str(GENERAL), "--db", db, "--batch", "A"]
    assert main([*args, "--vote-type", "election_day", "--no-progress", "--workers", "1"]) == 0
    assert main(["verify", "--db", db, "--images"]) == 0
    assert "every reading matches the store" in capsys.readouterr().out
    store = open_store(db)
    source = StoreSource(store)
    jpeg = files[1].read_bytes()
    assert np.array_equal(source.page_image("1", 2), decode_page(jpeg, headers(jpeg)[0]))
    store.close()


def test_what_cannot_be_a_scan_is_refused_in_one_line():
    square = b"0 0 m 100 0 l 100 100 l 0 100 l h S BT /F1 12 Tf 72 700 Td (Governor) Tj ET"
    heads = headers(_pdf([(b"", None), (square, None)]))
    for h, code in zip(heads, ("pdf_page_empty", "pdf_not_a_scan")):
        with pytest.raises(Exception) as e:
            check_size(h, LETTER)
        assert e.value.code == code
    assert "this looks like a printer's PDF, not a scan: use `tabulate templates import`" in str(e.value)


def test_an_encrypted_pdf_is_refused(tmp_path):
    from pypdf import PdfWriter

    w = PdfWriter()
    w.add_blank_page(612, 792)
    w.encrypt("secret")
    buf = io.BytesIO()
    w.write(buf)
    (reading,) = read_pages(load_election(GENERAL), buf.getvalue())
    assert reading.reason_code == "pdf_encrypted" and "password" in reading.reason


def test_a_page_that_is_not_one_full_page_image_is_rendered_at_the_images_resolution():
    """A stamp drawn over the scan: the page is rendered (grey, at the image's 150 DPI), the stamp with it."""
    a = np.full((1650, 1275), 240, np.uint8)
    draw = b"q 612 0 0 792 0 0 cm /Im0 Do Q 0 g 10 10 100 100 re f"
    (h,) = headers(_pdf([(draw, (1275, 1650, a.tobytes()))]))
    assert (h.via, h.width, h.height, round(h.dpi)) == ("render", 1275, 1650, 150)
    img = decode_page(_pdf([(draw, (1275, 1650, a.tobytes()))]), h)
    assert img.shape == (1650, 1275) and img[1600, 100] == 0 and img[800, 600] == 240
    (reading,) = read_pages(load_election(GENERAL), _pdf([(draw, (1275, 1650, a.tobytes()))]))
    assert reading.flags == ("pdf_page_rendered",)  # the evidence says these are not the scanner's own pixels


def test_a_rendered_page_of_a_batch_pdf_keeps_its_flag_through_the_scan_loader(tmp_path):
    """A PDF of more than 2 pages is scanned page by page: each page handed on as a TIFF of its pixels.
    The page PDFium had to render (a stamp drawn over the scan) must still say so in its reading."""
    import pickle

    a = np.full((1650, 1275), 240, np.uint8)
    plain = b"q 612 0 0 792 0 0 cm /Im0 Do Q"
    stamp = plain + b" 0 g 10 10 100 100 re f"
    pdf = tmp_path / "batch.pdf"
    pdf.write_bytes(_pdf([(stamp, (1275, 1650, a.tobytes()))] + [(plain, (1275, 1650, a.tobytes()))] * 3))
    election = load_election(GENERAL)
    flags = []
    for n in (1, 2, 3):
        data, _digest = load_page(PageSource(str(pdf), n), LETTER)
        data = pickle.loads(pickle.dumps(data))  # as a worker hands it on
        (reading,) = read_pages(election, data)
        flags.append("pdf_page_rendered" in reading.flags)
    assert flags == [True, False, False]


def test_a_two_page_pdf_is_one_sheet_read_whole(tmp_path):
    from tabulate.detect.read import read_sheet

    files = _scans(tmp_path, "jpeg")[:2]
    pdf = _jpeg_pdf(files, tmp_path / "one.pdf")
    (sheet,) = list(ScanPlan([pdf]))
    assert [(p.path, p.page) for p in sheet.pages] == [(str(pdf), None)] and sheet.missing is None
    election = load_election(GENERAL)
    got, want = read_sheet(election, [str(pdf)]), read_sheet(election, [str(f) for f in files])
    assert got.ok and [p.style_id for p in got.pages] == [p.style_id for p in want.pages]
    assert [t.score for p in got.pages for t in p.targets] == [t.score for p in want.pages for t in p.targets]


def test_the_hot_folder_waits_for_a_pdf_being_written(tmp_path):
    from tabulate.central.hotfolder import has_end_marker

    data = _pdf([(b"", None)])
    (tmp_path / "a.pdf").write_bytes(data[: len(data) // 2])
    (tmp_path / "b.pdf").write_bytes(data)
    assert not has_end_marker(str(tmp_path / "a.pdf")) and has_end_marker(str(tmp_path / "b.pdf"))
