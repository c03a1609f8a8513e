"""``tabulate audit``: a whole hand-to-eye audit on the command line, PDFs read back with pypdf."""

from __future__ import annotations

import json
import re

import pytest
from pypdf import PdfReader
from test_audit_handeye_support import counts_csv, hand_tally, truth_store, truth_template  # noqa: F401

from tabulate.cli import main

SEED = "31415926535897932384"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["audit", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def pdf_text(path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(path).pages)


@pytest.fixture
def selected(truth_store, capsys):
    code, out, _ = run(capsys, "select", "--db", truth_store, "--seed", SEED)
    assert code == 0
    race = re.search(r"race (\S+)", out).group(1)
    return truth_store, race, out


def test_select_prints_the_seed_the_lists_and_the_choice(selected):
    _, race, out = selected
    assert "hand-to-eye audit 1: scanner 1" in out and SEED in out
    assert "scanners chosen from (1): 1" in out and f"{race}" in out.split("races on scanner 1")[1]


def test_a_whole_audit_mismatch_reentry_compare_and_findings(selected, capsys, tmp_path, monkeypatch):
    db, race, _ = selected
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1800000000")
    code, out, _ = run(capsys, "sheets", "--db", db, "--audit", 1, "--out", tmp_path)
    sheets = tmp_path / "handeye-audit-1-sheets.pdf"
    assert code == 0 and sheets.exists()
    text = pdf_text(sheets)
    assert "Tally sheet of counter 1" in text and "Tally sheet of counter 2" in text
    assert "Ballots with this race: 18" in text and "Retrieval list" in text and "election-day-1" in text

    hand = hand_tally(race)
    right, wrong = tmp_path / "right.csv", tmp_path / "wrong.csv"
    right.write_text(counts_csv(hand))
    first = next(iter(hand))
    wrong.write_text(counts_csv(dict(hand, **{first: hand[first] + 2})))
    assert (
        run(capsys, "enter", "--db", db, "--audit", 1, "--counter", "Ann Lee", "--party", "REP", "--file", right)[0]
        == 0
    )
    code, _, err = run(
        capsys, "enter", "--db", db, "--audit", 1, "--counter", "Bo Diaz", "--party", "REP", "--file", wrong
    )
    assert code == 2 and "must not be of the same political party" in err and "Traceback" not in err
    code, out, _ = run(
        capsys, "enter", "--db", db, "--audit", 1, "--counter", "Bo Diaz", "--party", "DEM", "--file", wrong
    )
    assert code == 1 and "DIFFER on: " in out
    for name, party in (("Ann Lee", "REP"), ("Bo Diaz", "DEM")):
        code, out, _ = run(
            capsys, "enter", "--db", db, "--audit", 1, "--counter", name, "--party", party, "--file", right
        )
    assert code == 0 and "attempt 2" in out and "match" in out

    code, out, _ = run(capsys, "compare", "--db", db, "--audit", 1, "--json")
    doc = json.loads(out)
    assert [a["matched"] for a in doc["attempts"]] == [False, True]
    assert {r["option_id"]: r["hand"] for r in doc["comparison"]} == hand
    assert doc["explanation"]["total_unexplained"] == 0 and doc["same_ballots_as_predicted"]
    diff = {r["option_id"]: r["difference"] for r in doc["comparison"]}
    machine = {r["option_id"]: r["machine"] for r in doc["comparison"]}
    assert any(diff.values())

    tape = tmp_path / "tape.csv"
    tape.write_text(counts_csv(machine))
    assert run(capsys, "tape", "--db", db, "--audit", 1, "--file", tape)[0] == 0
    assert (
        run(
            capsys,
            "determine",
            "--db",
            db,
            "--audit",
            1,
            "--member",
            "Bea Board",
            "--party",
            "DEM",
            "--text",
            "Every difference is a mark a hand count reads under 31 KAR 6:030 §3(1).",
        )[0]
        == 0
    )
    assert run(capsys, "sign", "--db", db, "--audit", 1, "--member", "Bea Board", "--party", "DEM")[0] == 0
    code, _, err = run(capsys, "determine", "--db", db, "--audit", 1, "--member", "Cal", "--text", "late")
    assert code == 2 and "only annotated" in err
    assert run(capsys, "annotate", "--db", db, "--audit", 1, "--member", "Cal", "--text", "copy sent")[0] == 0

    out_pdf = tmp_path / "findings.pdf"
    assert run(capsys, "report", "--db", db, "--audit", 1, "--out", out_pdf)[0] == 0
    text = pdf_text(out_pdf)
    doc = json.loads(out_pdf.with_suffix(".json").read_text())
    assert doc["signed"] and doc["tape"]["counts"] == machine and doc["annotations"][0]["text"] == "copy sent"
    assert "Attempt 1" in text and "Attempt 2" in text and "Bea Board (DEM)" in text
    for row in doc["comparison"]:  # hand, machine, difference and tape of every option, in the PDF's text
        cells = (
            row["label"],
            row["hand"],
            row["machine"],
            f"{row['difference']:+d}",
            row["tape"],
            f"{row['tape_difference']:+d}",
        )
        assert re.search(r"\s+".join(re.escape(str(c)) for c in cells), text), row
    assert f"Difference in all: {doc['explanation']['total_difference']} votes" in text
    assert "unexplained: 0 (100.0 % explained)" in text
    first_bytes = out_pdf.read_bytes()
    assert run(capsys, "report", "--db", db, "--audit", 1, "--out", out_pdf)[0] == 0
    assert out_pdf.read_bytes() == first_bytes  # same audit, same SOURCE_DATE_EPOCH: same bytes

    assert main(["log", "verify", "--db", str(db)]) == 0


def test_an_unknown_audit_is_one_line(truth_store, capsys):
    code, _, err = run(capsys, "compare", "--db", truth_store, "--audit", 9)
    assert code == 2 and err.strip() == "tabulate: there is no hand-to-eye audit 9 in this store"


def test_an_announced_selection_that_is_not_possible_is_one_line(truth_store, capsys):
    code, _, err = run(capsys, "select", "--db", truth_store, "--tabulator", "1", "--contest", "amendment-1")
    assert code == 2 and "was not tabulated on scanner 1" in err


def test_a_tally_typed_in_option_by_option(selected, capsys, monkeypatch):
    db, race, _ = selected
    hand = hand_tally(race)
    answers = iter(str(v) for v in hand.values())
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    code, out, _ = run(capsys, "enter", "--db", db, "--audit", 1, "--counter", "Ann", "--party", "LIB")
    assert code == 0 and "waiting for the second counter" in out
