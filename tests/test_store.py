"""The store keeps every sheet exactly once, refuses to mix elections, and its log detects tampering.

Every test runs on both backends: a SQLite file and a PostgreSQL database
(tests/pg_server.py starts a server; those cases are skipped, saying why,
only when none can start). A few tests are about one backend's own settings.
"""

from __future__ import annotations

import copy
import json
import sqlite3

import psycopg
import pytest
from pg_server import pg_url  # noqa: F401 - a fixture
from test_scan_support import ELECTION_PATH

from tabulate.core.votes import BallotVotes, ContestVotes
from tabulate.election import parse_election
from tabulate.store import (
    DUPLICATE_SHEET,
    PAGE_ALREADY_SCANNED,
    BatchMismatchError,
    ElectionMismatchError,
    PageImage,
    SheetOutcome,
    SheetReason,
    Store,
    StoreError,
    is_postgres_url,
    open_store,
    sheet_identity,
)
from tabulate.store._schema import SCHEMA_VERSION
from tabulate.store.records import ballot_records


@pytest.fixture(scope="module")
def document():
    return json.loads(ELECTION_PATH.read_text())


@pytest.fixture(scope="module")
def election(document):
    return parse_election(document)


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request, tmp_path) -> str:
    """Where a new store goes: a SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    return request.getfixturevalue("pg_url")


def only_on(store, backend: str) -> None:
    if ("postgresql" if is_postgres_url(store.path) else "sqlite") != backend:
        pytest.skip(f"a {backend} setting")


def drop_log_triggers(store) -> None:
    """What someone with direct access to the database could do."""
    if is_postgres_url(store.path):
        store._db.execute("DROP TRIGGER journal_no_change ON journal")
    else:
        store._db.execute("DROP TRIGGER journal_no_update")


@pytest.fixture
def store(location, election, document):
    s = open_store(location)
    s.bind_election(election, document)
    yield s
    s.close()


def _digest(n: int) -> str:
    return f"{n:064x}"


def votes(ballot_id: str = "x", president: str = "pres-hale") -> BallotVotes:
    return BallotVotes(
        ballot_id,
        "1",
        (
            ContestVotes("president", "valid", (president,), clauses=("§2(1)(a)",)),
            ContestVotes("us-senate", "undervote", (), undervotes=1),
        ),
        precinct_id="A101",
    )


def outcome(
    position: int, pages: tuple[int, ...], *, status="counted", occurrence=0, reasons=(), president="pres-hale"
):
    images = tuple(PageImage(f"p{n}.jpg", _digest(n)) for n in pages)
    live = status in ("counted", "needs_review")
    return SheetOutcome(
        position,
        sheet_identity(p.sha256 for p in images),
        images,
        status,
        occurrence=occurrence,
        reasons=reasons,
        style_id="1" if live else None,
        precinct_id="A101" if live else None,
        evidence=json.dumps({"score": 0.5}) if live else None,
        marks=json.dumps({"id": "x", "style": "1", "marks": {"president": {president: "marked"}}}) if live else None,
        votes=votes(president=president) if live else None,
    )


def test_a_new_store_is_sqlite_in_wal_mode_with_foreign_keys_and_full_sync(store):
    only_on(store, "sqlite")
    db = store._db
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert db.execute("SELECT version FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    assert isinstance(store, Store)


def test_reopening_keeps_the_data_and_the_schema(location, store, election):
    store.open_batch("A", "election_day")
    store.close()
    again = open_store(location, create=False)
    assert [b.name for b in again.batches()] == ["A"]
    assert again.election().hash == election.hash
    again.close()


def test_a_store_from_a_newer_tabulate_is_refused(location, store):
    store._db.execute("UPDATE schema_version SET version = 99")
    store.close()
    with pytest.raises(StoreError, match="schema version is 99"):
        open_store(location)


def test_a_file_that_is_not_a_store_is_refused_in_one_line(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_text("these are my notes, not a database " * 100)
    with pytest.raises(StoreError, match="cannot use") as e:
        open_store(bad)
    assert "\n" not in str(e.value)


def test_reading_commands_do_not_create_a_store(tmp_path):
    with pytest.raises(StoreError, match="no store at"):
        open_store(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


def test_a_store_holds_one_election(store, document):
    other = copy.deepcopy(document)
    other["title"] = "Some Other Election"
    with pytest.raises(ElectionMismatchError, match="holds the election"):
        store.bind_election(parse_election(other), other)


def test_the_stored_election_is_the_one_bound(store, election):
    assert store.election() == election


def test_a_bound_store_records_sheets_without_building_the_election_again(location, store, election, monkeypatch):
    """A scan's parent binds the election it parsed; the store keeps that one rather than validating the
    stored copy again at the first sheets recorded. A store opened later still builds it from what is stored."""
    import tabulate.store.sqlite as sqlite_store

    def refuse(*a, **k):
        raise AssertionError("the stored election was parsed again")

    with monkeypatch.context() as m:
        m.setattr(sqlite_store, "parse_election", refuse)
        assert store.election() is election
        batch = store.open_batch("b", "election_day")
        assert [r.added for r in store.record_sheets(batch.id, [outcome(1, (1, 2))])] == [True]
    store.close()
    with open_store(location, create=False) as again:
        assert again.election() == election and again.election() is not election


def test_a_batch_resumes_but_not_with_another_vote_type(store):
    a = store.open_batch("A", "mail_in_absentee", operator="kim")
    assert store.open_batch("A", "mail_in_absentee", operator="kim").id == a.id
    with pytest.raises(BatchMismatchError, match="vote type mail_in_absentee"):
        store.open_batch("A", "election_day", operator="kim")


@pytest.mark.parametrize(
    "changed, says",
    [
        (dict(tabulator="2"), "tabulator 1, this run 2"),
        (dict(precinct_id="A101"), "precinct none, this run A101"),
        (dict(operator="lee"), "operator kim, this run lee"),
        (dict(operator=None), "operator kim, this run none"),
    ],
)
def test_resuming_a_batch_with_other_details_is_refused_not_silently_kept(store, changed, says):
    """The batch keeps the details it was opened with; a resume that says otherwise is refused and logs nothing."""
    a = store.open_batch("A", "election_day", operator="kim")
    events = len(list(store.events()))
    with pytest.raises(BatchMismatchError, match=says) as e:
        store.open_batch("A", "election_day", **({"operator": "kim"} | changed))
    assert "\n" not in str(e.value) and len(list(store.events())) == events
    assert store.batches() == [a]


def test_recording_the_same_sheet_twice_in_a_batch_adds_nothing(store):
    b = store.open_batch("A", "election_day")
    first = store.record_sheets(b.id, [outcome(1, (1, 2))])
    again = store.record_sheets(b.id, [outcome(1, (1, 2))])
    assert first[0].added and not again[0].added
    assert again[0].sheet_id == first[0].sheet_id
    assert store.sheet_count(b.id) == 1


def test_the_same_sheet_in_another_batch_is_a_duplicate_not_a_second_vote(store):
    a = store.open_batch("A", "election_day")
    b = store.open_batch("B", "election_day")
    [orig] = store.record_sheets(a.id, [outcome(1, (1, 2))])
    [dup] = store.record_sheets(b.id, [outcome(1, (2, 1))])  # same images, fed the other way round
    assert dup.added and dup.status == "duplicate" and dup.duplicate_of == orig.sheet_id
    sheet = store.sheet(dup.sheet_id)
    assert sheet.reasons[0].code == DUPLICATE_SHEET and "batch 'A'" in sheet.reasons[0].detail
    assert sheet.interpreted is None
    assert len(list(ballot_records(store))) == 1


def test_a_sheet_sharing_a_page_with_a_counted_sheet_is_a_duplicate(store):
    a = store.open_batch("A", "election_day")
    store.record_sheets(a.id, [outcome(1, (1, 2))])
    [rec] = store.record_sheets(a.id, [outcome(2, (2, 3))])  # pairing shifted by a stray page
    assert rec.status == "duplicate"
    assert store.sheet(rec.sheet_id).reasons[0].code == PAGE_ALREADY_SCANNED


def test_a_rejected_sheet_does_not_make_its_rescan_a_duplicate(store):
    a = store.open_batch("A", "election_day")
    store.record_sheets(
        a.id, [outcome(1, (7,), status="rejected", reasons=(SheetReason("missing_back_page", "odd page count"),))]
    )
    [rec] = store.record_sheets(a.id, [outcome(2, (7, 8))])  # the back page found and fed
    assert rec.status == "counted"


def test_the_same_content_twice_in_one_input_is_recorded_once_and_once_as_duplicate(store):
    a = store.open_batch("A", "election_day")
    recs = store.record_sheets(a.id, [outcome(1, (1, 2)), outcome(2, (1, 2), occurrence=1)])
    assert [r.status for r in recs] == ["counted", "duplicate"]
    assert [r.added for r in store.record_sheets(a.id, [outcome(1, (1, 2)), outcome(2, (1, 2), occurrence=1)])] == [
        False,
        False,
    ]


def test_a_group_of_sheets_is_recorded_all_or_nothing(store):
    a = store.open_batch("A", "election_day")
    bad = outcome(2, (3, 4), status="lost")  # not a status: the database refuses it
    with pytest.raises((sqlite3.IntegrityError, psycopg.IntegrityError)):  # the database refuses it, either one
        store.record_sheets(a.id, [outcome(1, (1, 2)), bad])
    assert store.sheet_count(a.id) == 0


def test_a_new_sheet_never_takes_the_place_of_another_in_its_batch(store):
    a = store.open_batch("A", "election_day")
    store.record_sheets(a.id, [outcome(1, (1, 2)), outcome(2, (3, 4))])
    [rec] = store.record_sheets(a.id, [outcome(1, (5, 6))])
    assert store.sheet(rec.sheet_id).position == 3


def test_counts_account_for_every_sheet_by_status_and_reason(store):
    a = store.open_batch("A", "election_day")
    store.record_sheets(
        a.id,
        [
            outcome(1, (1, 2)),
            outcome(2, (3, 4), status="needs_review", reasons=(SheetReason("overvote", contest_id="president"),)),
            outcome(3, (5,), status="rejected", reasons=(SheetReason("missing_back_page"),)),
            outcome(4, (1, 2), occurrence=1),
        ],
    )
    [c] = store.batch_counts()
    assert (c.counted, c.needs_review, c.rejected, c.duplicate, c.sheets) == (1, 1, 1, 1, 4)
    assert c.by_reason[("needs_review", "overvote")] == 1
    assert c.by_reason[("rejected", "missing_back_page")] == 1


def test_live_sheets_become_ballot_records_for_the_reports(store):
    a = store.open_batch("A", "election_day", tabulator="7")
    store.record_sheets(a.id, [outcome(1, (1, 2)), outcome(2, (3,), status="rejected")])
    [r] = list(ballot_records(store))
    assert r.batch == "A" and r.position == 1 and r.vote_type == "election_day" and r.tabulator == "7"
    assert r.ballot_id == sheet_identity([_digest(1), _digest(2)])
    assert r.images == (("p1.jpg", _digest(1)), ("p2.jpg", _digest(2)))
    assert r.interpreted.contest("president").selections == ("pres-hale",)
    assert r.marks.marks["president"]["pres-hale"].scan == "marked"
    assert r.modified is None


def test_adjudicated_votes_are_kept_beside_the_interpreted_ones(store):
    a = store.open_batch("A", "election_day")
    [rec] = store.record_sheets(a.id, [outcome(1, (1, 2))])
    store.set_modified(
        rec.sheet_id,
        [ContestVotes("president", "valid", ("pres-okafor",))],
        actor="team-1",
        note="voter's intent clear",
    )
    [r] = list(ballot_records(store))
    assert r.interpreted.contest("president").selections == ("pres-hale",)
    assert r.modified.contest("president").selections == ("pres-okafor",)
    assert r.votes.contest("us-senate").status == "undervote"
    assert list(store.events())[-1].actor == "team-1"


def test_the_readers_evidence_is_kept_for_every_read_sheet(store):
    a = store.open_batch("A", "election_day")
    [rec] = store.record_sheets(a.id, [outcome(1, (1, 2))])
    assert store.evidence(rec.sheet_id) == {"score": 0.5}


def test_the_journal_refuses_edits_and_deletions(store):
    store.log("note", data={"text": "hello"})
    refused = sqlite3.DatabaseError if not is_postgres_url(store.path) else psycopg.Error
    with pytest.raises(refused, match="append-only"):
        store._db.execute("UPDATE journal SET kind = 'other'")
    with pytest.raises(refused, match="append-only"):
        store._db.execute("DELETE FROM journal")


def test_the_journal_hash_chain_detects_an_edit(store):
    store.open_batch("A", "election_day", operator="kim")
    store.log("note", data={"text": "hello"})
    assert store.verify_events() == 3  # election bound, batch opened, note
    drop_log_triggers(store)
    store._db.execute("UPDATE journal SET actor = 'mallory' WHERE kind = 'batch_opened'")
    with pytest.raises(StoreError, match=r"entry 2 \(batch_opened\) does not match its hash"):
        store.verify_events()


def test_a_full_disk_is_a_store_error_and_leaves_no_half_written_sheet(store):
    only_on(store, "sqlite")
    a = store.open_batch("A", "election_day")
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")  # the file may not grow: as good as a full disk
    big = [outcome(n, (2 * n, 2 * n + 1)) for n in range(1, 200)]
    with pytest.raises(StoreError, match="cannot write to the store"):
        store.record_sheets(a.id, big)
    assert store.sheet_count(a.id) == 0
