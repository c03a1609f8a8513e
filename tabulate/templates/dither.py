"""A bitonal scan made by error diffusion ("halftone", "dither"): back to the grey it stands for.

Document scanners offer, beside a fixed threshold, an error-diffusion bitonal mode
meant for photographs: every grey becomes a pattern of single black dots, as many
as the grey is dark. A county that set it for ballots gets paper grain (paper at
grey 240 is one dot in 17) everywhere: every blank oval of a clean ballot scored
0.04-0.05, above the marginal threshold, and the hand reading called most of them
marked (boxes design at 200 DPI: 4 clean ballots of 4 sent to a person). A
thresholded scan's print is solid strokes; almost none of its black pixels is
alone. So a bitonal image whose sampled rows hold more than `ISOLATED_MIN` of
lone black pixels is taken for error diffusion and blurred back to grey
(`SIGMA_PX`), the local share of dots being the grey; it is then read as a grey
scan is. Measured: a thresholded page (the timing family, bitonal at 90 and 200,
heavy bleed) 0-0.00001; error diffusion at 200 or 300 DPI 0.045-0.085.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Every `STEP`-th row is looked at (with the rows above and below it): cheap, and thousands of pixels.
STEP = 32
#: Lone black pixels (no black 4-neighbour) as a share of the sampled pixels above which a bitonal image
#: is error diffusion (thresholded pages: at most 0.00001; diffused paper grain: 0.045 and more).
ISOLATED_MIN = 0.005
#: The blur (pixels) that turns the dots back to grey: the dots of paper grain are a few pixels apart.
SIGMA_PX = 1.5


def isolated_share(image: np.ndarray) -> float:
    """The share of sampled pixels that are black with no black 4-neighbour (0 for a non-bitonal image)."""
    rows = np.arange(STEP, image.shape[0] - 1, STEP)
    if rows.size == 0 or image.shape[1] < 3:
        return 0.0
    probe = image[image.shape[0] // 2]
    if not ((probe == 0) | (probe == 255)).all():  # grey (one row says so, almost always): not bitonal
        return 0.0
    mid = image[rows]
    if not ((mid == 0) | (mid == 255)).all():
        return 0.0
    black, up, down = mid == 0, image[rows - 1] == 0, image[rows + 1] == 0
    lone = black[:, 1:-1] & ~black[:, :-2] & ~black[:, 2:] & ~up[:, 1:-1] & ~down[:, 1:-1]
    return float(lone.mean())


def undither(image: np.ndarray) -> np.ndarray:
    """The grey an error-diffused bitonal ``image`` stands for; any other image unchanged (the same object)."""
    if isolated_share(image) <= ISOLATED_MIN:
        return image
    return cv2.GaussianBlur(image, (0, 0), SIGMA_PX)
