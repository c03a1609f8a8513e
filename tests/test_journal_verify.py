"""Issue 10's attacks on the store file, each caught by `tabulate verify` and refused by every report.

The attacker has the store file and sqlite3 (on a copy, or the real one): they
drop the triggers and edit rows. The journal seals every row a result
depends on, so each edit is named in one line, and the reports refuse to
count from such a store unless told ``--unverified``, which they then say.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from test_adjudicate_support import BOTH, MARGINAL, env, fast_passwords, pg_template, template_store  # noqa: F401
from test_adjudicate_tally import _decide_everything

from tabulate.cli import main
from tabulate.store import journal


def _raw(db):
    """The attacker's connection: plain sqlite3, triggers dropped."""
    raw = sqlite3.connect(db, isolation_level=None)
    raw.execute("DROP TRIGGER IF EXISTS journal_no_update")
    raw.execute("DROP TRIGGER IF EXISTS journal_no_delete")
    return raw


def _verify(db, capsys, *extra) -> tuple[int, str]:
    code = main(["verify", "--db", str(db), *extra])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture
def decided(env):
    """The sample store with every flagged ballot decided by a team, and the store told."""
    _decide_everything(env)
    return env


def _decision_of(env, sheet_id):
    return env.conn.execute("SELECT id, after_votes FROM adj_decisions WHERE sheet_id = ?", (sheet_id,)).fetchone()


@BOTH
def test_an_untouched_store_verifies_and_prints_its_head(decided, capsys):
    code, out = _verify(decided.db, capsys)
    seq, digest = journal.head(decided.conn)
    assert code == 0 and f"head {seq} {digest}" in out
    assert main(["status", "--db", str(decided.db)]) == 0
    assert f"entry {seq} {digest}" in capsys.readouterr().out


def test_moving_a_vote_in_a_decision_row_is_named_and_the_results_refuse(decided, capsys):
    decision_id, after = _decision_of(decided, MARGINAL)
    moved = after.replace('"sen-brennan"', '"sen-caldwell"')
    assert moved != after
    _raw(decided.db).execute("UPDATE adj_decisions SET after_votes = ? WHERE id = ?", (moved, decision_id))
    code, out = _verify(decided.db, capsys)
    assert code == 1 and f"decision {decision_id} (sheet {MARGINAL}) does not match journal entry" in out
    assert main(["results", "--db", str(decided.db)]) == 2
    err = capsys.readouterr().err
    assert "does not verify" in err and len(err.strip().splitlines()) == 1


def test_unverified_overrides_and_says_so_on_the_report(decided, capsys, tmp_path):
    decision_id, after = _decision_of(decided, MARGINAL)
    _raw(decided.db).execute(
        "UPDATE adj_decisions SET after_votes = ? WHERE id = ?",
        (after.replace('"sen-brennan"', '"sen-caldwell"'), decision_id),
    )
    assert main(["results", "--db", str(decided.db), "--unverified"]) == 0
    assert capsys.readouterr().out.startswith("# UNVERIFIED: ")
    out = tmp_path / "results.json"
    assert main(["results", "--db", str(decided.db), "--format", "json", "--unverified", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["UNVERIFIED"].startswith("UNVERIFIED: made with --unverified")
    assert json.loads((tmp_path / "results.json.manifest.json").read_text())["verified"] is False


def test_deleting_a_decision_row_is_named(decided, capsys):
    decision_id, _ = _decision_of(decided, MARGINAL)
    _raw(decided.db).execute("DELETE FROM adj_decisions WHERE id = ?", (decision_id,))
    code, out = _verify(decided.db, capsys)
    assert code == 1 and f"decision {decision_id} was sealed by journal entry" in out and "(deleted)" in out
    assert main(["cvr", "--db", str(decided.db), "--out", str(decided.db.parent / "cvr.json")]) == 2


def test_a_forged_decision_row_is_named(env, capsys):
    """A never-reviewed ballot 'decided' by a row written with sqlite3."""
    row = {"contests": [], "ballot_id": "x", "style_id": "1"}
    _raw(env.db).execute(
        "INSERT INTO adj_decisions (id, sheet_id, round, panel, decided_by, members, payload, before_votes, "
        "after_votes, write_ins, why, created_at) VALUES (99, ?, 1, 'team:1', 'team', '[]', '{}', '{}', ?, '{}', "
        "'{}', '2028-11-07')",
        (MARGINAL, json.dumps(row)),
    )
    code, out = _verify(env.db, capsys)
    assert code == 1 and "decision 99 (sheet 1) is not in the journal" in out


@pytest.mark.parametrize(
    "sql, named",
    [
        (
            "UPDATE votes SET selections = '[\"sen-forged\"]' WHERE sheet_id = 8 AND contest_id = 'us-senate'",
            "sheet 8 (sample · 8) does not match",
        ),
        ("UPDATE sheets SET status = 'rejected' WHERE id = 9", "sheet 9 (sample · 9) does not match"),
        ("UPDATE sheets SET status = 'counted' WHERE id = 3", "sheet 3 (sample · 3) does not match"),
        ("DELETE FROM votes WHERE sheet_id = 10", "sheet 10 (sample · 10) does not match"),
        ("UPDATE pages SET sha256 = '00' WHERE sheet_id = 11 AND side = 1", "sheet 11 (sample · 11) does not match"),
        ("UPDATE batches SET vote_type = 'provisional'", "batch 1 does not match"),
    ],
)
def test_editing_the_stores_rows_is_named(env, capsys, sql, named):
    _raw(env.db).execute(sql)
    code, out = _verify(env.db, capsys)
    assert code == 1 and named in out


def test_a_malformed_decision_row_is_one_line_not_a_traceback(decided, capsys):
    decision_id, _ = _decision_of(decided, MARGINAL)
    _raw(decided.db).execute("UPDATE adj_decisions SET after_votes = '{\"contests\": 5}' WHERE id = ?", (decision_id,))
    assert main(["results", "--db", str(decided.db)]) == 2
    assert main(["results", "--db", str(decided.db), "--unverified"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"decision {decision_id} (sheet {MARGINAL}) cannot be read" in err


def _rewrite_from(raw, seq: int, change) -> None:
    """Edit entry ``seq`` and recompute every later hash, as a careful attacker would."""
    rows = raw.execute(
        "SELECT seq, at, kind, actor, sheet, data, facts, prev_hash FROM journal WHERE seq >= ? ORDER BY seq", (seq,)
    ).fetchall()
    prev = raw.execute("SELECT hash FROM journal WHERE seq = ?", (seq - 1,)).fetchone()[0]
    for n, (s, at, kind, actor, sheet, data, facts, _) in enumerate(rows):
        data, facts = json.loads(data), json.loads(facts)
        if n == 0:
            actor, data, facts = change(actor, data, facts)
        digest = journal.entry_hash(s, at, kind, actor, sheet, data, facts, prev)
        raw.execute(
            "UPDATE journal SET actor = ?, data = ?, facts = ?, prev_hash = ?, hash = ? WHERE seq = ?",
            (actor, journal._text(data), journal._text(facts), prev, digest, s),
        )
        prev = digest


def test_a_rewritten_tail_is_caught_against_the_published_head(decided, capsys):
    _, published = journal.head(decided.conn)
    first_decision = next(e.seq for e in journal.entries(decided.conn, kind="decision"))
    _rewrite_from(_raw(decided.db), first_decision, lambda actor, data, facts: ("mallory", data, facts))
    assert _verify(decided.db, capsys)[0] == 0  # the chain alone is consistent again ...
    code, out = _verify(decided.db, capsys, "--from-head", published)
    assert code == 1 and "does not contain the published head" in out  # ... but not with what was published


def test_a_truncated_journal_is_caught_against_the_published_head(decided, capsys):
    seq, published = journal.head(decided.conn)
    _raw(decided.db).execute("DELETE FROM journal WHERE seq > ?", (seq - 2,))
    code, out = _verify(decided.db, capsys, "--from-head", published)
    assert code == 1 and "does not contain the published head" in out and f"ends at entry {seq - 2}" in out


def test_votes_resealed_by_a_forged_entry_still_fail_the_rules_reapplied(env, capsys):
    """An attacker who also rewrites the journal (no head published) is caught by 31 KAR 6:030 re-applied."""
    raw = _raw(env.db)
    raw.execute("UPDATE votes SET selections = '[\"sen-forged\"]' WHERE sheet_id = 8 AND contest_id = 'us-senate'")
    env.store._db.execute("BEGIN IMMEDIATE")
    facts = env.store._sheet_facts(env.store._db, [8])  # the forged row's fact, as the store would seal it
    env.store._db.execute("ROLLBACK")
    sealing = next(e.seq for e in journal.entries(env.conn) if "sheet:8" in e.facts)
    _rewrite_from(raw, sealing, lambda actor, data, old: (actor, data, {**old, **facts}))
    code, out = _verify(env.db, capsys, "--fast")
    assert code == 0  # the sealed rows agree with the forged journal ...
    code, out = _verify(env.db, capsys)
    assert code == 1 and "sheet 8 (sample · 8): re-applying the rules to its marks gives" in out  # ... the law does not


def test_a_decision_resealed_by_a_forged_entry_fails_when_re_derived(decided, capsys):
    decision_id, after = _decision_of(decided, MARGINAL)
    raw = _raw(decided.db)
    raw.execute(
        "UPDATE adj_decisions SET after_votes = ? WHERE id = ?",
        (after.replace('"sen-brennan"', '"sen-caldwell"'), decision_id),
    )
    from tabulate.adjudicate.sealing import seal_decision

    sealing = next(e.seq for e in journal.entries(decided.conn) if f"decision:{decision_id}" in e.facts)
    _rewrite_from(raw, sealing, lambda actor, data, old: (actor, data, {**old, **seal_decision(raw, decision_id)}))
    code, out = _verify(decided.db, capsys)
    assert code == 1 and f"decision {decision_id} (sheet {MARGINAL}): its stored votes do not follow" in out


def _as_schema_1(db):
    """What a store written before the journal looks like: no journal table, schema version 1."""
    raw = _raw(db)
    raw.execute("DROP TABLE journal")
    raw.execute("UPDATE schema_version SET version = 1")
    raw.execute("UPDATE adj_meta SET value = '2' WHERE key = 'schema_version'")  # accounts not sealed yet either
    raw.execute(
        "INSERT INTO events (at, kind, data, prev_hash, hash) VALUES ('t', 'old', '{}', ?, ?)", ("0" * 64, "ab" * 32)
    )
    raw.close()


def test_a_schema_1_store_is_sealed_once_on_upgrade_with_its_old_logs_head(env, capsys):
    env.close()
    _as_schema_1(env.db)
    from tabulate.store import open_store

    open_store(env.db, create=False).close()
    from tabulate.adjudicate.schema import connect

    conn = connect(env.db)
    first = next(journal.entries(conn))
    conn.close()
    assert first.kind == "journal_started" and first.data["legacy_events_head"] == "ab" * 32
    assert "sheet:1" in first.facts and "batch:1" in first.facts
    assert _verify(env.db, capsys)[0] == 0


def test_an_emptied_journal_is_not_sealed_again(env, capsys):
    _raw(env.db).execute("DELETE FROM journal")
    code, out = _verify(env.db, capsys)
    assert code == 1 and "is not in the journal" in out


def test_status_checks_the_one_journal_adjudications_entries_included(decided, capsys):
    """Issue 10: `tabulate status` checked only the store's event log, and exited 0 when it was broken."""
    entry = next(journal.entries(decided.conn, kind="decision"))
    _raw(decided.db).execute("UPDATE journal SET actor = 'mallory' WHERE seq = ?", (entry.seq,))
    assert main(["status", "--db", str(decided.db)]) == 1
    assert (
        f"BROKEN: {decided.db}: journal entry {entry.seq} (decision) does not match its hash" in capsys.readouterr().out
    )
