"""Accounts, passwords, throttling, sessions and teams of two reviewers of differing parties (31 KAR 4:220 §7(1))."""

from __future__ import annotations

import pytest
from test_adjudicate_support import fast_passwords  # noqa: F401

from tabulate.adjudicate import auditlog, panels, schema, sessions, users
from tabulate.adjudicate.users import LoginFailed, UserError
from tabulate.cli import main


@pytest.fixture
def conn(tmp_path, fast_passwords):
    c = schema.connect(tmp_path / "u.db")
    schema.migrate(c)
    yield c
    c.close()


def _actions(conn):
    return [e.action for e in auditlog.entries(conn)]


def test_passwords_are_stored_as_argon2id_hashes_never_as_text(conn):
    users.add_user(conn, "alice", "reviewer", "correct horse battery", party="REP")
    stored = conn.execute("SELECT password_hash FROM adj_users").fetchone()[0]
    assert stored.startswith("$argon2id$") and "correct horse" not in stored


def test_a_reviewer_needs_a_party_and_names_are_unique(conn):
    with pytest.raises(UserError, match="party"):
        users.add_user(conn, "alice", "reviewer", "0123456789ab")
    users.add_user(conn, "alice", "reviewer", "0123456789ab", party="REP")
    with pytest.raises(UserError, match="already"):
        users.add_user(conn, "ALICE", "board", "0123456789ab")
    with pytest.raises(UserError, match="characters"):
        users.add_user(conn, "bob", "reviewer", "short", party="DEM")
    with pytest.raises(UserError, match="role"):
        users.add_user(conn, "bob", "superuser", "0123456789ab")


def test_a_wrong_password_or_name_fails_and_is_logged(conn):
    users.add_user(conn, "alice", "reviewer", "0123456789ab", party="REP")
    assert users.authenticate(conn, "alice", "0123456789ab").name == "alice"
    with pytest.raises(LoginFailed, match="wrong name or password"):
        users.authenticate(conn, "alice", "nope nope nope")
    with pytest.raises(LoginFailed, match="wrong name or password"):
        users.authenticate(conn, "nobody", "0123456789ab")
    assert _actions(conn).count("login_failed") == 2


def test_repeated_failures_throttle_the_address_not_the_account(conn):
    """Issue 10: five wrong passwords used to lock the real user out for 15 minutes, from anywhere."""
    users.add_user(conn, "alice", "reviewer", "0123456789ab", party="REP")
    now = [1000.0]
    for _ in range(users.FREE_FAILURES + 1):
        with pytest.raises(LoginFailed, match="wrong name or password"):
            users.authenticate(conn, "alice", "guess guess guess", where="10.6.6.6", clock=lambda: now[0])
    with pytest.raises(LoginFailed, match="too many failed sign-ins from this address"):
        users.authenticate(conn, "alice", "0123456789ab", where="10.6.6.6", clock=lambda: now[0])
    # The real user, at her own desk, is not locked out.
    assert users.authenticate(conn, "alice", "0123456789ab", where="10.0.0.7", clock=lambda: now[0]).name == "alice"
    assert "throttled" in _actions(conn) and "lockout" not in _actions(conn)
    now[0] += users.delay_after(users.FREE_FAILURES + 1)  # the wait is over; the next delay would be longer
    assert users.authenticate(conn, "alice", "0123456789ab", where="10.6.6.6", clock=lambda: now[0]).name == "alice"


def test_the_delays_grow_and_are_capped():
    delays = [users.delay_after(n) for n in range(1, 30)]
    assert delays[: users.FREE_FAILURES] == [0.0] * users.FREE_FAILURES and delays[users.FREE_FAILURES] > 0
    assert all(b >= a for a, b in zip(delays, delays[1:])) and max(delays) == users.MAX_DELAY_S


def test_a_session_token_is_random_and_only_its_hash_is_stored(conn):
    alice = users.add_user(conn, "alice", "reviewer", "0123456789ab", party="REP")
    token, session = sessions.create_session(conn, alice)
    token2, _ = sessions.create_session(conn, alice)
    assert token != token2 and len(token) >= 40
    stored = [r[0] for r in conn.execute("SELECT token_hash FROM adj_sessions")]
    assert token not in stored and session.token_hash in stored
    assert sessions.load_session(conn, token).user.name == "alice"
    assert sessions.load_session(conn, "forged-token") is None
    sessions.end_session(conn, token)
    assert sessions.load_session(conn, token) is None


def test_a_disabled_account_loses_its_sessions(conn):
    alice = users.add_user(conn, "alice", "reviewer", "0123456789ab", party="REP")
    token, _ = sessions.create_session(conn, alice)
    users.set_disabled(conn, "alice", True, actor="admin")
    assert sessions.load_session(conn, token) is None
    with pytest.raises(LoginFailed, match="disabled"):
        users.authenticate(conn, "alice", "0123456789ab")


def test_a_team_needs_two_reviewers_of_differing_parties(conn):
    a = users.add_user(conn, "alice", "reviewer", "0123456789ab", party="REP")
    c = users.add_user(conn, "carol", "reviewer", "0123456789ab", party="rep")
    b = users.add_user(conn, "bob", "reviewer", "0123456789ab", party="DEM")
    board = users.add_user(conn, "bea", "board", "0123456789ab", party="DEM")
    with pytest.raises(panels.TeamError, match="differing political party"):
        panels.invite(conn, a, c)
    with pytest.raises(panels.TeamError, match="not an active reviewer"):
        panels.invite(conn, a, board)
    panels.invite(conn, a, b)
    assert [u.name for u in panels.invitations_for(conn, b)] == ["alice"]
    team = panels.accept(conn, b, a)
    assert panels.team_of(conn, a) == team and panels.panel_for(conn, b).key == team.key
    panels.invite(conn, c, b)
    with pytest.raises(panels.TeamError, match="already in a team"):
        panels.accept(conn, b, c)
    panels.leave(conn, a)
    assert panels.team_of(conn, b) is None
    assert {"team_invite", "team_formed", "team_dissolved"} <= set(_actions(conn))


def test_a_partner_joins_at_the_same_screen_with_their_own_password(conn):
    a = users.add_user(conn, "alice", "reviewer", "0123456789ab", party="REP")
    users.add_user(conn, "bob", "reviewer", "bob-password-1", party="DEM")
    token, session = sessions.create_session(conn, a)
    with pytest.raises(LoginFailed):
        panels.join_at_screen(conn, session, "bob", "wrong password")
    panels.join_at_screen(conn, session, "bob", "bob-password-1")
    again = sessions.load_session(conn, token)
    assert [m.name for m in again.members] == ["alice", "bob"]


def test_users_add_reads_the_password_from_stdin(tmp_path, monkeypatch, capsys, fast_passwords):
    import io

    db = tmp_path / "cli.db"
    monkeypatch.setattr("sys.stdin", io.StringIO("a long enough password\n"))
    assert (
        main(["users", "add", "dora", "--role", "reviewer", "--party", "DEM", "--password-stdin", "--db", str(db)]) == 0
    )
    assert "added reviewer dora (DEM)" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO("a long enough password\n"))
    assert main(["users", "add", "eve", "--role", "reviewer", "--password-stdin", "--db", str(db)]) == 2
    assert "needs --party" in capsys.readouterr().err
