"""After review the tallies differ from those before exactly by the decisions made, and the CVR shows them."""

from __future__ import annotations

from collections import Counter

from test_adjudicate_support import (  # noqa: F401
    BESIDE_NAME,
    DAMAGED,
    MARGINAL,
    NAME_NO_MARK,
    OVERVOTE,
    SAME_NAME,
    WRITE_IN,
    env,
    fast_passwords,
    machine_entry,
    team,
    template_store,
)

from tabulate.adjudicate import decisions, hand_entry, leases, queue, recording
from tabulate.adjudicate.entries import NOT_COUNTED
from tabulate.adjudicate.records import adjudicated_records, votes_from_dict
from tabulate.report.nist_cvr_sheet import cast_vote_record
from tabulate.report.tally import tally_records


def _decide_everything(env):
    """One team decides the whole queue the way a careful team would."""
    queue.sync(env.conn, env.source)
    hand_entry.set_aside_for_hand_entry(env.conn, env.source, DAMAGED, actor="board1", attempts_confirmed=True)
    t = team(env, "alice", "bob")
    entries = {
        MARGINAL: machine_entry(env, MARGINAL, mark=[("us-senate", "sen-brennan")]),
        WRITE_IN: machine_entry(env, WRITE_IN, write_ins=[("president", "write-in-1", "Al Monroe", "pres-wi-monroe")]),
        OVERVOTE: machine_entry(env, OVERVOTE),  # a true overvote, confirmed
        NAME_NO_MARK: machine_entry(
            env,
            NAME_NO_MARK,
            mark=[("us-senate", "write-in-1")],
            write_ins=[("us-senate", "write-in-1", "Jenna Foster", "sen-wi-foster")],
        ),
        BESIDE_NAME: machine_entry(env, BESIDE_NAME, mark=[("state-senate-7", "ss-adeyemi")]),
        SAME_NAME: machine_entry(env, SAME_NAME, write_ins=[("president", "write-in-1", "Hale", NOT_COUNTED)]),
        DAMAGED: machine_entry(
            env,
            DAMAGED,
            manual=True,
            style_id="1",
            precinct_id="A101",
            mark=[("president", "pres-okafor"), ("us-senate", "sen-caldwell")],
        ),
    }
    while (sheet_id := leases.lease_next(env.conn, t, env.users["alice"].id)) is not None:
        for member in ("alice", "bob"):
            result = recording.record_entry(env.conn, env.source, t, env.users[member], entries[sheet_id])
        assert result.status == recording.DECIDED
    assert len(decisions.decisions(env.conn)) == len(entries)
    decisions.apply_pending(env.conn, env.source)
    return entries


def _expected_delta(env):
    """What the decisions add, counted straight from the decisions table."""
    votes, ballots, over, under, resolved, not_counted = (
        Counter(),
        Counter(),
        Counter(),
        Counter(),
        Counter(),
        Counter(),
    )
    for d in decisions.decisions(env.conn, current_only=True):
        after = votes_from_dict(d.after)
        for cv in after.contests:
            ballots[cv.contest_id] += 1
            over[cv.contest_id] += cv.overvotes
            under[cv.contest_id] += cv.undervotes
            for s in cv.selections:
                votes[(cv.contest_id, s)] += 1
        for key, cand in d.write_ins.items():
            (resolved if cand else not_counted)[(key.split("/")[0], cand)] += 1
    return votes, ballots, over, under, resolved, not_counted


def test_tallies_after_review_differ_from_before_exactly_by_the_decisions(env):
    queue.sync(env.conn, env.source)
    before = tally_records(env.election, adjudicated_records(env.store, env.conn))
    assert before.ballot_counts().awaiting_review == 6
    _decide_everything(env)
    after = tally_records(env.election, adjudicated_records(env.store, env.conn))
    votes, ballots, over, under, resolved, not_counted = _expected_delta(env)
    assert sum(ballots.values()) > 0
    for ct in after.contests:
        c = ct.contest
        a, b = ct.counts(), before.contest(c.id).counts()
        assert a.ballots_cast - b.ballots_cast == ballots[c.id], c.id
        assert a.overvotes - b.overvotes == over[c.id], c.id
        assert a.undervotes - b.undervotes == under[c.id], c.id
        for o in c.options:
            assert a.votes_for(o.id) - b.votes_for(o.id) == votes[(c.id, o.id)], (c.id, o.id)
        for w in c.declared_write_ins:
            assert a.write_ins.for_candidate(w.id) - b.write_ins.for_candidate(w.id) == resolved[(c.id, w.id)]
        assert a.write_ins.not_counted - b.write_ins.not_counted == not_counted[(c.id, None)]
    assert after.ballot_counts().counted - before.ballot_counts().counted == 7
    assert after.ballot_counts().awaiting_review == 0
    # The decisions themselves, as a recount would read them:
    senate = after.contest("us-senate").counts()
    assert senate.write_ins.for_candidate("sen-wi-foster") == 1
    assert after.contest("president").counts().write_ins.for_candidate("pres-wi-monroe") == 1
    assert after.contest("us-house-6").counts().overvotes - before.contest("us-house-6").counts().overvotes == 1


def test_a_decided_ballots_cvr_has_a_modified_snapshot_with_the_decision(env):
    _decide_everything(env)
    sheet = env.store.sheet(int(MARGINAL))
    record = next(r for r in adjudicated_records(env.store, env.conn) if r.ballot_id == sheet.ballot_id)
    cvr = cast_vote_record(env.election, record)
    kinds = {s["Type"]: s for s in cvr["CVRSnapshot"]}
    assert set(kinds) == {"original", "interpreted", "modified"}

    def senate(kind):
        contest = next(c for c in kinds[kind]["CVRContest"] if c["ContestId"] == "contest-us-senate")
        return [s["ContestSelectionId"] for s in contest.get("CVRContestSelection", [])]

    assert senate("interpreted") == [] and senate("modified") == ["sel-us-senate-sen-brennan"]


def test_a_store_nobody_reviewed_gives_the_stores_own_records(template_store, tmp_path):
    import shutil
    import sqlite3

    from tabulate.store import open_store
    from tabulate.store.records import ballot_records

    db = tmp_path / "plain.db"
    shutil.copy(template_store, db)
    conn = sqlite3.connect(db)
    conn.executescript("DROP TABLE adj_decisions;")
    store = open_store(db, create=False)
    assert list(adjudicated_records(store, conn)) == list(ballot_records(store))
    store.close()
    conn.close()


def test_the_results_command_counts_the_decisions_and_logs_the_export(env, capsys, tmp_path):
    import json as _json

    from tabulate.cli import main
    from tabulate.report import results_json

    queue.sync(env.conn, env.source)
    assert main(["results", "--db", str(env.db), "--format", "json"]) == 0
    before = _json.loads(capsys.readouterr().out)
    _decide_everything(env)
    assert main(["results", "--db", str(env.db), "--format", "json"]) == 0
    after = _json.loads(capsys.readouterr().out)
    expected = results_json(tally_records(env.election, adjudicated_records(env.store, env.conn)))
    assert after == _json.loads(_json.dumps(expected)) and after != before
    out = tmp_path / "cvr.json"
    assert main(["cvr", "--db", str(env.db), "--out", str(out)]) == 0
    exports = env.conn.execute("SELECT actor, data FROM journal WHERE kind = 'export'").fetchall()
    assert len(exports) == 1 and '"cvr"' in exports[0]["data"] and exports[0]["actor"].startswith("cli:")
