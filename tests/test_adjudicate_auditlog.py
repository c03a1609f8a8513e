"""Adjudication's entries in the one journal: append-only, hash-chained, `verify` names the first tampered entry."""

from __future__ import annotations

import sqlite3

import pytest

from tabulate.adjudicate import auditlog, schema
from tabulate.cli import main
from tabulate.store import journal


@pytest.fixture
def log_db(tmp_path):
    db = tmp_path / "log.db"
    conn = schema.connect(db)
    schema.migrate(conn)
    for n in range(1, 7):
        auditlog.append(conn, f"user{n % 2}", "decision", sheet_id=str(n), detail={"n": n, "why": "test ✓"})
    yield db, conn
    conn.close()


def _tamper(db, *statements):
    """Edit the log as an attacker with the file would: drop the triggers first."""
    raw = sqlite3.connect(db)
    raw.execute("DROP TRIGGER journal_no_update")
    raw.execute("DROP TRIGGER journal_no_delete")
    for sql, args in statements:
        raw.execute(sql, args)
    raw.commit()
    raw.close()


def test_an_intact_log_verifies_and_reports_its_head(log_db):
    _, conn = log_db
    check = auditlog.verify(conn)
    assert check.ok and check.entries == 6 and check.head_seq == 6
    assert check.head_hash == auditlog.head(conn)[1]


def test_each_hash_covers_the_entry_and_the_previous_hash(log_db):
    _, conn = log_db
    entries = list(auditlog.entries(conn))
    assert entries[0].prev_hash == auditlog.GENESIS
    for before, after in zip(entries, entries[1:]):
        assert after.prev_hash == before.hash
        assert after.hash == journal.entry_hash(
            after.seq, after.ts, after.action, after.actor, after.sheet_id, after.detail, after.facts, after.prev_hash
        )


def test_the_database_refuses_to_update_or_delete_log_entries(log_db):
    _, conn = log_db
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE journal SET actor = 'mallory' WHERE seq = 2")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM journal WHERE seq = 2")


def test_an_altered_entry_is_named(log_db):
    db, conn = log_db
    _tamper(db, ("UPDATE journal SET data = ? WHERE seq = 3", ('{"n":30,"why":"test ✓"}',)))
    check = auditlog.verify(conn)
    assert not check.ok and check.first_bad_seq == 3 and "altered" in check.problem


def test_an_altered_and_rehashed_entry_is_named_by_the_broken_link_after_it(log_db):
    db, conn = log_db
    row = conn.execute("SELECT * FROM journal WHERE seq = 4").fetchone()
    forged = journal.entry_hash(
        4, row["at"], row["kind"], "mallory", row["sheet"], {"n": 4, "why": "test ✓"}, {}, row["prev_hash"]
    )
    _tamper(db, ("UPDATE journal SET actor = 'mallory', hash = ? WHERE seq = 4", (forged,)))
    check = auditlog.verify(conn)
    assert not check.ok and check.first_bad_seq == 4 and "re-hashed" in check.problem


def test_a_removed_entry_is_named(log_db):
    db, conn = log_db
    _tamper(db, ("DELETE FROM journal WHERE seq = 2", ()))
    check = auditlog.verify(conn)
    assert not check.ok and check.first_bad_seq == 2 and "missing" in check.problem


def test_reordered_entries_are_found(log_db):
    db, conn = log_db
    cols = "at, actor, kind, sheet, data, facts, prev_hash, hash"
    a = conn.execute(f"SELECT {cols} FROM journal WHERE seq = 3").fetchone()
    b = conn.execute(f"SELECT {cols} FROM journal WHERE seq = 4").fetchone()
    sql = "UPDATE journal SET at = ?, actor = ?, kind = ?, sheet = ?, data = ?, facts = ?, prev_hash = ?, hash = ? WHERE seq = ?"
    _tamper(db, (sql, (*tuple(b), 3)), (sql, (*tuple(a), 4)))
    check = auditlog.verify(conn)
    assert not check.ok and check.first_bad_seq == 3


def test_log_verify_command_passes_an_intact_log_and_names_a_tampered_entry(log_db, capsys):
    db, _ = log_db
    assert main(["log", "verify", "--db", str(db)]) == 0
    assert "6 entries" in capsys.readouterr().out
    _tamper(db, ("UPDATE journal SET kind = 'nothing' WHERE seq = 5", ()))
    assert main(["log", "verify", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert "TAMPERED" in err and "first bad entry: 5" in err
