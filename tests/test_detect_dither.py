"""Our own ballots scanned in a scanner's error-diffusion ("halftone") bitonal mode (issue #11, fifth round).

Error diffusion breaks the corner squares' solid black into dots: every page was
refused (no registration marks found, 8 sheets of 8 in `benchmarks/variant_native.py`)
and every ballot went to a person. The native reader now takes such a page back to
the grey its dots stand for (`tabulate.detect.dither`, shared with the template
reader) before it registers it.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from tabulate.ballots.simulate import simulate_sheet
from tabulate.detect import pair_pages, read_pages
from tabulate.detect.decode import BitonalPage, decode_native, headers
from tabulate.detect.dither import bits_isolated_share, diffused_bits, isolated_share, undither
from tabulate.election import load_election

GENERAL = Path(__file__).parents[1] / "samples" / "general" / "election.json"


def _g4(page: np.ndarray, diffuse: bool) -> bytes:
    """The page as a scanner's CCITT G4 TIFF: Floyd-Steinberg dots (Pillow) or a fixed threshold at 128."""
    img = Image.fromarray(page)
    bits = img.convert("1") if diffuse else img.point(lambda v: 255 if v >= 128 else 0).convert("1", dither=None)
    buf = io.BytesIO()
    bits.save(buf, format="TIFF", compression="group4", dpi=(200, 200))
    return buf.getvalue()


def test_an_error_diffused_g4_scan_of_our_ballot_reads_as_its_grey_scan():
    """A clean sheet (seed 2024, sheet 1: no mark for a person) scanned by error diffusion is read, not set
    aside, and gives the grey scan's votes with nothing sent to a person."""
    election = load_election(GENERAL)
    sim = simulate_sheet(election, 1, 2024, population="varied")
    assert not sim.truth["needs_review"]
    grey = pair_pages(election, [p for img in sim.pages for p in read_pages(election, _g4(img, False))])
    dots = pair_pages(election, [p for img in sim.pages for p in read_pages(election, _g4(img, True))])
    assert grey.ok and dots.ok, dots.reason
    assert [(t.contest_id, t.option_id, t.scan) for t in dots.targets] == [
        (t.contest_id, t.option_id, t.scan) for t in grey.targets
    ]
    assert not any(t.scan == "marginal" or t.scan != t.hand for t in dots.targets)


def test_a_thresholded_bitonal_page_is_read_as_it_was():
    """Only error diffusion is blurred: a fixed-threshold page (the usual bitonal scan) is the same object."""
    election = load_election(GENERAL)
    page = simulate_sheet(election, 2, 2024, bitonal_fraction=1.0).pages[0]
    assert isolated_share(page) < 1e-4 and undither(page) is page
    diffused = np.asarray(Image.fromarray(simulate_sheet(election, 2, 2024).pages[0]).convert("1"), np.uint8) * 255
    assert isolated_share(diffused) > 0.03


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    rows=st.integers(1, 400),
    cols=st.integers(1, 40),
    ink=st.floats(0.0, 1.0),
    black=st.sampled_from((0, 1)),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_bitonal_pages_lone_ink_is_counted_as_its_grey_pages(rows, cols, ink, black, seed):
    """`bits_isolated_share` (a decoder's 0/1 bytes, ink either byte) gives `isolated_share` of the same page as
    grey, to the last bit: the share on which a G4 page is taken for error diffusion."""
    bits = (np.random.default_rng(seed).random((rows, cols)) < ink).astype(np.uint8)
    if not black:
        bits ^= 1  # ink is byte 0 (min-is-black): the same picture, the other byte for ink
    grey_page = np.where(bits == black, 0, 255).astype(np.uint8)
    assert bits_isolated_share(bits, black) == isolated_share(grey_page) == isolated_share(bits, black, 1 - black)


def test_an_error_diffused_pages_own_bytes_are_taken_for_error_diffusion():
    """`diffused_bits` on a G4 page's own bytes, both photometrics: dots yes, a fixed threshold no."""
    election = load_election(GENERAL)
    page = simulate_sheet(election, 2, 2024).pages[0]
    for diffuse in (False, True):
        data = _g4(page, diffuse)
        native = decode_native(data, headers(data)[0])
        flipped = BitonalPage(native.bits ^ 1, native.levels[::-1].copy())  # the other photometric, same page
        assert np.array_equal(flipped.grey_page(), native.grey_page())
        assert diffused_bits(native.bits, native.levels) is diffuse
        assert diffused_bits(flipped.bits, flipped.levels) is diffuse
