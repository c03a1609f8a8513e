"""The worker's evidence encoder (`encode_reading`) writes exactly the bytes of `encode_evidence(reading.to_dict())`."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_scan_support import ELECTION_PATH

from tabulate.detect.reading import PageReading, SheetReading, TargetReading
from tabulate.election import load_election
from tabulate.store.evidence import decode_evidence, encode_evidence
from tabulate.store.evidence_reading import _rounded, encode_reading


@pytest.fixture(scope="module")
def election():
    return load_election(ELECTION_PATH)


def _targets(election, values: list[tuple[float, ...]], named: bool = True) -> tuple[TargetReading, ...]:
    contest = election.contests[0]
    out = []
    for n, v in enumerate(values):
        oid = contest.options[n % len(contest.options)].id if named else f"not-in-the-election-{n}"
        clauses = ("6:030 s3(1)(a) majority filled",) if n % 2 else ()
        scan = ("unmarked", "marked", "marginal")[n % 3]
        out.append(TargetReading(contest.id, oid, "candidate", v[0], v, scan, scan, clauses))
    return tuple(out)


def _page(targets, **kw) -> PageReading:
    base = dict(
        source="<bytes>",
        digest="06b1da09c37484f5f8acb2d5ab6a49199c4a9bf21caf70681660803730aebb3d",
        hash_prefix="657d017dcc45",
        style_id="3",
        precinct_id="C302",
        page=1,
        width_px=1780,
        height_px=2280,
        dpi=200.0,
        rotation=0,
        skew_deg=-0.38123,
        scale=(1.01751234, 1.0175),
        residual_in=0.000751234,
        transform=(203.4899831, 1.3310634, 6.2533812, -1.3537414, 203.4906131, 10.8525023),
        paper=225.123,
        ink=29.14,
        targets=targets,
        timings_ms=(("register", 1.25),),
    )
    return PageReading(**{**base, **kw})


def _row(rng) -> tuple[float, ...]:
    """A target's 12 numbers as the kernel gives them: full doubles, some on and near 4-decimal ties."""
    v = rng.random(12) * np.array([1, 1, 1, 1, 4, 1, 1, 6, 6, 1, 255, 1.5]) - np.array([0] * 7 + [3, 3, 0, 0, 0])
    return tuple(float(x) for x in v)


#: Values whose rounding to 4 decimals is a tie or nearly one (Python's correctly rounded ``round`` decides them).
TIES = (0.00005, 0.12345, 1.00005, 2.67565, -0.00005, -0.0, 0.49995, 225.06245, 1e-17, 0.1 + 0.2)


def test_rounding_to_four_decimals_is_pythons_round_on_ties_and_near_ties():
    rng = np.random.default_rng(7)
    raw = np.concatenate([np.array(TIES), rng.random(5000) * 300 - 20, np.round(rng.random(2000), 4) + 5e-5])
    got = _rounded(raw.reshape(-1, 1))[:, 0]
    assert [math.copysign(1, x) for x in got] == [math.copysign(1, round(x, 4)) for x in raw.tolist()]
    assert got.tolist() == [round(x, 4) for x in raw.tolist()]
    assert _rounded(np.array([[1.0, math.nan]])) is None


@pytest.mark.parametrize("named", [True, False])
def test_a_read_sheet_encodes_to_the_same_bytes_as_its_dict(election, named):
    rng = np.random.default_rng(3)
    rows = [_row(rng) for _ in range(40)] + [(t, *([0.0] * 11)) for t in TIES]
    front = _page(_targets(election, rows, named))
    back = _page((), index=1, page=2, digest="ab" * 32, flags=("no_marks",))
    sheet = SheetReading((front, back), "9ee5f9f88d9167cec1fa", style_id="3", precinct_id="C302", flags=("x",))
    blob = encode_reading(sheet, election)
    assert blob == encode_evidence(sheet.to_dict(), election)
    assert decode_evidence(blob, election)["pages"][0]["targets"][3] == front.targets[3].to_dict()


def test_what_is_not_the_readers_own_shape_goes_through_the_generic_encoder(election):
    rows = [(0.5, *([math.nan] * 11)), (0.25,) * 12]
    odd = _page(_targets(election, rows))  # a NaN feature: kept as float64, exactly as encode_evidence keeps it
    template = _page(_targets(election, [(0.25,) * 12]), template_set="f" * 64)
    rejected = PageReading("scan.tif", reason_code="corrupt_image", reason="the TIFF is damaged", digest="not hex")
    for pages in ((odd,), (template,), (rejected,), ()):
        sheet = SheetReading(pages, "b" * 20, reason_code=None if pages else "missing_page")
        assert encode_reading(sheet, election) == encode_evidence(sheet.to_dict(), election)
