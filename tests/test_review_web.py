"""The review web app through its HTTP API (Starlette TestClient): teams, the board, write-ins, reopening."""

from __future__ import annotations

from test_adjudicate_support import (  # noqa: F401
    DAMAGED,
    MARGINAL,
    WRITE_IN,
    Browser,
    app,
    env,
    fast_passwords,
    form,
    password,
    template_store,
)

from tabulate.adjudicate import auditlog, decisions, queue, recording


def _team_at_one_screen(app):
    br = Browser(app)
    br.login("alice")
    joined = br.submit(br.get("/queue").text, "/team/join", {"name": "bob", "password": password("bob")})
    assert "Team formed at this screen: alice (REP) &amp; bob (DEM)" in joined.text
    return br


def _enter(br, page, changes):
    preview = br.submit(page.text, "/preview", changes)
    assert preview.status_code == 200, preview.text
    return preview, br.submit(preview.text, "/record")


def test_the_queue_page_shows_counts_by_reason_and_progress(env, app):
    br = Browser(app)
    page = br.login("alice")
    assert page.url.path == "/queue"
    assert "0 of 6 decided" in page.text
    for label in ("Overvote", "Write-in", "Marginal mark", "Scanner and hand reading differ"):
        assert label in page.text
    only = br.get("/queue?reason=marginal_mark")
    assert only.text.count("<tr>\n      <td>") == 1


def test_a_team_at_one_screen_decides_a_marginal_mark_each_entering_in_turn(env, app):
    br = _team_at_one_screen(app)
    page = br.submit(br.get("/queue").text, "/queue/next", {"reason": "marginal_mark"})
    assert page.url.path == f"/ballot/{MARGINAL}"
    assert "Entry by <strong>alice (REP)</strong>" in page.text
    assert "the target for Maria Brennan is lightly or partly marked (fill score 0.14" in page.text
    assert f'src="/img/{MARGINAL}/1/contest/us-senate.png"' in page.text
    missing = br.submit(page.text, "/preview")
    assert missing.status_code == 400 and "decide whether Maria Brennan is marked" in missing.text
    preview, done = _enter(br, page, {"m|us-senate|sen-brennan": "1", "note": "pencil fill, clearly meant"})
    assert "Maria Brennan" in preview.text and "31 KAR 6:030 §2(1)(a)" in preview.text
    assert "Now <strong>bob (DEM)</strong> enters this ballot" in done.text
    page = br.get(f"/ballot/{MARGINAL}")
    assert "Entry by <strong>bob (DEM)</strong>" in page.text
    assert "m|us-senate|sen-brennan" not in form(page.text, "/preview")["fields"]  # alice's entry is not shown
    _, done = _enter(br, page, {"m|us-senate|sen-brennan": "1"})
    assert f"Ballot {MARGINAL} is decided" in done.text
    (d,) = decisions.decisions(env.conn)
    assert d.members == ("alice (REP)", "bob (DEM)") and d.entry.note == "alice (REP): pencil fill, clearly meant"
    entries = list(auditlog.entries(env.conn, sheet_id=MARGINAL, action="entry"))
    assert [e.actor for e in entries] == ["alice", "bob"] and all(e.detail["shared_screen"] for e in entries)
    assert env.store.sheet(int(MARGINAL)).modified["us-senate"].selections == ("sen-brennan",)


def test_two_screens_disagree_and_the_board_decides_by_majority(env, app):
    alice, bob = Browser(app), Browser(app)
    alice.login("alice")
    bob.login("bob")
    alice.submit(alice.get("/queue").text, "/team/invite")
    accepted = bob.submit(bob.get("/queue").text, "/team/accept")
    assert "Team formed: alice (REP) &amp; bob (DEM)" in accepted.text
    a_page = alice.submit(alice.get("/queue").text, "/queue/next", {"reason": "marginal_mark"})
    b_page = bob.submit(bob.get("/queue").text, "/queue/next")
    assert a_page.url.path == b_page.url.path == f"/ballot/{MARGINAL}"  # one lease, the whole team
    _, done = _enter(alice, a_page, {"m|us-senate|sen-brennan": "1"})
    assert "decided when the other entry" in done.text
    _, done = _enter(bob, b_page, {"m|us-senate|sen-brennan": "0"})
    assert "goes to the county board" in done.text
    assert queue.queue_row(env.conn, MARGINAL).state == "board"
    boards = [Browser(app) for _ in range(2)]
    for br, name in zip(boards, ("board1", "board2")):
        q = br.login(name)
        assert "Ballots for the county board" in q.text and f"<td>{MARGINAL}</td>" in q.text
        page = br.submit(q.text, "/queue/next")
        _, done = _enter(br, page, {"m|us-senate|sen-brennan": "1", "note": "a pencil fill, if light"})
    assert f"Ballot {MARGINAL} is decided" in done.text
    (d,) = decisions.decisions(env.conn)
    assert d.decided_by == "board" and d.members == ("board1 (REP)", "board2 (DEM)")
    decided = boards[0].get(f"/ballot/{MARGINAL}/decided")
    assert "Before (scanner)" in decided.text and "Reopen" in decided.text


def test_a_write_in_is_read_resolved_with_its_clause_and_confirmed(env, app):
    br = _team_at_one_screen(app)
    page = br.get(f"/ballot/{WRITE_IN}")
    assert 'alt="Write-in area as scanned"' in page.text
    preview = br.submit(page.text, "/preview", {"wn|president|write-in-1": "Al Monroe"})
    assert "Proposed: <strong>a vote for Alan Monroe</strong> (31 KAR 6:030 §4(9))" in preview.text
    assert "write-in for Alan Monroe" in preview.text
    assert form(preview.text, "/record")["fields"]["wo|president|write-in-1"] == "pres-wi-monroe"
    br.submit(preview.text, "/record")
    page = br.get(f"/ballot/{WRITE_IN}")
    preview = br.submit(page.text, "/preview", {"wn|president|write-in-1": "al monroe"})
    done = br.submit(preview.text, "/record")
    assert f"Ballot {WRITE_IN} is decided" in done.text
    (d,) = decisions.decisions(env.conn)
    assert d.write_ins == {"president/write-in-1": "pres-wi-monroe"}


def test_a_write_in_without_a_confirmed_outcome_is_not_recorded(env, app):
    br = _team_at_one_screen(app)
    page = br.get(f"/ballot/{WRITE_IN}")
    preview = br.submit(page.text, "/preview", {"wn|president|write-in-1": "Al Monroe"})
    refused = br.submit(preview.text, "/record", {"wo|president|write-in-1": ""})
    assert refused.status_code == 400 and "confirm whose vote the write-in is" in refused.text
    assert recording.entered_by(env.conn, WRITE_IN, 1, queue_panel(env)) == set()


def queue_panel(env):
    from tabulate.adjudicate import panels

    return panels.panel_for(env.conn, env.users["alice"])


def test_only_a_board_member_reopens_and_the_ballot_returns_to_the_board(env, app):
    br = _team_at_one_screen(app)
    for _ in range(2):
        page = br.get(f"/ballot/{MARGINAL}")
        _enter(br, page, {"m|us-senate|sen-brennan": "0"})
    assert queue.queue_row(env.conn, MARGINAL).state == "decided"
    refused = br.post(f"/ballot/{MARGINAL}/reopen", {"csrf": br.csrf(), "reason": "I changed my mind"})
    assert refused.status_code == 403
    board = Browser(app)
    board.login("board1")
    page = board.get(f"/ballot/{MARGINAL}/decided")
    done = board.submit(page.text, "/reopen", {"reason": "the paper shows a clear pencil fill"})
    assert "reopened for the board (round 2)" in done.text
    row = queue.queue_row(env.conn, MARGINAL)
    assert (row.state, row.round) == ("board", 2)
    (old,) = decisions.decisions(env.conn)
    assert old.reopen_reason == "the paper shows a clear pencil fill"


def test_a_damaged_ballot_is_set_aside_by_the_board_and_entered_by_hand(env, app):
    board = Browser(app)
    board.login("board1")
    page = board.get("/board")
    assert "style code (QR symbol) could not be read" in page.text
    refused = board.submit(page.text, f"/board/hand-entry/{DAMAGED}", drop=["attempts"])
    assert refused.status_code == 400
    board.submit(page.text, f"/board/hand-entry/{DAMAGED}", {"attempts": "1"})
    br = _team_at_one_screen(app)
    page = br.get(f"/ballot/{DAMAGED}")
    assert "Entered by hand from the paper" in page.text
    page = br.get(f"/ballot/{DAMAGED}?style=1")
    for _ in range(2):
        preview, done = _enter(br, page, {"precinct": "A101", "m|president|pres-okafor": "1"})
        page = br.get(f"/ballot/{DAMAGED}?style=1")
    (d,) = decisions.decisions(env.conn)
    assert d.entry.manual and d.entry.precinct_id == "A101"
    assert [c for c in d.after["contests"] if c["contest_id"] == "president"][0]["selections"] == ["pres-okafor"]


def test_exporting_the_decisions_is_logged(env, app):
    br = _team_at_one_screen(app)
    for _ in range(2):
        _enter(br, br.get(f"/ballot/{MARGINAL}"), {"m|us-senate|sen-brennan": "1"})
    board = Browser(app)
    board.login("board1")
    csv_text = board.get("/decisions.csv")
    assert csv_text.headers["content-type"].startswith("text/csv")
    assert "alice (REP) & bob (DEM)" in csv_text.text and "us-senate" in csv_text.text
    (export,) = auditlog.entries(env.conn, action="export")
    assert export.actor == "board1" and export.detail["rows"] == 1
