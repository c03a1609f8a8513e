"""Signed export manifests (`tabulate keys make`, every export's manifest, `tabulate verify-export`) and
CSV cells neutralised against formula injection (OWASP)."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3

import pytest
from test_adjudicate_support import template_store  # noqa: F401

from tabulate.cli import main
from tabulate.report.csvsafe import neutralise
from tabulate.store import journal


@pytest.fixture
def db(template_store, tmp_path):
    shutil.copy(template_store, tmp_path / "store.db")
    return tmp_path / "store.db"


@pytest.fixture
def keys(tmp_path):
    folder = tmp_path / "keys"
    folder.mkdir()
    assert main(["keys", "make", "--out", str(folder)]) == 0
    return folder / "county.key", folder / "county.pub"


def test_keys_make_writes_a_private_key_only_its_owner_reads_and_never_overwrites(keys, capsys):
    private, public = keys
    assert private.stat().st_mode & 0o077 == 0 and b"PRIVATE KEY" in private.read_bytes()
    assert b"PUBLIC KEY" in public.read_bytes()
    assert main(["keys", "make", "--out", str(private.parent)]) == 2
    assert "already exists" in capsys.readouterr().err


def test_an_export_is_signed_with_the_stores_head_and_verifies(db, keys, tmp_path, capsys):
    private, public = keys
    out = tmp_path / "cvr.json"
    assert main(["cvr", "--db", str(db), "--out", str(out), "--key", str(private)]) == 0
    manifest = json.loads((tmp_path / "cvr.json.manifest.json").read_text())
    assert manifest["verified"] is True and manifest["software"].startswith("tabulate ")
    assert manifest["files"][0]["name"] == "cvr.json"
    assert main(["verify-export", str(out), "--public-key", str(public)]) == 0
    assert "verified: 1 file(s), signature by the county key given" in capsys.readouterr().out


def test_the_manifest_names_the_head_the_export_was_made_from(db, keys, tmp_path):
    conn = sqlite3.connect(db)
    before = journal.head(conn)
    out = tmp_path / "results.csv"
    assert main(["results", "--db", str(db), "--format", "csv", "--out", str(out), "--key", str(keys[0])]) == 0
    manifest = json.loads((tmp_path / "results.csv.manifest.json").read_text())
    assert manifest["store_head"] == {"entry": before[0], "hash": before[1]}


@pytest.mark.parametrize(
    "tamper, problem",
    [
        (lambda out, m: out.write_text(out.read_text().replace("1", "2", 1)), "differs from the signed manifest"),
        (
            lambda out, m: m.write_text(m.read_text().replace('"verified": true', '"verified": false')),
            "signature does not match",
        ),
    ],
)
def test_verify_export_names_a_changed_file_or_manifest(db, keys, tmp_path, capsys, tamper, problem):
    out = tmp_path / "results.csv"
    assert main(["results", "--db", str(db), "--format", "csv", "--out", str(out), "--key", str(keys[0])]) == 0
    tamper(out, tmp_path / "results.csv.manifest.json")
    capsys.readouterr()
    assert main(["verify-export", str(out), "--public-key", str(keys[1])]) == 1
    assert problem in capsys.readouterr().err


def test_a_manifest_signed_by_another_key_is_refused(db, keys, tmp_path, capsys):
    other = tmp_path / "other"
    other.mkdir()
    assert main(["keys", "make", "--out", str(other)]) == 0
    out = tmp_path / "results.csv"
    assert (
        main(["results", "--db", str(db), "--format", "csv", "--out", str(out), "--key", str(other / "county.key")])
        == 0
    )
    capsys.readouterr()
    assert main(["verify-export", str(out), "--public-key", str(keys[1])]) == 1
    assert "signed by another key" in capsys.readouterr().err


def test_an_unsigned_export_does_not_verify(db, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("TABULATE_SIGNING_KEY", raising=False)
    out = tmp_path / "results.csv"
    assert main(["results", "--db", str(db), "--format", "csv", "--out", str(out)]) == 0
    assert main(["verify-export", str(out)]) == 1
    assert "is not signed" in capsys.readouterr().err


def test_two_signed_exports_of_one_store_are_byte_identical(db, keys, tmp_path):
    """Ed25519 is deterministic and the manifest holds no clock time (each export is journaled, so two copies)."""
    a, b = tmp_path / "a" / "m.csv", tmp_path / "b" / "m.csv"
    for out in (a, b):
        out.parent.mkdir()
        shutil.copy(db, out.parent / "store.db")
        assert main(["manifest", "--db", str(out.parent / "store.db"), "--out", str(out), "--key", str(keys[0])]) == 0
    assert (a.parent / "m.csv.manifest.json").read_bytes() == (b.parent / "m.csv.manifest.json").read_bytes()


@pytest.mark.parametrize(
    "cell, safe",
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+1+2", "'+1+2"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("-3", "-3"),
        ("1.5", "1.5"),
        ("Precinct A", "Precinct A"),
        (7, 7),
    ],
)
def test_formula_leading_cells_are_neutralised_owasp(cell, safe):
    assert neutralise(cell) == safe


def test_a_batch_named_like_a_formula_is_neutralised_in_the_ballot_manifest(db, tmp_path):
    raw = sqlite3.connect(db)
    raw.execute("UPDATE batches SET name = '=cmd|'' /C calc''!A0'")  # as an attacker naming a batch would
    raw.commit()
    raw.close()
    out = tmp_path / "manifest.csv"
    assert main(["manifest", "--db", str(db), "--out", str(out), "--unverified"]) == 0
    rows = list(csv.reader(io.StringIO(out.read_text())))
    cells = [c for row in rows for c in row]
    assert not any(c.startswith(("=", "+", "@")) for c in cells)
    assert "'=cmd|' /C calc'!A0" in cells
