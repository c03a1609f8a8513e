"""A bitonal scan made by error diffusion ("halftone", "dither"): back to the grey it stands for.

Document scanners offer, beside a fixed threshold, an error-diffusion bitonal mode
meant for photographs: every grey becomes a pattern of single black dots, as many
as the grey is dark. A county that set it for ballots gets paper grain (paper at
grey 240 is one dot in 17) everywhere. On a vendor's design read with a template
set every blank oval of a clean ballot scored 0.04-0.05, above the marginal
threshold, and the hand reading called most of them marked (boxes design at 200
DPI: 4 clean ballots of 4 sent to a person). On our own ballots it is worse: the
corner squares' solid black breaks into dots and every page was refused
(`benchmarks/variant_native.py`: 8 sheets of 8 set aside). A thresholded scan's
print is solid strokes; almost none of its black pixels is alone. So a bitonal
image whose sampled rows hold more than `ISOLATED_MIN` of lone black pixels is
taken for error diffusion and blurred back to grey (`SIGMA_PX`), the local share
of dots being the grey; it is then read as a grey scan is. Both readers (ours,
`tabulate.detect.read`, and the template sets') call `undither` first.

Measured (share of lone black pixels in the sampled rows): a thresholded page (the
timing family, bitonal at 90 and 200, heavy bleed; our own bitonal scans)
0-0.00001; error diffusion at 200 or 300 DPI 0.045-0.12. Cost: 0.006 ms a grey
page (one row says it is not bitonal), 0.04 ms a bitonal one.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..core.vocabulary import ERROR_DIFFUSED_FLAG

#: Every `STEP`-th row is looked at (with the rows above and below it): 12-30 rows of a page, 15,000 pixels
#: and more, where a thresholded page has at most a pixel or so alone and a diffused one hundreds.
STEP = 128
#: Lone black pixels (no black 4-neighbour) as a share of the sampled pixels above which a bitonal image
#: is error diffusion (thresholded pages: at most 0.00001; diffused paper grain: 0.045 and more).
ISOLATED_MIN = 0.005
#: The blur (pixels) that turns the dots back to grey: the dots of paper grain are a few pixels apart.
SIGMA_PX = 1.5
#: Page flag: the page was taken for error diffusion and read as the grey its dots stand for. Both readers
#: set it, so that `tabulate status` can tell the clerk the scanner is in the wrong mode
#: (`tabulate.central.diffused`); no other page carries it, so their readings keep their bytes.
DIFFUSED_FLAG = ERROR_DIFFUSED_FLAG


def _bitonal(pixels: np.ndarray, black: int, white: int) -> bool:
    """Whether every pixel is ``black`` or ``white`` (counted: this runs on every page)."""
    return np.count_nonzero(pixels == black) + np.count_nonzero(pixels == white) == pixels.size


def isolated_share(image: np.ndarray, black: int = 0, white: int = 255) -> float:
    """The share of sampled pixels that are black with no black 4-neighbour (0 for a non-bitonal image).

    ``black`` and ``white`` are the image's two values: 0 and 255 for a grey page, or a bitonal page's
    own bytes (`tabulate.detect.decode.BitonalPage`: 0 and 1, either way round)."""
    h, w = image.shape
    n = (h - 2 - STEP) // STEP + 1  # rows STEP, 2 STEP, ... below h - 1 (each has a row under it)
    if n <= 0 or w < 3 or not _bitonal(image[h // 2], black, white):  # grey (one row says so): not bitonal
        return 0.0
    stop = STEP + n * STEP
    mid = image[STEP:stop:STEP]  # views, not copies
    if not _bitonal(mid, black, white):
        return 0.0
    dark = mid == black
    clear = ~dark[:, :-2] & ~dark[:, 2:]
    clear &= image[STEP - 1 : stop - 1 : STEP, 1:-1] != black
    clear &= image[STEP + 1 : stop + 1 : STEP, 1:-1] != black
    return np.count_nonzero(dark[:, 1:-1] & clear) / (n * (w - 2))


def bits_isolated_share(bits: np.ndarray, black: int) -> float:
    """`isolated_share` of a bitonal page's own bytes, every one 0 or 1 (``black`` is the ink's byte).

    The same rows and the same count, without `isolated_share`'s checks that the rows hold two values
    only (a decoder's 0/1 bytes always do): a lone black byte is one that every 4-neighbour outdoes
    (ink 0: all four are 1) or that outdoes them all (ink 1: all four are 0), so four ``&`` (or
    ``|``) of the neighbours and one comparison count them. 0.03 ms a 200 DPI page against 0.05.
    """
    h, w = bits.shape
    n = (h - 2 - STEP) // STEP + 1
    if n <= 0 or w < 3:
        return 0.0
    stop = STEP + n * STEP
    mid = bits[STEP:stop:STEP]
    join = np.bitwise_or if black else np.bitwise_and
    around = join(mid[:, :-2], mid[:, 2:])
    join(around, bits[STEP - 1 : stop - 1 : STEP, 1:-1], out=around)
    join(around, bits[STEP + 1 : stop + 1 : STEP, 1:-1], out=around)
    centre = mid[:, 1:-1]
    lone = np.greater(centre, around) if black else np.greater(around, centre)
    return np.count_nonzero(lone) / (n * (w - 2))


def diffused_bits(bits: np.ndarray, levels: np.ndarray) -> bool:
    """Whether a bitonal page's own bytes (``levels[bits]`` is its grey page) were made by error diffusion."""
    return bool(bits_isolated_share(bits, 0 if int(levels[0]) == 0 else 1) > ISOLATED_MIN)


def undither(image: np.ndarray) -> np.ndarray:
    """The grey an error-diffused bitonal ``image`` stands for; any other image unchanged (the same object)."""
    if isolated_share(image) <= ISOLATED_MIN:
        return image
    return cv2.GaussianBlur(image, (0, 0), SIGMA_PX)
