"""A batch-level warning that the scanner made its bitonal pages by error diffusion.

Document scanners offer, beside a fixed black-and-white threshold, an
error-diffusion ("halftone", "dither") mode meant for photographs: every grey
becomes a pattern of lone dots. Both readers take such a page for what it is,
read it from the grey its dots stand for, and flag it ``error_diffused``
(`tabulate.detect.dither`). The page is read, but worse than a thresholded or
grey one: the dots cost the marks' edges and the paper's grain becomes specks
inside every oval, so more clean ballots go to a person and a light mark is
judged on a blurred image. Under 31 KAR 6:030 Section 3(1)(a) a person counts
"The majority of an oval, box, or space designating a candidate or question
choice is filled in": what a person and the reader judge is the image, so the
clerk is told to change the scanner's mode for the batches still to come.

No other page carries the flag (a thresholded page has at most one lone black
pixel in 100,000 sampled, a diffused one 4,500 and more), so one flagged page
is enough to warn.
"""

from __future__ import annotations

from typing import Iterable

from .vanish import BatchWarning, SheetLook

CODE = "pages_error_diffused"
#: What the clerk changes on the scanner.
REMEDY = "set the scanner to a fixed threshold or to greyscale"


def diffused_warning(batch: str, looks: Iterable[SheetLook | None], *, step: int = 1) -> BatchWarning | None:
    """Warn when any read page of the batch looked error-diffused.

    ``step``: the looks are every ``step``-th read sheet of the batch (`tabulate.central.vanish`
    samples a large batch); the line then says how many pages were looked at.
    """
    seen = [x for x in looks if x is not None]
    diffused = sum(x.diffused_pages for x in seen)
    if not diffused:
        return None
    pages = sum(x.pages for x in seen)
    which = f"of its {pages} read pages" if step <= 1 else f"of {pages} read pages looked at (1 sheet in {step})"
    return BatchWarning(
        batch,
        CODE,
        f"batch {batch!r}: {diffused} {which} looked error-diffused (the scanner's halftone or dither mode, "
        f"which blurs the marks): {REMEDY}",
    )
