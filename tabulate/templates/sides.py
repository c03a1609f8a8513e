"""``tabulate templates split-sides``: a scanner's one-image-a-sheet export (front and back side by side) as
one image a side, which then pair and read as any sheet's two images do.

Some scanner exports write a sheet's two sides into one image, side by side. The reader refuses such an
image (``two_pages_in_image``): read whole, half of it could pass for the other side. Rescanning 40,000
sheets is not what a clerk should be told first, so this writes the halves as files of their own:

* ``NAME-front.png`` (the left half) and ``NAME-back.png`` (the right half) in the output folder, for every
  page of every image, lossless (PNG of the decoded grey pixels); a multi-page TIFF's page ``k`` becomes
  ``NAME-pK-front.png`` and ``NAME-pK-back.png``. The two halves pair by name (docs/scanning.md), and the
  reader orders a sheet's pages by what it identifies, so a scanner that puts the back on the left loses
  nothing.
* ``split-sides.csv``: each written file with the image and page it came from, the half, and the SHA-256 of
  the original file, so an auditor can go from the store's record of a half back to the scanner's image.

An image that is not two pages side by side is not written and is named: nothing is guessed. Nor is
an image whose halves would take the names of another's (the same file name in two folders): split each
folder into its own output folder.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..detect.decode import decode_page, headers
from ..detect.errors import ReadError
from .exports import split_sides

MANIFEST = "split-sides.csv"


@dataclass(frozen=True)
class SplitResult:
    """What `split_files` did: the halves written, and the images (with why) that were not split."""

    written: tuple[Path, ...]
    refused: tuple[tuple[str, str], ...]


def _png(img: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".png", img)
    if not ok:  # pragma: no cover - OpenCV encodes any 2-D uint8 array
        raise ValueError("PNG encoding failed")
    return bytes(data)


def split_files(paths: list[Path], out: Path, papers: list[tuple[float, float]]) -> SplitResult:
    """Split every page of every image in ``paths`` into ``out`` (see the module); never raises for a page
    that is not two pages side by side or not an image: it is listed in ``refused`` with the reason."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    refused: list[tuple[str, str]] = []
    rows: list[list[str]] = []
    for path in paths:
        try:
            data = Path(path).read_bytes()
            pages = headers(data)
        except (OSError, ReadError) as e:
            refused.append((str(path), getattr(e, "reason", None) or str(e)))
            continue
        digest = hashlib.sha256(data).hexdigest()
        stem = Path(path).stem
        for h in pages:
            name = f"{stem}-p{h.index + 1}" if len(pages) > 1 else stem
            if out / f"{name}-front.png" in written:  # two images of one name (from two folders): never overwrite
                refused.append((f"{path}#{h.index + 1}", f"another image's halves are already named {name}-*"))
                continue
            try:
                halves = split_sides(decode_page(data, h), papers)
            except ReadError as e:
                refused.append((f"{path}#{h.index + 1}", e.reason))
                continue
            if halves is None:
                refused.append((f"{path}#{h.index + 1}", "not two pages side by side"))
                continue
            for side, half, img in zip(("front", "back"), ("left", "right"), halves):
                target = out / f"{name}-{side}.png"
                target.write_bytes(_png(img))
                written.append(target)
                rows.append([target.name, Path(path).name, str(h.index + 1), half, digest])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["file", "from", "page", "half", "from_sha256"])
    w.writerows(rows)
    (out / MANIFEST).write_text(buf.getvalue(), encoding="utf-8")
    return SplitResult(tuple(written), tuple(refused))
