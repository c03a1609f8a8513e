"""The review queue: what is in it, in what order, and leases that never let two panels hold one ballot."""

from __future__ import annotations

import json

import pytest
from test_adjudicate_support import (  # noqa: F401
    BESIDE_NAME,
    DAMAGED,
    MARGINAL,
    NAME_NO_MARK,
    OVERVOTE,
    SAME_NAME,
    WRITE_IN,
    Env,
    board,
    env,
    fast_passwords,
    team,
    template_store,
)

from tabulate.adjudicate import hand_entry, leases, queue
from tabulate.adjudicate.leases import LeaseLost
from tabulate.adjudicate.queue import QueueFilter
from tabulate.commands.review_sample import SAMPLE_ELECTION, build_sample_store


def _ids(rows):
    return [r.sheet_id for r in rows]


def test_the_queue_holds_every_sheet_the_store_flagged_once(env):
    assert queue.sync(env.conn, env.source) == 6
    assert queue.sync(env.conn, env.source) == 0
    flagged = {str(s.id) for s in env.store.sheets(status="needs_review")}
    assert set(_ids(queue.list_queue(env.conn))) == flagged
    assert DAMAGED not in flagged  # a rejected sheet waits for the board to set it aside


def test_default_order_is_overvotes_then_write_ins_then_marginal_marks_then_the_rest(env):
    queue.sync(env.conn, env.source)
    assert _ids(queue.list_queue(env.conn)) == [OVERVOTE, SAME_NAME, WRITE_IN, NAME_NO_MARK, MARGINAL, BESIDE_NAME]


@pytest.mark.parametrize(
    "flt, expected",
    [
        (QueueFilter(reason="marginal_mark"), [MARGINAL]),
        (QueueFilter(contest="us-senate"), [NAME_NO_MARK, MARGINAL]),
        (QueueFilter(reason="marked_write_in", contest="president"), [SAME_NAME, WRITE_IN]),
        (
            QueueFilter(batch="sample", precinct="A101"),
            [OVERVOTE, SAME_NAME, WRITE_IN, NAME_NO_MARK, MARGINAL, BESIDE_NAME],
        ),
        (QueueFilter(batch="no-such-batch"), []),
    ],
)
def test_the_queue_filters_by_reason_batch_precinct_and_contest(env, flt, expected):
    queue.sync(env.conn, env.source)
    assert _ids(queue.list_queue(env.conn, flt=flt)) == expected


def test_progress_counts_ballots_by_reason(env):
    queue.sync(env.conn, env.source)
    p = queue.progress(env.conn)
    assert (p.total, p.open, p.board, p.decided) == (6, 6, 0, 0)
    assert dict(p.by_reason) == {
        "overvote": 2,
        "marked_write_in": 2,
        "unmarked_write_in": 1,
        "marginal_mark": 1,
        "scan_hand_disagreement": 1,
    }


def test_two_teams_never_hold_the_same_ballot_and_a_team_keeps_its_own(env):
    queue.sync(env.conn, env.source)
    t1, t2 = team(env, "alice", "bob"), team(env, "carol", "dave")
    first = leases.lease_next(env.conn, t1, env.users["alice"].id)
    second = leases.lease_next(env.conn, t2, env.users["carol"].id)
    assert first == OVERVOTE and second == SAME_NAME
    assert leases.lease_next(env.conn, t1, env.users["bob"].id) == first  # the partner lands on the same ballot
    with pytest.raises(LeaseLost, match="another team"):
        leases.lease(env.conn, first, t2, env.users["dave"].id)


def test_a_lapsed_lease_returns_the_ballot_to_the_queue(env):
    queue.sync(env.conn, env.source)
    t1, t2 = team(env, "alice", "bob"), team(env, "carol", "dave")
    held = leases.lease_next(env.conn, t1, env.users["alice"].id)
    env.conn.execute("UPDATE adj_ballots SET lease_expires = 0 WHERE sheet_id = ?", (held,))  # browser closed
    assert leases.lease_next(env.conn, t2, env.users["carol"].id) == held


def test_a_team_cannot_take_a_board_ballot_and_the_board_cannot_take_a_team_ballot(env):
    queue.sync(env.conn, env.source)
    t1 = team(env, "alice", "bob")
    env.conn.execute("UPDATE adj_ballots SET state = 'board' WHERE sheet_id = ?", (MARGINAL,))
    with pytest.raises(LeaseLost, match="county board"):
        leases.lease(env.conn, MARGINAL, t1, env.users["alice"].id)
    with pytest.raises(LeaseLost, match="teams"):
        leases.lease(env.conn, OVERVOTE, board(env), env.users["board1"].id)
    assert leases.lease_next(env.conn, board(env), env.users["board1"].id) == MARGINAL


def test_only_an_eligible_rejected_sheet_is_set_aside_for_entry_by_hand(env):
    candidates = hand_entry.hand_entry_candidates(env.conn, env.source)
    assert [s.sheet_id for s in candidates] == [DAMAGED]
    with pytest.raises(ValueError, match="three"):
        hand_entry.set_aside_for_hand_entry(env.conn, env.source, DAMAGED, actor="board1", attempts_confirmed=False)
    with pytest.raises(ValueError, match="not a rejected sheet"):
        hand_entry.set_aside_for_hand_entry(env.conn, env.source, MARGINAL, actor="board1", attempts_confirmed=True)
    hand_entry.set_aside_for_hand_entry(env.conn, env.source, DAMAGED, actor="board1", attempts_confirmed=True)
    row = queue.queue_row(env.conn, DAMAGED)
    assert row.codes == (hand_entry.DAMAGED,) and row.state == "open"
    assert hand_entry.hand_entry_candidates(env.conn, env.source) == []


def test_when_the_election_says_the_board_decides_every_ballot_goes_to_the_board(tmp_path, fast_passwords):
    doc = json.loads(SAMPLE_ELECTION.read_text(encoding="utf-8"))
    doc["adjudication"] = {"decided_by": "board"}
    path = tmp_path / "election.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    build_sample_store(tmp_path / "board.db", tmp_path / "img", election_path=path, clean=0).close()
    e = Env(tmp_path / "board.db")
    queue.sync(e.conn, e.source)
    assert {r.state for r in queue.list_queue(e.conn, states=("open", "board"))} == {"board"}
    e.close()
