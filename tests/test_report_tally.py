"""Tallies: every slot accounted for, certified order, write-ins followed, order of ballots irrelevant."""

import csv
import io
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabulate.election import VOTE_TYPES, load_election
from tabulate.report import (
    BallotRecord,
    ReportError,
    cast_vote_record_report,
    results_csv,
    results_json,
    results_table,
    tally_records,
    unofficial_results_csv,
)
from tabulate.report.synthetic import make_record, synthetic_records
from tabulate.rules import BallotVotes, ContestVotes, apply_rules

ROOT = Path(__file__).resolve().parents[1]
ELECTION = load_election(ROOT / "samples" / "general" / "election.json")
RECORDS = synthetic_records(ELECTION, 240, seed=7)


def rec(ballot_id, choices, **kw):
    kw.setdefault("style_id", "1")
    kw.setdefault("precinct_id", "A101")
    return make_record(ELECTION, ballot_id, choices, **kw)


def test_votes_overvotes_and_undervotes_fill_every_slot_of_every_ballot_cast():
    tally = tally_records(ELECTION, RECORDS)
    counted = [r for r in RECORDS if r.status == "counted"]
    for ct in tally.contests:
        c = ct.contest
        for p, v, counts in ct.cells:
            expected_ballots = sum(
                1
                for r in counted
                if r.precinct_id == p and r.vote_type == v and c.id in ELECTION.style(r.style_id).contests
            )
            assert counts.ballots_cast == expected_ballots
            assert counts.total_votes + counts.overvotes + counts.undervotes == c.vote_for * counts.ballots_cast
        total = ct.counts()
        assert total.total_votes + total.overvotes + total.undervotes == c.vote_for * total.ballots_cast
        assert total.ballots_cast > 0


def test_contests_options_precincts_and_vote_types_come_in_certified_order():
    tally = tally_records(ELECTION, list(reversed(RECORDS)))
    assert [ct.contest.id for ct in tally.contests] == [c.id for c in ELECTION.contests]
    order = [p.id for p in ELECTION.precincts]
    for ct in tally.contests:
        assert [o for o, _ in ct.cells[0][2].votes] == [o.id for o in ct.contest.options]
        assert [v for _, v, _ in ct.cells[: len(VOTE_TYPES)]] == list(VOTE_TYPES)
        assert list(ct.precinct_ids) == sorted(ct.precinct_ids, key=order.index)


def test_a_contest_is_tallied_only_in_precincts_whose_ballots_carry_it():
    tally = tally_records(ELECTION, RECORDS)
    assert tally.contest("mayor").precinct_ids == ("A101", "A102", "A103")
    assert tally.contest("state-rep-57").precinct_ids == ("C301", "C302")
    assert len(tally.contest("president").precinct_ids) == len(ELECTION.precincts)


def test_an_overvote_credits_no_option_and_fills_the_slots_with_overvotes():
    """31 KAR 6:030 Section 1(6), 2(2)(b)."""
    tally = tally_records(ELECTION, [rec("a", {"city-council": "overvote", "president": ("pres-hale",)})])
    council = tally.contest("city-council").counts()
    assert council.total_votes == 0 and council.overvotes == 3 and council.undervotes == 0
    assert council.ballots_cast == 1 and council.blank_ballots == 0
    assert tally.contest("president").counts().votes_for("pres-hale") == 1
    # A contest left alone is blank: every slot an undervote.
    mayor = tally.contest("mayor").counts()
    assert mayor.blank_ballots == 1 and mayor.undervotes == 1


def test_write_ins_are_pending_until_people_resolve_them_to_a_declared_candidate_or_not_counted():
    records = [
        rec("a", {"us-senate": ("write-in-1",)}),
        rec("b", {"us-senate": ("write-in-1",)}, write_ins={("us-senate", "write-in-1"): "sen-wi-foster"}),
        rec("c", {"us-senate": ("write-in-1",)}, write_ins={("us-senate", "write-in-1"): None}),
        rec("d", {"us-senate": ("sen-caldwell",)}),
    ]
    senate = tally_records(ELECTION, records).contest("us-senate").counts()
    assert senate.votes_for("write-in-1") == 3
    assert senate.write_ins.pending == 1 and senate.write_ins.not_counted == 1
    assert senate.write_ins.resolved == (("sen-wi-foster", 1),)


def test_a_write_in_resolved_to_someone_who_did_not_file_is_refused():
    bad = rec("a", {"us-senate": ("write-in-1",)}, write_ins={("us-senate", "write-in-1"): "pres-wi-monroe"})
    with pytest.raises(ReportError, match="not a declared write-in candidate"):
        tally_records(ELECTION, [bad])


def test_sheets_awaiting_review_are_not_tallied_but_are_accounted_for():
    records = [
        rec("a", {"president": ("pres-hale",)}, vote_type="mail_in_absentee"),
        rec("b", {"president": ("pres-hale",)}, vote_type="mail_in_absentee", status="needs_review"),
    ]
    tally = tally_records(ELECTION, records)
    assert tally.contest("president").counts().votes_for("pres-hale") == 1
    b = tally.ballot_counts("A101", "mail_in_absentee")
    assert (b.counted, b.awaiting_review) == (1, 1)


def test_peoples_decision_replaces_the_rules_reading():
    r = rec("a", {"president": ("pres-hale",), "mayor": "overvote"}, modified={"mayor": ("may-wells",)})
    tally = tally_records(ELECTION, [r])
    assert tally.contest("mayor").counts().votes_for("may-wells") == 1
    assert tally.contest("mayor").counts().overvotes == 0


def test_votes_are_tallied_under_the_records_precinct_and_vote_type():
    records = [
        rec("a", {"president": ("pres-okafor",)}, precinct_id="A102", vote_type="provisional"),
        rec("b", {"president": ("pres-okafor",)}, precinct_id="A103", vote_type="election_day"),
    ]
    ct = tally_records(ELECTION, records).contest("president")
    assert ct.counts("A102", "provisional").votes_for("pres-okafor") == 1
    assert ct.counts("A102", "election_day").votes_for("pres-okafor") == 0
    assert ct.counts("A103").votes_for("pres-okafor") == 1
    assert ct.counts(vote_type=("provisional", "election_day")).votes_for("pres-okafor") == 2


@pytest.mark.parametrize(
    "problem, match",
    [
        ("duplicate", "appears twice"),
        ("precinct", "does not vote ballot style"),
        ("style", "not in the election"),
        ("slots", "!= vote for"),
        ("missing", "no outcome for contest"),
        ("option", "not options of the contest"),
    ],
)
def test_records_that_do_not_add_up_are_refused_with_a_clear_message(problem, match):
    good = rec("a", {"president": ("pres-hale",)})
    if problem == "duplicate":
        records = [good, rec("a", {})]
    elif problem == "precinct":
        records = [rec("a", {}, precinct_id="C301")]
    elif problem == "style":
        votes = BallotVotes("a", "9", ())
        records = [BallotRecord("a", "b", 1, "election_day", "A101", "9", good.marks.__class__("a", "9", {}), votes)]
    else:
        contests = list(good.interpreted.contests)
        if problem == "slots":
            contests[0] = ContestVotes("president", "valid", ("pres-hale",), 0, 1)
        elif problem == "missing":
            contests = contests[1:]
        else:
            contests[0] = ContestVotes("president", "valid", ("sen-caldwell",), 0, 0)
        votes = BallotVotes("a", "1", tuple(contests), "A101")
        records = [BallotRecord("a", "b", 1, "election_day", "A101", "1", good.marks, votes)]
    with pytest.raises(ReportError, match=match):
        tally_records(ELECTION, records)


def test_a_record_with_an_unknown_vote_type_is_refused_when_built():
    good = rec("a", {})
    with pytest.raises(ReportError, match="vote type 'absentee'"):
        BallotRecord("a", "b", 1, "absentee", "A101", "1", good.marks, good.interpreted)


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_results_do_not_depend_on_the_order_of_the_ballots(rnd):
    records = RECORDS[:80]
    shuffled = list(records)
    rnd.shuffle(shuffled)
    a, b = tally_records(ELECTION, records), tally_records(ELECTION, shuffled)
    assert a == b
    assert results_csv(a) == results_csv(b)
    assert results_json(a) == results_json(b)
    assert unofficial_results_csv(a) == unofficial_results_csv(b)
    when = datetime(2028, 11, 7, 20, 0, tzinfo=timezone.utc)
    assert cast_vote_record_report(ELECTION, records, generated_at=when) == cast_vote_record_report(
        ELECTION, shuffled, generated_at=when
    )


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_the_slot_invariant_holds_for_any_set_of_ballots(seed):
    records = synthetic_records(ELECTION, 30, seed=seed, batch_size=10)
    tally = tally_records(ELECTION, records)
    for ct in tally.contests:
        for _, _, c in ct.cells:
            assert c.total_votes + c.overvotes + c.undervotes == ct.contest.vote_for * c.ballots_cast
            assert c.write_ins.total == sum(n for o, n in c.votes if o.startswith("write-in"))


def test_results_csv_json_and_table_show_the_same_numbers():
    tally = tally_records(ELECTION, RECORDS)
    rows = list(csv.DictReader(io.StringIO(results_csv(tally))))
    doc = results_json(tally)
    president = doc["contests"][0]
    hale = sum(int(r["count"]) for r in rows if r["contest_id"] == "president" and r["option_id"] == "pres-hale")
    assert hale == president["total"]["votes"]["pres-hale"]
    assert hale == tally.contest("president").counts().votes_for("pres-hale")
    assert doc["ballots"]["total"]["counted"] == sum(1 for r in RECORDS if r.status == "counted")
    table = results_table(tally)
    line = next(x for x in table.splitlines() if x.startswith("Marcus Hale and Dana Prewitt (REP)"))
    assert line.split()[-1] == str(hale)
    mayor = ELECTION.contest("mayor").title
    assert mayor in results_table(tally, precinct_id="A101")
    assert mayor not in results_table(tally, precinct_id="B201")


def test_an_empty_tally_is_all_zeros_for_every_contest_and_precinct():
    tally = tally_records(ELECTION, [])
    for ct in tally.contests:
        assert ct.counts().ballots_cast == 0 and ct.counts().total_votes == 0
    assert tally.ballot_counts().counted == 0


def test_votes_from_the_rules_engine_tally_with_every_slot_accounted_for():
    """The contract with tabulate.rules: its BallotVotes tally as they are."""
    records = []
    for r in RECORDS[:60]:
        votes = apply_rules(ELECTION, r.marks)
        kept = {k: w for k, w in r.write_ins.items() if k[1] in votes.contest(k[0]).selections}
        records.append(replace(r, interpreted=votes, modified=None, write_ins=kept))
    tally = tally_records(ELECTION, records)
    for ct in tally.contests:
        c = ct.counts()
        assert c.total_votes + c.overvotes + c.undervotes == ct.contest.vote_for * c.ballots_cast
    assert tally.ballot_counts().counted == sum(1 for r in records if r.status == "counted")
