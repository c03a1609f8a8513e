"""Write a vendor family's test material: blank pages, voted and scanned sheets, and truth.json.

``blanks/`` holds each style's blank pages as the county would hand them
over (grey PNG; the ``arrows`` family as one PDF per style too), and the
folder itself the sheets as a duplex scanner writes them (bitonal sheets as
CCITT G4 TIFF) with ``truth.json`` (the simulator's truth format, plus a
``vendor`` entry per sheet: family, scratched codes, paper effects).
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

from PIL import Image

from ... import __version__
from ...election.model import Election
from ..arrows import ARROW_MARK_KINDS
from ..mark_kinds import MARK_KINDS
from ..samples import TRUTH_FILE, encode_page, sheet_file_name
from ..truth import TRUTH_FORMAT
from .design import DESIGNS, style_design
from .sample import stamp_sample
from .sheets import ballot, blank_pages, colour_blank_pages, simulate_vendor_sheet


def write_blanks(
    election: Election, family: str, out: Path, styles: tuple[str, ...] | None = None, pdf: bool | None = None
) -> list[Path]:
    """Each style's (or ``styles``') blank pages into ``out``: PNG, or a two-page PDF per style for ``arrows``
    (``pdf`` chooses for any family)."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for style in election.ballot_styles:
        if styles is not None and style.id not in styles:
            continue
        d = DESIGNS[style_design(family, style.id)]
        pages = blank_pages(election, style.id, family)
        if d.target_rgb is not None or d.shade_rgb is not None:  # the blanks in the colours printed
            pages = colour_blank_pages(election, style.id, family)
        if d.sample_grey:  # the county's published sample ballot, not the ballot as printed
            b = ballot(election, style.id, family)
            pages = [stamp_sample(p, page, d) for p, page in zip(pages, b.pages)]
        if pdf or (pdf is None and d.family == "arrows"):  # the county's PDF: rasterized again on import (pypdfium2)
            path = out / f"blank-{style.id}.pdf"
            # Print is black on white: a 1-bit page keeps the PDF small (Pillow stores it CCITT-compressed).
            # A sample ballot's grey watermark stays grey.
            imgs = [Image.fromarray(p if d.sample_grey or p.ndim == 3 else p >= 128) for p in pages]
            buf = io.BytesIO()
            # Dated the election day, not now: the same election gives byte-identical blanks.
            day = time.strptime(election.date, "%Y-%m-%d")
            imgs[0].save(
                buf,
                format="PDF",
                resolution=float(d.dpi),
                save_all=True,
                append_images=imgs[1:],
                creationDate=day,
                modDate=day,
            )
            path.write_bytes(buf.getvalue())
            paths.append(path)
            continue
        for n, img in enumerate(pages, 1):
            path = out / f"blank-{style.id}-p{n}.png"
            Image.fromarray(img).save(path, format="PNG", dpi=(d.dpi, d.dpi))
            paths.append(path)
    return paths


def write_vendor_samples(
    election: Election,
    family: str,
    out: Path,
    n: int,
    seed: int,
    *,
    population: str = "realistic",
    scan_profile: str = "default",
    fmt: str = "png",
    progress=None,
) -> dict:
    """Blanks, ``n`` voted and scanned sheets and ``truth.json`` into ``out``; returns the truth document."""
    out = Path(out)
    write_blanks(election, family, out / "blanks")
    d = DESIGNS[family]
    sheets = []
    for k in range(n):
        images, truth = simulate_vendor_sheet(
            election, family, k, seed, population=population, scan_profile=scan_profile
        )
        for image, entry in zip(images, truth["images"]):
            data, ext = encode_page(image, fmt=fmt, bitonal=d.bitonal, dpi=d.dpi)
            name = sheet_file_name(k, entry["side"], ext)
            (out / name).write_bytes(data)
            entry["file"] = name
            entry["format"] = "tiff_g4" if d.bitonal else fmt
        sheets.append(truth)
        if progress:
            progress(1)
    doc = {
        "format": TRUTH_FORMAT,
        "generator": f"tabulate {__version__}",
        "election": {"title": election.title, "date": election.date, "hash": election.hash},
        "family": family,
        "seed": seed,
        "ballots": n,
        "dpi": d.dpi,
        "image_format": fmt,
        "bitonal_fraction": 1.0 if d.bitonal else 0.0,
        "population": population,
        "scan_profile": scan_profile,
        "mark_kinds": {k: v.to_dict() for k, v in MARK_KINDS.items()},
        **({"arrow_mark_kinds": {k: v.to_dict() for k, v in ARROW_MARK_KINDS.items()}} if family == "arrows" else {}),
        "sheets": sheets,
    }
    (out / TRUTH_FILE).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return doc
