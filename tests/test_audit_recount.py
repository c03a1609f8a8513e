"""Recount of one race (31 KAR 4:220 Sections 9-10, KRS 120.157) on a simulated county."""

from __future__ import annotations

import io
import shutil

import pytest
from argon2 import PasswordHasher
from pypdf import PdfReader
from test_adjudicate_support import FAST_HASHER, template_store  # noqa: F401 (fixture)
from test_audit_support import county, general_document, write_election
from test_scan_support import fake_interpreter

from tabulate.adjudicate import StoreSource, add_user, connect, migrate, record_entry, users
from tabulate.adjudicate.entries import Entry
from tabulate.adjudicate.panels import board_panel
from tabulate.audit.recount import DAMAGED, OVERVOTE, BoardDecision, RecountBallot, recount_result, recount_sheets
from tabulate.audit.recount_report import recount_text, sbe49_form, sbe82_form
from tabulate.central.interpret import interpret_sheet
from tabulate.cli import main
from tabulate.commands.recount import board_decisions, original_selections, send_set_aside_to_board
from tabulate.store import open_store

RACE = "us-house-6"


@pytest.fixture(scope="module")
def general(tmp_path_factory):
    return write_election(tmp_path_factory.mktemp("general") / "election.json", general_document())


def _recount(db, election, reader=fake_interpreter, **kw):
    """What `tabulate recount` does, with the fake reader of the fake pages."""
    conn = connect(db)
    store = open_store(db, create=False)
    try:
        original = original_selections(store, conn, RACE)
        ballots = recount_sheets(election, RACE, list(store.sheets()), reader, original=original, **kw)
        return recount_result(election, RACE, ballots, decisions=board_decisions(conn, RACE))
    finally:
        store.close()
        conn.close()


def _board_decides(db, monkeypatch, machine, decisions: dict[int, tuple[str, ...]]):
    """The recount sends its set-aside ballots to the board; two of three members (a majority) enter each."""
    monkeypatch.setattr(users, "_hasher", PasswordHasher(**FAST_HASHER))
    conn = connect(db)
    migrate(conn)
    store = open_store(db, create=False)
    source = StoreSource(store)
    election = source.election()
    members = [
        add_user(conn, f"board{i}", "board", f"pw-board{i}-0123456789", party=p, actor="test")
        for i, p in enumerate(("REP", "DEM", "IND"), 1)
    ]
    panel = board_panel(conn)
    sent = send_set_aside_to_board(store, conn, machine, "test")
    assert len(sent) == len(machine.awaiting_board) and all(line.endswith("queued") for line in sent)
    results = []
    for sheet_id, chosen in decisions.items():
        sheet = source.sheet(str(sheet_id))
        marked = {c.id: (chosen if c.id == RACE else ()) for c in election.style_contests("1")}
        entry = Entry(str(sheet_id), 1, "1", sheet.precinct_id or "A101", marked, manual=sheet.status == "rejected")
        for member in members[:2]:
            results.append(record_entry(conn, source, panel, member, entry).status)
    store.close()
    conn.close()
    return results


def test_set_aside_after_three_attempts_as_overvote_or_damaged(tmp_path):
    """31 KAR 4:220 §9(3): "If, after three (3) unsuccessful attempts, a ballot does not scan, it shall be set
    aside for later adjudication." §9(4)(a) "An overvote", (c) "A damaged ballot"."""
    election, _doc, db = county(tmp_path, barr=3, king=2, overvotes=1, damaged=1)
    calls = []

    def counting_reader(e, pages):
        calls.append(pages[0][:4])
        return fake_interpreter(e, pages)

    r = _recount(db, election, counting_reader)
    aside = {b.set_aside: b for b in r.set_aside}
    assert set(aside) == {OVERVOTE, DAMAGED}
    assert aside[DAMAGED].attempts == 3 and "3 attempts" in aside[DAMAGED].why
    assert calls.count(b"torn") == 3  # the damaged sheet was tried three times, every other sheet once
    assert len(calls) == 3 + 3 + 2 + 1
    assert (sum(t.overvotes for t in r.machine), sum(t.damaged for t in r.machine)) == (1, 1)


def test_sbe82_per_tabulator_cumulative_totals_and_undervotes(tmp_path):
    """§9(2): "the cumulative totals for each slate of candidates shall be recorded on the Form SBE 82";
    §9(5): "The number of undervotes, overvotes, and damaged ballots shall be recorded on the Form SBE 82"."""
    election, _doc, db = county(tmp_path, barr=5, king=4, overvotes=1)
    r = _recount(db, election)
    by_tab = {t.tabulator: dict(t.totals) for t in r.machine}
    # Sheets alternate between tabulators 1 and 2: barr 0,2,4 on 1; 1,3 on 2; king 5,7 on 2 and 6,8 on 1.
    assert by_tab["1"]["house-barr"] == 3 and by_tab["2"]["house-barr"] == 2
    assert by_tab["1"]["house-king"] == 2 and by_tab["2"]["house-king"] == 2
    pdf = PdfReader(io.BytesIO(sbe82_form(r).to_bytes()))
    assert len(pdf.pages) >= 2  # one form per tabulator
    first = pdf.pages[0].extract_text()
    assert "Recount Tabulation Form" in first and "Undervotes" in first and "seal number" in first


def test_board_decisions_overturn_the_machine_margin(tmp_path, monkeypatch):
    """§9(11)(b): a machine margin "of 0.25% or less" and overvotes and damaged ballots "large enough to overcome
    the machine-established margin": §9(12)(a) "Each adjudicated ballot, shall, by majority vote of the county
    board of elections, result in a vote for either ... One (1) valid candidate ... or No candidate"."""
    # 201 to 200: a margin of 1 in 401 votes (0.249 %); two overvotes and one damaged ballot set aside.
    election, _doc, db = county(tmp_path, barr=201, king=200, overvotes=2, damaged=1)
    machine = _recount(db, election)
    assert machine.machine_margin.margin == 1 and machine.margin_test and machine.board_needed
    assert len(machine.awaiting_board) == 3 and not machine.complete

    aside = sorted(b.sheet_id for b in machine.set_aside)
    statuses = _board_decides(
        db, monkeypatch, machine, {aside[0]: ("house-king",), aside[1]: ("house-king",), aside[2]: ()}
    )
    assert statuses.count("decided") == 3  # the second member's entry makes the majority of three

    r = _recount(db, election)
    assert r.complete
    assert dict(r.result_margin.standings) == {"house-barr": 201, "house-king": 202}
    assert r.result_margin.elected == ("house-king",) and r.machine_margin.elected == ("house-barr",)
    assert dict(r.original_margin.standings) == {"house-barr": 201, "house-king": 200}
    # The two overvotes the board gave to King are the ballots whose result changed, each with why.
    assert sorted((c.ballot.sheet_id, c.before, c.after) for c in r.changes) == [
        (aside[0], None, ("house-king",)),
        (aside[1], None, ("house-king",)),
    ]
    assert all("the board decided by majority" in c.why for c in r.changes)
    text = recount_text(r)
    assert "COULD overcome the margin" in text and "the board decided by majority" in text
    sbe82 = "".join(p.extract_text() for p in PdfReader(io.BytesIO(sbe82_form(r).to_bytes())).pages)
    assert "board1" in sbe82 and "awaiting" not in sbe82  # each decision recorded on the SBE 82 (§9(12)(b))


def test_set_aside_ballots_that_cannot_overcome_the_margin_end_the_recount_at_the_machine_count(general):
    """§9(11)(b): "If the cumulative number of overvotes and damaged ballots is not large enough to overcome the
    machine-established margin of victory, the State Board of Elections shall notify the counties that their
    recount is complete."""
    # 402 to 400: a margin of 2 in 802 votes (0.249 %), one overvote set aside (the board decided it: ignored).
    ballots = (
        [RecountBallot(i, f"tub #{i}", "1", "A101", 1, ("house-barr",)) for i in range(402)]
        + [RecountBallot(1000 + i, f"tub #{1000 + i}", "2", "A102", 1, ("house-king",)) for i in range(400)]
        + [RecountBallot(2000, "tub #2000", "2", "A102", 1, set_aside=OVERVOTE, why="two marks")]
    )
    decided = {2000: BoardDecision(2000, ("house-king",), ("board1 (REP)", "board2 (DEM)"), "2028-11-20")}
    r = recount_result(general, RACE, ballots, decisions=decided)
    assert r.margin_test and r.overvotes_and_damaged == 1
    assert not r.board_needed and r.complete
    assert dict(r.result_margin.standings) == {"house-barr": 402, "house-king": 400}
    assert "could not overcome the margin" in recount_text(r)
    sbe49 = PdfReader(io.BytesIO(sbe49_form(r).to_bytes())).pages[0].extract_text()
    assert "Official Count and Record of Election Totals" in sbe49
    assert "402" in sbe49 and "400" in sbe49 and "complete" in sbe49


def test_recount_is_shown_beside_the_original_count_with_each_changed_ballot(tmp_path, template_store):
    """The recount re-reads the stored images with today's reader (31 KAR 6:030 §2(1)); the adjudication sample
    store holds an overvote in the U.S. House race (sheet 3) and a sheet the scanner rejected (sheet 7)."""
    db = tmp_path / "store.db"
    shutil.copy(template_store, db)
    store = open_store(db, create=False)
    election = store.election()
    sheets = [s for s in store.sheets() if s.id in (3, 7, 8)]  # the overvote, the rejected sheet, a clean one
    store.close()
    ballots = recount_sheets(election, RACE, sheets, interpret_sheet, original={s.id: () for s in sheets})
    kinds = {b.sheet_id: b.set_aside for b in ballots}
    assert kinds == {3: OVERVOTE, 7: DAMAGED, 8: None}
    r = recount_result(election, RACE, ballots)
    changed = {c.ballot.sheet_id for c in r.changes}
    # Every ballot the recount credits with a vote differs from the empty "original" given above.
    assert changed == {b.sheet_id for b in ballots if b.final}


def test_recount_command_writes_the_forms_and_exits_3_while_ballots_await_the_board(tmp_path, capsys):
    # A tie (a margin of 0, which is 0.25 % or less) and one overvote that could break it.
    election, _doc, db = county(tmp_path, barr=2, king=2, overvotes=1)
    import tabulate.commands.recount as cmd

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tabulate.central.interpret.interpret_sheet", fake_interpreter)
        code = main(
            [
                "recount",
                "--db",
                str(db),
                "--contest",
                RACE,
                "--out",
                str(tmp_path / "out"),
                "--send-to-board",
                "--workers",
                "1",
            ]
        )
    out = capsys.readouterr().out
    assert code == 3 and "AWAITING THE BOARD" in out and "sent to the board" in out
    for name in ("recount.txt", "recount-sbe82.pdf", "recount-sbe49.pdf"):
        assert (tmp_path / "out" / name).is_file()
    assert cmd.register  # the command module is importable on its own


def test_recount_of_a_question_is_one_line_exit_2(tmp_path, capsys):
    _election, _doc, db = county(tmp_path, barr=1, king=1)
    assert main(["recount", "--db", str(db), "--contest", "amendment-1"]) == 2
    assert "is a question" in capsys.readouterr().err
