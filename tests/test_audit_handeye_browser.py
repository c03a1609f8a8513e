"""The hand-to-eye audit pages in a real browser (headless Chromium, Playwright), against a live server.

Two counters in two browsers enter their tallies apart; the first attempt
differs, the page says where, both count again and the second attempt matches;
the board sees the comparison. Skipped, saying why, without Chromium or
playwright (as tests/test_review_browser.py). ``TABULATE_SCREENSHOTS=DIR``
saves the pages as PNGs (docs/img/audit-*.png are made this way).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest
from test_adjudicate_support import password
from test_audit_handeye_support import hand_tally, truth_store, truth_template  # noqa: F401

from tabulate.adjudicate import schema, users
from tabulate.audit.handeye import migrate, start_audit
from tabulate.store import open_store

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
RACE = "us-senate"

try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sync_playwright is None, reason="the playwright Python package is not installed"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no Chromium at /usr/bin/chromium (apt-get install chromium)"),
]


@pytest.fixture
def server(truth_store):
    import uvicorn
    from argon2 import PasswordHasher

    from tabulate.adjudicate.web.app import create_app

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(users, "_hasher", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
        conn = schema.connect(truth_store)
        schema.migrate(conn)
        migrate(conn)
        for name, role, party in (("ann", "auditor", "REP"), ("bo", "auditor", "DEM"), ("bea", "board", "DEM")):
            users.add_user(conn, name, role, password(name), party=party, actor="test")
        store = open_store(truth_store, create=False)
        start_audit(store, conn, actor="test", seed="31415926535897932384")
        store.close()
        conn.close()
        # The server gets the socket already bound (no window in which another process could take the
        # port), and the wait ends as soon as it is up: 120 s is a hang guard, not a time the test needs.
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        srv = uvicorn.Server(uvicorn.Config(create_app(truth_store), host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 120
        while not srv.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the review server did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", truth_store
        srv.should_exit = True
        thread.join(timeout=60)
        sock.close()


def _shot(page, name):
    where = os.environ.get("TABULATE_SCREENSHOTS")
    if where:
        page.screenshot(path=str(Path(where) / name), full_page=True)


def _login(browser, base, name, lands="/audit"):
    page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    page.goto(base + "/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", password(name))
    page.click("button[type=submit]")
    expect(page).to_have_url(base + lands)
    page.goto(base + "/audit/1")
    return page


def _enter(page, counts):
    for option, n in counts.items():
        page.fill(f"input[name='c|{option}']", str(n))
    page.click("form[action='/audit/1/tally'] button")


def test_two_counters_in_two_browsers_mismatch_recount_and_match(server):
    from tabulate.adjudicate.schema import connect
    from tabulate.audit.handeye.book import get_audit

    base, db = server
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        ann, bo = _login(browser, base, "ann"), _login(browser, base, "bo")
        race = ann.locator("h1").inner_text().removeprefix("Hand tally: ")
        conn = connect(db)
        contest_id = get_audit(conn, 1).contest_id
        conn.close()
        good = hand_tally(contest_id)
        first = next(iter(good))
        _enter(ann, good)
        expect(ann.locator("#waiting")).to_contain_text("you will not see their numbers")
        _shot(ann, "audit-count.png")
        _enter(bo, dict(good, **{first: good[first] + 1}))
        expect(bo.locator("#outcome")).to_contain_text("differ on")
        ann.reload()
        expect(ann.locator("#outcome")).to_contain_text("Count the pile again")
        _enter(ann, good)
        _enter(bo, good)
        expect(bo.locator("#outcome")).to_contain_text("attempt 2 match")
        bea = _login(browser, base, "bea", lands="/queue")
        expect(bea.locator("h1")).to_contain_text(race)
        expect(bea.locator("#comparison")).to_contain_text("100.0 % explained")
        _shot(bea, "audit-board.png")
        browser.close()
