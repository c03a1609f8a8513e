"""Deciding ballots: teams must agree, disagreements go to the board, the board decides by majority.

Every decision keeps who, when, before, after and why, folds into the
results, and only the board reopens one.
"""

from __future__ import annotations

import pytest
from test_adjudicate_support import (  # noqa: F401
    BOTH,
    DAMAGED,
    MARGINAL,
    NAME_NO_MARK,
    SAME_NAME,
    WRITE_IN,
    board,
    env,
    fast_passwords,
    machine_entry,
    pg_template,
    team,
    template_store,
)

from tabulate.adjudicate import auditlog, decisions, hand_entry, leases, queue, recording
from tabulate.adjudicate.entries import NOT_COUNTED, DecisionError, decided_votes
from tabulate.adjudicate.leases import LeaseLost
from tabulate.adjudicate.recording import DECIDED, ESCALATED, NO_MAJORITY, WAITING
from tabulate.adjudicate.records import adjudicated_records
from tabulate.rules import clauses as K


def _take(env, panel, user, sheet_id):
    queue.sync(env.conn, env.source)
    leases.lease(env.conn, sheet_id, panel, env.users[user].id)


def _both(env, panel, sheet_id, entry_a, entry_b=None, a="alice", b="bob"):
    _take(env, panel, a, sheet_id)
    first = recording.record_entry(env.conn, env.source, panel, env.users[a], entry_a)
    second = recording.record_entry(env.conn, env.source, panel, env.users[b], entry_b or entry_a)
    return first, second


@BOTH
def test_a_team_that_agrees_decides_the_ballot_and_the_store_gets_the_votes(env):
    t = team(env, "alice", "bob")
    entry = machine_entry(env, MARGINAL, mark=[("us-senate", "sen-brennan")], note="light pencil fill")
    first, second = _both(env, t, MARGINAL, entry)
    assert first.status == WAITING and second.status == DECIDED
    decisions.apply_pending(env.conn, env.source)
    sheet = env.store.sheet(int(MARGINAL))
    assert sheet.modified["us-senate"].selections == ("sen-brennan",)
    (d,) = decisions.decisions(env.conn, sheet_id=MARGINAL)
    assert d.members == ("alice (REP)", "bob (DEM)") and d.applied
    assert d.before["targets"]["us-senate/sen-brennan"]["scan"] == "marginal"
    assert [c for c in d.before["votes"]["contests"] if c["contest_id"] == "us-senate"][0]["selections"] == []
    assert [c for c in d.after["contests"] if c["contest_id"] == "us-senate"][0]["selections"] == ["sen-brennan"]
    assert (
        d.why["note"] == "alice (REP): light pencil fill; bob (DEM): light pencil fill"
        and d.why["reasons"][0]["code"] == "marginal_mark"
    )
    logged = [e.action for e in auditlog.entries(env.conn, sheet_id=MARGINAL)]
    # One journal: the store's own entry for the votes it was given follows the decision.
    assert logged == ["entry", "entry", "decision", "votes_modified"]


@BOTH
def test_a_team_that_disagrees_sends_the_ballot_to_the_board_which_decides_by_majority(env):
    t = team(env, "alice", "bob")
    vote = machine_entry(env, MARGINAL, mark=[("us-senate", "sen-brennan")])
    no_vote = machine_entry(env, MARGINAL)
    first, second = _both(env, t, MARGINAL, vote, no_vote)
    assert second.status == ESCALATED
    assert queue.queue_row(env.conn, MARGINAL).state == "board"
    assert decisions.decisions(env.conn, sheet_id=MARGINAL) == []
    b = board(env)
    leases.lease(env.conn, MARGINAL, b, env.users["board1"].id)
    assert recording.record_entry(env.conn, env.source, b, env.users["board1"], vote).status == WAITING
    assert recording.record_entry(env.conn, env.source, b, env.users["board2"], no_vote).status == WAITING
    result = recording.record_entry(env.conn, env.source, b, env.users["board3"], vote)
    assert result.status == DECIDED  # 2 of 3
    (d,) = decisions.decisions(env.conn, sheet_id=MARGINAL)
    assert d.decided_by == "board" and set(d.members) == {"board1 (REP)", "board3 (IND)"}
    assert "escalated" in [e.action for e in auditlog.entries(env.conn, sheet_id=MARGINAL)]


def test_a_board_without_a_majority_waits_for_members_to_change_their_entries(env):
    env.conn.execute("UPDATE adj_users SET disabled = 1 WHERE name = 'board3'")  # a board of two
    queue.sync(env.conn, env.source)
    env.conn.execute("UPDATE adj_ballots SET state = 'board' WHERE sheet_id = ?", (MARGINAL,))
    b = board(env)
    leases.lease(env.conn, MARGINAL, b, env.users["board1"].id)
    vote, no_vote = machine_entry(env, MARGINAL, mark=[("us-senate", "sen-brennan")]), machine_entry(env, MARGINAL)
    recording.record_entry(env.conn, env.source, b, env.users["board1"], vote)
    assert recording.record_entry(env.conn, env.source, b, env.users["board2"], no_vote).status == NO_MAJORITY
    assert recording.record_entry(env.conn, env.source, b, env.users["board2"], vote).status == DECIDED


def test_a_write_in_name_is_resolved_with_its_clause_and_confirmed(env):
    entry = machine_entry(env, WRITE_IN, write_ins=[("president", "write-in-1", "Al Monroe", None)])
    proposal = decided_votes(env.election, env.source.sheet(WRITE_IN), entry, require_outcomes=False).proposals
    p = proposal[("president", "write-in-1")]
    assert (p.outcome, p.candidate_id, p.clause) == ("candidate", "pres-wi-monroe", K.OTHER_NAME)
    with pytest.raises(DecisionError, match="confirm whose vote"):
        decided_votes(env.election, env.source.sheet(WRITE_IN), entry)
    t = team(env, "alice", "bob")
    confirmed = machine_entry(env, WRITE_IN, write_ins=[("president", "write-in-1", "Al Monroe", "pres-wi-monroe")])
    assert _both(env, t, WRITE_IN, confirmed)[1].status == DECIDED
    (d,) = decisions.decisions(env.conn, sheet_id=WRITE_IN)
    assert d.write_ins == {"president/write-in-1": "pres-wi-monroe"}
    assert d.why["write_in_clauses"]["president/write-in-1"]["clause"] == K.OTHER_NAME


def test_two_spellings_of_the_same_candidate_agree(env):
    t = team(env, "alice", "bob")
    a = machine_entry(env, WRITE_IN, write_ins=[("president", "write-in-1", "Al Monroe", "pres-wi-monroe")])
    b = machine_entry(env, WRITE_IN, write_ins=[("president", "write-in-1", "Al Monrow", "pres-wi-monroe")])
    assert _both(env, t, WRITE_IN, a, b)[1].status == DECIDED


def test_a_write_in_of_the_candidate_the_voter_also_marked_is_not_an_overvote(env):
    """31 KAR 6:030 §2(2)(b) needs "a different person"; §4(2) does not count the write-in."""
    entry = machine_entry(env, SAME_NAME, write_ins=[("president", "write-in-1", "Hale", NOT_COUNTED)])
    decided = decided_votes(env.election, env.source.sheet(SAME_NAME), entry)
    president = decided.votes.contest("president")
    assert (president.status, president.selections) == ("valid", ("pres-hale",))
    assert decided.proposals[("president", "write-in-1")].clause == K.ALREADY_ON_BALLOT
    assert "not 'a different person'" in decided.notes[0]


def test_a_name_beside_an_unmarked_target_is_no_vote_unless_the_team_finds_a_mark(env):
    entry = machine_entry(env, NAME_NO_MARK, write_ins=[("us-senate", "write-in-1", "Jenna Foster", None)])
    senate = decided_votes(env.election, env.source.sheet(NAME_NO_MARK), entry).votes.contest("us-senate")
    assert senate.selections == ()
    marked = machine_entry(
        env,
        NAME_NO_MARK,
        mark=[("us-senate", "write-in-1")],
        write_ins=[("us-senate", "write-in-1", "Jenna Foster", "sen-wi-foster")],
    )
    decided = decided_votes(env.election, env.source.sheet(NAME_NO_MARK), marked)
    assert decided.votes.contest("us-senate").selections == ("write-in-1",)
    assert decided.write_ins == {("us-senate", "write-in-1"): "sen-wi-foster"}


def test_an_entry_naming_an_undeclared_candidate_is_refused(env):
    entry = machine_entry(env, WRITE_IN, write_ins=[("president", "write-in-1", "Al Monroe", "pres-hale")])
    with pytest.raises(DecisionError, match="not a declared write-in candidate"):
        decided_votes(env.election, env.source.sheet(WRITE_IN), entry)


@BOTH
def test_an_entry_needs_the_panels_lease_and_the_current_round(env):
    t1, t2 = team(env, "alice", "bob"), team(env, "carol", "dave")
    _take(env, t1, "alice", MARGINAL)
    with pytest.raises(LeaseLost):
        recording.record_entry(env.conn, env.source, t2, env.users["carol"], machine_entry(env, MARGINAL))
    with pytest.raises(LeaseLost):
        recording.record_entry(env.conn, env.source, t1, env.users["alice"], machine_entry(env, MARGINAL, round_=2))
    with pytest.raises(LeaseLost, match="not a member"):
        recording.record_entry(env.conn, env.source, t1, env.users["carol"], machine_entry(env, MARGINAL))


def test_when_a_lease_lapses_another_team_decides_afresh(env):
    t1, t2 = team(env, "alice", "bob"), team(env, "carol", "dave")
    _take(env, t1, "alice", MARGINAL)
    recording.record_entry(env.conn, env.source, t1, env.users["alice"], machine_entry(env, MARGINAL))
    env.conn.execute("UPDATE adj_ballots SET lease_expires = 0")
    leases.lease(env.conn, MARGINAL, t2, env.users["carol"].id)
    vote = machine_entry(env, MARGINAL, mark=[("us-senate", "sen-brennan")])
    assert recording.record_entry(env.conn, env.source, t2, env.users["carol"], vote).status == WAITING
    assert recording.record_entry(env.conn, env.source, t2, env.users["dave"], vote).status == DECIDED
    (d,) = decisions.decisions(env.conn, sheet_id=MARGINAL)
    assert d.members == ("carol (REP)", "dave (DEM)")


@BOTH
def test_only_the_board_reopens_and_the_earlier_decision_stays(env):
    t = team(env, "alice", "bob")
    _both(env, t, MARGINAL, machine_entry(env, MARGINAL))
    with pytest.raises(PermissionError):
        decisions.reopen(env.conn, env.source, MARGINAL, env.users["alice"], "mistake")
    with pytest.raises(DecisionError, match="why"):
        decisions.reopen(env.conn, env.source, MARGINAL, env.users["board1"], "  ")
    assert decisions.reopen(env.conn, env.source, MARGINAL, env.users["board1"], "pencil mark visible on paper") == 2
    row = queue.queue_row(env.conn, MARGINAL)
    assert (row.state, row.round) == ("board", 2)
    (old,) = decisions.decisions(env.conn, sheet_id=MARGINAL)
    assert old.reopened_at and old.reopen_reason == "pencil mark visible on paper"
    b = board(env)
    leases.lease(env.conn, MARGINAL, b, env.users["board1"].id)
    vote = machine_entry(env, MARGINAL, round_=2, mark=[("us-senate", "sen-brennan")])
    for name in ("board1", "board2"):
        result = recording.record_entry(env.conn, env.source, b, env.users[name], vote)
    assert result.status == DECIDED
    assert [d.round for d in decisions.decisions(env.conn, sheet_id=MARGINAL)] == [1, 2]
    assert [e.action for e in auditlog.entries(env.conn, sheet_id=MARGINAL)].count("reopen") == 1


@BOTH
def test_a_damaged_ballot_is_entered_by_hand_with_both_reviewers_agreeing(env):
    hand_entry.set_aside_for_hand_entry(env.conn, env.source, DAMAGED, actor="board1", attempts_confirmed=True)
    t = team(env, "alice", "bob")
    entry = machine_entry(
        env, DAMAGED, manual=True, style_id="1", precinct_id="A101", mark=[("president", "pres-okafor")]
    )
    other = machine_entry(
        env, DAMAGED, manual=True, style_id="1", precinct_id="A102", mark=[("president", "pres-okafor")]
    )
    assert _both(env, t, DAMAGED, entry, other)[1].status == ESCALATED  # a different precinct is a disagreement
    b = board(env)
    leases.lease(env.conn, DAMAGED, b, env.users["board1"].id)
    for name in ("board1", "board2"):
        result = recording.record_entry(env.conn, env.source, b, env.users[name], entry)
    assert result.status == DECIDED
    records = {r.ballot_id: r for r in adjudicated_records(env.store, env.conn)}
    hand = records[env.store.sheet(int(DAMAGED)).ballot_id]
    assert hand.status == "counted" and hand.modified.contest("president").selections == ("pres-okafor",)
    assert hand.precinct_id == "A101" and all(not c.selections for c in hand.interpreted.contests)


def test_disabling_board_members_does_not_let_one_member_decide_alone(env):
    """31 KAR 4:220 Section 9(12)(a): "by majority vote of the county board of elections". Issue 10: an admin
    disabled members until one board member decided a disputed ballot alone ("majority of enabled accounts")."""
    from tabulate.adjudicate import users

    t = team(env, "alice", "bob")
    vote = machine_entry(env, MARGINAL, mark=[("us-senate", "sen-brennan")])
    _both(env, t, MARGINAL, vote, machine_entry(env, MARGINAL))
    b = board(env)
    leases.lease(env.conn, MARGINAL, b, env.users["board1"].id)
    for name in ("board2", "board3"):
        users.set_disabled(env.conn, name, True, actor="admin")
    assert recording.record_entry(env.conn, env.source, board(env), env.users["board1"], vote).status != DECIDED
    assert decisions.decisions(env.conn, sheet_id=MARGINAL) == []
    assert board(env).needed == 2  # a majority of the three members, enabled or not


def test_the_quorum_is_a_majority_of_the_board_fixed_in_the_election(env):
    from tabulate.adjudicate.panels import board_quorum
    from tabulate.election import parse_election
    from tabulate.election.load import load_election

    assert board_quorum(env.conn, 5) == 3 and board_quorum(env.conn, 4) == 3 and board_quorum(env.conn) == 2
    import json

    from tabulate.commands.review_sample import SAMPLE_ELECTION

    doc = json.loads(SAMPLE_ELECTION.read_text())
    assert load_election(SAMPLE_ELECTION).adjudication.board_members is None
    doc["adjudication"] = {"decided_by": "board", "board_members": 5}
    assert parse_election(doc, "test").adjudication.board_members == 5
