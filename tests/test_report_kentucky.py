"""Kentucky's reports: the zero-file (31 KAR 2:010) and the unofficial results (31 KAR 4:031 Section 3)."""

import csv
import io
import json
from pathlib import Path

import pytest

from tabulate.cli import main
from tabulate.election import load_election
from tabulate.report import (
    REPORTED_VOTE_TYPES,
    tally_records,
    unofficial_display,
    unofficial_results,
    unofficial_results_csv,
    write_in_threshold_met,
    zero_file,
    zero_file_csv,
)
from tabulate.report.synthetic import make_record, synthetic_records

ROOT = Path(__file__).resolve().parents[1]
GENERAL = ROOT / "samples" / "general" / "election.json"
ELECTION = load_election(GENERAL)
FOUR_TYPES = ["mail_in_absentee", "excused_in_person_absentee", "no_excuse_in_person_absentee", "election_day"]


def precincts_with(contest_id):
    """Precincts whose ballot style holds the contest, worked out from the styles, in election order."""
    on = set()
    for style in ELECTION.ballot_styles:
        if contest_id in style.contests:
            on.update(style.precincts)
    return [p.id for p in ELECTION.precincts if p.id in on]


def test_zero_file_lists_every_contest_option_and_precinct_in_certified_order_with_four_zeros():
    """31 KAR 2:010 Section 1(11)."""
    rows = list(csv.DictReader(io.StringIO(zero_file_csv(ELECTION))))
    assert list(rows[0].keys())[-4:] == FOUR_TYPES
    assert "provisional" not in rows[0]
    contests_in_file = list(dict.fromkeys(r["contest_id"] for r in rows))
    assert contests_in_file == [c.id for c in ELECTION.contests]
    for contest in ELECTION.contests:
        mine = [r for r in rows if r["contest_id"] == contest.id]
        assert list(dict.fromkeys(r["precinct_id"] for r in mine)) == precincts_with(contest.id)
        expected_options = [o.id for o in contest.options if o.kind != "write_in"]
        if contest.write_ins:
            expected_options += [w.id for w in contest.declared_write_ins] + ["write-in"]
        for p in precincts_with(contest.id):
            assert [r["option_id"] for r in mine if r["precinct_id"] == p] == expected_options
    assert all(r[v] == "0" for r in rows for v in FOUR_TYPES)
    # Questions are there too, with their answers.
    assert [r["option"] for r in rows if r["contest_id"] == "amendment-1"][:2] == ["YES", "NO"]


def test_zero_file_json_matches_the_csv_and_depends_on_the_election_only():
    doc = zero_file(ELECTION)
    assert doc["vote_types"] == FOUR_TYPES == list(REPORTED_VOTE_TYPES)
    assert doc["election"]["hash"] == ELECTION.hash
    n_rows = sum(len(c["rows"]) for c in doc["contests"])
    assert n_rows == len(zero_file_csv(ELECTION).splitlines()) - 1
    assert zero_file(load_election(GENERAL)) == doc


def tally_of(senate_choices, blanks=0):
    """A tally where each entry of ``senate_choices`` is one ballot's U.S. Senate selection."""
    records = [
        make_record(
            ELECTION,
            f"b{i}",
            {"us-senate": (choice,)},
            style_id="1",
            precinct_id="A101",
            position=i + 1,
            write_ins={("us-senate", "write-in-1"): "sen-wi-foster"} if choice == "write-in-1" else {},
        )
        for i, choice in enumerate(senate_choices)
    ]
    records += [
        make_record(ELECTION, f"blank{i}", {}, style_id="2", precinct_id="B201", position=i + 1) for i in range(blanks)
    ]
    return tally_records(ELECTION, records)


def senate(doc):
    return next(c for c in doc["contests"] if c["contest_id"] == "us-senate")


def test_declared_write_ins_are_listed_when_write_ins_are_exactly_five_percent_of_the_votes():
    """31 KAR 4:031 Section 3(2): "five (5) percent or more of the votes cast ... were for write-in candidates"."""
    tally = tally_of(["sen-caldwell"] * 19 + ["write-in-1"], blanks=5)  # 1 of 20 votes; blanks are not votes
    assert write_in_threshold_met(tally.contest("us-senate").counts())
    s = senate(unofficial_results(tally))
    assert s["declared_write_ins_listed"] and s["write_in_votes"] == 1 and s["total_votes"] == 20
    foster = [r for r in s["rows"] if r["option_id"] == "sen-wi-foster" and r["precinct_id"] == "A101"]
    assert foster[0]["total"] == 1 and foster[0]["kind"] == "declared_write_in"


def test_declared_write_ins_are_not_listed_just_under_five_percent():
    tally = tally_of(["sen-caldwell"] * 20 + ["write-in-1"])  # 1 of 21 votes = 4.76 %
    assert not write_in_threshold_met(tally.contest("us-senate").counts())
    s = senate(unofficial_results(tally))
    assert not s["declared_write_ins_listed"]
    assert not [r for r in s["rows"] if r["kind"] == "declared_write_in"]
    write_in = [r for r in s["rows"] if r["option_id"] == "write-in" and r["precinct_id"] == "A101"]
    assert write_in[0]["total"] == 1  # the write-in votes are still there, not attributed


def test_the_five_percent_counts_all_write_ins_of_the_contest_not_one_candidates_share():
    # Two declared candidates in the House race, 3 % each: together 6 %, so both are listed.
    choices = ["house-barr"] * 94 + ["write-in-1"] * 6
    records = []
    for i, choice in enumerate(choices):
        who = "house-wi-ann-whitaker" if i % 2 else "house-wi-tom-whitaker"
        records.append(
            make_record(
                ELECTION,
                f"b{i}",
                {"us-house-6": (choice,)},
                style_id="1",
                precinct_id="A101",
                position=i + 1,
                write_ins={("us-house-6", "write-in-1"): who} if choice == "write-in-1" else {},
            )
        )
    house = next(
        c for c in unofficial_results(tally_records(ELECTION, records))["contests"] if c["contest_id"] == "us-house-6"
    )
    assert house["declared_write_ins_listed"]
    listed = {r["option_id"]: r["total"] for r in house["rows"] if r["precinct_id"] == "A101"}
    assert listed["house-wi-ann-whitaker"] == 3 and listed["house-wi-tom-whitaker"] == 3
    assert listed["write-in"] == 0


def test_unofficial_rows_of_a_contest_add_up_to_its_votes_by_precinct_and_vote_type():
    tally = tally_records(ELECTION, synthetic_records(ELECTION, 200, seed=3))
    doc = unofficial_results(tally)
    assert doc["vote_types"][:4] == FOUR_TYPES
    for c in doc["contests"]:
        ct = tally.contest(c["contest_id"])
        for p in ct.precinct_ids:
            for v in doc["vote_types"]:
                rows = [r for r in c["rows"] if r["precinct_id"] == p]
                assert sum(r["votes"][v] for r in rows) == ct.counts(p, v).total_votes
    rows = list(csv.DictReader(io.StringIO(unofficial_results_csv(tally))))
    assert sum(int(r["total"]) for r in rows) == sum(c["total_votes"] for c in doc["contests"])


def test_public_display_shows_absentee_votes_only_as_a_cumulative_total():
    """31 KAR 4:031 Section 3(3): "shall only list a candidate's precinct absentee vote totals as cumulative"."""
    records = [
        make_record(
            ELECTION,
            "m1",
            {"president": ("pres-hale",)},
            style_id="1",
            precinct_id="A101",
            vote_type="mail_in_absentee",
        ),
        make_record(
            ELECTION,
            "m2",
            {"president": ("pres-hale",)},
            style_id="2",
            precinct_id="B201",
            vote_type="no_excuse_in_person_absentee",
        ),
        make_record(
            ELECTION,
            "d1",
            {"president": ("pres-hale",)},
            style_id="1",
            precinct_id="A101",
            vote_type="election_day",
            position=2,
        ),
    ]
    doc = unofficial_display(tally_records(ELECTION, records))
    assert doc["columns"] == ["absentee", "election_day", "provisional"]
    pres = doc["contests"][0]["rows"]
    hale_a101 = next(r for r in pres if r["option_id"] == "pres-hale" and r["precinct_id"] == "A101")
    assert hale_a101["votes"] == {"absentee": None, "election_day": 1, "provisional": 0}
    hale_absentee = [r for r in pres if r["option_id"] == "pres-hale" and r["precinct_id"] == "absentee"]
    assert len(hale_absentee) == 1 and hale_absentee[0]["votes"]["absentee"] == 2
    for r in pres:
        assert not any(k in r["votes"] for k in ("mail_in_absentee", "no_excuse_in_person_absentee"))
    by_precinct = unofficial_display(tally_records(ELECTION, records), absentee="precinct")
    hale = {r["precinct_id"]: r["votes"] for r in by_precinct["contests"][0]["rows"] if r["option_id"] == "pres-hale"}
    assert hale["A101"]["absentee"] == 1 and hale["B201"]["absentee"] == 1 and "absentee" not in hale


def test_zero_file_command_writes_csv_or_json(tmp_path, capsys):
    assert main(["zero-file", "--election", str(GENERAL)]) == 0
    assert capsys.readouterr().out == zero_file_csv(ELECTION)
    out = tmp_path / "zero.json"
    assert main(["zero-file", "--election", str(GENERAL), "--format", "json", "--output", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == zero_file(ELECTION)


def test_zero_file_command_reports_a_missing_election_in_one_line(tmp_path, capsys):
    assert main(["zero-file", "--election", str(tmp_path / "nope.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tabulate:") and len(err.strip().splitlines()) <= 2


@pytest.mark.parametrize("cast, written, listed", [(0, 0, False), (100, 5, True), (100, 4, False), (1, 1, True)])
def test_the_five_percent_boundary_is_exact_integer_arithmetic(cast, written, listed):
    from tabulate.report import ContestCounts, WriteInCounts

    counts = ContestCounts(
        cast, 0, 0, 0, (("a", cast - written), ("write-in-1", written)), WriteInCounts(pending=written)
    )
    assert write_in_threshold_met(counts) is listed
