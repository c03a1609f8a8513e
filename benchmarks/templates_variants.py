"""What real vendor ballots and scanners do that our three families do not: a matrix of variants (issue #11).

    python benchmarks/templates_variants.py --sheets 20 [--only NAME ...] [--workers 2]

Each variant is a small batch through the whole path a county's ballots take:
its blank pages (PNG, or PDF rasterized by pypdfium2) imported into a template
set exactly as ``tabulate templates import`` does, then simulated voted sheets
(seed 2026; stress and realistic voters alternate) changed the way the variant
says and read with the set. Two kinds of change:

* **printed differently** (`tabulate.ballots.vendor.design_variant`): targets
  right of the names, small or wide ovals, rounded rectangles, other column
  counts, a contest continued in the next column, a back page holding only the
  questions or nothing at all; two-line names with the party on a line of its
  own, long instructions in every contest's heading, contests without rules,
  a number or a letter in each oval, ovals in a drop-out red;
* **scanned differently** (applied to the scanned images here): another
  resolution than the blanks' (600 DPI too), colour JPEG, grey JPEG at quality
  40, bitonal at a light or a dark threshold, scale +-3 %, skew 3 deg, every
  quarter turn, heavy bleed-through, a fold through a target, the scanner's
  black background round the page (and a page fed off-centre, one edge cut),
  uneven illumination; the fourth round (`variant_scans.py`): grey JPEG at
  quality 50-60 (at 150 DPI too), error-diffusion bitonal, the feed stretched
  along its length, torn corners, staple holes, a double feed;
* **exported differently**: front and back side by side (split as ``tabulate
  templates split-sides`` does), both sides in one TIFF, every style's sample
  in one PDF, an EMS's PDF of images (`variant_pdfs.py`: a 150 DPI raster,
  pages stored turned with /Rotate, landscape pages, a crop box), a set mixing
  paper lengths by style (`Design.by_style`).

Per variant one line: import ok, pages identified, definite-mark errors
(definite marks read unmarked + clear non-marks read marked), ambiguous marks
sent to a person, clean ballots sent to a person (``--kinds``: and per mark
kind, how many were sent).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from accuracy import Accuracy  # noqa: E402
from templates_accuracy import SAMPLE, family_election, ink_inside, page_to_image  # noqa: E402
from variant_pdfs import image_pdfs  # noqa: E402
from variant_scans import (  # noqa: E402
    Scan,
    affine,
    anisotropic,
    audit_strip,
    black_border,
    chain,
    colour_jpeg,
    crop_edge,
    dither,
    double_feed,
    illumination,
    imprint,
    jpeg,
    levels,
    quarter,
    resample,
    scan_area,
    staple_holes,
    stretch,
    stub,
    threshold,
    tinted,
    torn_corner,
)

from tabulate.ballots.vendor import DESIGNS, PaperEffects, VendorLayoutError, simulate_vendor_sheet  # noqa: E402
from tabulate.ballots.vendor.design import design_variant  # noqa: E402
from tabulate.ballots.vendor.sheets import ballot  # noqa: E402
from tabulate.ballots.vendor.write import write_blanks  # noqa: E402
from tabulate.core.errors import TabulateError  # noqa: E402
from tabulate.detect import pair_pages  # noqa: E402
from tabulate.detect.read import read_pages  # noqa: E402
from tabulate.election import parse_election  # noqa: E402
from tabulate.templates import TemplateReader, import_templates  # noqa: E402
from tabulate.templates.exports import split_sides  # noqa: E402


@dataclass(frozen=True)
class Variant:
    name: str
    family: str  # a family, or a `design_variant` key
    scan: Scan | None = None
    pdf: bool = False
    effects: PaperEffects = field(default_factory=PaperEffects)
    #: Keep only each style's first ``trim`` contests (so that a one-sided ballot fits its front).
    trim: int | None = None
    #: How the scanner exports a sheet's two images: "" (one image a side), "side_by_side" (front and back
    #: in one image), "tiff" (both sides as the pages of one multi-page TIFF).
    export: str = ""
    #: Every style's blank pages in one PDF (a county's sample ballots posted as one file).
    one_pdf: bool = False
    #: The blanks as an EMS's PDF whose pages are images (`variant_pdfs.image_pdfs`): "150" (a JPEG raster at
    #: 150 DPI), "rotated" (the raster stored a quarter turn round, /Rotate showing it upright), "sideways"
    #: (a landscape page), "cropbox" (a crop box 0.25 in inside the paper).
    image_pdf: str = ""


#: The ``boxes`` family in three columns without its instruction column (room for taller contests).
THREE = dict(instructions=False, columns=((0.4, 2.5), (3.0, 2.5), (5.6, 2.5)), bottom_in=9.7)
NOTE = (
    "To vote for a candidate, completely fill in the oval next to the candidate's name. To vote for a person "
    "whose name is not printed, write the name on the line and fill in the oval."
)
#: No quarter-turned feeds: a scanner exporting both sides in one image has both upright.
FLAT = PaperEffects(quarter_turn=0.0)
#: Targets in a drop-out red: grey 0.299 R + 0.587 G + 0.114 B = 146 on a colour blank, 238 through a red filter.
RED = dict(target_rgb=(235, 100, 100), dropout_grey=238)


#: Contest headings printed in a tint (`Design.shade_rgb`): on the colour blank the import takes the darkest
#: channel (yellow's blue at 130), where a colour scan read as grey shows the band at its luminance (229).
YELLOW = dict(shade_rgb=(255, 235, 130), shade_grey=229)
#: A light blue band a colour-dropout scanner takes out altogether (paper, 255) but the blank shows at 170.
BLUE_GONE = dict(shade_rgb=(170, 200, 240), shade_grey=255)
#: A darker blue (darkest channel 110, luminance 142) that every scanner keeps.
DARK_BLUE = dict(shade_rgb=(110, 145, 200), shade_grey=142)


#: Rows and headings tinted pink on the blanks, taken out by a colour-dropout scanner (paper on the scans).
PINK_GONE = dict(shade_rgb=(250, 200, 215), shade_grey=255)


#: The boxes design on 11 x 17 in paper, portrait, its contests in four columns beside the instructions.
TABLOID = dict(paper_in=(11.0, 17.0), columns=((2.35, 2.1), (4.55, 2.1), (6.75, 2.1), (8.95, 1.75)), bottom_in=16.3)


#: A set mixing paper lengths by style: style 3 of the arrows on 8.5 x 17 in, the rest on legal.
MIXED = design_variant(
    "arrows",
    "mixed",
    by_style=tuple((s, design_variant("arrows", "long17", paper_in=(8.5, 17.0), bottom_in=16.2)) for s in ("3",)),
)
#: The boxes with style 1 on legal paper, the rest on letter (the set's first page the longer one).
MIXED_BOXES = design_variant(
    "boxes",
    "mixed",
    by_style=tuple((s, design_variant("boxes", "legal", paper_in=(8.5, 14.0), bottom_in=13.35)) for s in ("1",)),
)


def _variants() -> list[Variant]:
    v = design_variant
    heavy = PaperEffects(bleed_through=1.0, bleed_strength=(0.3, 0.45), fold=1.0, fold_depth=(40, 70))
    fold_t = PaperEffects(fold=1.0, fold_depth=(30, 60), fold_through_target=True)
    return [
        Variant("boxes (as shipped)", "boxes"),
        Variant("timing (as shipped)", "timing"),
        Variant("arrows (as shipped)", "arrows"),
        Variant("boxes, targets right of names", v("boxes", "right", target_side="right")),
        Variant("timing, targets right of names", v("timing", "right", target_side="right")),
        Variant("boxes, blanks PDF, scans 300", "boxes", pdf=True),
        Variant("boxes 300, scans 150 DPI", "boxes", resample(150)),
        Variant("boxes 300, scans 240 DPI", "boxes", resample(240)),
        Variant("timing 200, scans 300 DPI", "timing", resample(300)),
        Variant("timing 200, scans 150 DPI", "timing", resample(150)),
        Variant("boxes, colour JPEG scans", "boxes", colour_jpeg),
        Variant("boxes, bitonal light (t=90)", "boxes", threshold(90)),
        Variant("boxes, bitonal dark (t=200)", "boxes", threshold(200)),
        Variant("boxes, scale +3 %", "boxes", affine(scale=1.03)),
        Variant("boxes, scale -3 %", "boxes", affine(scale=0.97)),
        Variant("boxes, skew 3 deg", "boxes", affine(angle=3.0)),
        Variant("timing, skew -3 deg", "timing", affine(angle=-3.0)),
        Variant("boxes, turned 90", "boxes", quarter(1)),
        Variant("boxes, turned 180", "boxes", quarter(2)),
        Variant("boxes, turned 270", "boxes", quarter(3)),
        Variant("boxes, small ovals 0.15 in", v("boxes", "small", target=(0.15, 0.10))),
        Variant("boxes, small ovals 0.12 in", v("boxes", "small12", target=(0.12, 0.08))),
        Variant("boxes, small ovals 0.18 in", v("boxes", "small18", target=(0.18, 0.12))),
        Variant("boxes, wide ovals 0.36 in", v("boxes", "wide", target=(0.36, 0.13))),
        Variant("boxes, rounded rectangles", v("boxes", "rrect", target_corner_in=0.04)),
        Variant("timing, two columns", v("timing", "2col", columns=((0.6, 3.6), (4.4, 3.5)))),
        Variant(
            "boxes, three columns",
            # clear of the QR code in the bottom-left corner
            v("boxes", "3col", instructions=False, columns=((0.4, 2.5), (3.0, 2.5), (5.6, 2.5)), bottom_in=9.7),
        ),
        Variant("boxes, contest continued", v("boxes", "cont", continue_long=True)),
        Variant("boxes, back: questions only", v("boxes", "qback", back="questions")),
        Variant("arrows, back: questions only", v("arrows", "qback", back="questions")),
        Variant("timing, back left blank", v("timing", "bback", back="blank"), trim=7),
        Variant("arrows, back left blank", v("arrows", "bback", back="blank"), trim=8),
        Variant("boxes, heavy bleed + fold", "boxes", effects=heavy),
        Variant("timing, fold through a target", "timing", effects=fold_t),
        # The second round (most likely on real ballots first).
        Variant(
            "boxes, two-line names + party line",
            v("boxes", "names", two_line_names=True, party_line=True, row_in=0.42, **THREE),
        ),
        Variant(
            "timing, two-line names + party line",
            v("timing", "names", two_line_names=True, party_line=True, row_in=0.5),
            trim=7,
        ),
        Variant("boxes, long contest instructions", v("boxes", "note", header_note=NOTE, **THREE)),
        Variant("arrows, long contest instructions", v("arrows", "note", header_note=NOTE)),
        Variant("boxes, black scanner background", "boxes", black_border(0.3)),
        Variant("timing, black background, left edge cut", "timing", black_border(0.25, (-0.4, 0.0))),
        Variant("boxes, page shifted, top edge cut", "boxes", black_border(0.2, (0.1, -0.35))),
        Variant("boxes, grey JPEG quality 40", "boxes", jpeg(40)),
        Variant("boxes 300, scans 600 DPI", "boxes", resample(600)),
        Variant("boxes, uneven illumination", "boxes", illumination(0.6)),
        Variant("arrows, uneven illumination", "arrows", illumination(0.6)),
        Variant("boxes, contests without rules", v("boxes", "norules", rules=False)),
        Variant("boxes, red drop-out ovals, grey scans", v("boxes", "red", **RED)),
        Variant("boxes, red drop-out ovals, bitonal scans", v("boxes", "redbi", **RED), threshold(128)),
        Variant("boxes, a number in each oval", v("boxes", "num", target_text="number")),
        Variant("timing, a letter in each oval", v("timing", "letter", target_text="letter")),
        # The third round: the county's published sample ballots as blanks, and how vendors export images.
        Variant(
            "boxes, sample ballot blanks (watermark, no code)", v("boxes", "sample", sample_grey=170, sample_code=False)
        ),
        Variant("boxes, sample ballot, dark watermark", v("boxes", "sampled", sample_grey=110)),
        Variant("timing, sample ballot blanks (watermark)", v("timing", "sample", sample_grey=170)),
        Variant("arrows, sample ballot PDF (watermark)", v("arrows", "sample", sample_grey=170)),
        Variant("boxes, AuditMark strip below the page", "boxes", audit_strip(2.0)),
        Variant("timing, AuditMark strip below the page", "timing", audit_strip(1.5)),
        Variant("arrows, AuditMark strip below the page", "arrows", audit_strip(2.0)),
        Variant("boxes, scan area 2 in longer, black", "boxes", scan_area(2.0, 18)),
        Variant("timing, scan area 3 in longer, white", "timing", scan_area(3.0, 255)),
        Variant("boxes, front and back side by side, split", "boxes", effects=FLAT, export="side_by_side"),
        Variant("boxes, both sides in one multi-page TIFF", "boxes", export="tiff"),
        Variant("timing, both sides in one G4 TIFF", "timing", export="tiff"),
        Variant("arrows, long ballot 8.5 x 17 in", v("arrows", "long17", paper_in=(8.5, 17.0), bottom_in=16.2)),
        Variant("arrows, long ballot 8.5 x 19 in", v("arrows", "long19", paper_in=(8.5, 19.0), bottom_in=18.2)),
        Variant("boxes, long ballot 8.5 x 17 in", v("boxes", "long17", paper_in=(8.5, 17.0), bottom_in=16.35)),
        Variant("boxes, every style's sample in one PDF", v("boxes", "sample1", sample_grey=170), one_pdf=True),
        Variant("boxes, imprinted serial number on the scans", "boxes", imprint),
        Variant("timing, imprinted serial number on the scans", "timing", imprint),
        Variant("boxes, tinted ballot stock (paper at grey 200)", "boxes", tinted(200)),
        # The fourth round: what real central scanners and EMS exports do next.
        Variant("boxes 300, grey JPEG quality 60 at 150 DPI", "boxes", chain(resample(150), jpeg(60))),
        Variant("timing 200, grey JPEG quality 50", "timing", jpeg(50)),
        Variant("boxes 300, bitonal 200 DPI error diffusion", "boxes", dither(200)),
        Variant("timing 200, bitonal error diffusion", "timing", dither(200)),
        Variant("boxes, feed stretched 2 % along its length", "boxes", stretch(1.02)),
        Variant("timing, feed shrunk 2 % along its length", "timing", stretch(0.98)),
        Variant("boxes, top-left corner torn off (1 in)", "boxes", torn_corner(1.0, 0)),
        Variant("timing, bottom-right corner torn off (0.8 in)", "timing", torn_corner(0.8, 2)),
        Variant("arrows, top-right corner torn off, white", "arrows", torn_corner(1.0, 1, 255)),
        Variant("boxes, staple holes, top left", "boxes", staple_holes()),
        Variant("timing, staple holes, top left", "timing", staple_holes()),
        Variant("boxes, double feed (second sheet 1.5 in behind)", "boxes", double_feed(1.5)),
        Variant("boxes, EMS PDF of 150 DPI JPEG pages", "boxes", image_pdf="150"),
        Variant("timing, EMS PDF, pages stored turned, /Rotate", "timing", image_pdf="rotated"),
        Variant("boxes, EMS PDF, landscape pages", "boxes", image_pdf="sideways"),
        Variant("boxes, EMS PDF with a crop box 0.25 in in", "boxes", image_pdf="cropbox"),
        Variant("arrows, styles on legal and 8.5 x 17 in", MIXED),
        Variant("boxes, styles on letter and legal", MIXED_BOXES),
        # The fifth round: colour print on the blanks the scans see otherwise.
        Variant("boxes, yellow headings, colour JPEG scans", v("boxes", "yhead", **YELLOW), colour_jpeg),
        Variant("boxes, blue headings, colour-dropout scans", v("boxes", "bhead", **BLUE_GONE)),
        Variant("boxes, dark blue headings, grey scans", v("boxes", "dbhead", **DARK_BLUE)),
        Variant("boxes, every other row shaded (grey 215)", v("boxes", "zebra", row_shade=215)),
        Variant("timing, every other row shaded (grey 200)", v("timing", "zebra", row_shade=200)),
        Variant("boxes, pink rows and headings, dropout scans", v("boxes", "pink", row_shade=1, **PINK_GONE)),
        Variant("boxes, perforated stub attached (1.2 in)", "boxes", stub(1.2)),
        Variant("timing, perforated stub attached (1 in)", "timing", stub(1.0)),
        Variant("timing, crop cuts the top timing row", "timing", crop_edge(0.25)),
        Variant("boxes, crop 0.15 in into the top edge", "boxes", crop_edge(0.15)),
        Variant("boxes, tabloid 11 x 17 in, four columns", v("boxes", "tabloid", **TABLOID)),
        Variant("boxes, YES and NO side by side", v("boxes", "yesno", yes_no_across=True)),
        Variant("timing, YES and NO side by side", v("timing", "yesno", yes_no_across=True)),
        # The sixth round: central-count exports and feeds.
        Variant("boxes, contrast stretched (paper 215, ink 70)", "boxes", levels(215, 70)),
        Variant("boxes 300, scans 204 x 196 DPI", "boxes", anisotropic(204, 196)),
        Variant("timing 200, scans 204 x 196 DPI", "timing", anisotropic(204, 196)),
        Variant("boxes, fed crooked 6 deg", "boxes", affine(angle=6.0)),
        Variant("timing, fed crooked -5 deg", "timing", affine(angle=-5.0)),
        Variant("boxes, security tint (wavy lines, grey 215)", v("boxes", "tint", security_tint=215)),
        Variant("timing, security tint (wavy lines, grey 150)", v("timing", "tint", security_tint=150)),
        Variant("boxes, dark security tint (wavy lines, grey 150)", v("boxes", "tint150", security_tint=150)),
    ]


VARIANTS = {x.name: x for x in _variants()}
_STATE: dict = {}


def variant_election(v: Variant):
    """The family's election; with ``trim``, each style keeps its first contests only."""
    family = DESIGNS[v.family].family
    if v.trim is None:
        return family_election(family)
    doc = json.loads(SAMPLE.read_text(encoding="utf-8"))
    if family == "arrows":
        doc.update(paper_size="legal", target_shape="arrow")
    for s in doc["ballot_styles"]:
        s["contests"] = s["contests"][: v.trim]
    return parse_election(doc)


def _init(name: str, folder: str) -> None:
    v = VARIANTS[name]
    _STATE.update(variant=v, election=variant_election(v), reader=TemplateReader(folder))


def read_one(k: int, seed: int = 2026) -> dict:
    v, e, reader = _STATE["variant"], _STATE["election"], _STATE["reader"]
    population = ("stress", "realistic")[k % 2]
    images, truth = simulate_vendor_sheet(e, v.family, k, seed, population=population, effects=v.effects)
    d = DESIGNS[v.family]
    maps, bitonal = [], [it["bitonal"] for it in truth["images"]]
    rng = np.random.default_rng([seed, k])
    out = []
    for i, img in enumerate(images):
        m = page_to_image(truth["images"][i], truth["vendor"]["quarter_turns"], img.shape)
        if v.scan is not None:
            img, step, thresholded = v.scan(img, d.dpi, rng)
            bitonal[i] = bitonal[i] or thresholded  # a bitonal scan resampled keeps what its threshold lost
            m = step @ np.vstack([m, [0, 0, 1]])
        out.append(img)
        maps.append(m)
    pages = _read_export(v, e, reader, out, k)
    sheet = pair_pages(e, pages, reader=reader)
    if len(pages) < len(out):  # refused whole (two sides in one image): one reading, no targets
        pages = pages * len(out)
    tt = {(t["contest"], t["option"]): t for t in truth["targets"]}
    where = {(t.contest_id, t.option_id): t for p in ballot(e, truth["style"], v.family).pages for t in p.targets}
    targets = []
    for i, p in enumerate(pages):
        for t in p.targets:
            x = tt.get((t.contest_id, t.option_id))
            lay = where[(t.contest_id, t.option_id)]
            seen = _seen(out[i], maps[i], lay, d.target_text != "") if bitonal[i] else True
            targets.append(
                (x["kind"] if x else "none", bitonal[i], truth["pen"]["kind"], t.scan, t.hand, t.score, seen, lay.shape)
            )
    flagged = (not sheet.ok) or any(t.scan == "marginal" or t.scan != t.hand for t in sheet.targets)
    # A page printed alike for several styles takes its style from the sheet's other side (`pair_pages`).
    paired = {(p.source, p.index): p for p in sheet.pages} if sheet.ok else {}
    pages = [paired.get((p.source, p.index), p) for p in pages]
    ident = [p.ok and p.style_id == truth["style"] and p.page == it["page"] for it, p in zip(truth["images"], pages)]
    reasons = [p.reason_code for p in pages if not p.ok] + ([sheet.reason_code] if not sheet.ok else [])
    return {
        "k": k,
        "ok": sheet.ok,
        "reason": sheet.reason_code,
        "detail": sheet.reason,
        "targets": targets,
        "needs_review": truth["needs_review"],
        "flagged": flagged,
        "rejected_kinds": [(t["kind"], t.get("shape", "oval")) for t in truth["targets"]] if not sheet.ok else [],
        "ident": ident,
        "reasons": reasons,
    }


def _read_export(v: Variant, e, reader, images: list[np.ndarray], k: int) -> list:
    """The sheet's page readings, the images exported as the variant's scanner exports them."""
    if v.export == "side_by_side":
        h = max(im.shape[0] for im in images)
        both = np.hstack([np.pad(im, ((0, h - im.shape[0]), (0, 0)), constant_values=255) for im in images])
        halves = split_sides(both, [reader.paper_in])  # as `tabulate templates split-sides` writes them
        if halves is None:
            return [reader.read_image(e, both, source=f"sheet{k}")]
        return [reader.read_image(e, img, source=f"sheet{k}-{i}") for i, img in enumerate(halves)]
    if v.export == "tiff":  # through the file path `tabulate read` and `scan` take (`read_pages`)
        bitonal = all(np.isin(im, (0, 255)).all() for im in images)
        pil = [Image.fromarray(im >= 128) if bitonal else Image.fromarray(im) for im in images]
        buf = io.BytesIO()
        pil[0].save(
            buf, format="TIFF", save_all=True, append_images=pil[1:], compression="group4" if bitonal else "tiff_lzw"
        )
        return read_pages(e, buf.getvalue(), reader=reader)
    return [reader.read_image(e, img, source=f"sheet{k}-{i}") for i, img in enumerate(images)]


#: The mark kinds `--kinds` counts per variant: how many of each were sent to a person.
KINDS = ("x_mark", "check", "line_through", "dot", "partial_fill", "full_fill")


def kinds_line(results: list[dict]) -> str:
    """Per mark kind: targets sent to a person (scan marginal, or scan and hand differ) / targets."""
    sent: dict[str, list[int]] = {k: [0, 0] for k in KINDS}
    for r in results:
        for kind, _bit, _pen, scan, hand, *_rest in r["targets"]:
            if kind in sent:
                sent[kind][0] += scan == "marginal" or scan != hand
                sent[kind][1] += 1
    return "  sent: " + ", ".join(f"{k} {a}/{n}" for k, (a, n) in sent.items())


#: Half the box (inches) round a target's centre where a design prints a number or letter in it.
LABEL_HALF_IN = (0.04, 0.04)


def _seen(img: np.ndarray, m: np.ndarray, target, labelled: bool) -> bool:
    """Whether a bitonal image keeps the voter's ink inside a target: `ink_inside`, leaving out the number or
    letter a design prints in the target's middle (print, not ink left by the voter)."""
    if not labelled:
        return ink_inside(img, m, target)
    (cx, cy), a, b = target.bounds.center, target.bounds.w / 2 - 0.03, target.bounds.h / 2 - 0.03
    u, w = np.meshgrid(np.linspace(-1, 1, 25), np.linspace(-1, 1, 13))
    x, y = cx + a * u, cy + b * w
    keep = (u**2 + w**2 <= 1.0) & ((np.abs(x - cx) > LABEL_HALF_IN[0]) | (np.abs(y - cy) > LABEL_HALF_IN[1]))
    pts = np.column_stack([x[keep], y[keep], np.ones(keep.sum())]) @ m.T
    c = np.clip(pts[:, 0].astype(int), 0, img.shape[1] - 1)
    r = np.clip(pts[:, 1].astype(int), 0, img.shape[0] - 1)
    return bool((img[r, c] < 128).sum() >= 2)


def _one_pdf(pages: list[Path], out: Path, dpi: int) -> Path:
    """The blank pages (PNG) as one PDF, in order."""
    imgs = [Image.open(p).convert("L") for p in pages]
    imgs[0].save(out, format="PDF", resolution=float(dpi), save_all=True, append_images=imgs[1:])
    return out


def run_variant(v: Variant, sheets: int, workers: int, kinds: bool = False) -> str:
    """One table row for a variant."""
    election = variant_election(v)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            blanks = write_blanks(election, v.family, Path(tmp) / "blanks", pdf=v.pdf or None)
        except VendorLayoutError as err:
            return f"| {v.name} | (generator: {err}) | - | - | - | - |"
        if v.one_pdf:
            blanks = [_one_pdf(blanks, Path(tmp) / "sample-ballots.pdf", DESIGNS[v.family].dpi)]
        if v.image_pdf:
            blanks = image_pdfs(blanks, Path(tmp) / "ems", DESIGNS[v.family].dpi, v.image_pdf)
        try:
            import_templates(election, blanks, Path(tmp) / "set")
        except TabulateError as err:
            return f"| {v.name} | no: {str(err)[:90]} | - | - | - | - |"
        if workers > 1:
            with Pool(workers, initializer=_init, initargs=(v.name, str(Path(tmp) / "set"))) as pool:
                results = list(pool.imap_unordered(read_one, range(sheets), chunksize=2))
        else:
            _init(v.name, str(Path(tmp) / "set"))
            results = [read_one(k) for k in range(sheets)]
    acc, ids, reasons = Accuracy(), [], set()
    for r in sorted(results, key=lambda r: r["k"]):
        acc.add(r)
        ids.extend(r["ident"])
        reasons.update(r["reasons"])
    errors = len(acc.definite_unmarked) + len(acc.nonmark_marked)
    amb = f"{acc.ambiguous_sent}/{acc.ambiguous}"
    clean = f"{acc.clean_sent}/{acc.clean}"
    why = f" ({', '.join(sorted(reasons))})" if reasons else ""
    row = f"| {v.name} | yes | {sum(ids)}/{len(ids)}{why} | {errors} | {amb} | {clean} |"
    return row + ("\n" + kinds_line(results) if kinds else "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=20)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--only", nargs="*", help="variants whose name contains any of these words")
    ap.add_argument("--kinds", action="store_true", help="also print, per mark kind, how many were sent to a person")
    ap.add_argument("--start", type=int, default=0, help="begin at this row of the selection (a run resumed)")
    ap.add_argument("--stop", type=int, default=None, help="end before this row of the selection")
    args = ap.parse_args(argv)
    chosen = [v for n, v in VARIANTS.items() if not args.only or any(w in n for w in args.only)]
    chosen = chosen[args.start : args.stop]
    print(f"{args.sheets} sheets per variant, seed 2026")
    print("| variant | import ok | pages identified | definite-mark errors | ambiguous sent | clean sent |")
    print("|---|---|---|---|---|---|")
    for v in chosen:
        t0 = time.perf_counter()
        row = run_variant(v, args.sheets, args.workers, args.kinds)
        print(row, f"<!-- {time.perf_counter() - t0:.0f} s -->", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
