"""Our Arlo exports read back the way Arlo's parsers read them (shared/formats/arlo.md), from a real store.

The readers below are written from Arlo's documented columns, not from our
writer: manifest ``Container, Tabulator, Batch Name, Number of Ballots, CVR``;
CVR ``CvrNumber, TabulatorNum, BatchId, RecordId, ImprintedId, CountingGroup,
PrecinctPortion, BallotType`` after a row of ``Contest (Vote For=N)`` headers.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import re

import pytest
from test_scan_support import OVERVOTE, PLAIN, election, fake_interpreter, page_text

from tabulate.cli import main
from tabulate.store import PageImage, SheetOutcome, open_store, sheet_identity

#: Arlo's counting-group allow-list (what a jurisdiction's "sample extra batches by counting group" accepts).
ARLO_COUNTING_GROUPS = {
    "Advanced Voting",
    "Advance Voting",
    "Election Day",
    "Elections Day",
    "Absentee by Mail",
    "Provisional",
}
CVR_ID_COLUMNS = ("CvrNumber", "TabulatorNum", "BatchId", "RecordId", "ImprintedId")


def arlo_manifest(text: str) -> dict[tuple[str, str], dict]:
    """Batches keyed by (Tabulator, Batch Name), as Arlo's manifest parser keys them."""
    rows = list(csv.DictReader(io.StringIO(text)))
    out = {}
    for row in rows:
        key = (row["Tabulator"], row["Batch Name"])
        assert key not in out, f"batch {key} listed twice"
        out[key] = {"container": row.get("Container"), "ballots": int(row["Number of Ballots"]), "cvr": row.get("CVR")}
    return out


def arlo_cvr(text: str) -> tuple[list[tuple[str, int, str]], list[dict]]:
    """Arlo's reading of a Dominion CVR: the (contest, votes allowed, choice) columns and one dict per row."""
    rows = list(csv.reader(io.StringIO(text)))
    contest_row, choice_row, header_row = rows[1], rows[2], rows[3]
    first = next(i for i, cell in enumerate(contest_row) if cell)  # the first contest column
    columns = []
    for head, choice in zip(contest_row[first:], choice_row[first:]):
        m = re.match(r"^(.+) \(Vote For=(\d+)\)$", " ".join(head.splitlines()))
        if not m:
            raise ValueError(f"Invalid contest name: {head!r}")
        columns.append((m[1], int(m[2]), choice))
    ids = header_row[:first]
    assert set(CVR_ID_COLUMNS) <= set(ids), ids
    ballots = []
    for row in rows[4:]:
        b = {name: cell.lstrip("=").strip('"') for name, cell in zip(ids, row[:first])}
        b["RecordId"] = int(b["RecordId"])
        b["votes"] = row[first:]
        ballots.append(b)
    return columns, ballots


def _sheet(e, position: int, pages: list[bytes]) -> SheetOutcome:
    digests = [hashlib.sha256(p).hexdigest() for p in pages]
    images = tuple(PageImage(f"sheet-{position}-{side}.png", d) for side, d in zip(("front", "back"), digests))
    result = fake_interpreter(e, pages)
    return SheetOutcome(
        position,
        sheet_identity(digests),
        images,
        result.status,
        reasons=result.reasons,
        style_id=result.style_id,
        precinct_id=result.precinct_id,
        evidence=result.evidence,
        marks=result.marks,
        votes=result.votes,
    )


@pytest.fixture
def box(tmp_path):
    """A batch as it sits in its box, and a store that read it.

    Papers 1-6 in feed order: plain, set aside (not an image), an overvote awaiting review, plain, the first
    sheet's files fed again (a duplicate: no paper of its own), plain.
    """
    e = election()

    def plain(n: int) -> list[bytes]:
        return [page_text(e, "1", "A101", 1, PLAIN) + f";#{n}".encode(), page_text(e, "1", "A101", 2, {}) + b";#%d" % n]

    fed = [
        plain(1),
        [b"Scanner log", b"jam"],
        [page_text(e, "1", "A101", 1, OVERVOTE), page_text(e, "1", "A101", 2, {})],
        plain(4),
        plain(1),
        plain(6),
    ]
    db = tmp_path / "store.db"
    store = open_store(db)
    store.bind_election(e, _document())
    batch = store.open_batch("tub-1", "election_day", tabulator="T2")
    sheets = [_sheet(e, k, pages) for k, pages in enumerate(fed, start=1)]
    sheets[4] = dataclasses.replace(sheets[4], occurrence=1)  # the second time these files came in this input
    recorded = store.record_sheets(batch.id, sheets)
    assert [r.status for r in recorded] == ["counted", "rejected", "needs_review", "counted", "duplicate", "counted"]
    store.close()
    # The paper in the box: store positions 1, 2, 3, 4 and 6 (position 5 repeats position 1's files).
    return db, ["tub-1 · 1", "tub-1 · 2", "tub-1 · 3", "tub-1 · 4", "tub-1 · 6"]  # ImprintedId: batch · position


def _document() -> dict:
    from test_scan_support import ELECTION_PATH

    return json.loads(ELECTION_PATH.read_text())


def _export(capsys, tmp_path, *argv) -> tuple[str, str]:
    out = tmp_path / "export.csv"
    assert main([*argv, "--out", str(out)]) == 0
    return out.read_text(), capsys.readouterr().err


def test_ballot_k_of_arlos_retrieval_list_is_the_sheet_at_position_k_of_the_box(box, capsys, tmp_path):
    """A set-aside sheet stays in its container: counted in the manifest and given a CVR row with no votes."""
    db, papers = box
    manifest = arlo_manifest(_export(capsys, tmp_path, "manifest", "--db", str(db))[0])
    columns, ballots = arlo_cvr(_export(capsys, tmp_path, "cvr", "--db", str(db), "--format", "dominion")[0])
    assert manifest == {("T2", "tub-1"): {"container": "Election Day", "ballots": len(papers), "cvr": None}}
    rows = {(b["TabulatorNum"], b["BatchId"], b["RecordId"]): b for b in ballots}
    assert len(rows) == len(ballots) == manifest[("T2", "tub-1")]["ballots"]
    for k in range(1, manifest[("T2", "tub-1")]["ballots"] + 1):  # Arlo numbers ballots 1..N and counts through the box
        assert rows[("T2", "tub-1", k)]["ImprintedId"] == papers[k - 1]
    set_aside = rows[("T2", "tub-1", 2)]
    assert set_aside["BallotType"] == "set aside: not_an_image" and set(set_aside["votes"]) == {""}
    assert {b["CountingGroup"] for b in ballots} == {"Election Day"}


def test_an_overvote_carries_the_marks_and_the_labels_agree_with_arlos_allow_list(box, capsys, tmp_path):
    """A vote-for-1 contest with two marks is two 1s (Arlo applies the overvote rule and compares marks); our
    tally still credits no one (31 KAR 6:030 Section 2(2)(b)), and so does the NIST CVR."""
    db, _papers = box
    columns, ballots = arlo_cvr(_export(capsys, tmp_path, "cvr", "--db", str(db), "--format", "dominion")[0])
    overvoted = next(b for b in ballots if b["RecordId"] == 3)
    president = {
        choice: v
        for (title, n, choice), v in zip(columns, overvoted["votes"])
        if title == "President and Vice President"
    }
    assert sorted(president.values()) == ["0"] * (len(president) - 2) + ["1", "1"]
    assert next(n for title, n, _ in columns if title == "President and Vice President") == 1
    nist = json.loads(_export(capsys, tmp_path, "cvr", "--db", str(db))[0])
    assert "PROVISIONAL: 1 sheet(s) await review" in nist["Notes"]
    manifest = arlo_manifest(_export(capsys, tmp_path, "manifest", "--db", str(db))[0])
    containers = {(b["TabulatorNum"], b["BatchId"]): b["CountingGroup"] for b in ballots}
    assert all(manifest[key]["container"] == group in ARLO_COUNTING_GROUPS for key, group in containers.items())


def test_exports_taken_while_sheets_await_review_say_so_and_final_refuses(box, capsys, tmp_path):
    db, _papers = box
    text, err = _export(capsys, tmp_path, "cvr", "--db", str(db), "--format", "dominion")
    assert "provisional: 1 sheet(s) await review" in err
    assert next(csv.reader(io.StringIO(text)))[2] == "provisional: 1 sheet(s) await review"
    for argv in (["manifest"], ["cvr"], ["election-results"], ["results"]):
        out = tmp_path / "final.out"
        assert main([*argv, "--db", str(db), "--out", str(out), "--final"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("tabulate: 1 sheet(s) still await review"), err
        assert not out.exists()
    results = _export(capsys, tmp_path, "results", "--db", str(db), "--format", "csv")[0]
    first = next(csv.DictReader(io.StringIO(results)))
    assert (first["row"], first["count"]) == ("sheets_awaiting_review", "1")
    report = json.loads(_export(capsys, tmp_path, "election-results", "--db", str(db))[0])
    assert report["Notes"].startswith("PROVISIONAL: 1 sheet(s) await review")


def test_a_hybrid_audit_manifest_has_the_cvr_column(box, capsys, tmp_path):
    db, papers = box
    text = _export(capsys, tmp_path, "manifest", "--db", str(db), "--hybrid")[0]
    assert text.splitlines()[0] == "Container,Tabulator,Batch Name,Number of Ballots,CVR"
    assert arlo_manifest(text) == {("T2", "tub-1"): {"container": "Election Day", "ballots": len(papers), "cvr": "Y"}}
