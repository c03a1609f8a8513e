"""Red-team attacks on the store file that `tabulate verify` did not notice, each now named in one line.

The attacker holds the store and sqlite3: they drop the append-only triggers
and edit rows (tests/test_journal_verify.py covers the sheets, batches and
decisions). Each test performs one attack and checks that ``verify`` exits 1
naming the row.
"""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from test_adjudicate_support import BOTH, env, fast_passwords, pg_template, template_store  # noqa: F401
from test_audit_handeye_support import counts_csv, hand_tally, truth_store, truth_template  # noqa: F401

from tabulate.adjudicate.schema import connect, transaction
from tabulate.audit.handeye import book
from tabulate.cli import main
from tabulate.store import journal

SEED = "31415926535897932384"


def _raw(db):
    """The attacker's connection: plain sqlite3, every trigger dropped."""
    raw = sqlite3.connect(db, isolation_level=None)
    for (name,) in raw.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        raw.execute(f'DROP TRIGGER "{name}"')
    return raw


def _verify(db, capsys) -> tuple[int, str]:
    code = main(["verify", "--db", str(db)])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture(scope="module")
def audited_template(truth_template, tmp_path_factory):
    """A hand-to-eye audit with both counters' tallies, the tape, a determination and a signature."""
    root = tmp_path_factory.mktemp("audited")
    db = root / "store.db"
    shutil.copy(truth_template, db)
    assert main(["audit", "select", "--db", str(db), "--seed", SEED]) == 0
    conn = connect(db)
    contest = book.get_audit(conn, 1).contest_id
    conn.close()
    hand = root / "hand.csv"
    hand.write_text(counts_csv(hand_tally(contest)))
    for name, party in (("Ann Lee", "REP"), ("Bo Diaz", "DEM")):
        args = ["--db", str(db), "--audit", "1", "--counter", name, "--party", party, "--file", str(hand)]
        assert main(["audit", "enter", *args]) == 0
    assert main(["audit", "tape", "--db", str(db), "--audit", "1", "--file", str(hand)]) == 0
    member = ["--db", str(db), "--audit", "1", "--member", "Bea Board", "--party", "DEM"]
    assert main(["audit", "determine", *member, "--text", "hand and machine agree"]) == 0
    assert main(["audit", "sign", *member]) == 0
    return db


@pytest.fixture
def audited(audited_template, tmp_path):
    db = tmp_path / "store.db"
    shutil.copy(audited_template, db)
    return db


def test_an_untouched_audit_verifies(audited, capsys):
    code, out = _verify(audited, capsys)
    assert code == 0, out


@pytest.mark.parametrize(
    "sql, named",
    [
        # A counter's tally raised to match the machine: the difference the audit found is hidden.
        ("UPDATE he_tallies SET counts = replace(counts, ': ', ': 9') WHERE id = 2", "hand-to-eye tally 2"),
        ("DELETE FROM he_tallies WHERE id = 1", "hand-to-eye tally 1 was sealed by journal entry"),
        ("UPDATE he_tapes SET counts = '{}'", "hand-to-eye tape 1 does not match"),
        ("UPDATE he_findings SET text = 'the machine miscounted' WHERE kind = 'determination'", "hand-to-eye finding"),
        ("DELETE FROM he_findings WHERE kind = 'signature'", "(deleted)"),
        (
            "INSERT INTO he_findings (audit_id, kind, author, party, text, at) "
            "VALUES (1, 'signature', 'Forged Member', 'REP', '', '2028-11-10')",
            "hand-to-eye finding 3 is not in the journal",
        ),
        ("UPDATE he_audits SET contest_id = 'other'", "hand-to-eye audit 1 does not match"),
    ],
)
def test_editing_the_hand_to_eye_audit_is_named(audited, capsys, sql, named):
    """31 KAR 4:230 Section 2(2): "Determinations and findings ... shall be recorded on a Form SBE 91"."""
    _raw(audited).execute(sql)
    code, out = _verify(audited, capsys)
    assert code == 1 and named in out, out


def _append_forged_seal(env, sheet_id: int, kind: str, data: dict) -> None:
    """Seal a sheet's row as it now is with one more journal entry: no secret is needed to extend the chain."""
    digest = dict(env.store.facts())[f"sheet:{sheet_id}"]
    with transaction(env.conn):
        journal.append(env.conn, kind, actor="board1", sheet=sheet_id, data=data, facts={f"sheet:{sheet_id}": digest})


@BOTH
def test_a_vote_moved_in_the_modified_column_and_sealed_by_an_appended_entry_is_named(env, capsys):
    """No decision was ever made on sheet 8, a counted ballot: the attacker wrote its 'adjudicated' votes.

    The journal only grew, so it still holds every head published before: ``--from-head`` passes.
    The store's changed votes are written only by applying a decision, so votes no decision holds are named.
    """
    _, published = journal.head(env.conn)
    moved = {"contest_id": "us-senate", "status": "ok", "selections": ["sen-brennan"], "overvotes": 0}
    moved.update(undervotes=0, from_straight_party=False, clauses=[])
    assert env.store.sheet(8).interpreted.contest("us-senate").selections != ("sen-brennan",)
    with transaction(env.conn):
        env.conn.execute(
            "UPDATE votes SET modified = ? WHERE sheet_id = 8 AND contest_id = 'us-senate'", (json.dumps(moved),)
        )
    _append_forged_seal(env, 8, "votes_modified", {"note": "decision 1 by board", "contests": [moved]})
    code = main(["verify", "--db", str(env.db), "--from-head", published])
    out = capsys.readouterr()
    assert code == 1 and "sheet 8 (sample · 8): its votes in us-senate were changed, but no decision" in out.err
    assert main(["results", "--db", str(env.db)]) == 2
    err = capsys.readouterr().err
    assert "no decision on it holds those votes" in err and len(err.strip().splitlines()) == 1


def test_verify_from_a_published_head_says_what_was_added_since(env, capsys):
    """A head proves nothing was lost; what was appended after it is listed for the board to read."""
    _, published = journal.head(env.conn)
    assert main(["verify", "--db", str(env.db), "--from-head", published]) == 0
    assert "nothing added" in capsys.readouterr().out
    _append_forged_seal(env, 8, "votes_modified", {"note": "looks routine"})
    assert main(["verify", "--db", str(env.db), "--from-head", published]) == 0  # the row did not change ...
    assert "1 entry added (1 votes_modified)" in capsys.readouterr().out  # ... but the entry is shown
