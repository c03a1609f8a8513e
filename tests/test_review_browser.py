"""The review app in a real browser (headless Chromium driven by Playwright), against a live server.

Skipped, saying why, when Debian's ``chromium`` (/usr/bin/chromium) or the
``playwright`` Python package is missing. Playwright's own browser download
is never used. Set ``TABULATE_SCREENSHOTS=DIR`` to save the queue and review
pages as PNGs (the screenshots in docs/adjudication.md are made this way).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
from test_adjudicate_support import Env, password, template_store  # noqa: F401

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        sync_playwright is None,
        reason="the playwright Python package is not installed (pip install playwright; no browser download needed)",
    ),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no Chromium at /usr/bin/chromium (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def server(template_store, tmp_path_factory):
    import uvicorn
    from argon2 import PasswordHasher

    from tabulate.adjudicate import users
    from tabulate.adjudicate.web.app import create_app

    db = tmp_path_factory.mktemp("browser") / "store.db"
    shutil.copy(template_store, db)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(users, "_hasher", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
        env = Env(db, create_users=False)
        app = create_app(db)
        # The server gets the socket already bound: no window in which another process could take the port.
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 120  # a hang guard only: the wait ends as soon as the server is up
        while not srv.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the review server did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", env
        srv.should_exit = True
        thread.join(timeout=60)
        sock.close()
        env.close()


@pytest.fixture(scope="module")
def chromium():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield browser
        browser.close()


def _page(chromium):
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    return context.new_page()


def _login(page, base, name):
    page.goto(base + "/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", password(name))
    page.click("button[type=submit]")


def _shot(page, name):
    where = os.environ.get("TABULATE_SCREENSHOTS")
    if where:
        page.screenshot(path=str(Path(where) / name), full_page=True)


def test_sign_in_lands_on_the_queue_and_a_wrong_password_does_not(server, chromium):
    base, _ = server
    page = _page(chromium)
    page.goto(base + "/queue")
    expect(page).to_have_url(f"{base}/login?next=/queue")
    page.fill("input[name=name]", "erin")
    page.fill("input[name=password]", "wrong password!")
    page.click("button[type=submit]")
    expect(page.locator("[role=alert]")).to_contain_text("wrong name or password")
    page.fill("input[name=name]", "erin")
    page.fill("input[name=password]", password("erin"))
    page.click("button[type=submit]")
    expect(page).to_have_url(base + "/queue")
    expect(page.locator(".progress")).to_contain_text("of 6 decided")
    page.context.close()


def test_a_team_at_one_screen_decides_a_marginal_mark_with_the_keyboard(server, chromium):
    base, env = server
    page = _page(chromium)
    _login(page, base, "alice")
    page.fill("form[action='/team/join'] input[name=name]", "bob")
    page.fill("form[action='/team/join'] input[name=password]", password("bob"))
    page.click("form[action='/team/join'] button")
    expect(page.locator(".team-name")).to_have_text("alice (REP) & bob (DEM)")
    _shot(page, "review-queue.png")
    page.select_option("select[name=reason]", "marginal_mark")
    page.click("form.filters button")
    page.wait_for_url("**/queue?reason=marginal_mark**")
    expect(page.locator("table.queue tbody tr")).to_have_count(1)
    page.keyboard.press("s")
    expect(page).to_have_url(base + "/ballot/1")
    expect(page.locator(".reason").first).to_contain_text("lightly or partly marked")
    expect(page.locator("figure.zoom img")).to_have_count(1)
    page.wait_for_load_state("load")  # images included
    assert page.locator("figure.zoom img").evaluate("img => img.naturalWidth") > 100  # the zoom loaded
    assert page.locator(".pages img").first.evaluate("img => img.naturalWidth") > 100
    _shot(page, "review-ballot.png")
    for _member in ("alice", "bob"):
        expect(page.locator("tr.option.undecided")).to_have_count(1)
        page.keyboard.press("v")  # the undecided row has the focus: vote
        page.keyboard.press("Enter")  # continue to the check page
        expect(page.locator("table.result tr.changed")).to_contain_text("Maria Brennan")
        page.keyboard.press("Enter")  # record
        expect(page.locator("h1")).to_contain_text("1")
        if _member == "alice":
            expect(page.locator(".done")).to_contain_text("Now bob (DEM) enters this ballot")
            page.keyboard.press("Enter")
            expect(page.locator(".who")).to_contain_text("Entry by bob (DEM)")
    expect(page.locator(".done h1")).to_have_text("Ballot 1 is decided")
    (d,) = [d for d in _decisions(env) if d.sheet_id == "1"]
    assert d.members == ("alice (REP)", "bob (DEM)")
    page.context.close()


def _decisions(env):
    from tabulate.adjudicate import decisions

    conn, _ = env.connect()
    try:
        return decisions.decisions(conn)
    finally:
        conn.close()


def test_a_write_in_name_is_typed_resolved_and_confirmed(server, chromium):
    base, env = server
    page = _page(chromium)
    _login(page, base, "erin")
    page.fill("form[action='/team/join'] input[name=name]", "dave")
    page.fill("form[action='/team/join'] input[name=password]", password("dave"))
    page.click("form[action='/team/join'] button")
    for _member in ("erin", "dave"):
        page.goto(base + "/ballot/2")
        page.keyboard.press("w")
        page.keyboard.type("Al Monroe")
        page.keyboard.press("Enter")  # submits the form from the name field
        expect(page.locator(".proposal")).to_contain_text("a vote for Alan Monroe")
        expect(page.locator(".proposal")).to_contain_text("31 KAR 6:030 §4(9)")
        expect(page.locator("select[name='wo|president|write-in-1']")).to_have_value("pres-wi-monroe")
        page.keyboard.press("Enter")  # the focused confirmation: record
        page.wait_for_url("**/ballot/2/done**")
    expect(page.locator(".done h1")).to_have_text("Ballot 2 is decided")
    (d,) = [d for d in _decisions(env) if d.sheet_id == "2"]
    assert d.write_ins == {"president/write-in-1": "pres-wi-monroe"}
    page.context.close()


def test_two_reviewers_on_two_screens_who_disagree_send_the_ballot_to_the_board(server, chromium):
    base, env = server
    carol, frank = _page(chromium), _page(chromium)
    _login(carol, base, "carol")
    from tabulate.adjudicate import users as accounts

    conn, _ = env.connect()
    if accounts.find_user(conn, "frank") is None:
        accounts.add_user(conn, "frank", "reviewer", password("frank"), party="DEM")
    conn.close()
    _login(frank, base, "frank")
    carol.reload()
    carol.click("form[action='/team/invite'] button")
    frank.reload()
    frank.click("form[action='/team/accept'] button")
    expect(frank.locator(".team-name")).to_have_text("carol (REP) & frank (DEM)")
    for page, choice in ((carol, "1"), (frank, "0")):
        page.goto(base + "/ballot/5")  # an X beside Adeyemi's name, not in the target
        expect(page.locator(".reason").first).to_contain_text("mark beside the name")
        page.check(f"input[name='m|state-senate-7|ss-adeyemi'][value='{choice}']", force=True)
        page.click("#continue")
        page.click("#confirm")
        page.wait_for_url("**/ballot/5/done**")
    expect(frank.locator(".done h1")).to_have_text("Ballot 5 goes to the county board")
    from tabulate.adjudicate import queue

    conn, _ = env.connect()
    assert queue.queue_row(conn, "5").state == "board"
    conn.close()
    carol.context.close()
    frank.context.close()
