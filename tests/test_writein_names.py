"""31 KAR 6:030 Section 4: whose write-in vote a written name is."""

import dataclasses
import json
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from tabulate.election import load_election, parse_election
from tabulate.rules import WriteInDecision, resolve_write_in
from tabulate.rules._names import edit_distance, misspelling_allowance, normalise, split_name

ROOT = Path(__file__).resolve().parents[1]
GENERAL_PATH = ROOT / "samples" / "general" / "election.json"
GENERAL = load_election(GENERAL_PATH)
PRESIDENT = GENERAL.contest("president")
SENATE = GENERAL.contest("us-senate")
HOUSE = GENERAL.contest("us-house-6")


def decide(name, contest=SENATE, **kw) -> tuple[str, str | None, str]:
    d = resolve_write_in(name, contest, GENERAL, **kw)
    return d.outcome, d.candidate_id, d.clause


def governor_election():
    doc = {
        "title": "General",
        "date": "2027-11-02",
        "type": "general",
        "jurisdiction": "Test County",
        "parties": [{"id": "R", "name": "Red", "abbreviation": "RED"}],
        "contests": [
            {
                "id": "governor",
                "type": "candidate",
                "title": "Governor and Lieutenant Governor",
                "vote_for": 1,
                "slate": True,
                "office": "governor",
                "write_ins": 1,
                "candidates": [{"id": "g-r", "name": "Ray Redd", "running_mate": "Lou Lane", "party": "R"}],
                "declared_write_ins": [
                    {"id": "g-wi-oneal", "name": "Mary O'Neal-Price", "running_mate": "Sam Ortiz", "variations": []},
                    {"id": "g-wi-ortiz", "name": "Paula Ortiz", "running_mate": "Tim Tate", "variations": []},
                ],
            }
        ],
        "precincts": [{"id": "P1", "name": "One"}],
        "ballot_styles": [{"id": "s", "precincts": ["P1"], "contests": ["governor"]}],
    }
    return parse_election(doc)


# -- valid write-ins ---------------------------------------------------------------------------


def test_the_full_name_of_a_declared_write_in_candidate_is_a_vote_for_them():
    assert decide("Jenna Foster") == ("candidate", "sen-wi-foster", "31 KAR 6:030 §2(1)(b)")


def test_case_punctuation_and_spacing_do_not_matter():
    for written in ("JENNA FOSTER", "  jenna   foster ", "Jenna Foster.", "Foster, Jenna", "Jénna Foster"):
        assert decide(written)[:2] == ("candidate", "sen-wi-foster"), written


def test_a_name_variation_filed_by_the_candidate_is_a_vote():
    """§4(9): the other name "shall comply with the variations of names listed by the candidate"."""
    assert decide("Tom Whitaker", HOUSE) == ("candidate", "house-wi-tom-whitaker", "31 KAR 6:030 §4(9)")
    assert decide("J. L. Foster") == ("candidate", "sen-wi-foster", "31 KAR 6:030 §4(9)")


def test_writing_in_only_the_surname_of_an_eligible_candidate_is_a_valid_vote():
    """§4(5): "Writing in only the surname of an eligible candidate shall constitute a valid vote"."""
    assert decide("Foster") == ("candidate", "sen-wi-foster", "31 KAR 6:030 §4(5)")


def test_a_minor_misspelling_is_disregarded_when_the_candidate_is_clearly_meant():
    """§4(4): "Any minor misspelling of the name of a candidate shall be disregarded ... as long as the
    intended candidate may be clearly determined"."""
    assert decide("Jena Foster")[:2] == ("candidate", "sen-wi-foster")
    assert decide("Fostr") == ("candidate", "sen-wi-foster", "31 KAR 6:030 §4(4)")
    assert decide("Munroe", PRESIDENT)[:2] == ("candidate", "pres-wi-monroe")
    assert decide("Tomas Whitaker", HOUSE)[:2] == ("candidate", "house-wi-tom-whitaker")


def test_a_misspelt_surname_that_two_filed_candidates_share_is_not_a_vote():
    e = governor_election()
    # "Ortez" is one slip from Paula Ortiz and from Sam Ortiz, running mate on another slate.
    d = resolve_write_in("Ortez", e.contest("governor"))
    assert d.outcome == "not_counted" and d.clause == "31 KAR 6:030 §4(5)"
    d = resolve_write_in("Ortiss", e.contest("governor"))
    assert d.outcome == "not_counted"  # still one surname "ortiz" shared by two filed people


def test_a_misspelling_that_could_be_either_of_two_different_surnames_goes_to_a_person():
    doc = {
        "title": "S",
        "date": "2027-05-18",
        "type": "special",
        "jurisdiction": "T",
        "parties": [],
        "contests": [
            {
                "id": "c",
                "type": "candidate",
                "title": "Clerk",
                "vote_for": 1,
                "write_ins": 1,
                "candidates": [],
                "declared_write_ins": [
                    {"id": "w-dawson", "name": "Kim Dawson"},
                    {"id": "w-lawson", "name": "Lee Lawson"},
                ],
            }
        ],
        "precincts": [{"id": "P", "name": "P"}],
        "ballot_styles": [{"id": "s", "precincts": ["P"], "contests": ["c"]}],
    }
    d = resolve_write_in("Mawson", parse_election(doc).contest("c"))
    assert d.outcome == "person_must_decide" and set(d.candidates) == {"w-dawson", "w-lawson"}
    assert d.clause == "31 KAR 6:030 §4(4)"


def test_writing_in_the_surname_of_the_candidate_for_vice_president_is_a_vote_for_the_slate():
    """§4(11): "Writing in the surname of the candidate for President or the surname of the candidate for
    Vice President shall be sufficient to cast a write-in vote for the slate"."""
    assert decide("Carver", PRESIDENT) == ("candidate", "pres-wi-monroe", "31 KAR 6:030 §4(11)")
    assert decide("Beth Carver", PRESIDENT) == ("candidate", "pres-wi-monroe", "31 KAR 6:030 §4(11)")
    assert decide("Monroe", PRESIDENT) == ("candidate", "pres-wi-monroe", "31 KAR 6:030 §4(5)")


def test_writing_in_the_surname_of_the_candidate_for_lieutenant_governor_is_a_vote_for_the_slate():
    """§4(10): "Writing in the surname of the candidate for Governor or the surname of the candidate for
    Lieutenant Governor shall be sufficient to cast a write-in vote for the slate"."""
    e = governor_election()
    d = resolve_write_in("Tate", e.contest("governor"))
    assert (d.outcome, d.candidate_id, d.clause) == ("candidate", "g-wi-ortiz", "31 KAR 6:030 §4(10)")


def test_the_slate_clause_follows_the_contests_office_not_its_title():
    """The office, not words in the title, chooses §4(11) ("the candidate for President or ... Vice President")
    over §4(10) ("the candidate for Governor or ... Lieutenant Governor")."""
    doc = json.loads(GENERAL_PATH.read_text())
    doc["contests"][0]["title"] = "Electors for U.S. Pres. and V.P."
    assert resolve_write_in("Carver", parse_election(doc).contest("president")).clause == "31 KAR 6:030 §4(11)"
    gov = governor_election()
    titled = dataclasses.replace(gov.contest("governor"), title="Governor (and President of the Senate ex officio)")
    assert resolve_write_in("Tate", titled).clause == "31 KAR 6:030 §4(10)"


def test_apostrophes_and_hyphens_keep_a_surname_whole():
    e = governor_election()
    for written in ("O'Neal-Price", "ONeal Price", "oneal-price", "Mary O’Neal-Price"):
        d = resolve_write_in(written, e.contest("governor"))
        assert d.candidate_id == "g-wi-oneal", written


# -- not counted -------------------------------------------------------------------------------


def test_writing_in_only_a_surname_shared_by_two_filed_candidates_is_not_a_vote():
    """§4(5): "If there is more than one (1) filed candidate with the same surname for that office, writing
    in only the last name or surname shall not constitute a vote"."""
    d = resolve_write_in("Whitaker", HOUSE)
    assert (d.outcome, d.clause) == ("not_counted", "31 KAR 6:030 §4(5)")
    assert set(d.candidates) == {"house-wi-ann-whitaker", "house-wi-tom-whitaker"}


def test_a_full_name_tells_apart_two_candidates_who_share_a_surname():
    assert decide("Ann Whitaker", HOUSE)[:2] == ("candidate", "house-wi-ann-whitaker")
    assert decide("Annie Whitaker", HOUSE)[:2] == ("candidate", "house-wi-ann-whitaker")
    assert decide("Thomas Whitaker", HOUSE)[:2] == ("candidate", "house-wi-tom-whitaker")


def test_writing_in_only_the_first_name_of_an_eligible_candidate_is_not_a_valid_vote():
    """§4(6): "Writing in only the first name of an eligible candidate shall not constitute a valid vote"."""
    assert decide("Jenna") == ("not_counted", None, "31 KAR 6:030 §4(6)")
    assert decide("Thomas", HOUSE) == ("not_counted", None, "31 KAR 6:030 §4(6)")


def test_a_first_name_is_not_taken_for_a_misspelt_surname():
    doc = {
        "title": "S",
        "date": "2027-05-18",
        "type": "special",
        "jurisdiction": "T",
        "parties": [],
        "contests": [
            {
                "id": "c",
                "type": "candidate",
                "title": "Clerk",
                "vote_for": 1,
                "write_ins": 1,
                "candidates": [],
                "declared_write_ins": [{"id": "w-mark", "name": "Mark Dawson"}, {"id": "w-marks", "name": "Lee Marks"}],
            }
        ],
        "precincts": [{"id": "P", "name": "P"}],
        "ballot_styles": [{"id": "s", "precincts": ["P"], "contests": ["c"]}],
    }
    contest = parse_election(doc).contest("c")
    assert resolve_write_in("Mark", contest).clause == "31 KAR 6:030 §4(6)"
    assert resolve_write_in("Marcs", contest).candidate_id == "w-marks"


def test_writing_in_only_the_initials_of_a_candidate_is_not_a_vote():
    """§4(7): "Writing in only the initials of a candidate shall not constitute a vote"."""
    for written in ("J. F.", "J.L.F.", "JF", "jlf"):
        assert decide(written) == ("not_counted", None, "31 KAR 6:030 §4(7)"), written


def test_writing_in_only_the_nickname_of_an_eligible_candidate_is_not_a_valid_vote():
    """§4(8): "Writing in only the nickname of an eligible candidate shall not constitute a valid vote"."""
    assert decide("Tom", HOUSE) == ("not_counted", None, "31 KAR 6:030 §4(8)")
    assert decide("Tommy", HOUSE) == ("not_counted", None, "31 KAR 6:030 §4(8)")
    assert decide("Jen") == ("not_counted", None, "31 KAR 6:030 §4(8)")


def test_another_name_with_the_surname_must_be_among_the_filed_variations():
    """§4(9): "If the voter writes in any other name along with the surname of an eligible write-in candidate,
    the other name ... shall comply with the variations of names listed by the candidate"."""
    assert decide("Tommy Whitaker", HOUSE) == ("not_counted", None, "31 KAR 6:030 §4(9)")
    assert decide("Jen Foster") == ("not_counted", None, "31 KAR 6:030 §4(9)")
    assert decide("Alan B. Monroe", PRESIDENT) == ("not_counted", None, "31 KAR 6:030 §4(9)")


def test_leaving_out_a_filed_middle_initial_still_complies_with_the_filed_name():
    assert decide("J. Foster")[:2] == ("candidate", "sen-wi-foster")


def test_a_write_in_for_a_candidate_already_on_the_ballot_is_not_counted():
    """§4(2): "A write-in vote for a candidate whose name already appears on the ballot as a candidate shall
    not be counted as a vote"."""
    for written, contest in (
        ("Robert Caldwell", SENATE),
        ("Caldwell", SENATE),
        ("Marcus Hale", PRESIDENT),
        ("Prewitt", PRESIDENT),
        ("Caldwel", SENATE),
        ("Bob Caldwell", SENATE),
    ):
        d = resolve_write_in(written, contest)
        assert (d.outcome, d.clause) == ("not_counted", "31 KAR 6:030 §4(2)"), written


def test_a_surname_shared_by_a_printed_candidate_and_a_declared_write_in_is_not_a_vote():
    """§4(5) counts every "filed candidate ... for that office", printed or declared."""
    doc = {
        "title": "S",
        "date": "2027-05-18",
        "type": "special",
        "jurisdiction": "T",
        "parties": [],
        "contests": [
            {
                "id": "c",
                "type": "candidate",
                "title": "Clerk",
                "vote_for": 1,
                "write_ins": 1,
                "candidates": [{"id": "p-gray", "name": "Pat Gray"}],
                "declared_write_ins": [{"id": "w-gray", "name": "Lee Gray"}],
            }
        ],
        "precincts": [{"id": "P", "name": "P"}],
        "ballot_styles": [{"id": "s", "precincts": ["P"], "contests": ["c"]}],
    }
    contest = parse_election(doc).contest("c")
    assert resolve_write_in("Gray", contest).clause == "31 KAR 6:030 §4(5)"
    assert resolve_write_in("Lee Gray", contest).candidate_id == "w-gray"


def test_a_name_of_no_eligible_write_in_candidate_is_not_counted():
    """§4(1): "Only votes cast for eligible write-in candidates as provided in KRS 117.265 shall be considered
    valid and counted"."""
    assert decide("Mickey Mouse") == ("not_counted", None, "31 KAR 6:030 §4(1)")


def test_a_candidate_for_another_office_is_said_so():
    d = resolve_write_in("Carol Mullins", PRESIDENT, GENERAL)
    assert d.clause == "31 KAR 6:030 §4(1)" and "State Senator" in d.explanation


def test_stickers_labels_and_stamps_are_not_write_in_votes():
    """§4(3): "The use of stickers, labels, rubber stamps, or other similar devices shall not be counted as
    write-in votes"."""
    assert decide("Jenna Foster", sticker=True) == ("not_counted", None, "31 KAR 6:030 §4(3)")


def test_an_empty_write_in_area_is_no_vote():
    assert decide("  .  ")[:2] == ("not_counted", None)


def test_a_question_has_no_write_in_line():
    with pytest.raises(ValueError, match="question"):
        resolve_write_in("Yes", GENERAL.contest("amendment-1"))


def test_a_decision_is_frozen_and_keeps_the_normalised_name():
    d = resolve_write_in("Foster, Jenna", SENATE)
    assert isinstance(d, WriteInDecision) and d.written == "jenna foster" and d.explanation
    with pytest.raises(FrozenInstanceError):
        d.outcome = "not_counted"


# -- the name helpers ----------------------------------------------------------------------------


def test_normalise_and_split_names():
    assert normalise("  O'Brien,  Mary-Kate ") == "marykate obrien"
    assert split_name("Robert Caldwell, Jr.") == split_name("Robert Caldwell")
    assert split_name("Martin Van Buren").surname == "van buren"
    assert split_name("J. L. Foster").initials == "jlf"


def test_edit_distance_counts_one_swap_of_neighbours_as_one_slip():
    assert edit_distance("foster", "fotser") == 1
    assert edit_distance("whitaker", "whittaker") == 1
    assert edit_distance("tommy", "tom") == 2
    assert edit_distance("", "abc") == 3


def test_misspelling_allowance_grows_with_the_name():
    assert [misspelling_allowance(w) for w in ("orr", "king", "caldwell")] == [0, 1, 2]
