"""Federal write-in absentee ballots: 31 KAR 5:011 Section 2 suspends 6:030 Section 3(2)(a) and 4(1), (2), (9)."""

from pathlib import Path

from tabulate.election import load_election
from tabulate.rules import BallotMarks, OptionMark, apply_rules, resolve_write_in

ROOT = Path(__file__).resolve().parents[1]
GENERAL = load_election(ROOT / "samples" / "general" / "election.json")
NAME_ONLY = OptionMark(scan="unmarked", write_in_ink=True)


def fwab(marks: dict, *, is_fwab: bool = True):
    return apply_rules(GENERAL, BallotMarks("fwab-1", "1", marks, fwab=is_fwab))


def test_on_an_fwab_a_written_name_counts_without_a_marked_target():
    """5:011 §2: "The requirements of 31 KAR 6:030 ... Section 3(2)(a) ... shall be suspended": the FWAB has
    no target to fill, so the name alone is a write-in vote awaiting a person."""
    v = fwab({"us-senate": {"write-in-1": NAME_ONLY}})
    c = v.contest("us-senate")
    assert c.status == "write_in_pending" and c.selections == ("write-in-1",)
    assert "31 KAR 5:011 §2" in c.clauses
    reason = next(r for r in v.reasons if r.contest_id == "us-senate")
    assert reason.code == "marked_write_in" and "5:011" in reason.detail
    assert v.fwab and v.needs_review


def test_the_same_name_without_a_marked_target_on_an_ordinary_ballot_is_no_vote():
    v = fwab({"us-senate": {"write-in-1": NAME_ONLY}}, is_fwab=False)
    assert v.contest("us-senate").status == "blank" and not v.fwab


def test_on_an_fwab_a_marked_target_with_no_name_is_still_no_vote():
    v = fwab({"us-senate": {"write-in-1": OptionMark(scan="marked")}})
    assert v.contest("us-senate").status == "blank"


def test_on_an_fwab_a_name_and_a_named_candidate_in_a_vote_for_one_race_is_an_overvote_for_a_person():
    c = fwab({"mayor": {"may-wells": OptionMark("marked"), "write-in-1": NAME_ONLY}}).contest("mayor")
    assert c.status == "overvote" and "31 KAR 6:030 §2(2)(b)" in c.clauses


def test_on_an_fwab_a_write_in_of_a_candidate_on_the_ballot_counts():
    """§4(2) ("A write-in vote for a candidate whose name already appears on the ballot ... shall not be
    counted") is suspended on an FWAB, whose voter writes every choice."""
    d = resolve_write_in("Maria Brennan", GENERAL.contest("us-senate"), GENERAL, fwab=True)
    assert (d.outcome, d.candidate_id) == ("candidate", "sen-brennan")
    assert "31 KAR 5:011 §2" in d.clauses


def test_on_an_fwab_a_name_of_no_filed_candidate_goes_to_a_person():
    """§4(1) ("Only votes cast for eligible write-in candidates ... shall be ... counted") is suspended."""
    d = resolve_write_in("Harriet Quimby", GENERAL.contest("us-senate"), GENERAL, fwab=True)
    assert d.outcome == "person_must_decide" and d.clause == "31 KAR 5:011 §2"


def test_on_an_fwab_another_name_with_the_surname_need_not_be_a_filed_variation():
    """§4(9) is suspended: "Jen Foster" is not among Jenna Foster's filed variations, but counts on an FWAB."""
    d = resolve_write_in("Jen Foster", GENERAL.contest("us-senate"), fwab=True)
    assert (d.outcome, d.candidate_id) == ("candidate", "sen-wi-foster")
    assert resolve_write_in("Jen Foster", GENERAL.contest("us-senate")).outcome == "not_counted"


def test_on_an_fwab_a_nickname_with_a_shared_surname_goes_to_a_person_with_the_likely_candidate():
    d = resolve_write_in("Tommy Whitaker", GENERAL.contest("us-house-6"), fwab=True)
    assert d.outcome == "person_must_decide" and d.candidates == ("house-wi-tom-whitaker",)


def test_on_an_fwab_a_given_name_unlike_the_candidates_goes_to_a_person():
    d = resolve_write_in("Robert Foster", GENERAL.contest("us-senate"), fwab=True)
    assert d.outcome == "person_must_decide" and d.candidates == ("sen-wi-foster",)


def test_on_an_fwab_the_clauses_not_suspended_still_apply():
    house = GENERAL.contest("us-house-6")
    assert resolve_write_in("Whitaker", house, fwab=True).clause == "31 KAR 6:030 §4(5)"
    assert resolve_write_in("Thomas", house, fwab=True).clause == "31 KAR 6:030 §4(6)"
    assert resolve_write_in("T. W.", house, fwab=True).clause == "31 KAR 6:030 §4(7)"
    assert resolve_write_in("Tom", house, fwab=True).clause == "31 KAR 6:030 §4(8)"
    assert resolve_write_in("Thomas Whitaker", house, fwab=True, sticker=True).clause == "31 KAR 6:030 §4(3)"
