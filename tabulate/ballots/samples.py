"""Write simulated scans to a folder, as a duplex scanner would, with ``truth.json`` beside them.

One file per page image, in scan order: ``sheet-00001-front.jpg``,
``sheet-00001-back.jpg``, ... Grayscale sheets are written in the chosen
format (PNG, JPEG quality 85, or TIFF with deflate); bitonal sheets are
always CCITT Group 4 TIFF, which is what a bitonal scanner writes.
"""

from __future__ import annotations

import io
import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable

import numpy as np
from PIL import Image

from .. import __version__
from ..core.errors import TabulateError
from ..election.model import Election
from .mark_kinds import MARK_KINDS
from .simulate import simulate_sheet
from .truth import TRUTH_FORMAT

FORMATS: dict[str, str] = {"png": "png", "jpeg": "jpg", "tiff": "tif"}
JPEG_QUALITY = 85
TRUTH_FILE = "truth.json"


class SamplesError(TabulateError):
    """The output folder cannot be used (it holds other scans, or cannot be written)."""

    code = "samples"


def encode_page(image: np.ndarray, *, fmt: str, bitonal: bool, dpi: int) -> tuple[bytes, str]:
    """Encode one page image; returns (bytes, file extension). Deterministic: no timestamps."""
    buf = io.BytesIO()
    if bitonal:
        # Mode "1" straight from a boolean array: Pillow's convert("1") would dither.
        Image.fromarray(image >= 128).save(buf, format="TIFF", compression="group4", dpi=(dpi, dpi))
        return buf.getvalue(), "tif"
    img = Image.fromarray(image)
    if fmt == "jpeg":
        img.save(buf, format="JPEG", quality=JPEG_QUALITY, optimize=True, dpi=(dpi, dpi))
    elif fmt == "png":
        img.save(buf, format="PNG", compress_level=6, dpi=(dpi, dpi))
    elif fmt == "tiff":
        img.save(buf, format="TIFF", compression="tiff_adobe_deflate", dpi=(dpi, dpi))
    else:
        raise ValueError(f"no image format {fmt!r} (choose from {', '.join(FORMATS)})")
    return buf.getvalue(), FORMATS[fmt]


def sheet_file_name(index: int, side: str, ext: str) -> str:
    """``sheet-00001-front.jpg`` for the first sheet's front image (``index`` is 0-based)."""
    return f"sheet-{index + 1:05d}-{side}.{ext}"


_WORKER: dict = {}


def _init_worker(election: Election, options: dict) -> None:
    _WORKER["election"] = election
    _WORKER["options"] = options


def _write_chunk(indices: list[int]) -> list[dict]:
    """Simulate and write some sheets; return their truth records (with file names)."""
    election, o = _WORKER["election"], _WORKER["options"]
    out_dir = Path(o["out_dir"])
    truths = []
    for k in indices:
        sheet = simulate_sheet(
            election,
            k,
            o["seed"],
            dpi=o["dpi"],
            population=o["population"],
            scan_profile=o["scan_profile"],
            bitonal_fraction=o["bitonal_fraction"],
        )
        truth = sheet.truth
        for image, entry in zip(sheet.pages, truth["images"]):
            data, ext = encode_page(image, fmt=o["fmt"], bitonal=sheet.bitonal, dpi=o["dpi"])
            name = sheet_file_name(k, entry["side"], ext)
            (out_dir / name).write_bytes(data)
            entry["file"] = name
            entry["format"] = "tiff_g4" if sheet.bitonal else o["fmt"]
        truths.append(truth)
    return truths


def _prepare(out_dir: Path, force: bool) -> None:
    if out_dir.exists() and not out_dir.is_dir():
        raise SamplesError(f"{out_dir} exists and is not a folder")
    old = sorted(out_dir.glob("sheet-*-*.*")) + ([out_dir / TRUTH_FILE] if (out_dir / TRUTH_FILE).exists() else [])
    if old and not force:
        raise SamplesError(
            f"{out_dir} already holds simulated scans ({len(old)} files); "
            "choose another folder or pass --force to replace them"
        )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for f in old:
            f.unlink()
    except OSError as e:
        raise SamplesError(f"cannot write to {out_dir}: {e.strerror or e}") from None
    if not os.access(out_dir, os.W_OK):
        raise SamplesError(f"cannot write to {out_dir}: permission denied")


def write_samples(
    election: Election,
    out_dir: str | Path,
    n: int,
    seed: int,
    *,
    dpi: int = 200,
    fmt: str = "jpeg",
    bitonal_fraction: float = 0.1,
    population: str = "realistic",
    scan_profile: str = "default",
    jobs: int = 1,
    force: bool = False,
    progress: Callable[[int], None] | None = None,
) -> dict:
    """Simulate ``n`` sheets and write their images and ``truth.json`` into ``out_dir``.

    The same arguments give the same bytes, whatever ``jobs`` is. Returns the
    truth document (also written to ``out_dir/truth.json``). ``progress`` is
    called with the number of sheets finished since its last call.
    """
    if fmt not in FORMATS:
        raise ValueError(f"no image format {fmt!r} (choose from {', '.join(FORMATS)})")
    if not 0.0 <= bitonal_fraction <= 1.0:
        raise ValueError(f"bitonal fraction {bitonal_fraction} is not between 0 and 1")
    out_dir = Path(out_dir)
    _prepare(out_dir, force)
    options = {
        "out_dir": str(out_dir),
        "seed": seed,
        "dpi": dpi,
        "fmt": fmt,
        "population": population,
        "scan_profile": scan_profile,
        "bitonal_fraction": bitonal_fraction,
    }
    chunk = 4
    chunks = [list(range(i, min(i + chunk, n))) for i in range(0, n, chunk)]
    sheets: list[dict] = []
    if jobs > 1 and len(chunks) > 1:
        with ProcessPoolExecutor(jobs, initializer=_init_worker, initargs=(election, options)) as pool:
            for truths in pool.map(_write_chunk, chunks):
                sheets.extend(truths)
                if progress:
                    progress(len(truths))
    else:
        _init_worker(election, options)
        for c in chunks:
            truths = _write_chunk(c)
            sheets.extend(truths)
            if progress:
                progress(len(truths))
    doc = {
        "format": TRUTH_FORMAT,
        "generator": f"tabulate {__version__}",
        "election": {"title": election.title, "date": election.date, "hash": election.hash},
        "seed": seed,
        "ballots": n,
        "dpi": dpi,
        "image_format": fmt,
        "bitonal_fraction": bitonal_fraction,
        "population": population,
        "scan_profile": scan_profile,
        "mark_kinds": {k: v.to_dict() for k, v in MARK_KINDS.items()},
        "sheets": sheets,
    }
    (out_dir / TRUTH_FILE).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return doc


def load_truth(path: str | Path) -> dict:
    """Read a ``truth.json`` (or the folder holding one)."""
    path = Path(path)
    if path.is_dir():
        path = path / TRUTH_FILE
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc.get("format") != TRUTH_FORMAT:
        raise ValueError(
            f"{path}: not a simulator truth file (format {doc.get('format')!r}, expected {TRUTH_FORMAT!r})"
        )
    return doc
