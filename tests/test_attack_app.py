"""Red-team attacks on the review app that used to work, each performed here and now refused.

tests/test_review_web_security.py covers anonymous requests, CSRF, roles, images
and headers; these are what a signed-in reviewer could still do.
"""

from __future__ import annotations

from test_adjudicate_support import (  # noqa: F401
    WRITE_IN,
    Browser,
    app,
    env,
    fast_passwords,
    machine_entry,
    password,
    team,
    template_store,
)

from tabulate.adjudicate import decisions, queue, recording
from tabulate.core.text import visible_text

RLO, ZWSP, BEL = "\u202e", "\u200b", "\x07"


def _team_at_one_screen(app) -> Browser:
    br = Browser(app)
    br.login("alice")
    br.submit(br.get("/queue").text, "/team/join", {"name": "bob", "password": password("bob")})
    return br


def _decide_write_in(br: Browser, name: str, note: str = "") -> None:
    for _ in range(2):  # alice's entry, then bob's, at the one screen
        page = br.get(f"/ballot/{WRITE_IN}")
        preview = br.submit(page.text, "/preview", {"wn|president|write-in-1": name, "note": note})
        assert preview.status_code == 200, preview.text
        br.submit(preview.text, "/record", {"wo|president|write-in-1": "not_counted"})


def test_a_write_in_name_with_a_bidi_override_is_stored_as_it_was_seen(env, app):
    """A right-to-left override shows "Al Monroe" to the other party while the store holds another string."""
    br = _team_at_one_screen(app)
    _decide_write_in(br, f"{RLO}eornoM lA{ZWSP}{BEL}", note=f"read{ZWSP} by {RLO}both")
    (d,) = decisions.decisions(env.conn)
    (reading,) = d.entry.write_ins
    assert reading.name == "eornoM lA"  # what a screen showed, without the override
    assert d.entry.note == "alice (REP): read by both; bob (DEM): read by both"


def test_invisible_characters_stored_outside_the_app_are_not_shown(env, app):
    """A note written by another path (the library, an old version) still reaches the board's screen clean."""
    t = team(env, "alice", "bob")
    entry = machine_entry(env, WRITE_IN, write_ins=[("president", "write-in-1", "Hale", "not_counted")])
    entry = type(entry)(**{**entry.__dict__, "note": f"see {RLO}elaH"})
    queue.sync(env.conn, env.source)
    for who in ("alice", "bob"):
        recording.record_entry(env.conn, env.source, t, env.users[who], entry)
    board = Browser(app)
    board.login("board1")
    page = board.get(f"/ballot/{WRITE_IN}/decided")
    assert page.status_code == 200 and "see elaH" in page.text and RLO not in page.text


def test_visible_text_keeps_letters_of_every_script_and_line_breaks():
    assert visible_text("José Ñúñez\nO'Brien") == "José Ñúñez\nO'Brien"
    assert visible_text("Jose\u0301") == "José"  # composed: one name, one spelling
    assert visible_text(f"{RLO}a{ZWSP}b\x00c\ufeff") == "abc"


def test_a_reviewer_cannot_read_another_teams_decision(env, app):
    """Ballot ids are small numbers: carol, in no team that saw ballot 2, counted up to it."""
    br = _team_at_one_screen(app)
    _decide_write_in(br, "Hale", note="the voter wrote Hale")
    carol = Browser(app)
    carol.login("carol")
    page = carol.get(f"/ballot/{WRITE_IN}/decided")
    assert page.status_code == 403 and "the voter wrote Hale" not in page.text
    own = br.get(f"/ballot/{WRITE_IN}/decided")
    assert own.status_code == 200 and "the voter wrote Hale" in own.text
    board = Browser(app)
    board.login("board1")
    assert "the voter wrote Hale" in board.get(f"/ballot/{WRITE_IN}/decided").text


def _attacker_sql(env, sql: str, *args) -> None:
    """Someone holding the store file writes the accounts table directly (no trigger guards it)."""
    from tabulate.adjudicate.schema import transaction

    with transaction(env.conn):
        env.conn.execute(sql, args)


def test_an_account_promoted_to_the_board_in_the_store_file_cannot_sign_in(env, app, capsys):
    """alice (a reviewer) made herself a board member with sqlite3, to reopen and re-decide ballots."""
    from tabulate.cli import main

    _attacker_sql(env, "UPDATE adj_users SET role = 'board' WHERE name = 'alice'")
    br = Browser(app)
    page = br.login("alice")
    assert page.status_code == 401 and "changed outside tabulate" in page.text
    assert "tabulate_session" not in br.client.cookies
    assert main(["verify", "--db", str(env.db)]) == 1
    user_id = env.users["alice"].id
    assert f"user {user_id} (alice) does not match journal entry" in capsys.readouterr().err


def test_a_board_account_added_in_the_store_file_cannot_sign_in(env, app, capsys):
    """A forged account with a password hash the attacker knows (copied from their own account)."""
    from tabulate.cli import main

    _attacker_sql(
        env,
        "INSERT INTO adj_users (name, role, party, password_hash, created_at) "
        "SELECT 'mallory', 'board', 'REP', password_hash, created_at FROM adj_users WHERE name = 'alice'",
    )
    page = Browser(app).login("mallory", password("alice"))
    assert page.status_code == 401 and "not in the journal" in page.text
    assert main(["verify", "--db", str(env.db)]) == 1
    assert "(mallory) is not in the journal" in capsys.readouterr().err


def test_a_disabled_and_re_enabled_account_still_signs_in(env, app):
    """Every change tabulate makes to an account is sealed again, so a legitimate change is not refused."""
    from tabulate.adjudicate import users

    users.set_disabled(env.conn, "bob", True, actor="admin")
    users.set_disabled(env.conn, "bob", False, actor="admin")
    assert Browser(app).login("bob").url.path == "/queue"


def test_accounts_made_before_accounts_were_sealed_are_sealed_once_on_upgrade(env, app):
    """Trust on first use, as for a store upgraded to the journal: the upgrade seals the accounts as they are."""
    from tabulate.adjudicate import schema

    _attacker_sql(
        env,
        "INSERT INTO adj_users (name, role, party, password_hash, created_at) "
        "SELECT 'olduser', 'reviewer', 'IND', password_hash, created_at FROM adj_users WHERE name = 'alice'",
    )
    _attacker_sql(env, "UPDATE adj_meta SET value = '2' WHERE key = 'schema_version'")  # as an older tabulate left it
    schema.migrate(env.conn)
    assert Browser(app).login("olduser", password("alice")).url.path == "/queue"


def test_an_account_promoted_while_signed_in_loses_its_session_not_gains_the_role(env, app):
    """alice signs in as a reviewer, then writes role = 'board' into the store file and reloads."""
    br = Browser(app)
    assert br.login("alice").url.path == "/queue"
    _attacker_sql(env, "UPDATE adj_users SET role = 'board' WHERE name = 'alice'")
    board = br.get("/board", follow_redirects=False)
    assert board.status_code == 303 and board.headers["location"].startswith("/login")


def _sweep(app, who: str, params: dict) -> list[tuple]:
    """Every route, as ``who``, with ids the store does not hold: each answers a page, never a server error."""
    import re

    from starlette.routing import Route

    from tabulate.adjudicate.web.app import ROUTES

    br = Browser(app)
    br.login(who)
    csrf = re.search(r'name="csrf" value="([^"]+)"', br.get("/audit" if who == "audrey" else "/progress").text)[1]
    failed = []
    for r in ROUTES:
        if not isinstance(r, Route) or r.path in ("/login", "/logout"):
            continue
        path = re.sub(r"\{(\w+)(:\w+)?\}", lambda m: params[m.group(1)], r.path)
        for method in sorted(r.methods - {"HEAD"}):
            try:
                if method == "GET":
                    status = br.get(path + "?page=-1&by=x&ballot=%ff&again=1", follow_redirects=False).status_code
                else:
                    form = {
                        "csrf": csrf,
                        "round": "x",
                        "member": "z",
                        "attempts": "1",
                        "kind": "annotation",
                        "text": "t",
                    }
                    status = br.post(path, form, follow_redirects=False).status_code
            except Exception as e:  # the test client re-raises what the server would answer with a 500
                status = type(e).__name__
            if not isinstance(status, int) or status >= 500:
                failed.append((method, path, status))
    return failed


MISSING = {
    "sheet_id": "999999",
    "side": "9",
    "contest_id": "x",
    "option_id": "y",
    "area": "marking",
    "name": "nobody",
    "audit_id": "99",
    "key": "zz",
}


def test_ids_the_store_does_not_hold_get_a_page_not_a_server_error(env, app):
    """Were 500s: a board member setting aside sheet 999999, a counter entering a tally for audit 99."""
    from tabulate.adjudicate import users

    users.add_user(env.conn, "audrey", "auditor", password("audrey"), party="REP", actor="test")
    assert _sweep(app, "board1", MISSING) == []
    assert _sweep(app, "audrey", MISSING) == []
