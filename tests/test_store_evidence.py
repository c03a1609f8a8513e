"""The store's compact evidence (schema 3): lossless, deterministic, sealed, and a schema-2 store still reads.

Issue 17: "at most 4 kB per sheet, keeping all evidence needed to explain and
re-derive every vote". The reader's evidence is kept as a binary blob
(`tabulate.store.evidence`), the marks zlib-compressed; every reader goes
through `decode_evidence` and gets the reader's ``SheetReading.to_dict``
document back exactly (``timings_ms`` aside).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import zlib

import pytest
from test_adjudicate_support import template_store  # noqa: F401 - a fixture
from test_scan_support import ELECTION_PATH

from tabulate.cli import main
from tabulate.election import load_election
from tabulate.store import open_store
from tabulate.store._schema import SCHEMA_VERSION
from tabulate.store.evidence import (
    MAGIC,
    EvidenceError,
    decode_evidence,
    decode_marks,
    encode_evidence,
    encode_marks,
    evidence_digest,
)
from tabulate.store.records import ballot_records

FEATURES = ("dark", "erasure", "ring", "crossings", "marking", "write_in", "dx_px", "dy_px", "match", "paper", "deep")


@pytest.fixture(scope="module")
def election():
    return load_election(ELECTION_PATH)


def _target(n: int, cid: str, oid: str, score: float, scan: str, clauses=()) -> dict:
    values = (score, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, -2.0, 0.4889 - n / 1e4, 225.0625, 0.6273)
    return {
        "contest_id": cid,
        "option_id": oid,
        "kind": "candidate",
        "score": score,
        "scan": scan,
        "hand": scan,
        "hand_clauses": list(clauses),
        "features": dict(zip(FEATURES, values)),
    }


def _reading() -> dict:
    """A reading in the reader's own shape (`SheetReading.to_dict`), two pages."""
    page = {
        "source": "<bytes>",
        "index": 0,
        "digest": "06b1da09c37484f5f8acb2d5ab6a49199c4a9bf21caf70681660803730aebb3d",
        "ok": True,
        "reason_code": None,
        "reason": None,
        "style_code": {"hash_prefix": "657d017dcc45", "style_id": "3", "precinct_id": "C302", "page": 1},
        "size_px": [1780, 2280],
        "dpi": 200.0,
        "rotation": 0,
        "skew_deg": -0.381,
        "scale": [1.0175, 1.0175],
        "residual_in": 0.00075,
        "transform": [203.489983, 1.331063, 6.25338, -1.353741, 203.490613, 10.852502],
        "paper": 225.1,
        "ink": 29.1,
        "targets": [
            _target(0, "president", "pres-hale", 0.0001, "unmarked"),
            _target(1, "president", "pres-lindqvist", 0.6165, "marked", ["6:030 s3(1)(a) majority filled"]),
            _target(2, "us-senate", "sen-brennan", 0.1234, "marginal", ["6:030 s3(1) partial evidence of a mark"]),
        ],
        "flags": [],
        "timings_ms": {"decode": 3.141, "read": 2.718},
    }
    back = {**page, "index": 1, "digest": "ab" * 32, "targets": [], "timings_ms": {}}
    return {
        "ballot_id": "9ee5f9f88d9167cec1fa",
        "ok": True,
        "reason_code": None,
        "reason": None,
        "style_id": "3",
        "precinct_id": "C302",
        "flags": [],
        "pages": [page, back],
    }


def _without_timings(doc: dict) -> dict:
    return {**doc, "pages": [{**p, "timings_ms": {}} for p in doc["pages"]]}


def test_the_readers_evidence_comes_back_exactly_but_for_the_timings():
    doc = _reading()
    blob = encode_evidence(doc)
    assert blob.startswith(MAGIC)
    back = decode_evidence(blob)
    # Same values and the same JSON text: same keys in the same order, 0.6165 not 0.61650001.
    assert back == _without_timings(doc)
    assert json.dumps(back) == json.dumps(_without_timings(doc))


def test_the_same_reading_gives_the_same_bytes_whatever_the_timings():
    a, b = _reading(), _reading()
    b["pages"][0]["timings_ms"] = {"decode": 99.0}
    assert encode_evidence(a) == encode_evidence(b)


def test_numbers_off_the_readers_grid_are_kept_exactly_never_rounded_again():
    doc = _reading()
    doc["pages"][0]["targets"][0]["score"] = 1 / 3  # not a count of 1/10,000
    doc["pages"][0]["targets"][1]["features"]["paper"] = float("nan")
    doc["pages"][0]["skew_deg"] = 1 / 3  # a page's geometry: millionths only where exact
    doc["pages"][0]["transform"][2] = 2.0**-30
    back = decode_evidence(encode_evidence(doc))
    assert back["pages"][0]["targets"][0]["score"] == 1 / 3
    assert json.dumps(back) == json.dumps(_without_timings(doc))


def test_a_reader_with_other_features_keeps_their_names():
    doc = _reading()
    for t in doc["pages"][0]["targets"]:
        t["features"] = {"dark": t["features"]["dark"], "new_feature": 0.25}
    assert decode_evidence(encode_evidence(doc)) == _without_timings(doc)


def test_evidence_in_another_shape_is_kept_as_it_is():
    """`tabulate review-sample` and tests write evidence of their own shape: ints, missing keys."""
    for doc in ({"score": 0.5}, {"pages": [{"targets": [{"contest_id": "c", "score": 1}]}]}, {"pages": []}):
        assert decode_evidence(encode_evidence(doc)) == doc


def test_evidence_written_by_schema_2_still_reads_and_keeps_its_sealed_digest():
    text = json.dumps(_reading(), separators=(",", ":"))
    legacy = zlib.compress(text.encode("utf-8"), 1)
    assert decode_evidence(legacy) == _reading()
    # Schema 2 sealed the SHA-256 of the JSON text: the same digest, so its journal still verifies.
    assert evidence_digest(legacy) == hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_a_damaged_blob_is_an_evidence_error_not_a_crash():
    blob = encode_evidence(_reading())
    with pytest.raises(EvidenceError):
        decode_evidence(blob[:-7])
    with pytest.raises(EvidenceError):
        decode_evidence(MAGIC + zlib.compress(b"\xc1 not msgpack"))


def test_the_marks_come_back_byte_for_byte_and_never_from_two_columns():
    text = '{"id":"x","style":"1","marks":{"president":{"pres-hale":{"scan":"marked","hand":"marked","score":0.6}}}}'
    assert decode_marks(encode_marks(text)) == text
    assert decode_marks(None, text) == text  # schema 2: plain text in ``marks``
    with pytest.raises(EvidenceError):
        decode_marks(encode_marks(text), text)


def test_marks_kept_against_the_elections_dictionary_need_that_election(election):
    text = '{"id":"x","style":"1","marks":{"president":{"pres-hale":{"scan":"marked","hand":"marked","score":0.6}}}}'
    packed = encode_marks(text, election)
    assert decode_marks(packed, None, election) == text
    assert len(packed) < len(encode_marks(text))
    with pytest.raises(EvidenceError):
        decode_marks(packed)  # the stream names its dictionary: never read without it


def test_targets_the_election_names_are_kept_as_their_place_in_it(election):
    doc = _reading()
    blob = encode_evidence(doc, election)
    assert decode_evidence(blob, election) == _without_timings(doc)
    assert len(blob) < len(encode_evidence(doc))
    with pytest.raises(EvidenceError, match="with the election"):
        decode_evidence(blob)


def _as_schema_2(db) -> None:
    """Rewrite a schema-3 store as schema 2 wrote it (JSON evidence, plain marks), sealed as schema 2 sealed it."""
    store = open_store(db, create=False)
    raw = store._db
    rows = raw.execute("SELECT sheet_id, evidence, marks_z FROM readings").fetchall()
    store._db.execute("BEGIN IMMEDIATE")
    for sid, blob, packed in rows:
        text = None if blob is None else json.dumps(store.evidence(sid), separators=(",", ":"))
        raw.execute(
            "UPDATE readings SET evidence = ?, marks = ?, marks_z = NULL WHERE sheet_id = ?",
            (
                None if text is None else zlib.compress(text.encode(), 1),
                store.sheet(sid).marks if packed else None,
                sid,
            ),
        )
    ids = [r[0] for r in raw.execute("SELECT id FROM sheets")]
    store._append_event(raw, "sheets_recorded", data={"as": "schema 2"}, facts=store._sheet_facts(raw, ids))
    store._db.execute("COMMIT")
    store.close()
    raw = sqlite3.connect(db)
    raw.execute("ALTER TABLE readings DROP COLUMN marks_z")
    raw.execute("UPDATE schema_version SET version = 2")
    raw.commit()
    raw.close()


def test_a_schema_2_store_opens_migrates_verifies_and_explains_as_before(template_store, tmp_path, capsys):
    db = tmp_path / "store.db"
    shutil.copy(template_store, db)
    store = open_store(db, create=False)
    before = [(r.ballot_id, r.marks, r.interpreted) for r in ballot_records(store)]
    evidence_before = {s.id: store.evidence(s.id) for s in store.sheets()}
    store.close()
    _as_schema_2(db)

    store = open_store(db, create=False)  # migrates to schema 3 (and on); the old rows stay as they are
    assert store._db.execute("SELECT version FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    assert store._db.execute("SELECT COUNT(*) FROM readings WHERE marks_z IS NOT NULL").fetchone()[0] == 0
    assert [(r.ballot_id, r.marks, r.interpreted) for r in ballot_records(store)] == before
    assert {s.id: store.evidence(s.id) for s in store.sheets()} == evidence_before
    store.close()
    assert main(["verify", "--db", str(db)]) == 0, capsys.readouterr().out

    # An edit to an old row's evidence is still caught.
    raw = sqlite3.connect(db)
    raw.execute("UPDATE readings SET evidence = ? WHERE sheet_id = 1", (zlib.compress(b'{"forged":1}'),))
    raw.commit()
    raw.close()
    capsys.readouterr()
    assert main(["verify", "--db", str(db)]) == 1
    assert "sheet 1 (sample · 1) does not match journal entry" in capsys.readouterr().err


def test_a_new_store_keeps_evidence_compact_and_marks_compressed(template_store):
    store = open_store(template_store, create=False)
    rows = store._db.execute("SELECT evidence, marks, marks_z FROM readings").fetchall()
    store.close()
    assert rows and all(e is None or bytes(e).startswith(MAGIC) for e, _, _ in rows)
    assert all(m is None for _, m, _ in rows)
    assert any(z is not None for _, _, z in rows)
