"""Identification: the style code names this election, a style it has and a precinct that style serves."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import zxingcpp
from PIL import Image
from test_detect_support import election, page_image, scan, turn

from tabulate.detect import read_image
from tabulate.election.geometry import style_code_rect
from tabulate.election.layout import layout_style
from tabulate.election.render import render_page


def _with_code(img: np.ndarray, text: str) -> np.ndarray:
    """Print another QR symbol over the page's style code."""
    out = img.copy()
    r = style_code_rect(8.5, 11.0)
    side = int(round(r.w * 200))
    bc = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.QRCode, ec_level="M")
    mod = np.asarray(bc.to_image(scale=1, add_quiet_zones=False))
    qr = np.asarray(Image.fromarray(mod).resize((side, side), Image.NEAREST))
    y, x = int(round(r.y * 200)), int(round(r.x * 200))
    out[y : y + side, x : x + side] = qr
    return out


def _read(img):
    return read_image(election(), img)


@pytest.mark.parametrize("quarters", [0, 1, 2, 3])
def test_style_code_is_read_whichever_way_the_sheet_was_fed(quarters):
    r = _read(turn(scan(page_image("3", 1, "C302"), angle=1.2, paper=232, ink=25, noise=4), quarters))
    assert r.ok, r.reason
    assert (r.style_id, r.precinct_id, r.page, r.hash_prefix) == ("3", "C302", 1, election().hash_prefix)


def test_a_streak_through_the_style_code_is_read_through():
    img = page_image().copy()
    img[:, 850:853] = 40  # dust on the scanner glass: a dark column down the page
    r = _read(img)
    assert r.ok, r.reason


def test_a_symbol_one_threshold_cannot_read_is_read_by_the_local_pass():
    """The quick pass thresholds the whole crop at once; light falling off across the symbol (paper 235 on the
    left, 70 on the right) defeats it, and the local pass, as before it, still reads the code."""
    from tabulate.detect.identify import read_style_code

    text = "KYB1|abc|1|A101|1"
    bc = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.QRCode, ec_level="M")
    mod = np.asarray(bc.to_image(scale=6, add_quiet_zones=True))
    crop = (np.where(mod > 128, 235.0, 30.0) * np.linspace(1.0, 0.3, mod.shape[1])[None, :]).astype(np.uint8)
    quick = zxingcpp.read_barcode(
        crop, formats=zxingcpp.BarcodeFormat.QRCode, binarizer=zxingcpp.Binarizer.GlobalHistogram, try_rotate=False
    )
    assert quick is None or not quick.valid  # the case the fallback is for
    assert read_style_code(crop) == text
    assert read_style_code(np.where(mod > 128, 255, 0).astype(np.uint8)) == text  # a bitonal crop: the quick pass


def test_a_page_from_another_election_is_refused():
    other = dataclasses.replace(election(), hash="0123456789ab" + "0" * 52)
    img = render_page(other, layout_style(election(), "1").pages[0], "A101", dpi=200)
    r = _read(img)
    assert r.reason_code == "wrong_election" and "0123456789ab" in r.reason


@pytest.mark.parametrize(
    "text,code",
    [
        ("KYB1|{h}|9|A101|1", "unknown_style"),
        ("KYB1|{h}|1|Z999|1", "unknown_precinct"),
        ("KYB1|{h}|1|C301|1", "precinct_not_in_style"),
        ("https://example.org/not-a-ballot", "not_a_ballot_code"),
        ("KYB1|{h}|1|A101|3", "not_a_ballot_code"),
    ],
)
def test_style_codes_that_do_not_fit_the_election_are_refused(text, code):
    r = _read(_with_code(page_image(), text.format(h=election().hash_prefix)))
    assert r.reason_code == code, r.reason
    assert r.transform is not None  # what was learnt before the refusal is kept


def test_an_unreadable_style_code_is_refused():
    img = page_image().copy()
    r = style_code_rect(8.5, 11.0)
    img[int(r.y * 200) + 20 : int(r.bottom * 200) - 20, int(r.x * 200) + 20 : int(r.right * 200) - 20] = 255
    res = _read(img)
    assert res.reason_code == "style_code_unreadable"
