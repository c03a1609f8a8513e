"""Identification: read the style code (a QR symbol at the bottom centre) and check it.

Only a small crop around where the registered transform puts the symbol is
handed to zxing-cpp (about 0.2 ms, against 15 ms for a whole 200 DPI page).
The code must name this election (its hash prefix), a style it has, a
precinct it has, and a precinct that style serves.
"""

from __future__ import annotations

import cv2
import numpy as np
import zxingcpp

from ..election.geometry import STYLE_CODE_QUIET_IN, StyleCode, style_code_rect
from ..election.model import Election
from .decode import grey
from .errors import ReadError
from .streaks import repair

#: Extra room around the symbol's quiet zone in the crop (registration error, skew).
CROP_MARGIN_IN = 0.08


def code_crop(
    image: np.ndarray,
    affine: np.ndarray,
    width_in: float,
    height_in: float,
    streaks: np.ndarray | None = None,
    levels: np.ndarray | None = None,
) -> np.ndarray:
    """The image region holding the style code and its quiet zone (a C-contiguous copy), with any
    scanner streak columns (``streaks``, one bool per image column) patched from their neighbours.
    ``levels``: ``image`` is a bitonal page's bytes (`tabulate.detect.decode.BitonalPage`); the crop is grey."""
    r = style_code_rect(width_in, height_in).inset(-(STYLE_CODE_QUIET_IN + CROP_MARGIN_IN))
    corners = np.array([(r.x, r.y, 1.0), (r.right, r.y, 1.0), (r.x, r.bottom, 1.0), (r.right, r.bottom, 1.0)])
    px = corners @ affine.T
    c0, r0 = np.floor(px.min(axis=0)).astype(int)
    c1, r1 = np.ceil(px.max(axis=0)).astype(int)
    rows, cols = image.shape
    r0, r1, c0, c1 = max(0, r0), min(rows, r1), max(0, c0), min(cols, c1)
    crop = np.ascontiguousarray(image[r0:r1, c0:c1]) if levels is None else grey(image[r0:r1, c0:c1], levels)
    if streaks is not None and c1 > c0:
        crop = repair(crop, streaks[c0:c1])
    return crop


def read_style_code(crop: np.ndarray) -> str:
    """The text of the QR symbol in ``crop``; ReadError ``style_code_unreadable`` if none decodes."""
    if crop.size == 0:
        raise ReadError("style_code_unreadable", "the style code lies outside the image")
    fmt = zxingcpp.BarcodeFormat.QRCode
    # One threshold for the whole crop first: the crop is a printed symbol on paper, and zxing's local
    # binarizer cost 1.4-1.8x as much (docs/perf.md, round 6). A symbol decodes to one text whichever
    # binarizer zxing used (its error correction checks every codeword); where the quick pass finds
    # nothing the passes below run as before.
    found = zxingcpp.read_barcode(
        crop,
        formats=fmt,
        try_rotate=False,
        try_downscale=False,
        try_invert=False,
        binarizer=zxingcpp.Binarizer.GlobalHistogram,
    )
    if found is None or not found.valid:
        found = zxingcpp.read_barcode(crop, formats=fmt, try_rotate=False, try_downscale=False, try_invert=False)
    if found is None:  # the quick pass failed: let zxing try harder before giving up
        found = zxingcpp.read_barcode(crop, formats=fmt)
    for width in (3, 5):
        if found is not None:
            break
        # A scanner streak (a dark column 1-3 px wide from dust on the glass) that `repair`
        # missed defeats zxing; a closing across the rows erases it and keeps the modules
        # (measured: which width works depends on where the streak meets the modules).
        found = zxingcpp.read_barcode(
            cv2.morphologyEx(crop, cv2.MORPH_CLOSE, np.ones((1, width), np.uint8)), formats=fmt
        )
    if found is None or not found.valid:
        raise ReadError("style_code_unreadable", "the style code (QR symbol at the bottom centre) could not be read")
    return found.text


def check_style_code(election: Election, text: str) -> StyleCode:
    """Parse a style code and check that it belongs to ``election``.

    Raises
    ------
    ReadError
        ``not_a_ballot_code``, ``wrong_election``, ``unknown_style``,
        ``unknown_precinct`` or ``precinct_not_in_style``.
    """
    try:
        code = StyleCode.decode(text)
    except ValueError as e:
        raise ReadError("not_a_ballot_code", f"the QR symbol is not a ballot style code: {e}") from None
    if code.hash_prefix != election.hash_prefix:
        raise ReadError(
            "wrong_election",
            f"the page belongs to another election (its code names election "
            f"{code.hash_prefix!r}; this election is {election.hash_prefix!r})",
        )
    try:
        style = election.style(code.style_id)
    except KeyError:
        raise ReadError(
            "unknown_style", f"the style code names ballot style {code.style_id!r}, which this election does not have"
        ) from None
    try:
        election.precinct(code.precinct_id)
    except KeyError:
        raise ReadError(
            "unknown_precinct", f"the style code names precinct {code.precinct_id!r}, which this election does not have"
        ) from None
    if code.precinct_id not in style.precincts:
        raise ReadError(
            "precinct_not_in_style",
            f"precinct {code.precinct_id!r} is not served by ballot style "
            f"{style.id!r} (it serves {', '.join(style.precincts)})",
        )
    return code
