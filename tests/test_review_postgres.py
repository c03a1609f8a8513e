"""Review, users, verify and the audits on a PostgreSQL store (issue 14), and the auditor-role migration.

The adjudication, verify, explain and report tests that run on both
backends are parametrized where they live (``@BOTH`` in
test_adjudicate_decisions.py, test_explain.py, test_journal_verify.py); here
are the things only PostgreSQL has: several review app servers on one
database, and the commands given a ``postgresql://`` URL.
"""

from __future__ import annotations

import io
import re
import sqlite3

import pytest
from pg_server import pg_url  # noqa: F401 - a fixture
from test_adjudicate_support import (  # noqa: F401
    MARGINAL,
    Browser,
    env,
    fast_passwords,
    form,
    password,
    pg_template,
)
from test_adjudicate_tally import _decide_everything

from tabulate.adjudicate import decisions, leases, queue, schema, users
from tabulate.adjudicate.web.app import create_app
from tabulate.cli import main
from tabulate.store import journal, sqldb

PG = pytest.mark.parametrize("env", ["postgresql"], indirect=True)


def _team_at_one_screen(app, a: str, b: str) -> Browser:
    br = Browser(app)
    br.login(a)
    joined = br.submit(br.get("/queue").text, "/team/join", {"name": b, "password": password(b)})
    assert "Team formed at this screen" in joined.text
    return br


def _enter(br: Browser, page, vote: str):
    preview = br.submit(page.text, "/preview", {"m|us-senate|sen-brennan": vote})
    assert preview.status_code == 200, preview.text
    return br.submit(preview.text, "/record")


@PG
def test_two_review_app_servers_on_one_database_share_leases_and_record_a_decision_once(env, capsys):
    """DESIGN: "Review leases and decisions hold with several app servers on one database" (issue 14)."""
    first, second = create_app(env.db), create_app(env.db)  # two servers: own state, own connections
    ab, cd = _team_at_one_screen(first, "alice", "bob"), _team_at_one_screen(second, "carol", "dave")

    ab_page = ab.submit(ab.get("/queue").text, "/queue/next", {"reason": "marginal_mark"})
    assert ab_page.url.path == f"/ballot/{MARGINAL}"
    held = cd.get(f"/ballot/{MARGINAL}")  # the other server sees the first team's lease
    assert held.status_code == 409
    other = cd.submit(cd.get("/queue").text, "/queue/next")
    assert other.url.path.startswith("/ballot/") and other.url.path != f"/ballot/{MARGINAL}"

    done = _enter(ab, ab_page, "1")  # alice enters; bob's page is now the same ballot
    assert "Now <strong>bob (DEM)</strong> enters this ballot" in done.text
    bob_page = ab.get(f"/ballot/{MARGINAL}")

    # The lease lapses (a team went to lunch): the other server's team takes the ballot and decides it.
    env.conn.execute("UPDATE adj_ballots SET lease_expires = 0 WHERE sheet_id = ?", (MARGINAL,))
    cd_page = cd.get(f"/ballot/{MARGINAL}")
    assert cd_page.status_code == 200 and "Entry by <strong>carol (REP)</strong>" in cd_page.text
    _enter(cd, cd_page, "0")
    assert f"Ballot {MARGINAL} is decided" in _enter(cd, cd.get(f"/ballot/{MARGINAL}"), "0").text

    late = ab.submit(bob_page.text, "/preview", {"m|us-senate|sen-brennan": "1"})  # bob, too late: refused
    assert late.url.path == f"/ballot/{MARGINAL}/decided"
    (d,) = decisions.decisions(env.conn, sheet_id=MARGINAL)
    assert d.members == ("carol (REP)", "dave (DEM)")
    assert [e.kind for e in journal.entries(env.conn, sheet=MARGINAL, kind="decision")] == ["decision"]
    assert main(["verify", "--db", env.db]) == 0
    assert "verified" in capsys.readouterr().out


@PG
def test_one_lease_between_two_servers_connections_at_the_same_moment(env):
    """Both servers ask for the same ballot for different teams: the write lock lets exactly one have it."""
    from tabulate.adjudicate import panels
    from tabulate.adjudicate.leases import LeaseLost

    panels.invite(env.conn, env.users["alice"], env.users["bob"])
    t1 = panels.accept(env.conn, env.users["bob"], env.users["alice"])
    panels.invite(env.conn, env.users["carol"], env.users["dave"])
    t2 = panels.accept(env.conn, env.users["dave"], env.users["carol"])
    queue.sync(env.conn, env.source)
    one, two = schema.connect(env.db), schema.connect(env.db)
    try:
        p1, p2 = panels.panel_for(one, t1.members[0]), panels.panel_for(two, t2.members[0])
        # The first connection holds its transaction (and the lock) while the second asks.
        with schema.transaction(one):
            leases.lease(one, MARGINAL, p1, t1.members[0].id)
            assert one.in_transaction
        with pytest.raises(LeaseLost):
            leases.lease(two, MARGINAL, p2, t2.members[0].id)
        assert leases.current_lease(two, p1) == MARGINAL
    finally:
        one.close()
        two.close()


@PG
def test_users_the_log_verify_explain_and_the_reports_take_a_postgresql_url(env, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr("sys.stdin", io.StringIO("pw-judy-0123456789\n"))
    assert (
        main(["users", "add", "judy", "--role", "auditor", "--party", "LIB", "--password-stdin", "--db", env.db]) == 0
    )
    assert users.find_user(env.conn, "JUDY").role == "auditor"  # names compare without case, as on SQLite
    _decide_everything(env)
    assert main(["log", "verify", "--db", env.db]) == 0
    seq, head = journal.head(env.conn)
    for extra in ([], ["--fast"], ["--from-head", head]):  # --images: test_verify_images.py, on both backends
        assert main(["verify", "--db", env.db, *extra]) == 0, extra
    out = capsys.readouterr().out
    assert f"head {seq} {head}" in out
    assert main(["explain", "--db", env.db, MARGINAL]) == 0
    assert "counted as people decided" in capsys.readouterr().out
    assert main(["results", "--db", env.db, "--out", str(tmp_path / "r.csv")]) == 0
    assert main(["status", "--db", env.db]) == 0
    assert main(["unofficial", "--db", env.db]) == 0
    assert main(["recanvass", "--db", env.db]) == 0  # against the snapshot just kept: no differences
    import uvicorn

    served = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append(app))
    assert main(["review", "serve", "--db", env.db]) == 0 and len(served) == 1


@PG
def test_an_edited_decision_row_on_postgresql_is_named_by_verify_and_refused_by_the_reports(env, capsys):
    import psycopg

    _decide_everything(env)
    decision_id, after = env.conn.execute(
        "SELECT id, after_votes FROM adj_decisions WHERE sheet_id = ?", (MARGINAL,)
    ).fetchone()
    with psycopg.connect(env.db, autocommit=True) as attacker:  # the database's owner, editing a row by hand
        attacker.execute(
            "UPDATE adj_decisions SET after_votes = %s WHERE id = %s",
            (after.replace('"sen-brennan"', '"sen-caldwell"'), decision_id),
        )
    assert main(["verify", "--db", env.db]) == 1
    assert f"decision {decision_id}" in capsys.readouterr().err
    assert main(["results", "--db", env.db]) == 2


def test_a_hand_to_eye_audit_and_a_recount_run_on_postgresql(pg_url, tmp_path, capsys):
    from test_audit_handeye_support import build_truth_store

    build_truth_store(pg_url)
    assert main(["audit", "select", "--db", pg_url, "--seed", "31415926535897932384"]) == 0
    race = re.search(r"race (\S+)", capsys.readouterr().out).group(1)
    assert main(["audit", "sheets", "--db", pg_url, "--audit", "1", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "handeye-audit-1-sheets.pdf").is_file()
    conn = schema.connect(pg_url)
    try:
        kinds = [e.kind for e in journal.entries(conn)]
        assert "handeye_select" in kinds and "handeye_prediction" in kinds
        with pytest.raises(sqlite3.IntegrityError), schema.transaction(conn):
            conn.execute("UPDATE he_audits SET contest_id = ? WHERE id = 1", (race + "x",))  # append-only
    finally:
        conn.close()


def test_a_recount_runs_on_postgresql(pg_url, tmp_path, capsys):
    from test_audit_support import county
    from test_scan_support import fake_interpreter

    RACE = "us-house-6"

    county(tmp_path, barr=2, king=2, overvotes=1, db=pg_url)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tabulate.central.interpret.interpret_sheet", fake_interpreter)
        code = main(
            ["recount", "--db", pg_url, "--contest", RACE, "--out", str(tmp_path / "out"), "--send-to-board"]
            + ["--workers", "1"]
        )
    assert code == 3 and "sent to the board" in capsys.readouterr().out
    assert (tmp_path / "out" / "recount-sbe82.pdf").is_file()


# -- the auditor-role migration ---------------------------------------------------------------------------

_OLD_USERS = """
CREATE TABLE adj_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO adj_meta VALUES ('schema_version', '1');
CREATE TABLE adj_users (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
    role          TEXT NOT NULL CHECK (role IN ('operator', 'reviewer', 'board', 'admin')),
    party         TEXT,
    password_hash TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    disabled      INTEGER NOT NULL DEFAULT 0,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until  REAL
);
CREATE TABLE adj_sessions (
    token_hash TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES adj_users(id),
    partner_id INTEGER REFERENCES adj_users(id),
    csrf       TEXT NOT NULL,
    created_at REAL NOT NULL,
    last_seen  REAL NOT NULL
);
INSERT INTO adj_users (id, name, role, party, password_hash, created_at) VALUES (7, 'Ann', 'board', 'REP', 'x', 't');
INSERT INTO adj_sessions VALUES ('tok', 7, NULL, 'c', 1.0, 1.0);
"""


def test_a_store_made_before_the_auditor_role_is_migrated_to_accept_it(tmp_path, fast_passwords):
    """31 KAR 4:230 audits need an ``auditor`` account; a version-1 store's CHECK refused the role."""
    db = tmp_path / "old.db"
    old = sqlite3.connect(db)
    old.executescript(_OLD_USERS)
    with pytest.raises(sqlite3.IntegrityError):
        old.execute("INSERT INTO adj_users (name, role, password_hash, created_at) VALUES ('z', 'auditor', 'x', 't')")
    old.close()

    conn = schema.connect(db)
    schema.migrate(conn)
    assert conn.execute("SELECT value FROM adj_meta WHERE key = 'schema_version'").fetchone()[0] == "3"
    judy = users.add_user(conn, "judy", "auditor", "pw-judy-0123456789", party="LIB", actor="test")
    assert users.find_user(conn, "judy") == judy and users.find_user(conn, "ANN").id == 7  # kept, without case
    assert [tuple(r) for r in conn.execute("SELECT user_id FROM adj_sessions")] == [(7,)]  # references still hold
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(users.UserError, match="already a user named 'ann'"):  # UNIQUE without case, still
        users.add_user(conn, "ann", "reviewer", "pw-ann-0123456789", party="DEM", actor="test")
    conn.close()


def test_adjudication_and_audit_tables_are_the_same_on_both_backends(tmp_path, pg_url):
    from tabulate.audit.handeye import migrate as migrate_audit

    def columns(conn, table):
        if sqldb.is_postgres(conn):
            rows = conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
                (table,),
            )
            return [r[0] for r in rows if r[0] != "rowid"]  # PostgreSQL's stand-in for SQLite's rowid
        return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]

    both = []
    for location in (tmp_path / "s.db", pg_url):
        conn = schema.connect(location)
        migrate_audit(conn)
        migrate_audit(conn)  # again: nothing to do
        tables = [
            "adj_meta", "adj_users", "adj_throttle", "adj_sessions", "adj_teams", "adj_invites", "adj_ballots",
            "adj_reasons", "adj_entries", "adj_decisions", "he_audits", "he_tallies", "he_tapes", "he_findings",
        ]  # fmt: skip
        both.append({t: columns(conn, t) for t in tables})
        assert conn.execute("SELECT value FROM adj_meta WHERE key = 'schema_version'").fetchone()[0] == str(
            schema.SCHEMA_VERSION
        )
        conn.close()
    assert both[0] == both[1] and all(both[0].values())
