"""`tabulate scan` starts its readers' forkserver as soon as the election is loaded (`tabulate.central.readers_start`)."""

from __future__ import annotations

import multiprocessing.forkserver
import os

import pytest
from test_scan_support import ELECTION_PATH

from tabulate.central import readers_start
from tabulate.central.layouts_warm import ELECTION_ENV, withdraw_election
from tabulate.election import load_election

pytestmark = pytest.mark.skipif(
    "forkserver" not in multiprocessing.get_all_start_methods(), reason="no forkserver on this platform"
)


@pytest.fixture
def election(monkeypatch):
    monkeypatch.delenv(ELECTION_ENV, raising=False)
    monkeypatch.setattr(readers_start, "_EARLY", {})
    monkeypatch.setattr(readers_start, "_BARE", [False])  # a scan run in this process may have started one bare
    return load_election(ELECTION_PATH)


def test_the_server_starts_with_the_election_already_offered(election, monkeypatch):
    seen = []  # what the server would find when it starts: it reads the offer from its environment
    monkeypatch.setattr(
        multiprocessing.forkserver,
        "ensure_running",
        lambda: seen.append((os.environ.get(ELECTION_ENV), os.path.isfile(os.environ.get(ELECTION_ENV, "")))),
    )
    assert readers_start.start_early(election)
    early, path = readers_start.take_offer(election)
    try:
        assert early and seen == [(str(path), True)]
    finally:
        withdraw_election(path)
        readers_start._EARLY.clear()


def test_the_offer_is_taken_once_and_only_for_its_election(election, monkeypatch):
    monkeypatch.setattr(multiprocessing.forkserver, "ensure_running", lambda: None)
    assert readers_start.take_offer(election) == (False, None)  # nothing started early: the pool offers it
    readers_start.start_early(election)
    assert not readers_start.start_early(election)  # started already: no second server, no second file
    early, path = readers_start.take_offer(election)
    try:
        assert early and path is not None and path.is_file()
        assert readers_start.take_offer(election) == (False, None)
    finally:
        withdraw_election(path)
    assert ELECTION_ENV not in os.environ and not path.exists()


def test_a_scan_command_line_starts_the_server_before_parsing_and_nothing_else_does(monkeypatch):
    started = []
    monkeypatch.setattr(
        multiprocessing.forkserver, "ensure_running", lambda: started.append(os.environ.get(ELECTION_ENV))
    )
    monkeypatch.delenv(ELECTION_ENV, raising=False)
    monkeypatch.setattr(readers_start, "_BARE", [False])
    monkeypatch.setattr(readers_start, "_EARLY", {})
    for argv in (
        [],
        ["verify", "--db", "x.db"],
        ["scan", "--help"],
        ["scan", "b/", "--election", "e.json"],  # no store named: argparse refuses it before any sheet
        ["scan", "b/", "--election", "e.json", "--db", "s.db", "--cluster", "local:2"],
        ["scan", "b/", "--election=e.json", "--db", "s.db", "--templates=t/"],
    ):
        assert not readers_start.start_before_parsing(argv), argv
    assert started == []
    assert readers_start.start_before_parsing(["scan", "b/", "--election=e.json", "--db", "s.db", "--batch", "1"])
    assert started == [None]  # no election offered: the workers load the points from the on-disk cache
    assert not readers_start.start_early(load_election(ELECTION_PATH))  # the server is up: no second one, no offer
    assert readers_start.take_offer(load_election(ELECTION_PATH)) == (True, None)
    assert started == [None] and ELECTION_ENV not in os.environ
