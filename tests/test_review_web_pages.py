"""Issue 16 over HTTP: explain pages, the queue's "100 of 201", styled 404/405, pages that look again, references."""

from __future__ import annotations

import csv
import io

from test_adjudicate_support import MARGINAL, OVERVOTE, Browser, app, env, fast_passwords, password, template_store  # noqa: F401

from tabulate.adjudicate import queue
from tabulate.adjudicate.web import views_queue


def _signed_in(app, who):
    br = Browser(app)
    br.login(who)
    return br


def test_the_board_and_the_administrator_explain_any_ballot_flagged_or_not(env, app):
    for who in ("board1", "admin"):
        br = _signed_in(app, who)
        page = br.get("/ballot/9/explain")  # a clean ballot, never flagged
        assert page.status_code == 200
        assert "Never flagged" in page.text and "31 KAR 6:030 §2(1)(a)" in page.text
        assert br.get("/img/9/1.png").status_code == 200  # its images too
        found = br.get("/explain", params={"ballot": "sample·3"}, follow_redirects=False)
        assert found.status_code == 303 and found.headers["location"] == "/ballot/3/explain"
        missing = br.get("/explain", params={"ballot": "sample·99"})
        assert missing.status_code == 404 and "no sheet at position 99 of batch" in missing.text


def test_the_queue_says_how_many_of_how_many_it_shows_and_pages_through(env, app, monkeypatch):
    queue.sync(env.conn, env.source)
    monkeypatch.setattr(views_queue, "PAGE_ROWS", 4)
    br = _signed_in(app, "alice")
    first = br.get("/queue").text
    assert "Ballots 1–4 of 6" in first and "page=2" in first
    second = br.get("/queue", params={"page": "2"}).text
    assert "Ballots 5–6 of 6" in second and "Page 2 of 2" in second
    rows = second.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert rows.count("<tr>") == 2 and "sample · " in rows


def test_an_unknown_page_and_a_get_on_a_form_address_are_pages_of_the_app(env, app):
    br = _signed_in(app, "alice")
    missing = br.get("/no-such-page")
    assert (
        missing.status_code == 404
        and "<h1>Not found</h1>" in missing.text
        and 'href="/static/review.css"' in missing.text
    )
    wrong = br.get("/queue/next")
    assert wrong.status_code == 405 and "Not a page to visit" in wrong.text and "use the button" in wrong.text
    assert "Method Not Allowed" not in wrong.text


def test_pages_that_wait_for_someone_else_look_again_by_themselves(env, app):
    br = _signed_in(app, "alice")
    assert 'data-poll="5"' in br.get("/queue").text  # no team yet: invitations appear without a reload
    partner = br.get("/queue").text
    from test_adjudicate_support import form

    br.post("/team/join", {**form(partner, "/team/join")["fields"], "name": "bob", "password": password("bob")})
    assert "data-poll" not in br.get("/queue").text.split("</section>", 2)[1]  # a team: the team card stops


def test_times_are_local_to_the_second_and_the_decisions_csv_names_the_ballot_by_reference(env, app):
    from test_review_web import _enter, _team_at_one_screen

    br = _team_at_one_screen(app)
    for _ in range(2):
        _enter(br, br.get(f"/ballot/{MARGINAL}"), {"m|us-senate|sen-brennan": "1"})
    board = _signed_in(app, "board1")
    page = board.get("/decisions").text
    assert "sample · 1" in page and "<time datetime=" in page and "+00:00</time>" not in page
    rows = list(csv.DictReader(io.StringIO(board.get("/decisions.csv").text)))
    assert [r["reference"] for r in rows] == ["sample · 1"]
