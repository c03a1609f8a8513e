"""31 KAR 6:030 Sections 1(6), 2(1) and 2(2)(b) for a scan voting system, and the reasons a person must look."""

from pathlib import Path

import pytest

from tabulate.election import load_election, parse_election
from tabulate.rules import BallotMarks, MarksError, OptionMark, apply_rules

ROOT = Path(__file__).resolve().parents[1]
GENERAL = load_election(ROOT / "samples" / "general" / "election.json")


def ballot(marks: dict, style: str = "1", *, fwab: bool = False, election=GENERAL):
    """Marks given as {contest: {option: class or OptionMark}} -> BallotVotes."""
    built = {
        c: {o: m if isinstance(m, OptionMark) else OptionMark(scan=m) for o, m in opts.items()}
        for c, opts in marks.items()
    }
    return apply_rules(election, BallotMarks("t-1", style, built, precinct_id=None, fwab=fwab))


def codes(votes, contest_id=None, *, undervotes=False) -> list[str]:
    """The reasons' codes (for one contest), undervotes left out unless asked for."""
    return [
        r.code
        for r in votes.reasons
        if (contest_id is None or r.contest_id == contest_id) and (undervotes or r.code != "undervote")
    ]


WRITE_IN = OptionMark(scan="marked", write_in_ink=True)


def small_election(**adjudication):
    doc = {
        "title": "Special",
        "date": "2027-05-18",
        "type": "special",
        "jurisdiction": "Test County",
        "parties": [],
        "contests": [
            {
                "id": "judge",
                "type": "candidate",
                "title": "Judge",
                "vote_for": 1,
                "partisan": False,
                "write_ins": 1,
                "candidates": [{"id": "a", "name": "Ann Able"}, {"id": "b", "name": "Bo Baker"}],
            },
            {
                "id": "board",
                "type": "candidate",
                "title": "Board",
                "vote_for": 2,
                "partisan": False,
                "candidates": [
                    {"id": "x", "name": "X Ray"},
                    {"id": "y", "name": "Y Zed"},
                    {"id": "z", "name": "Z Zee"},
                ],
            },
            {"id": "q", "type": "question", "title": "Question", "text": "Yes or no?"},
        ],
        "precincts": [{"id": "P1", "name": "One"}],
        "ballot_styles": [{"id": "s", "precincts": ["P1"], "contests": ["judge", "board", "q"]}],
    }
    if adjudication:
        doc["adjudication"] = adjudication
    return parse_election(doc)


# -- Section 2(1)(a): a filled target is a vote -------------------------------------------------


def test_filling_in_the_oval_next_to_the_candidates_name_is_a_vote():
    """§2(1)(a): "Filling in the oval or box or connecting the arrow next to the candidate's name"."""
    v = ballot({"mayor": {"may-garza": "marked"}}).contest("mayor")
    assert v.status == "valid" and v.selections == ("may-garza",)
    assert v.overvotes == 0 and v.undervotes == 0
    assert "31 KAR 6:030 §2(1)(a)" in v.clauses


def test_filling_in_the_oval_next_to_the_question_choice_is_a_vote():
    v = ballot({"amendment-1": {"no": "marked"}}).contest("amendment-1")
    assert v.status == "valid" and v.selections == ("no",)


def test_a_contest_with_nothing_marked_is_blank_with_every_vote_an_undervote():
    v = ballot({"mayor": {"may-garza": "marked"}}).contest("school-board-1")
    assert v.status == "blank" and v.selections == () and v.undervotes == 2


def test_fewer_selections_than_allowed_is_an_undervote_and_the_selections_count():
    v = ballot({"city-council": {"cc-orr": "marked"}}).contest("city-council")
    assert v.status == "undervote" and v.selections == ("cc-orr",) and v.undervotes == 2


def test_selections_are_listed_in_ballot_order():
    v = ballot({"city-council": {"cc-orr": "marked", "cc-abbott": "marked"}}).contest("city-council")
    assert v.selections == ("cc-abbott", "cc-orr")


# -- marginal marks ------------------------------------------------------------------------------


def test_a_marginal_mark_is_not_counted_by_the_machine_but_goes_to_a_person():
    v = ballot({"mayor": {"may-garza": "marginal"}})
    assert v.contest("mayor").status == "blank" and v.contest("mayor").selections == ()
    assert [(r.code, r.contest_id, r.option_id) for r in v.reasons if r.code != "undervote"] == [
        ("marginal_mark", "mayor", "may-garza")
    ]
    assert v.needs_review and not v.blank


def test_a_marginal_mark_beside_a_marked_target_is_no_overvote_but_is_flagged():
    """Only "marked" counts; the marginal mark is shown to a person, who may find an overvote."""
    v = ballot({"mayor": {"may-garza": "marked", "may-wells": "marginal"}})
    assert v.contest("mayor").status == "valid" and v.contest("mayor").selections == ("may-garza",)
    assert codes(v, "mayor") == ["marginal_mark"]


# -- Section 1(6): overvote --------------------------------------------------------------------


def test_more_than_the_permitted_number_of_selections_is_an_overvote_with_no_credit():
    """§1(6): '"Overvote" means a voter has made more than the permitted number of selections in a single race'."""
    v = ballot({"mayor": {"may-garza": "marked", "may-wells": "marked"}})
    c = v.contest("mayor")
    assert c.status == "overvote" and c.selections == () and c.overvotes == 1 and c.undervotes == 0
    assert "31 KAR 6:030 §1(6)" in c.clauses
    assert codes(v, "mayor") == ["overvote"] and v.needs_review


def test_an_overvote_in_a_vote_for_three_contest_counts_three_overvotes():
    marks = {"city-council": dict.fromkeys(("cc-abbott", "cc-delgado", "cc-fischer", "cc-orr"), "marked")}
    c = ballot(marks).contest("city-council")
    assert c.status == "overvote" and c.selections == () and c.overvotes == 3


def test_an_overvote_in_one_contest_leaves_the_other_contests_counted():
    v = ballot({"mayor": {"may-garza": "marked", "may-wells": "marked"}, "amendment-1": {"yes": "marked"}})
    assert v.contest("amendment-1").selections == ("yes",)


def test_voting_both_yes_and_no_on_a_question_is_an_overvote():
    assert ballot({"amendment-2": {"yes": "marked", "no": "marked"}}).contest("amendment-2").status == "overvote"


# -- Section 2(1)(b): write-ins ----------------------------------------------------------------


def test_writing_in_a_name_and_filling_in_the_oval_is_a_write_in_awaiting_a_person():
    """§2(1)(b): "Writing in the name of an eligible candidate in the designated write-in space and filling
    in the oval ... next to the designated write-in space"."""
    v = ballot({"mayor": {"write-in-1": WRITE_IN}})
    c = v.contest("mayor")
    assert c.status == "write_in_pending" and c.selections == ("write-in-1",) and c.undervotes == 0
    assert "31 KAR 6:030 §2(1)(b)" in c.clauses
    assert codes(v, "mayor") == ["marked_write_in"] and v.needs_review


def test_a_name_written_beside_an_unmarked_write_in_oval_is_not_a_vote_and_is_flagged():
    v = ballot({"mayor": {"write-in-1": OptionMark(scan="unmarked", write_in_ink=True)}})
    c = v.contest("mayor")
    assert c.status == "blank" and c.selections == ()
    assert codes(v, "mayor")[0] == "unmarked_write_in" and v.needs_review


def test_a_filled_write_in_oval_with_no_name_is_not_a_vote_but_a_person_looks():
    v = ballot({"mayor": {"write-in-1": OptionMark(scan="marked")}})
    assert v.contest("mayor").status == "blank"
    reason = next(r for r in v.reasons if r.contest_id == "mayor")
    assert reason.code == "marked_write_in" and "no name" in reason.detail


def test_a_circled_write_in_target_with_no_name_goes_to_a_person_like_a_filled_one():
    """§2(1)(b): a write-in vote needs "the name of an eligible candidate in the designated write-in space" and
    the target marked; a target marked the way a hand count reads it (§3(1): circled, an X, a check) with no
    name seen is the same question for a person as a filled one."""
    filled = ballot({"mayor": {"write-in-1": OptionMark(scan="marked")}})
    circled = ballot({"mayor": {"write-in-1": OptionMark(scan="unmarked", hand="marked")}})
    for v in (filled, circled):
        assert v.contest("mayor").status == "blank" and v.needs_review
        assert codes(v, "mayor") == ["marked_write_in"]
        reason = next(r for r in v.reasons if r.contest_id == "mayor")
        assert reason.option_id == "write-in-1" and "no name was seen" in reason.detail


def test_a_marked_candidate_and_an_unmarked_written_name_counts_the_candidate():
    v = ballot({"mayor": {"may-wells": "marked", "write-in-1": OptionMark(write_in_ink=True)}})
    c = v.contest("mayor")
    assert c.status == "valid" and c.selections == ("may-wells",)
    assert "unmarked_write_in" in codes(v, "mayor")


# -- Section 2(2)(b): a named candidate and a write-in -------------------------------------------


def test_a_named_candidate_and_a_write_in_for_a_different_person_is_an_overvote():
    """§2(2)(b): "designates a vote for a named candidate on the ballot and also writes in the name of a
    different person, these actions shall be considered an overvote, with neither candidate receiving credit"."""
    v = ballot({"mayor": {"may-wells": "marked", "write-in-1": WRITE_IN}})
    c = v.contest("mayor")
    assert c.status == "overvote" and c.selections == () and c.overvotes == 1
    assert c.clauses[:2] == ("31 KAR 6:030 §1(6)", "31 KAR 6:030 §2(2)(b)")
    assert set(codes(v, "mayor")) == {"overvote", "marked_write_in"}
    overvote = next(r for r in v.reasons if r.code == "overvote")
    assert "different person" in overvote.detail


def test_a_named_candidate_and_a_write_in_within_vote_for_n_both_count():
    v = ballot({"city-council": {"cc-orr": "marked", "write-in-1": WRITE_IN}})
    c = v.contest("city-council")
    assert c.status == "write_in_pending" and c.selections == ("cc-orr", "write-in-1") and c.undervotes == 1


# -- reasons --------------------------------------------------------------------------------------


def test_a_ballot_with_no_marks_at_all_is_blank_and_goes_to_a_person():
    v = ballot({})
    assert v.blank and codes(v)[0] == "blank_ballot" and v.needs_review
    assert all(c.status == "blank" for c in v.contests)


def test_a_ballot_with_only_a_marginal_mark_is_not_blank():
    assert not ballot({"amendment-1": {"yes": "marginal"}}).blank


def test_a_ballot_with_only_a_straight_party_mark_is_not_blank():
    assert not ballot({"straight-party": {"DEM": "marked"}}).blank


def test_hand_reading_that_would_change_a_vote_is_a_scan_hand_disagreement():
    v = ballot(
        {
            "amendment-1": {"yes": OptionMark(scan="unmarked", hand="marked")},
            "amendment-2": {"no": OptionMark(scan="marked", hand="unmarked")},
        }
    )
    assert [(r.code, r.contest_id) for r in v.reasons if r.code == "scan_hand_disagreement"] == [
        ("scan_hand_disagreement", "amendment-1"),
        ("scan_hand_disagreement", "amendment-2"),
    ]
    # The scanner reading decides the vote (§2(1)); the hand reading is evidence.
    assert v.contest("amendment-1").selections == () and v.contest("amendment-2").selections == ("no",)


def test_hand_reading_that_changes_no_vote_is_no_disagreement():
    v = ballot(
        {
            "amendment-1": {
                "yes": OptionMark(scan="marked", hand="marked"),
                "no": OptionMark(scan="unmarked", hand="marginal"),
            }
        }
    )
    assert codes(v) == [] and not v.needs_review


def test_undervotes_are_reasons_but_do_not_queue_a_ballot_by_default():
    v = ballot({"mayor": {"may-garza": "marked"}})
    assert "undervote" in codes(v, undervotes=True) and not v.needs_review


def test_a_county_that_queues_undervotes_gets_them_reviewed():
    e = small_election(reasons=["undervote"])
    v = apply_rules(e, BallotMarks("u", "s", {"judge": {"a": OptionMark("marked")}}))
    assert v.needs_review and codes(v, undervotes=True) == ["undervote", "undervote"]


def test_a_county_that_does_not_queue_marginal_marks_is_not_sent_them():
    e = small_election(reasons=["overvote"])
    v = apply_rules(e, BallotMarks("u", "s", {"judge": {"a": OptionMark("marginal")}}))
    assert "marginal_mark" in codes(v) and not v.needs_review


def test_a_fully_and_clearly_voted_ballot_needs_no_person():
    e = small_election()
    marks = {
        "judge": {"a": OptionMark("marked")},
        "board": {"x": OptionMark("marked"), "z": OptionMark("marked")},
        "q": {"yes": OptionMark("marked")},
    }
    v = apply_rules(e, BallotMarks("ok", "s", marks, precinct_id="P1"))
    assert [c.status for c in v.contests] == ["valid", "valid", "valid"]
    assert v.reasons == () and not v.needs_review and v.precinct_id == "P1"


# -- the style --------------------------------------------------------------------------------------


def test_only_the_contests_of_the_ballots_style_are_counted():
    v = ballot({"mayor": {"may-garza": "marked"}, "state-rep-57": {"sr57-nash": "marked"}}, style="2")
    ids = [c.contest_id for c in v.contests]
    assert "mayor" not in ids and "state-rep-57" not in ids and "straight-party" not in ids
    assert ids == [c for c in GENERAL.style("2").contests]


def test_an_unknown_style_is_a_marks_error():
    with pytest.raises(MarksError, match="no ballot style '9'"):
        ballot({}, style="9")
