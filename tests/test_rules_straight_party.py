"""31 KAR 6:030 Section 5: straight-party voting, as settled in DESIGN.md."""

from pathlib import Path

from tabulate.election import load_election, parse_election
from tabulate.rules import BallotMarks, OptionMark, apply_rules

ROOT = Path(__file__).resolve().parents[1]
GENERAL = load_election(ROOT / "samples" / "general" / "election.json")
WRITE_IN = OptionMark(scan="marked", write_in_ink=True)


def ballot(marks: dict, style: str = "1", election=GENERAL):
    built = {
        c: {o: m if isinstance(m, OptionMark) else OptionMark(scan=m) for o, m in opts.items()}
        for c, opts in marks.items()
    }
    return apply_rules(election, BallotMarks("sp-1", style, built))


def straight(party: str, **contests) -> dict:
    return {"straight-party": {party: "marked"}, **{k.replace("_", "-"): v for k, v in contests.items()}}


def council_election():
    """A general election with a partisan vote-for-3 council where one party runs three and another one."""
    doc = {
        "title": "General",
        "date": "2026-11-03",
        "type": "general",
        "jurisdiction": "Test County",
        "straight_party": True,
        "parties": [
            {"id": "R", "name": "Red", "abbreviation": "RED"},
            {"id": "B", "name": "Blue", "abbreviation": "BLU"},
        ],
        "contests": [
            {
                "id": "council",
                "type": "candidate",
                "title": "Council",
                "vote_for": 3,
                "write_ins": 1,
                "candidates": [
                    {"id": "r1", "name": "Rae One", "party": "R"},
                    {"id": "r2", "name": "Rex Two", "party": "R"},
                    {"id": "r3", "name": "Roy Three", "party": "R"},
                    {"id": "b1", "name": "Bea One", "party": "B"},
                ],
            },
            {
                "id": "sheriff",
                "type": "candidate",
                "title": "Sheriff",
                "vote_for": 1,
                "candidates": [{"id": "rs", "name": "Red Sheriff", "party": "R"}],
            },
        ],
        "precincts": [{"id": "P1", "name": "One"}],
        "ballot_styles": [{"id": "s", "precincts": ["P1"], "contests": ["council", "sheriff"]}],
    }
    return parse_election(doc)


def test_straight_party_alone_votes_for_the_partys_candidate_in_every_partisan_contest():
    """§5(1): "the remaining votes on the ballot shall be counted for the straight political party"."""
    v = ballot(straight("REP"))
    assert v.straight_party == "REP"
    for cid, cand in [
        ("president", "pres-hale"),
        ("us-senate", "sen-caldwell"),
        ("us-house-6", "house-barr"),
        ("state-senate-7", "ss-mullins"),
        ("state-rep-56", "sr56-boone"),
        ("county-commissioner", "cc-holt"),
    ]:
        c = v.contest(cid)
        assert (c.status, c.selections, c.from_straight_party) == ("valid", (cand,), True), cid
        assert c.clauses == ("31 KAR 6:030 §5(1)",)


def test_straight_party_is_not_a_contest_in_the_results():
    assert "straight-party" not in [c.contest_id for c in ballot(straight("DEM")).contests]


def test_straight_party_never_touches_questions_or_nonpartisan_contests():
    v = ballot(straight("DEM"))
    for cid in ("mayor", "city-council", "court-of-appeals", "school-board-1", "amendment-1", "local-option"):
        assert v.contest(cid).status == "blank" and not v.contest(cid).from_straight_party, cid


def test_straight_party_gives_nothing_where_the_party_has_no_candidate():
    v = ballot(straight("LIB"))
    assert v.contest("president").selections == ("pres-lindqvist",)
    assert v.contest("us-senate").status == "blank" and not v.contest("us-senate").from_straight_party


def test_straight_party_with_opposing_candidate_counts_the_opposing_candidate():
    """§5(1): "also designates a vote for an opposing candidate ... the vote shall be counted for the opposing
    candidate ... for that specific race"; §5(2): "shall not be considered an overvote"."""
    v = ballot(straight("REP", us_senate={"sen-brennan": "marked"}))
    c = v.contest("us-senate")
    assert (c.status, c.selections, c.from_straight_party, c.overvotes) == ("valid", ("sen-brennan",), False, 0)
    assert "31 KAR 6:030 §5(1)" in c.clauses and "31 KAR 6:030 §5(2)" in c.clauses
    assert "overvote" not in [r.code for r in v.reasons]
    # ... and the remaining races still go to the party.
    assert v.contest("president").selections == ("pres-hale",)


def test_straight_party_with_an_eligible_write_in_counts_the_write_in():
    """§5(1): "or writes in the name of an eligible write-in candidate in a specific race, the vote shall be
    counted for ... the eligible write-in candidate"."""
    v = ballot(straight("REP", us_senate={"write-in-1": WRITE_IN}))
    c = v.contest("us-senate")
    assert (c.status, c.selections, c.from_straight_party) == ("write_in_pending", ("write-in-1",), False)
    reason = next(r for r in v.reasons if r.code == "marked_write_in")
    # §5(1) hands the race to the write-in only if the name is an eligible write-in candidate.
    assert "Robert Caldwell" in reason.detail


def test_straight_party_with_the_partys_own_candidate_marked_counts_once():
    c = ballot(straight("REP", us_senate={"sen-caldwell": "marked"})).contest("us-senate")
    assert (c.status, c.selections, c.overvotes) == ("valid", ("sen-caldwell",), 0)


def test_straight_party_with_an_overvote_of_the_voters_own_is_still_an_overvote():
    """§5(2) protects "straight party voting ... cast in a manner consistent with subsection (1)", not two
    selections of the voter's own in a vote-for-1 race (§1(6))."""
    c = ballot(straight("REP", us_senate={"sen-brennan": "marked", "sen-caldwell": "marked"})).contest("us-senate")
    assert c.status == "overvote" and c.selections == ()


def test_two_straight_party_marks_cancel_the_straight_party_vote_but_individual_marks_count():
    v = ballot({"straight-party": {"REP": "marked", "DEM": "marked"}, "us-senate": {"sen-brennan": "marked"}})
    assert v.straight_party is None
    assert v.contest("us-senate").selections == ("sen-brennan",)
    assert v.contest("president").status == "blank"
    assert [(r.code, r.contest_id) for r in v.reasons if r.code == "overvote"] == [("overvote", "straight-party")]
    assert v.needs_review


def test_a_marginal_straight_party_mark_is_not_applied_and_goes_to_a_person():
    v = ballot({"straight-party": {"DEM": "marginal"}})
    assert v.straight_party is None and v.contest("president").status == "blank"
    assert ("marginal_mark", "straight-party") in [(r.code, r.contest_id) for r in v.reasons]


def test_a_marginal_mark_in_a_straight_party_race_leaves_the_party_vote_and_says_so():
    v = ballot(straight("DEM", us_senate={"sen-caldwell": "marginal"}))
    assert v.contest("us-senate").selections == ("sen-brennan",) and v.contest("us-senate").from_straight_party
    reason = next(r for r in v.reasons if r.code == "marginal_mark")
    assert "straight-party vote (Maria Brennan)" in reason.detail


def test_an_unmarked_write_in_does_not_displace_the_straight_party_vote():
    v = ballot(straight("DEM", us_senate={"write-in-1": OptionMark(write_in_ink=True)}))
    assert v.contest("us-senate").selections == ("sen-brennan",)
    assert "unmarked_write_in" in [r.code for r in v.reasons]


def test_straight_party_in_a_vote_for_n_race_gives_the_partys_candidates_and_undervotes_the_rest():
    e = council_election()
    c = ballot({"straight-party": {"B": "marked"}}, style="s", election=e).contest("council")
    assert (c.status, c.selections, c.undervotes, c.from_straight_party) == ("undervote", ("b1",), 2, True)
    c = ballot({"straight-party": {"R": "marked"}}, style="s", election=e).contest("council")
    assert (c.status, c.selections, c.undervotes) == ("valid", ("r1", "r2", "r3"), 0)


def test_in_a_vote_for_n_race_the_voters_own_selections_replace_the_partys():
    """DESIGN.md's reading of §5(1) for vote-for-N: the explicit selections replace the party's."""
    e = council_election()
    v = ballot({"straight-party": {"R": "marked"}, "council": {"b1": "marked"}}, style="s", election=e)
    c = v.contest("council")
    assert (c.status, c.selections, c.undervotes, c.from_straight_party) == ("undervote", ("b1",), 2, False)
    assert v.contest("sheriff").selections == ("rs",)


def test_without_a_straight_party_mark_partisan_races_hold_only_the_voters_marks():
    e = council_election()
    v = ballot({"council": {"r1": "marked"}}, style="s", election=e)
    assert v.straight_party is None and v.contest("sheriff").status == "blank"
