"""pytest-benchmark suite for the central count's stages around the reader (one 200 DPI sheet).

    python -m pytest benchmarks/bench_pipeline.py --benchmark-enable --benchmark-columns=min,median,rounds

The default test run collects this file with ``--benchmark-disable`` (each
stage runs once, unmeasured), so every stage's assertions are a correctness
test: the worker hashes each page once and the reader's evidence carries that
same digest, a sheet reads to the votes its simulated voter cast, the store
records it. `bench_detect.py` has the reader's own stages.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
import simplejpeg

from tabulate.ballots.simulate import simulate_sheet
from tabulate.central import interpret_sheet
from tabulate.central.pages import load_page
from tabulate.central.sources import PageSource, SheetSource
from tabulate.central.worker import read_sheet_source
from tabulate.detect import read_sheet, sheet_marks
from tabulate.election import load_election
from tabulate.rules import apply_rules
from tabulate.store import open_store
from tabulate.store.evidence import decode_evidence

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "general" / "election.json"
PAPER = (8.5, 11.0)


@pytest.fixture(scope="module")
def election():
    return load_election(SAMPLE)


@pytest.fixture(scope="module")
def sheet(election):
    return simulate_sheet(election, 3, 11, scan_profile="default", population="realistic")


@pytest.fixture(scope="module")
def files(sheet, tmp_path_factory):
    folder = tmp_path_factory.mktemp("sheet")
    paths = []
    for side, img in zip(("front", "back"), sheet.pages):
        p = folder / f"sheet-00001-{side}.jpg"
        p.write_bytes(simplejpeg.encode_jpeg(img[:, :, None], quality=85, colorspace="GRAY"))
        paths.append(p)
    return paths


def test_simulate_sheet(benchmark, election):
    sim = benchmark(simulate_sheet, election, 5, 11, scan_profile="default")
    assert len(sim.pages) == 2 and sim.index == 5 and len(sim.truth["targets"]) > 0


def test_load_and_hash_page(benchmark, files):
    data, digest = benchmark(load_page, PageSource(str(files[0])), PAPER)
    assert digest == hashlib.sha256(files[0].read_bytes()).hexdigest() == data.sha256


def test_interpret_sheet(benchmark, election, files):
    """Read and rules on the worker's hashed pages: the evidence names each page by the worker's digest."""
    pages = [load_page(PageSource(str(p)), PAPER)[0] for p in files]
    result = benchmark(interpret_sheet, election, pages)
    assert result.status in ("counted", "needs_review")
    digests = {p["digest"] for p in decode_evidence(result.evidence, election)["pages"]}
    assert digests == {hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def test_rules_alone(benchmark, election, files):
    marks = sheet_marks(read_sheet(election, [p.read_bytes() for p in files]))
    votes = benchmark(apply_rules, election, marks)
    assert votes.contests


def test_worker_task(benchmark, election, files):
    source = SheetSource(1, tuple(PageSource(str(p)) for p in files))
    outcome = benchmark(read_sheet_source, election, interpret_sheet, source)
    assert outcome.status in ("counted", "needs_review") and len(outcome.pages) == 2


def test_store_records_a_sheet(benchmark, election, files, tmp_path):
    outcome = read_sheet_source(election, interpret_sheet, SheetSource(1, tuple(PageSource(str(p)) for p in files)))
    store = open_store(tmp_path / "bench.db")
    store.bind_election(election, json.loads(SAMPLE.read_text()))
    batch = store.open_batch("bench", "election_day")
    n = iter(range(1, 10**6))

    def record():
        k = next(n)
        return store.record_sheets(batch.id, [replace(outcome, identity=f"{k:08x}" + outcome.identity[8:], position=k)])

    recorded = benchmark(record)
    assert recorded[0].added and recorded[0].status == outcome.status
    store.close()
