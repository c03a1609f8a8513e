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

from tabulate.adjudicate import decisions, queue
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
        decisions.record_entry(env.conn, env.source, t, env.users[who], entry)
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
