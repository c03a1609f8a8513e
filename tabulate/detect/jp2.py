"""JPEG 2000 pages (``.jp2`` files and bare ``.j2k`` codestreams): the size from the header, the pixels by
imagecodecs' OpenJPEG (already the TIFF decoder's library; no new dependency).

Some archive and EMS exports keep ballot images as JPEG 2000 (lossless or near-lossless at a fraction of a
PNG's size). The header is read without decoding, as for the other formats, so a page too large or of no
ballot's resolution is refused before any pixels are decoded (`decode.check_size`).
"""

from __future__ import annotations

import struct

#: A JP2 file starts with its signature box; a bare codestream with SOC then SIZ.
JP2_SIGNATURE = b"\x00\x00\x00\x0cjP  \r\n\x87\n"
J2K_SIGNATURE = b"\xff\x4f\xff\x51"
#: How far into a JP2 file its image header box is looked for (it sits in the header box, near the start).
IHDR_WITHIN = 4096


def is_jpeg2000(data: bytes) -> bool:
    return data[:12] == JP2_SIGNATURE or data[:4] == J2K_SIGNATURE


def jpeg2000_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JP2 file's ``ihdr`` box or a codestream's SIZ marker; None when damaged."""
    if data[:4] == J2K_SIGNATURE:
        if len(data) < 24:
            return None
        xsiz, ysiz, xo, yo = struct.unpack(">IIII", data[8:24])
        return (xsiz - xo, ysiz - yo) if xsiz > xo and ysiz > yo else None
    at = bytes(data[:IHDR_WITHIN]).find(b"ihdr")
    if at < 0 or len(data) < at + 12:
        return None
    h, w = struct.unpack(">II", data[at + 4 : at + 12])
    return (w, h) if w > 0 and h > 0 else None
