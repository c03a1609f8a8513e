"""The fourth round of what real vendors, EMS exports and scanners produce (issue #11, docs/templates.md).

Each test is one page the import or the reader got wrong (or could not take) before: an EMS's PDF of
images with a crop box inside the paper, or saved as landscape pages; a scanner's export of a sheet's
front and back side by side in one image (now split by ``tabulate templates split-sides``); a page of a
ballot printed on two sheets, refused with what to do; a set mixing paper lengths by style.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import cv2
import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

from tabulate.ballots.vendor import PaperEffects, simulate_vendor_sheet, vendor_layout
from tabulate.ballots.vendor.design import design_variant
from tabulate.ballots.vendor.sheets import blank_pages
from tabulate.ballots.vendor.write import write_blanks
from tabulate.cli import main
from tabulate.detect.dither import DIFFUSED_FLAG, isolated_share, undither
from tabulate.detect.read import read_sheet
from tabulate.election import load_election, parse_election
from tabulate.templates import TemplateError, TemplateReader, import_templates
from tabulate.templates.blanks import load_blanks
from tabulate.templates.exports import paper_of, split_sides
from tabulate.templates.sides import split_files

ROOT = Path(__file__).parents[1]
GENERAL = ROOT / "samples" / "general" / "election.json"


def _raster_pdf(pages: list[np.ndarray], dpi: float) -> bytes:
    buf = io.BytesIO()
    imgs = [Image.fromarray(p) for p in pages]
    imgs[0].save(buf, format="PDF", resolution=dpi, save_all=True, append_images=imgs[1:])
    return buf.getvalue()


def _near(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Within a pixel each way (PDFium rounds the page's points up to whole pixels)."""
    return all(abs(x - y) <= 1 for x, y in zip(a, b))


@pytest.fixture(scope="module")
def front() -> np.ndarray:
    """Style 1's front in the boxes design (300 DPI, letter)."""
    return blank_pages(load_election(GENERAL), "1", "boxes")[0]


def test_an_ems_pdf_with_a_crop_box_inside_the_paper_is_imported_at_the_papers_size(tmp_path, front):
    """An EMS export (or a scan saved as PDF) may set a crop box 0.25 in inside a letter page. Rendered as
    it stood, the page was 8 x 10.5 in, taken for letter at 284 DPI: every target 2-6 % off. A PDF page
    states its size, so the whole paper is rendered at exactly 300 DPI."""
    pdf = pdfium.PdfDocument(_raster_pdf([front], 300))
    left, bottom, right, top = pdf[0].get_mediabox()
    pdf[0].set_cropbox(left + 18, bottom + 18, right - 18, top - 18)
    path = tmp_path / "cropped.pdf"
    pdf.save(str(path))
    pdf.close()
    (blank,) = load_blanks([path])
    assert blank.paper_in == (8.5, 11.0) and blank.dpi == 300.0
    assert _near(blank.image.shape, front.shape)
    got = blank.image[: front.shape[0], : front.shape[1]]
    assert np.mean(np.abs(got.astype(int) - front.astype(int))) < 2.0  # the same pixels, not rescaled


def test_an_ems_pdf_of_landscape_pages_is_turned_upright(tmp_path, front):
    """A scan saved as PDF the way it lay on the glass is a landscape page; an image file like it was turned
    upright on import, a PDF page was not, and the import stopped ("fits style 1 page 2 and style 2 page 2
    ... equally")."""
    path = tmp_path / "sideways.pdf"
    path.write_bytes(_raster_pdf([np.ascontiguousarray(np.rot90(front, 1))], 300))
    (blank,) = load_blanks([path])
    assert _near(blank.image.shape, front.shape) and blank.paper_in == (8.5, 11.0) and blank.dpi == 300.0
    got = blank.image[: front.shape[0], : front.shape[1]]
    assert np.mean(np.abs(got.astype(int) - front.astype(int))) < 2.0


def test_a_150_dpi_jpeg_raster_pdf_keeps_the_papers_size(tmp_path, front):
    small = cv2.resize(front, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    path = tmp_path / "raster150.pdf"
    path.write_bytes(_raster_pdf([small], 150))
    (blank,) = load_blanks([path])
    assert blank.paper_in == (8.5, 11.0) and blank.dpi == 300.0 and _near(blank.image.shape, front.shape)


def test_split_sides_cuts_two_pages_and_leaves_a_single_page_alone(front):
    both = np.hstack([front, front[:, ::-1]])
    halves = split_sides(both, [(8.5, 11.0)])
    assert halves is not None
    assert np.array_equal(halves[0], front) and np.array_equal(halves[1], front[:, ::-1])
    assert split_sides(front, [(8.5, 11.0)]) is None
    assert split_sides(np.hstack([front, front]), [(8.5, 14.0)]) is None  # not two legal pages


def test_split_files_never_overwrites_one_images_halves_with_anothers(tmp_path, front):
    """The same file name in two folders (two batches): the second image's halves would have replaced the
    first's, losing a sheet. The second is refused and named instead."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "0001.png").write_bytes(cv2.imencode(".png", np.hstack([front, front]))[1].tobytes())
    result = split_files([tmp_path / "a" / "0001.png", tmp_path / "b" / "0001.png"], tmp_path / "out", [(8.5, 11.0)])
    assert [p.name for p in result.written] == ["0001-front.png", "0001-back.png"]
    assert len(result.refused) == 1 and result.refused[0][0].startswith(str(tmp_path / "b"))
    rows = list(csv.DictReader((tmp_path / "out" / "split-sides.csv").open(encoding="utf-8")))
    assert len(rows) == 2


def test_a_sheet_exported_side_by_side_is_split_and_both_sides_read(tmp_path):
    """`two_pages_in_image` told the clerk to rescan. ``tabulate templates split-sides`` writes the halves as
    images of their own, with a manifest naming each one's original and its SHA-256; they then pair and
    read as any sheet's two images. An image that is not two pages is named and not written (exit 2)."""
    election = load_election(GENERAL)
    blanks = write_blanks(election, "boxes", tmp_path / "blanks", styles=("1",))
    import_templates(election, blanks, tmp_path / "set", score=False)
    images, truth = simulate_vendor_sheet(election, "boxes", 1, 2026, effects=PaperEffects(quarter_turn=0.0))
    assert truth["style"] == "1"
    scans = tmp_path / "scans"
    scans.mkdir()
    (scans / "sheet-0001.png").write_bytes(cv2.imencode(".png", np.hstack(images))[1].tobytes())
    (scans / "single.png").write_bytes(cv2.imencode(".png", images[0])[1].tobytes())
    out = tmp_path / "split"
    args = ["templates", "split-sides", str(scans / "sheet-0001.png"), "--templates", str(tmp_path / "set")]
    assert main([*args, "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["sheet-0001-back.png", "sheet-0001-front.png", "split-sides.csv"]
    rows = list(csv.DictReader((out / "split-sides.csv").open(encoding="utf-8")))
    assert [(r["file"], r["half"]) for r in rows] == [
        ("sheet-0001-front.png", "left"),
        ("sheet-0001-back.png", "right"),
    ]
    assert len(rows[0]["from_sha256"]) == 64
    sheet = read_sheet(
        election,
        [str(out / "sheet-0001-front.png"), str(out / "sheet-0001-back.png")],
        reader=TemplateReader(str(tmp_path / "set")),
    )
    assert sheet.ok, sheet.reason
    assert [p.style_id for p in sheet.pages] == ["1", "1"] and [p.page for p in sheet.pages] == [1, 2]
    assert (
        main(
            [
                "templates",
                "split-sides",
                str(scans / "single.png"),
                "--templates",
                str(tmp_path / "set"),
                "--out",
                str(tmp_path / "none"),
            ]
        )
        == 2
    )
    assert not (tmp_path / "none" / "single-front.png").exists()


def test_a_page_of_a_ballot_on_two_sheets_is_refused_with_what_to_do(tmp_path):
    """A long ballot may run over two sheets: four pages a voter. A style is one sheet (its front from the
    start of its contests, its back from the end), so the first sheet's back, holding contests from the
    middle of the list, fit nothing, and the import said only that a contest's count differed or that the
    page fit no style. It now says what the page likely is and what to do: one style a sheet."""
    doc = json.loads(GENERAL.read_text(encoding="utf-8"))
    full = parse_election(doc)
    style = next(s for s in doc["ballot_styles"] if s["id"] == "1")
    style["contests"] = style["contests"][:8]  # sheet 1 of style 1: its first 8 contests
    sheet1 = parse_election(doc)
    back = [p for p in write_blanks(sheet1, "boxes", tmp_path / "blanks", styles=("1",)) if p.stem.endswith("p2")]
    with pytest.raises(TemplateError) as e:
        import_templates(full, back, tmp_path / "set", score=False)
    msg = str(e.value)
    assert "two sheets" in msg and "style of its own" in msg and "\n" not in msg


def test_a_style_on_longer_paper_is_laid_out_on_it():
    """The generator's `by_style`: the set mixes paper lengths (letter for some styles, legal for others)."""
    election = load_election(GENERAL)
    legal = design_variant("boxes", "legal14", paper_in=(8.5, 14.0), bottom_in=13.35)
    mixed = design_variant("boxes", "mixed14", by_style=(("1", legal),))
    assert vendor_layout(election, "1", mixed).pages[0].height_in == 14.0
    assert vendor_layout(election, "2", mixed).pages[0].height_in == 11.0


def test_paper_of_picks_the_sets_paper_the_image_has_the_shape_of():
    papers = [(8.5, 11.0), (8.5, 14.0), (8.5, 17.0)]
    assert paper_of((3300, 2550), papers) == (8.5, 11.0)
    assert paper_of((2550, 4200), papers) == (8.5, 14.0)  # a legal page fed sideways
    assert paper_of((3400, 1700), papers) == (8.5, 17.0)
    assert paper_of((3300 + 600, 2550), [(8.5, 11.0)]) == (8.5, 11.0)  # a strip below: the only paper
    assert paper_of((4600, 2000), papers) == (8.5, 11.0)  # no paper's shape: the shortest, read by width


def test_a_letter_page_reads_with_a_set_whose_first_style_is_on_legal(tmp_path):
    """A set mixing paper lengths by style: style 1 on legal (the set's first page), style 2 on letter.
    The reader took its paper from the set's first page, so a letter page looked like a legal page fed
    sideways with something below it, was given a resolution 21 % low and refused (`registration_residual`)."""
    election = load_election(GENERAL)
    legal = design_variant("boxes", "legal14", paper_in=(8.5, 14.0), bottom_in=13.35)
    mixed = design_variant("boxes", "mixed14", by_style=(("1", legal),))
    blanks = write_blanks(election, mixed, tmp_path / "blanks", styles=("1", "2"))
    fronts = [p for p in blanks if p.stem.endswith("p1")]
    import_templates(election, fronts, tmp_path / "set", score=False)
    reader = TemplateReader(str(tmp_path / "set"))
    assert reader.paper_in == (8.5, 14.0)
    images, truth = simulate_vendor_sheet(election, mixed, 0, 2026)
    assert truth["style"] == "2" and truth["vendor"]["quarter_turns"] == 0 and truth["images"][0]["page"] == 1
    page = reader.read_image(election, images[0])
    assert page.ok, page.reason
    assert (page.style_id, page.page) == ("2", 1)


def test_an_error_diffused_bitonal_page_is_told_from_a_thresholded_one(front):
    """A scanner's error-diffusion ("halftone") bitonal mode turns paper grain into lone dots; a fixed
    threshold leaves solid strokes. Only the first is blurred back to grey (the same object otherwise)."""
    thresholded = np.where(front < 128, 0, 255).astype(np.uint8)
    grain = np.clip(front.astype(int) - 15, 0, 255).astype(np.uint8)  # paper at grey 240
    diffused = np.asarray(Image.fromarray(grain).convert("1"), dtype=np.uint8) * 255
    assert isolated_share(thresholded) < 1e-4 and isolated_share(front) == 0.0
    assert isolated_share(diffused) > 0.03
    assert undither(thresholded) is thresholded and undither(front) is front
    grey = undither(diffused)
    assert abs(float(np.median(grey)) - 240) < 8  # the paper's grey again, not dots


def test_a_clean_ballot_scanned_with_error_diffusion_is_not_sent_to_a_person(tmp_path):
    """Boxes at 300 DPI scanned bitonal at 200 DPI by error diffusion: every blank oval scored 0.04-0.05
    (marginal at 0.035) and the hand reading called them marked; all 4 clean ballots of the variant went
    to a person. Read as the grey the dots stand for, the blank ovals are blank again."""
    election = load_election(GENERAL)
    images, truth = simulate_vendor_sheet(election, "boxes", 3, 2026, population="realistic")
    assert not truth["needs_review"]
    blanks = write_blanks(election, "boxes", tmp_path / "blanks", styles=(truth["style"],))
    import_templates(election, blanks, tmp_path / "set")
    reader = TemplateReader(str(tmp_path / "set"))
    marked = {(t["contest"], t["option"]) for t in truth["targets"] if t["kind"] != "none"}
    img = images[0]
    small = cv2.resize(img, None, fx=2 / 3, fy=2 / 3, interpolation=cv2.INTER_AREA)
    dots = np.asarray(Image.fromarray(small).convert("1"), dtype=np.uint8) * 255
    page = reader.read_image(election, dots)
    assert page.ok, page.reason
    # Flagged for the clerk's batch warning (`tabulate.central.diffused`); the grey scan is not.
    assert DIFFUSED_FLAG in page.flags and DIFFUSED_FLAG not in reader.read_image(election, img).flags
    blank = [t for t in page.targets if (t.contest_id, t.option_id) not in marked]
    assert blank and all(t.scan == "unmarked" and t.hand == "unmarked" for t in blank), [
        (t.option_id, t.scan, t.hand, round(t.score, 3)) for t in blank if t.scan != "unmarked" or t.hand != "unmarked"
    ]
