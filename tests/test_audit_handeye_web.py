"""The hand-to-eye audit pages of the review app: counters enter apart, the board compares and signs."""

from __future__ import annotations

import re

import pytest
from test_adjudicate_support import Browser, fast_passwords, password  # noqa: F401
from test_audit_handeye_support import hand_tally, truth_store, truth_template  # noqa: F401

from tabulate.adjudicate import schema, users
from tabulate.audit.handeye import migrate, start_audit
from tabulate.store import open_store

RACE = "us-senate"
PEOPLE = (("ann", "auditor", "REP"), ("bo", "auditor", "DEM"), ("cy", "auditor", "REP"), ("bea", "board", "DEM"))


@pytest.fixture
def app(truth_store, fast_passwords):
    from tabulate.adjudicate.web.app import create_app

    conn = schema.connect(truth_store)
    schema.migrate(conn)
    migrate(conn)
    for name, role, party in PEOPLE:
        users.add_user(conn, name, role, password(name), party=party, actor="test")
    store = open_store(truth_store, create=False)
    start_audit(store, conn, actor="test", tabulator="1", contest_id=RACE)
    store.close()
    conn.close()
    return create_app(truth_store)


def _enter(br: Browser, counts: dict[str, int]):
    page = br.get("/audit/1")
    return br.submit(page.text, "/audit/1/tally", {f"c|{k}": str(v) for k, v in counts.items()})


def test_an_auditor_needs_a_party():
    with pytest.raises(users.UserError, match="auditor needs --party"):
        conn = schema.connect(":memory:")
        schema.migrate(conn)
        users.add_user(conn, "dee", "auditor", password("dee"))


def test_counters_enter_apart_a_mismatch_shows_where_and_both_enter_again(app):
    good = hand_tally(RACE)
    off = dict(good, **{"sen-caldwell": good["sen-caldwell"] + 1})
    ann, bo, cy, bea = Browser(app), Browser(app), Browser(app), Browser(app)
    assert ann.login("ann").url.path == "/audit"
    assert "/audit/1" in ann.get("/audit").text
    waiting = _enter(ann, good)
    assert "Waiting for the other counter" in waiting.text and 'name="c|' not in waiting.text
    cy.login("cy")
    refused = _enter(cy, good)
    assert "must not be of the same political party" in refused.text
    bo.login("bo")
    page = bo.get("/audit/1")
    assert 'name="c|sen-caldwell"' in page.text
    assert re.search(r'name="c\|[^"]+"[^>]*value=', page.text) is None  # ann's numbers are nowhere on bo's page
    differ = _enter(bo, off)
    assert "differ on: Robert Caldwell" in differ.text and "Attempt 2" in differ.text
    assert "differ on: Robert Caldwell" in ann.get("/audit/1").text  # ann sees where, not the numbers
    _enter(ann, good)
    done = _enter(bo, good)
    assert "The two tallies of attempt 2 match" in done.text
    assert ann.get("/reviewer-pages-are-not-for-auditors").status_code == 404
    assert ann.get("/queue").status_code == 403

    bea.login("bea")
    board = bea.get("/audit/1")
    assert "Attempt 1: differ" in board.text and "Attempt 2: match" in board.text
    assert "0 unexplained (100.0 % explained" in board.text
    bea.submit(board.text, "/audit/1/finding", {"kind": "determination", "text": "All differences explained."})
    page = bea.get("/audit/1")
    f = [x for x in _forms(page.text) if x["fields"].get("kind") == "signature"][0]
    signed = bea.post(f["action"], f["fields"])
    assert "Signed by bea (DEM)" in signed.text and "All differences explained." in signed.text
    assert 'value="annotation"' in signed.text and 'value="determination"' not in signed.text
    late = bea.post("/audit/1/finding", {"csrf": f["fields"]["csrf"], "kind": "determination", "text": "late"})
    assert late.status_code == 400 and "only annotated" in late.text
    assert (
        ann.post("/audit/1/finding", {"csrf": ann.csrf("/audit/1"), "kind": "annotation", "text": "x"}).status_code
        == 403
    )


def _forms(html: str) -> list[dict]:
    out = []
    for m in re.finditer(r'<form method="post" action="([^"]+)">(.*?)</form>', html, re.S):
        fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', m.group(2)))
        out.append({"action": m.group(1), "fields": fields})
    return out


def test_the_board_sees_the_race_on_a_listed_ballot_and_nothing_else(tmp_path, fast_passwords):
    """A store of real scans (the demo's sample): the image of the audited race on a ballot the audit lists."""
    from tabulate.adjudicate.web.app import create_app
    from tabulate.commands.review_sample import build_sample_store

    db = tmp_path / "s.db"
    build_sample_store(db, tmp_path / "images").close()
    conn = schema.connect(db)
    schema.migrate(conn)
    migrate(conn)
    users.add_user(conn, "bea", "board", password("bea"), party="DEM", actor="test")
    users.add_user(conn, "ann", "auditor", password("ann"), party="REP", actor="test")
    store = open_store(db, create=False)
    start_audit(store, conn, actor="test", tabulator="1", contest_id="state-senate-7")  # sheet 5: X beside a name
    store.close()
    conn.close()
    app = create_app(db)
    bea, ann = Browser(app), Browser(app)
    bea.login("bea")
    page = bea.get("/audit/1")
    assert "/audit/1/ballot/5.png" in page.text
    image = bea.get("/audit/1/ballot/5.png")
    assert image.status_code == 200 and image.headers["content-type"] == "image/png" and image.content[:4] == b"\x89PNG"
    assert bea.get("/audit/1/ballot/8.png").status_code == 404  # a clean ballot the audit does not list
    ann.login("ann")
    assert ann.get("/audit/1/ballot/5.png").status_code == 403
