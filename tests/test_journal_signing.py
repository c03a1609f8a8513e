"""Signed journal entries and signed heads: the store attacks the fourth session left open, each performed.

The attacker can write the database but holds no station key and not the
county key (a shared PostgreSQL account, a copied SQLite file). Before this,
extending the hash chain needed no secret: a whole decision appended with a
consistent reviewers' entry verified, and so did a truncated journal or an
older copy of the store. Now every entry after the first station registered
is signed by a registered station (docs/security.md), and ``verify --against``
a signed export's manifest shows a store older than the export.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from test_adjudicate_support import (  # noqa: F401
    BOTH,
    MARGINAL,
    env,
    fast_passwords,
    machine_entry,
    pg_template,
    team,
    template_store,
)

from tabulate.adjudicate import auditlog, decisions, leases, queue, recording
from tabulate.cli import main
from tabulate.core import keys
from tabulate.report.manifest import write_manifest
from tabulate.store import journal, journal_signing
from tabulate.store.journal_signing import Signer, signing_as

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "general"


@pytest.fixture(scope="module")
def key_files(tmp_path_factory):
    """The county's key pair, one registered station's, and an outsider's (never registered)."""
    folder = tmp_path_factory.mktemp("keys")
    for name in ("county", "review-1", "outsider"):
        keys.make_key_pair(folder, name)
    return folder


def _signer(folder, name) -> Signer:
    return Signer.from_file(folder / f"{name}.key")


@pytest.fixture
def signed(env, key_files):
    """The sample store with its station registered by the county key; this test process is that station."""
    station = _signer(key_files, "review-1")
    env.store.register_station("review-1", station.public_key, county=_signer(key_files, "county"), actor="county")
    with signing_as(station):
        yield env


def _verify(db, capsys, *extra) -> tuple[int, str, str]:
    code = main(["verify", "--db", str(db), *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def _decide_marginal(env):
    """A team decides the first ballot in the queue, through tabulate's own code: entries, decision, votes applied."""
    queue.sync(env.conn, env.source)
    t = team(env, "alice", "bob")
    sheet_id = leases.lease_next(env.conn, t, env.users["alice"].id)
    entry = machine_entry(env, sheet_id, mark=[("us-senate", "sen-brennan")] if sheet_id == MARGINAL else ())
    for member in ("alice", "bob"):
        result = recording.record_entry(env.conn, env.source, t, env.users[member], entry)
    assert result.status == recording.DECIDED
    decisions.apply_pending(env.conn, env.source)


def test_an_entry_signature_is_deterministic_and_bound_to_its_hash(key_files):
    station = _signer(key_files, "review-1")
    h = "ab" * 32
    assert station.sign(h) == station.sign(h)  # Ed25519: same key and bytes, same signature
    assert keys.entry_signature_valid(station.public_key, h, station.sign(h))
    assert not keys.entry_signature_valid(station.public_key, "cd" * 32, station.sign(h))
    # A manifest-style signature of the same bytes is not an entry signature (domain separation).
    assert not keys.entry_signature_valid(station.public_key, h, station.key.sign(h.encode()).hex())


@BOTH
def test_a_signed_store_verifies_and_says_who_signed(signed, capsys, key_files):
    _decide_marginal(signed)
    code, out, err = _verify(signed.db, capsys)
    assert code == 0, err
    first = signed.store.journal_registry().first_seq
    county = _signer(key_files, "county").public_key[:16]
    assert f"every entry from {first} on is signed by a station the county key {county}... registered (review-1)" in out
    assert f"entries 1-{first - 1} were written before it" in out and "unsigned" not in err


@BOTH
def test_a_forged_decision_with_a_consistent_reviewers_entry_is_named_and_every_report_refuses(
    signed, capsys, monkeypatch
):
    """The attack docs/security.md listed as open: the attacker runs tabulate's own code against the database,
    so the entries, the decision and the changed votes are all consistent and sealed -- but unsigned."""
    _, published = journal.head(signed.conn)
    with monkeypatch.context() as attacker:
        attacker.setattr(journal_signing, "signer_for", lambda conn, kind, signer: None)  # no key: write unsigned
        _decide_marginal(signed)
    entries = list(journal.entries(signed.conn))
    forged = entries[[e.hash for e in entries].index(published) + 1 :]
    assert {"entry", "decision", "votes_modified"} <= {e.kind for e in forged}  # a whole decision, sealed
    code, out, err = _verify(signed.db, capsys, "--from-head", published)  # the journal only grew
    assert code == 1
    assert f"journal entry {forged[0].seq} ({forged[0].kind} by {forged[0].actor}) is unsigned" in err, err
    assert main(["results", "--db", str(signed.db)]) == 2
    err = capsys.readouterr().err
    assert "is unsigned" in err and len(err.strip().splitlines()) == 1


def _raw_insert(conn, kind: str, data: dict, sign) -> int:
    """The attacker's INSERT: an entry chained to the head with a correct hash (no secret needed for that),
    and whatever ``sign(hash)`` gives as its ``(signer, signature)``."""
    seq, prev = journal.head(conn)
    seq += 1
    at = "2028-11-04T23:00:00.000000Z"
    h = journal.entry_hash(seq, at, kind, "board1", "1", data, {}, prev)
    conn.execute(
        "INSERT INTO journal (seq, at, kind, actor, sheet, data, facts, prev_hash, hash, signer, signature) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (seq, at, kind, "board1", "1", journal._text(data), "{}", prev, h, *sign(h)),
    )
    return seq


@BOTH
def test_an_entry_inserted_with_raw_sql_and_signed_by_an_unregistered_key_is_named(signed, capsys, key_files):
    outsider = _signer(key_files, "outsider")
    seq = _raw_insert(signed.conn, "reopen", {"why": "x"}, lambda h: (outsider.public_key, outsider.sign(h)))
    code, _, err = _verify(signed.db, capsys)
    assert code == 1 and f"journal entry {seq} (reopen by board1) is signed by a key no station" in err, err


@BOTH
def test_a_signature_copied_from_another_entry_does_not_sign_the_forged_one(signed, capsys):
    last = list(journal.entries(signed.conn))[-1]
    seq = _raw_insert(signed.conn, "reopen", {"why": "copied"}, lambda h: (last.signer, last.signature))
    code, _, err = _verify(signed.db, capsys)
    assert code == 1 and f"journal entry {seq} (reopen by board1): its signature does not match" in err, err


def test_a_station_registered_by_another_county_key_is_named(signed, capsys, key_files):
    """Registering one's own station needs the county key: a registration signed by another key is forged."""
    outsider = _signer(key_files, "outsider")
    with pytest.raises(journal_signing.SigningError, match="not the county key"):
        signed.store.register_station("mine", outsider.public_key, county=outsider)
    data = {"station": "mine", "public_key": outsider.public_key}
    _raw_insert(signed.conn, "station_registered", data, lambda h: (outsider.public_key, outsider.sign(h)))
    code, _, err = _verify(signed.db, capsys)
    assert code == 1 and "is signed by" in err and "not by the county key of entry" in err, err


def test_a_store_writer_without_the_station_key_is_refused_in_one_line(signed, capsys, key_files, monkeypatch):
    """A station never leaves an entry verify would name: no key, or an unregistered one, is refused before writing."""
    before = journal.head(signed.conn)
    add = ["users", "add", "zed", "--role", "reviewer", "--party", "REP", "--password-stdin", "--db", str(signed.db)]
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("pw-zed-0123456789\n"))
    assert main(add) == 2
    err = capsys.readouterr().err
    assert "no station key was given" in err and len(err.strip().splitlines()) == 1
    monkeypatch.setenv("TABULATE_STATION_KEY", str(key_files / "outsider.key"))
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("pw-zed-0123456789\n"))
    assert main(add) == 2
    assert "is not registered in this store" in capsys.readouterr().err
    assert journal.head(signed.conn) == before


def test_the_registered_station_key_from_the_environment_writes_signed_entries(signed, capsys, key_files, monkeypatch):
    monkeypatch.setenv("TABULATE_STATION_KEY", str(key_files / "review-1.key"))
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("pw-zed-0123456789\n"))
    add = ["users", "add", "zed", "--role", "reviewer", "--party", "REP", "--password-stdin", "--db", str(signed.db)]
    assert main(add) == 0, capsys.readouterr().err
    last = list(journal.entries(signed.conn))[-1]
    assert last.kind == "user_added" and last.signer == _signer(key_files, "review-1").public_key
    assert _verify(signed.db, capsys)[0] == 0


def _export(db, tmp_path, key_files, name="cvr.json"):
    out = tmp_path / name
    assert main(["cvr", "--db", str(db), "--out", str(out), "--key", str(key_files / "county.key")]) == 0
    return tmp_path / f"{name}.manifest.json"


def _cut_tail(env, from_seq: int) -> None:
    """The attacker removes the journal's newest entries: the append-only triggers dropped (or disabled) first."""
    if str(env.db).startswith("postgresql://"):
        env.conn.execute("ALTER TABLE journal DISABLE TRIGGER USER")  # the database owner may
        env.conn.execute("DELETE FROM journal WHERE seq >= ?", (from_seq,))
        return
    raw = sqlite3.connect(env.db, isolation_level=None)
    raw.execute("DROP TRIGGER journal_no_delete")
    raw.execute("DELETE FROM journal WHERE seq >= ?", (from_seq,))
    raw.close()


@BOTH
def test_a_truncated_journal_is_shown_older_than_a_signed_export(signed, capsys, key_files, tmp_path):
    """Entries that seal no row (a sign-in, an export) can be cut from the tail and the rest still holds together."""
    auditlog.append(signed.conn, "alice", "login", detail={"from": "127.0.0.1"})
    manifest = _export(signed.db, tmp_path, key_files)
    head_entry = journal.head(signed.conn)[0] - 1  # the export's own entry follows the head it signed
    _cut_tail(signed, head_entry)
    assert _verify(signed.db, capsys)[0] == 0  # a consistent earlier state: only a later head tells
    code, _, err = _verify(signed.db, capsys, "--against", str(manifest), "--county-key", str(key_files / "county.pub"))
    assert code == 1
    assert f"the store is older than the signed export cvr.json, which was made at journal entry {head_entry}" in err
    assert f"its journal ends at entry {head_entry - 1} (truncated, or an older copy of the store)" in err


def test_an_older_copy_of_the_whole_store_is_shown_older_than_a_signed_export(signed, capsys, key_files, tmp_path):
    older = tmp_path / "older.db"
    with sqlite3.connect(older) as copy:
        signed.conn.backup(copy)  # taken before the decision
    copy.close()
    _decide_marginal(signed)
    manifest = _export(signed.db, tmp_path, key_files)
    code, out, _ = _verify(signed.db, capsys, "--against", str(manifest))
    assert code == 0 and "since the signed export cvr.json (entry" in out and "1 entry added (1 export)" in out
    signed.close()
    for suffix in ("-wal", "-shm"):
        signed.db.with_name(signed.db.name + suffix).unlink(missing_ok=True)
    shutil.copy(older, signed.db)  # the older copy put in its place
    assert _verify(signed.db, capsys)[0] == 0  # every signature in it is genuine
    code, _, err = _verify(signed.db, capsys, "--against", str(manifest))
    assert code == 1 and "the store is older than the signed export cvr.json" in err, err


def test_against_refuses_a_manifest_not_signed_by_the_county_key(signed, capsys, key_files, tmp_path):
    out = tmp_path / "cvr.json"
    # The outsider's key cannot write the export's journal entry: refused before anything is written.
    assert main(["cvr", "--db", str(signed.db), "--out", str(out), "--key", str(key_files / "outsider.key")]) == 2
    assert "is not registered in this store" in capsys.readouterr().err and not out.exists()
    # A manifest the outsider signs (as anyone can, with any key) is not the county's.
    write_manifest(
        [signed.db],
        report="x",
        head=journal.head(signed.conn),
        verified=True,
        software="t",
        key_path=key_files / "outsider.key",
    )
    code, _, err = _verify(signed.db, capsys, "--against", str(signed.db))
    assert code == 2 and "is signed by another key" in err  # not the county key that registered the stations
    manifest = _export(signed.db, tmp_path, key_files)
    manifest.write_text(manifest.read_text().replace('"entry": ', '"entry": 1', 1))
    code, _, err = _verify(signed.db, capsys, "--against", str(manifest))
    assert code == 2 and "the signature does not match its contents (altered)" in err


def test_an_unsigned_store_still_verifies_with_a_one_line_warning(env, capsys):
    code, out, err = _verify(env.db, capsys)
    assert code == 0 and "signatures:" not in out
    assert err.count("\n") == 1 and "entries are unsigned (no station key is registered in this store)" in err


def test_with_the_county_key_given_an_unsigned_store_is_refused(env, capsys, key_files):
    """Someone who rewrote the whole journal unsigned (no keys needed) is caught by the county's published key."""
    code, _, err = _verify(env.db, capsys, "--county-key", str(key_files / "county.pub"))
    assert code == 1 and "the journal registers no station" in err


def test_keys_make_station_and_register_from_the_command_line(template_store, tmp_path, capsys, monkeypatch):
    db = tmp_path / "store.db"
    shutil.copy(template_store, db)
    folder = tmp_path / "k"
    folder.mkdir()
    assert main(["keys", "make", "--out", str(folder)]) == 0
    assert main(["keys", "make", "--out", str(folder), "--station", "scan-1"]) == 0
    assert (folder / "scan-1.key").stat().st_mode & 0o077 == 0
    reg = ["keys", "register", "--db", str(db), "--station", str(folder / "scan-1.pub"), "--key"]
    assert main([*reg, str(folder / "scan-1.key")]) == 0  # the first registration pins the county key ...
    assert main(["keys", "make", "--out", str(folder), "--station", "scan-2"]) == 0
    reg2 = ["keys", "register", "--db", str(db), "--station", str(folder / "scan-2.pub"), "--key"]
    assert main([*reg2, str(folder / "county.key")]) == 2  # ... so another key cannot register more
    assert "is not the county key that registered this store's first station" in capsys.readouterr().err
    (folder / "scan-1.key").chmod(0o644)
    monkeypatch.setenv("TABULATE_STATION_KEY", str(folder / "scan-1.key"))
    assert main(["status", "--db", str(db)]) == 2
    assert "may be read by others (mode 0644); chmod 600" in capsys.readouterr().err


def test_scan_and_the_review_server_refuse_to_start_without_the_station_key(signed, capsys):
    """31 KAR 4:220 §9(12)(b) asks that each adjudication be recorded: a server that could not sign its
    records does not start, rather than fail at the first decision."""
    assert main(["review", "serve", "--db", str(signed.db)]) == 2
    assert "no station key was given" in capsys.readouterr().err
    scans = signed.db.parent / "scans"
    scans.mkdir()
    shutil.copy(next((SAMPLES / "scans").glob("sheet-00001-*")), scans)
    scan = ["scan", str(scans), "--election", str(SAMPLES / "election.json"), "--db", str(signed.db)]
    assert main([*scan, "--batch", "late", "--vote-type", "election_day", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "no station key was given" in err and "Traceback" not in err


def test_the_station_key_beside_the_store_is_found_as_the_demo_keeps_it(signed, capsys, key_files, monkeypatch):
    beside = signed.db.parent / "keys"
    beside.mkdir()
    shutil.copy(key_files / "review-1.key", beside / "station.key")
    (beside / "station.key").chmod(0o600)
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("pw-zed-0123456789\n"))
    add = ["users", "add", "zed", "--role", "reviewer", "--party", "DEM", "--password-stdin", "--db", str(signed.db)]
    assert main(add) == 0, capsys.readouterr().err
    assert list(journal.entries(signed.conn))[-1].signer == _signer(key_files, "review-1").public_key


def test_the_review_apps_log_page_says_which_station_signed_each_entry(signed, key_files):
    from test_adjudicate_support import Browser

    from tabulate.adjudicate.web.app import create_app

    browser = Browser(create_app(signed.db))
    browser.login("admin")  # a signed "login" entry, written by this station
    page = browser.get("/admin/log").text
    assert "Every entry from" in page and "<td>login</td><td></td><td>review-1</td>" in page
    _raw_insert(signed.conn, "reopen", {"why": "x"}, lambda h: (None, None))
    page = browser.get("/admin/log").text
    assert "<td>reopen</td><td>1</td><td>unsigned</td>" in page and "is unsigned" in page
