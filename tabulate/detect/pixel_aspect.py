"""Pages whose header states two resolutions (non-square pixels), resampled to square pixels on decoding.

Some scanners and EMS exports write a page at one resolution across the feed
and another along it (204 x 196 DPI, fax-like): the header says so (TIFF
XResolution / YResolution, PNG ``pHYs``, JPEG JFIF density), and the pixels are
not square. Every reader registers the page with one scale a page (our own
ballots' timing marks and the template sets' fits alike), so such a page was
refused ``registration_residual``. It is made square here, before any reader
sees it: the coarser axis is stretched to the finer one's resolution, so no
sample of the scan is thrown away (downsampling the finer axis would be).

* A grey page: `cv2.resize` with ``INTER_LINEAR``, which on an enlargement by
  a few per cent weighs the two nearest rows; ``INTER_AREA`` enlarging is the
  same thing by another name and would suggest an average that is not made.
* A bitonal page (CCITT G4) stays two-valued: ``INTER_NEAREST_EXACT`` repeats
  one row (or column) in every ~25 for 204 x 196, as a fax does, and invents
  no grey the scanner never sent; so the bitonal page's bytes
  (`tabulate.detect.decode.BitonalPage`) and its grey copy
  (`tabulate.detect.decode.decode_page`) still agree pixel for pixel.

A page whose header states one resolution, or none, or two within
`TOLERANCE`, is returned as decoded: no resize call at all, not a byte changed.
The reading of a resampled page carries the flag ``non_square_pixels_XxY``
(the stated resolutions), so a person sees what was done.

EXIF resolution tags, JPEG 2000 resolution boxes and PDF pages are not read:
no anisotropic page of those kinds has been seen.
"""

from __future__ import annotations

import struct

import cv2
import numpy as np

#: Two stated resolutions closer than this (relative) are taken as one: square pixels, left alone.
TOLERANCE = 0.005
#: The reading's flag prefix: ``non_square_pixels_204x196`` (the header's x and y resolution).
FLAG_PREFIX = "non_square_pixels_"
#: PNG chunks looked at before the image data for a ``pHYs`` (a real file has a handful).
_PNG_MAX_CHUNKS = 64

#: TIFF tags: XResolution, YResolution (RATIONAL), ResolutionUnit (SHORT: 1 none, 2 inch, 3 cm).
TIFF_RESOLUTION_TAGS = (282, 283, 296)


def _per_inch(x: float, y: float, per_inch: float | None) -> tuple[float, float] | None:
    """(x, y) per inch (``per_inch``: units in an inch; None: no unit, kept as stated: only the ratio counts)."""
    if not (x > 0 and y > 0):
        return None
    if per_inch is None:
        return (x, y)
    return (x * per_inch, y * per_inch)


def tiff_resolution(data, bo: str, entries: dict[int, tuple[int, int, bytes]]) -> tuple[float, float] | None:
    """(x, y) from one TIFF directory's raw entries {tag: (type, count, value field)}, or None if not stated."""
    if 282 not in entries or 283 not in entries:
        return None
    values = []
    for tag in (282, 283):
        typ, _count, field = entries[tag]
        if typ != 5:  # RATIONAL: two LONGs at the offset in the value field
            return None
        (at,) = struct.unpack(bo + "I", field)
        num, den = struct.unpack_from(bo + "II", data, at)
        if den == 0:
            return None
        values.append(num / den)
    unit = 2
    if 296 in entries and entries[296][0] == 3:
        (unit,) = struct.unpack_from(bo + "H", entries[296][2])
    return _per_inch(values[0], values[1], {2: 1.0, 3: 2.54}.get(unit))


def png_resolution(data: bytes) -> tuple[float, float] | None:
    """(x, y) from a PNG's ``pHYs`` chunk (pixels per metre, or unit-less), or None if it has none."""
    at = 8
    for _ in range(_PNG_MAX_CHUNKS):
        if at + 8 > len(data):
            return None
        length, kind = struct.unpack_from(">I4s", data, at)
        if kind in (b"IDAT", b"IEND"):  # pHYs must come before the image data
            return None
        if kind == b"pHYs" and length == 9 and at + 17 <= len(data):
            x, y, unit = struct.unpack_from(">IIB", data, at + 8)
            return _per_inch(float(x), float(y), 0.0254 if unit == 1 else None)
        at += 12 + length
    return None


def jpeg_resolution(data: bytes) -> tuple[float, float] | None:
    """(x, y) from a JPEG's JFIF APP0 density (per inch, per cm, or an aspect ratio), or None if it has none."""
    if len(data) < 18 or data[2:4] != b"\xff\xe0" or data[6:11] != b"JFIF\x00":
        return None
    unit, x, y = struct.unpack_from(">BHH", data, 13)
    return _per_inch(float(x), float(y), {1: 1.0, 2: 2.54}.get(unit))


def is_anisotropic(resolution: tuple[float, float] | None) -> bool:
    """The header states two resolutions more than `TOLERANCE` apart."""
    if resolution is None:
        return False
    x, y = resolution
    return max(x, y) / min(x, y) - 1.0 > TOLERANCE


def flag(resolution: tuple[float, float]) -> str:
    """The reading's flag for a resampled page: ``non_square_pixels_204x196`` (x by y, as the header states)."""
    return f"{FLAG_PREFIX}{resolution[0]:.4g}x{resolution[1]:.4g}"


def square_size(shape: tuple[int, ...], resolution: tuple[float, float]) -> tuple[int, int]:
    """(width, height) of the page at square pixels: the coarser axis stretched to the finer one's resolution."""
    h, w = shape[:2]
    x, y = resolution
    if x > y:
        return w, max(1, round(h * x / y))
    return max(1, round(w * y / x)), h


def to_square(img: np.ndarray, resolution: tuple[float, float] | None, bitonal: bool = False) -> np.ndarray:
    """``img`` at square pixels if ``resolution`` is anisotropic, else ``img`` itself (no copy, no call).

    ``bitonal``: the bytes are two values (0/1 or 0/255) and stay those two (nearest sample).
    """
    if resolution is None or not is_anisotropic(resolution):
        return img
    how = cv2.INTER_NEAREST_EXACT if bitonal else cv2.INTER_LINEAR
    return np.ascontiguousarray(cv2.resize(img, square_size(img.shape, resolution), interpolation=how))
