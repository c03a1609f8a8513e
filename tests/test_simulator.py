"""The simulator end to end: determinism, voters, straight party, write-in names, truth, the sample primary."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from tabulate.ballots import (
    MARK_KINDS,
    POPULATIONS,
    draw_voter,
    forced_plan,
    intended_votes,
    simulate_sheet,
    simulate_sheets,
)
from tabulate.ballots.names import misspell, write_in_name
from tabulate.ballots.truth import expected_reading
from tabulate.ballots.voters import VoterIntent
from tabulate.election import ADJUDICATION_REASONS, load_election
from tabulate.election.layout import layout_style

REPO = Path(__file__).parents[1]
GENERAL = load_election(REPO / "samples" / "general" / "election.json")
PRIMARY = load_election(REPO / "samples" / "primary" / "election.json")


def test_same_seed_same_pixels_and_truth():
    a = simulate_sheet(GENERAL, 3, 99, dpi=100, bitonal_fraction=0.5)
    b = simulate_sheet(GENERAL, 3, 99, dpi=100, bitonal_fraction=0.5)
    for x, y in zip(a.pages, b.pages):
        np.testing.assert_array_equal(x, y)
    assert a.truth == b.truth


def test_sheet_k_is_the_same_whatever_the_number_of_sheets():
    few = list(simulate_sheets(GENERAL, 3, 5, dpi=60))
    later = next(simulate_sheets(GENERAL, 1, 5, start=2, dpi=60))
    np.testing.assert_array_equal(few[2].pages[0], later.pages[0])
    assert few[2].truth == later.truth and later.truth["sheet"] == 3


def test_another_seed_gives_other_sheets():
    a = [s.truth["targets"] for s in simulate_sheets(GENERAL, 4, 1, dpi=50)]
    b = [s.truth["targets"] for s in simulate_sheets(GENERAL, 4, 2, dpi=50)]
    assert a != b


def test_changing_the_scanner_leaves_the_voters_marks_alone():
    a = simulate_sheet(GENERAL, 7, 3, dpi=60, scan_profile="clean")
    b = simulate_sheet(GENERAL, 7, 3, dpi=60, scan_profile="rough", bitonal_fraction=1.0)
    assert a.truth["targets"] == [
        t | {"scan_accepts": a_t["scan_accepts"]} for t, a_t in zip(b.truth["targets"], a.truth["targets"])
    ]
    assert a.truth["images"] != b.truth["images"]


def test_varied_population_mixes_every_archetype_and_mark():
    rng = np.random.default_rng(0)
    archetypes = Counter(draw_voter(GENERAL, rng, POPULATIONS["varied"]).archetype for _ in range(600))
    assert set(archetypes) == {
        "full",
        "undervote",
        "straight_party",
        "straight_party_crossover",
        "straight_party_double",
        "overvote",
        "write_in",
        "blank",
    }
    assert archetypes["full"] > archetypes["overvote"] > archetypes["blank"]
    kinds = Counter(
        t["kind"] for s in simulate_sheets(GENERAL, 60, 4, dpi=40, population="stress") for t in s.truth["targets"]
    )
    assert set(MARK_KINDS) - {"stray"} <= set(kinds)


def test_primary_has_no_straight_party_and_no_write_ins():
    rng = np.random.default_rng(1)
    voters = [draw_voter(PRIMARY, rng, POPULATIONS["realistic"]) for _ in range(300)]
    assert not any(v.straight_party for v in voters)
    assert {v.archetype for v in voters} <= {"full", "undervote", "overvote", "blank"}
    assert all(not c.write_ins for v in voters for c in v.choices)


def test_straight_party_voter_leaves_partisan_contests_to_the_party():
    rng = np.random.default_rng(3)
    pop = POPULATIONS["varied"]
    voter = next(v for v in (draw_voter(GENERAL, rng, pop) for _ in range(400)) if v.archetype == "straight_party")
    party = voter.straight_party[0]
    senate = GENERAL.contest("us-senate")
    votes, via = intended_votes(GENERAL, voter, senate)
    party_of = {c.id: c.party for c in senate.candidates}
    assert via and [party_of[v] for v in votes] == [party]
    assert all(not GENERAL.contest(c.contest_id).partisan for c in voter.choices)


def test_crossover_vote_replaces_the_partys_vote_in_that_contest_only():
    # 31 KAR 6:030 §5 as DESIGN.md reads it: an explicit selection in a contest replaces the party's.
    layout = layout_style(GENERAL, "1")
    plan = forced_plan(
        layout, "A101", {("straight-party", "REP"): "full_fill", ("us-senate", "sen-brennan"): "full_fill"}
    )
    truth = simulate_sheet(GENERAL, 0, 1, plan=plan, dpi=50, scan_profile="clean").truth
    assert truth["straight_party"] == ["REP"]
    assert truth["contests"]["us-senate"]["intended_votes"] == ["sen-brennan"]
    assert not truth["contests"]["us-senate"]["via_straight_party"]
    assert truth["contests"]["us-house-6"]["intended_votes"] == ["house-barr"]
    assert truth["contests"]["us-house-6"]["via_straight_party"]
    assert truth["contests"]["mayor"]["intended_votes"] == []  # nonpartisan: never touched
    assert not truth["needs_review"]


def test_two_straight_party_marks_give_no_party_vote_and_need_review():
    layout = layout_style(GENERAL, "1")
    plan = forced_plan(layout, "A101", {("straight-party", "REP"): "full_fill", ("straight-party", "DEM"): "full_fill"})
    truth = simulate_sheet(GENERAL, 0, 1, plan=plan, dpi=50, scan_profile="clean").truth
    assert truth["contests"]["us-senate"]["intended_votes"] == []
    assert {"code": "overvote", "contest": "straight-party", "option": None, "kind": None} in truth["review_reasons"]


def test_write_in_names_cover_declared_variations_misspellings_and_ineligible_names():
    rng = np.random.default_rng(2)
    house = GENERAL.contest("us-house-6")
    seen = {}
    for _ in range(400):
        name, how, cand = write_in_name(house, GENERAL, rng)
        seen.setdefault(how, (name, cand))
    assert set(seen) == {"declared", "variation", "surname", "misspelled", "first_name", "on_ballot", "random"}
    declared = {w.id: w for w in house.declared_write_ins}
    name, cand = seen["variation"]
    assert name.lower() in {v.lower() for v in declared[cand].variations}
    assert seen["on_ballot"][0].lower() in {c.name.lower() for c in house.candidates}
    assert seen["on_ballot"][1] is None and seen["random"][1] is None
    # A contest with no declared write-ins gets only on-ballot or random names.
    hows = {write_in_name(GENERAL.contest("mayor"), GENERAL, rng)[1] for _ in range(50)}
    assert hows == {"on_ballot", "random"}


def test_misspelling_changes_the_surname_a_little():
    rng = np.random.default_rng(0)
    for _ in range(50):
        wrong = misspell("Jenna Foster", rng)
        assert wrong.startswith("Jenna ") and wrong != "Jenna Foster"
        assert abs(len(wrong) - len("Jenna Foster")) <= 1


def test_truth_reasons_use_the_adjudication_codes_and_match_needs_review():
    for sheet in simulate_sheets(GENERAL, 30, 8, dpi=40, population="stress"):
        t = sheet.truth
        assert t["needs_review"] == bool(t["review_reasons"])
        assert {r["code"] for r in t["review_reasons"]} <= set(ADJUDICATION_REASONS)
        for target in t["targets"]:
            k = expected_reading(target["kind"], "oval", target["ink"], t["images"][0]["bitonal"])
            assert (target["scan"], target["hand"]) == (k.scan, k.hand)
            if MARK_KINDS[target["kind"]].needs_review:  # what was drawn decides who looks
                assert t["needs_review"]
        for cid, c in t["contests"].items():
            assert c["overvote"] == (len(c["selections"]) > c["vote_for"])


def test_blank_ballot_is_flagged_blank():
    layout = layout_style(GENERAL, "2")
    truth = simulate_sheet(GENERAL, 0, 1, plan=forced_plan(layout, "B201", {}), dpi=40).truth
    assert truth["blank"] and [r["code"] for r in truth["review_reasons"]] == ["blank_ballot"]


def test_given_intent_is_inked_as_given():
    intent = VoterIntent("full", "3", "C302", "DEM")
    sheet = simulate_sheet(GENERAL, 0, 4, intent=intent, dpi=40)
    assert (sheet.truth["style"], sheet.truth["precinct"]) == ("3", "C302")
    assert all(t["kind"] in ("erasure", "hesitation", "dot") for t in sheet.truth["targets"])


def test_sample_primary_is_a_closed_kentucky_primary():
    e = PRIMARY
    assert e.type == "primary" and not e.straight_party
    assert len(e.precincts) >= 6 and len(e.ballot_styles) >= 3
    party_styles = [s for s in e.ballot_styles if s.party]
    nonpartisan = [s for s in e.ballot_styles if not s.party]
    assert {s.party for s in party_styles} == {p.id for p in e.parties} and len(nonpartisan) == 1
    judicial = {c.id for c in e.contests if c.level == "judicial" and not c.partisan}
    for style in e.ballot_styles:
        assert judicial <= set(style.contests), style.id  # the nonpartisan judicial races are on every ballot
        for cid in style.contests:
            c = e.contest(cid)
            assert c.write_ins == 0  # KRS 117.265(1): write-ins at regular and special elections only
            assert not c.partisan or {x.party for x in c.candidates} == {style.party}
    every = {p.id for p in e.precincts}
    for party in e.parties:
        assert {p for s in party_styles if s.party == party.id for p in s.precincts} == every
    assert set(nonpartisan[0].precincts) == every
    for s in e.ballot_styles:
        layout_style(e, s.id)  # fits on one sheet


def test_realistic_population_sends_a_few_per_cent_to_a_person_mostly_write_ins():
    """What counties see: a few per cent of sheets need a person, most for a write-in (31 KAR 6:030 §4)."""
    truths = [s.truth for s in simulate_sheets(GENERAL, 200, 16, dpi=30, population="realistic")]
    flagged = [t for t in truths if t["needs_review"]]
    assert 1 <= len(flagged) <= 16, len(flagged)  # 0.5 % to 8 %
    write_in = sum(
        any(r["code"] in ("marked_write_in", "unmarked_write_in") for r in t["review_reasons"]) for t in flagged
    )
    assert write_in > len(flagged) / 2, Counter(r["code"] for t in flagged for r in t["review_reasons"])
