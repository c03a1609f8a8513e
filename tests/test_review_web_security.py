"""The review app refuses what it must: anonymous requests, forms without their CSRF token, the wrong role."""

from __future__ import annotations

import re
import sqlite3

import pytest
from starlette.routing import Route
from test_adjudicate_support import MARGINAL, Browser, app, env, fast_passwords, form, password, template_store  # noqa: F401

from tabulate.adjudicate import auditlog, images, queue, users
from tabulate.adjudicate.web.app import ROUTES

SAMPLE_PARAMS = {
    "sheet_id": MARGINAL,
    "side": "1",
    "contest_id": "us-senate",
    "option_id": "sen-brennan",
    "area": "marking",
    "name": "bob",
    "audit_id": "1",
    "key": "ours",
}


def _routes(method):
    for r in ROUTES:
        if isinstance(r, Route) and method in r.methods and r.path != "/login":
            yield re.sub(r"\{(\w+)(:\w+)?\}", lambda m: SAMPLE_PARAMS[m.group(1)], r.path)


@pytest.mark.parametrize("path", list(_routes("GET")))
def test_every_page_refuses_an_anonymous_request(app, path):
    r = Browser(app).get(path, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/login?next=")


@pytest.mark.parametrize("path", list(_routes("POST")))
def test_every_form_refuses_an_anonymous_post(app, path):
    r = Browser(app).post(path, {"csrf": "anything"}, follow_redirects=False)
    assert r.status_code == 401


def _allowed_user(path, env=None):
    """Someone whose role may use the form, so only the token is missing."""
    if path.endswith("/tally") and env is not None:  # a hand-to-eye counter (role auditor)
        users.add_user(env.conn, "audrey", "auditor", password("audrey"), party="REP", actor="test")
        return "audrey"
    return "alice" if path.startswith("/team/") else "admin" if path.startswith("/admin/") else "board1"


@pytest.mark.parametrize("path", list(_routes("POST")))
def test_a_form_without_its_csrf_token_is_refused(env, app, path):
    br = Browser(app)
    br.login(_allowed_user(path, env))
    without = br.post(path, {"reason": "x", "name": "bob"}, follow_redirects=False)
    forged = br.post(path, {"csrf": "forged", "reason": "x", "name": "bob"}, follow_redirects=False)
    assert without.status_code == 403 and forged.status_code == 403
    assert "CSRF" in without.text


def test_every_form_on_every_page_carries_the_csrf_token(env, app):
    br = Browser(app)
    br.login("alice")
    page = br.submit(br.get("/queue").text, "/team/join", {"name": "bob", "password": password("bob")})
    review = br.get(f"/ballot/{MARGINAL}")
    for html in (page.text, review.text):
        for f in re.findall(r"<form[^>]*method=\"post\"[^>]*>.*?</form>", html, re.S):
            assert 'name="csrf"' in f


def test_the_login_form_needs_its_own_token(env, app):
    br = Browser(app)
    r = br.post("/login", {"name": "alice", "password": password("alice"), "csrf": "made-up"})
    assert r.status_code == 403 and "tabulate_session" not in br.client.cookies


@pytest.mark.parametrize(
    "who, path",
    [
        ("alice", "/admin/users"),
        ("alice", "/admin/log"),
        ("alice", "/board"),
        ("alice", "/decisions"),
        ("alice", "/decisions.csv"),
        ("oscar", "/queue"),
        ("oscar", f"/img/{MARGINAL}/1.png"),
        ("oscar", "/board"),
        ("admin", "/queue"),
        ("admin", f"/ballot/{MARGINAL}"),
        ("board1", "/admin/users"),
        ("board1", "/admin/log"),
        # Explaining a ballot (its images included) is for the board and the administrator (issue 16).
        ("alice", f"/ballot/{MARGINAL}/explain"),
        ("alice", "/explain"),
        ("oscar", f"/ballot/{MARGINAL}/explain"),
    ],
)
def test_each_role_sees_only_what_it_may(env, app, who, path):
    br = Browser(app)
    br.login(who)
    assert br.get(path).status_code == 403


def test_a_reviewer_cannot_use_admin_or_board_forms(env, app):
    br = Browser(app)
    br.login("alice")
    csrf = br.csrf()
    assert br.post("/admin/users/bob/disable", {"csrf": csrf}).status_code == 403
    assert br.post("/board/hand-entry/7", {"csrf": csrf, "attempts": "1"}).status_code == 403
    assert users.find_user(env.conn, "bob").disabled is False


def test_images_are_only_for_the_team_holding_the_ballot_and_the_board(env, app):
    alice = Browser(app)
    alice.login("alice")
    alice.submit(alice.get("/queue").text, "/team/join", {"name": "bob", "password": password("bob")})
    url = f"/img/{MARGINAL}/1.png"
    assert alice.get(url).status_code == 403  # not leased yet
    alice.get(f"/ballot/{MARGINAL}")
    ok = alice.get(url)
    assert ok.status_code == 200 and ok.headers["content-type"] == "image/png" and ok.content[:4] == b"\x89PNG"
    carol = Browser(app)
    carol.login("carol")
    assert carol.get(url).status_code == 403
    board = Browser(app)
    board.login("board1")
    assert board.get(url).status_code == 200
    assert board.get(f"/img/{MARGINAL}/3.png").status_code == 404
    assert board.get("/img/999/1.png").status_code == 404  # the board may explain any sheet: none is 999
    assert board.get(f"/img/{MARGINAL}/1/contest/no-such-contest.png").status_code == 404
    assert board.get(f"/img/{MARGINAL}/1/area/us-senate/sen-brennan/secret.png").status_code == 404
    assert board.get(f"/img/{MARGINAL}/1/contest/..%2F..%2F..%2Fetc%2Fpasswd.png").status_code == 404


def test_an_image_file_changed_since_scanning_is_not_shown(env, app):
    images._cache.items.clear()  # decoded pages are cached by digest once verified
    path = env.store.sheet(int(MARGINAL)).pages[0].source
    with open(path, "ab") as f:
        f.write(b"tampered")
    board = Browser(app)
    board.login("board1")
    r = board.get(f"/img/{MARGINAL}/1.png")
    assert r.status_code == 410 and "changed since it was scanned" in r.text


def test_cookies_are_httponly_and_samesite_strict_and_pages_carry_protective_headers(env, app):
    br = Browser(app)
    login = br.get("/login")
    assert "HttpOnly" in login.headers["set-cookie"] and "SameSite=strict" in login.headers["set-cookie"].replace(
        "Strict", "strict"
    )
    csrf = form(login.text, "/login")["fields"]["csrf"]
    r = br.post("/login", {"name": "alice", "password": password("alice"), "csrf": csrf}, follow_redirects=False)
    cookie = r.headers["set-cookie"]
    assert "tabulate_session=" in cookie and "HttpOnly" in cookie and "samesite=strict" in cookie.lower()
    page = br.get("/queue")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "unsafe-inline" not in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff" and page.headers["cache-control"] == "no-store"


def test_an_unknown_host_header_is_refused(env, app):
    from starlette.testclient import TestClient

    assert TestClient(app, base_url="http://evil.example").get("/login").status_code == 400


def test_repeated_failed_logins_throttle_the_client_and_are_logged(env, app):
    br = Browser(app)
    for _ in range(users.FREE_FAILURES + 1):
        assert br.login("alice", "not the password").status_code == 401
    r = br.login("alice")
    assert r.status_code == 401 and "too many failed sign-ins from this address" in r.text
    assert [e.action for e in auditlog.entries(env.conn, action="throttled")] == ["throttled"]
    logins = [e for e in auditlog.entries(env.conn) if e.action in ("login", "login_failed")]
    assert len(logins) == users.FREE_FAILURES + 1 and all(e.action == "login_failed" for e in logins)
    # The account is not locked: from another address alice signs in.
    assert users.authenticate(env.conn, "alice", password("alice"), where="10.0.0.7").name == "alice"


def test_a_signed_out_session_is_dead(env, app):
    br = Browser(app)
    br.login("alice")
    token = br.client.cookies.get("tabulate_session")
    br.post("/logout", {"csrf": br.csrf()})
    other = Browser(app)
    other.client.cookies.set("tabulate_session", token)
    assert other.get("/queue", follow_redirects=False).status_code == 303


def test_a_tampered_log_row_shows_on_the_admin_page(env, app):
    queue.sync(env.conn, env.source)
    raw = sqlite3.connect(env.db)
    raw.execute("DROP TRIGGER journal_no_update")
    raw.execute("UPDATE journal SET actor = 'mallory' WHERE seq = 3")
    raw.commit()
    raw.close()
    br = Browser(app)
    br.login("admin")
    page = br.get("/admin/log")
    assert "has been tampered with: journal entry 3" in page.text
    assert auditlog.verify(env.conn).first_bad_seq == 3
