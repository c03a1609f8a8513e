"""The anchors' fit on a scaled legal page (issue #11): the scouts land on the right anchors.

Issue #11, Build 3: "Handle rotations of 0/90/180/270 deg, skew up to 3 deg and
scale within +-3 %." The coarse fit (phase correlation) finds shift only, so on a
legal page 1.5 % large an anchor near the page's ends lies 0.1 in from where the
coarse fit puts it: the wide search must still find it, and the fit must give
the page's scale. 31 KAR 6:030 Section 2(1)(a) counts "connecting the arrow next
to the candidate's name": a fit that loses the scale puts the arrows' gaps off
their printed places.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import tabulate.templates.align as align
from tabulate.ballots.vendor import simulate_vendor_sheet
from tabulate.ballots.vendor.write import write_blanks
from tabulate.election import parse_election
from tabulate.templates import TemplateReader, import_templates

GENERAL = Path(__file__).resolve().parents[1] / "samples" / "general" / "election.json"


@pytest.fixture(scope="module")
def arrows(tmp_path_factory):
    """The arrows family on legal paper, style 3's front blank imported (one page: the import is most of
    the test's time), and the first sheet of style 3."""
    doc = json.loads(GENERAL.read_text())
    doc.update(paper_size="legal", target_shape="arrow")
    election = parse_election(doc)
    tmp = tmp_path_factory.mktemp("arrows")
    blanks = write_blanks(election, "arrows", tmp / "blanks", styles=("3",), pdf=False)
    import_templates(election, [b for b in blanks if b.name.endswith("-p1.png")], tmp / "set")
    for k in range(40):
        images, truth = simulate_vendor_sheet(election, "arrows", k, 5, population="realistic")
        if truth["style"] == "3":
            return election, TemplateReader(str(tmp / "set")), images
    raise AssertionError("no sheet of style 3")


def _scaled(image: np.ndarray, scale: float) -> np.ndarray:
    h, w = image.shape
    m = cv2.getRotationMatrix2D((w / 2, h / 2), 0.0, scale)
    return cv2.warpAffine(image, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=235)


@pytest.mark.parametrize("scale", [1.015, 0.985])
def test_a_legal_page_1_5_percent_off_in_scale_fits_from_the_scouts(arrows, monkeypatch, scale):
    election, reader, images = arrows
    plain = reader.read_image(election, images[0])
    assert plain.ok, plain.reason
    calls: list[int] = []
    wide_then_narrow = align._wide_then_narrow

    def spy(fine, half, start, dpi, stack, wide):
        calls.append(len(wide.xy))
        return wide_then_narrow(fine, half, start, dpi, stack, wide)

    monkeypatch.setattr(align, "_wide_then_narrow", spy)
    r = reader.read_image(election, _scaled(images[0], scale))
    assert r.ok, r.reason
    assert (r.style_id, r.page) == (plain.style_id, plain.page)
    # The fit gives the page's scale (against the unscaled page's own), tight, from enough anchors.
    assert r.scale[0] / plain.scale[0] == pytest.approx(scale, abs=0.002)
    assert r.scale[1] / plain.scale[1] == pytest.approx(scale, abs=0.002)
    assert r.residual_in < align.CLIMB_RMS_IN
    assert calls == [9]  # the scouts' fit kept: every anchor was not searched again
