"""pytest-benchmark suite for the reader's stages at 200 DPI.

    python -m pytest benchmarks/bench_detect.py --benchmark-columns=min,median,mean,rounds

One simulated page (default scanner profile), encoded as JPEG (quality 85)
and as CCITT G4 TIFF; each stage is timed alone, then the whole page.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import simplejpeg
from PIL import Image

from tabulate.ballots.simulate import simulate_sheet
from tabulate.detect import read_image, read_page
from tabulate.detect.decode import decode_page, headers
from tabulate.detect.identify import check_style_code, code_crop, read_style_code
from tabulate.detect.register import register_page
from tabulate.detect.score import page_features
from tabulate.detect.settings import DEFAULT_SETTINGS
from tabulate.election import load_election
from tabulate.kernels import reference

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "general" / "election.json"


@pytest.fixture(scope="module")
def election():
    return load_election(SAMPLE)


@pytest.fixture(scope="module")
def page(election):
    sim = simulate_sheet(election, 1, 7, scan_profile="default", bitonal_fraction=0.0)
    return sim.pages[0] if sim.truth["images"][0]["page"] == 1 else sim.pages[1]


@pytest.fixture(scope="module")
def jpeg(page):
    return simplejpeg.encode_jpeg(page[:, :, None], quality=85, colorspace="GRAY")


@pytest.fixture(scope="module")
def g4(page):
    buf = io.BytesIO()
    Image.fromarray(page).point(lambda v: 255 if v >= 128 else 0).convert("1").save(
        buf, format="TIFF", compression="group4", dpi=(200, 200)
    )
    return buf.getvalue()


def test_decode_jpeg(benchmark, jpeg, page):
    h = headers(jpeg)[0]
    img = benchmark(decode_page, jpeg, h)
    assert img.shape == page.shape


def test_decode_g4_tiff(benchmark, g4, page):
    h = headers(g4)[0]
    img = benchmark(decode_page, g4, h)
    assert img.shape == page.shape


def test_register(benchmark, page):
    reg = benchmark(register_page, page, 8.5, 11.0)
    assert reg.residual_in < 0.01


def test_identify(benchmark, election, page):
    reg = register_page(page, 8.5, 11.0)
    code = benchmark(lambda: check_style_code(election, read_style_code(code_crop(page, reg.affine, 8.5, 11.0))))
    assert code.page == 1


def test_score_kernel(benchmark, election, page):
    reg = register_page(page, 8.5, 11.0)
    code = check_style_code(election, read_style_code(code_crop(page, reg.affine, 8.5, 11.0)))
    _tpl, feats = benchmark(page_features, election, page, reg, code.style_id, code.page, DEFAULT_SETTINGS)
    assert len(feats) > 0


def test_score_reference_twin(benchmark, election, page):
    """The numpy oracle, for comparison with the kernel."""
    reg = register_page(page, 8.5, 11.0)
    code = check_style_code(election, read_style_code(code_crop(page, reg.affine, 8.5, 11.0)))
    tpl, _ = page_features(election, page, reg, code.style_id, code.page, DEFAULT_SETTINGS)
    from tabulate.kernels import offsets_by_distance

    benchmark.pedantic(
        reference.score_targets,
        args=(page, reg.affine, tpl.points),
        kwargs=dict(paper=reg.paper, ink=reg.ink, split=0.25, residue=0.08, offsets=offsets_by_distance(2), min_hits=2),
        rounds=3,
    )


def test_read_image_after_decoding(benchmark, election, page):
    r = benchmark(read_image, election, page)
    assert r.ok


def test_read_page_jpeg_end_to_end(benchmark, election, jpeg):
    r = benchmark(read_page, election, jpeg)
    assert r.ok


def test_read_page_g4_end_to_end(benchmark, election, g4):
    r = benchmark(read_page, election, g4)
    assert r.ok, r.reason
