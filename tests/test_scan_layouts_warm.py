"""The scan's forkserver builds every page's sample points once (`tabulate.central.layouts_warm`)."""

from __future__ import annotations

import os

import pytest
from test_scan_support import ELECTION_PATH

from tabulate.central import layouts_warm
from tabulate.central.layouts_warm import ELECTION_ENV, offer_election, warm_layouts_from_env, withdraw_election
from tabulate.detect import template
from tabulate.election import load_election
from tabulate.election.layout import layout_style


@pytest.fixture
def election():
    return load_election(ELECTION_PATH)


def test_an_offered_election_has_every_page_of_every_style_built_at_200_dpi(election, monkeypatch):
    monkeypatch.delenv(ELECTION_ENV, raising=False)
    built = []  # the calls, not the builds: page_template's own cache is tested with the reader
    monkeypatch.setattr(template, "page_template", lambda e, s, p, dpi: built.append((e.hash, s, p, dpi)))
    path = offer_election(election)
    try:
        assert os.environ[ELECTION_ENV] == str(path) and path.is_file()
        assert all(len(layout_style(election, s.id).pages) == 2 for s in election.ballot_styles)
        assert warm_layouts_from_env() == 2 * len(election.ballot_styles)
        assert built == [(election.hash, s.id, p, 200) for s in election.ballot_styles for p in (1, 2)]
        assert not path.exists()  # the server removes what it read: a killed scan leaves nothing behind
    finally:
        withdraw_election(path)
    assert ELECTION_ENV not in os.environ and not path.exists()


def test_no_offer_or_a_broken_one_warms_nothing_and_never_raises(election, tmp_path, monkeypatch):
    built = []
    monkeypatch.setattr(template, "page_template", lambda *a: built.append(a))
    monkeypatch.delenv(ELECTION_ENV, raising=False)
    assert warm_layouts_from_env() == 0
    for content in (None, b"not a pickle"):
        name = tmp_path / "election.pickle"
        if content is not None:
            name.write_bytes(content)
        monkeypatch.setenv(ELECTION_ENV, str(name))
        assert warm_layouts_from_env() == 0
    assert not built


def test_an_election_that_cannot_be_written_is_not_offered_and_leaves_no_file(election, tmp_path, monkeypatch):
    monkeypatch.delenv(ELECTION_ENV, raising=False)
    monkeypatch.setattr(layouts_warm.tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(layouts_warm.pickle, "dump", lambda *a, **k: (_ for _ in ()).throw(TypeError("no")))
    assert offer_election(election) is None
    assert ELECTION_ENV not in os.environ and not list(tmp_path.iterdir())


def test_the_forkserver_preload_builds_the_offered_layouts_with_opencv_single_threaded(election):
    """A forkserver must not start OpenCV's thread pool: its forked workers would inherit a pool without threads."""
    import subprocess
    import sys

    path = offer_election(election)
    try:
        code = (
            "import cv2, tabulate.central.preload\n"
            "from tabulate.detect import template\n"
            "print(cv2.getNumThreads(), sorted({(k[3], k[4], k[5]) for k in template._CACHE}))\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    finally:
        withdraw_election(path)
    pages = sorted((s.id, p, 200) for s in election.ballot_styles for p in (1, 2))
    assert out.strip() == f"1 {pages}"
