"""Risk-limiting-audit exports: the Arlo manifest and the Dominion-style CVR read back as Arlo reads them."""

import csv
import io
import re
from collections import defaultdict
from pathlib import Path

import pytest

from tabulate.election import load_election
from tabulate.report import (
    MANIFEST_COLUMNS,
    ReportError,
    arlo_ballot_manifest_csv,
    dominion_cvr_csv,
    tally_records,
)
from tabulate.report.rla import DOMINION_ID_COLUMNS
from tabulate.report.synthetic import make_record, synthetic_records

ROOT = Path(__file__).resolve().parents[1]
ELECTION = load_election(ROOT / "samples" / "general" / "election.json")
RECORDS = synthetic_records(ELECTION, 180, seed=5, batch_size=40)


def parse_manifest(text):
    """Rows keyed by (tabulator, batch), as Arlo keys batches in a ballot-comparison audit."""
    reader = csv.reader(io.StringIO(text))
    assert tuple(next(reader)) == ("Container", "Tabulator", "Batch Name", "Number of Ballots") == MANIFEST_COLUMNS
    out = {}
    for container, tabulator, batch, n in reader:
        assert (tabulator, batch) not in out
        out[(tabulator, batch)] = (container, int(n))
    return out


def parse_dominion(text):
    """The four header rows, then per row the id columns and the 1/0/'' per (contest, votes allowed, choice)."""
    rows = list(csv.reader(io.StringIO(text)))
    contest_row, choice_row, header_row = rows[1], rows[2], rows[3]
    n_id = len(DOMINION_ID_COLUMNS)
    assert tuple(header_row[:n_id]) == DOMINION_ID_COLUMNS
    assert all(x == "" for x in contest_row[:n_id] + choice_row[:n_id])
    columns = []
    for head, choice in zip(contest_row[n_id:], choice_row[n_id:]):
        m = re.match(r"^(.+) \(Vote For=(\d+)\)$", head)
        assert m, head
        columns.append((m[1], int(m[2]), choice))
    ballots = []
    for row in rows[4:]:
        ids = dict(zip(DOMINION_ID_COLUMNS, row[:n_id]))
        ballots.append((ids, row[n_id:]))
    return columns, ballots


def test_the_manifest_has_exactly_arlos_columns_and_one_row_per_batch():
    manifest = parse_manifest(arlo_ballot_manifest_csv(RECORDS))
    batches = defaultdict(int)
    for r in RECORDS:
        batches[(r.tabulator, r.batch)] += 1
    assert {k: n for k, (_, n) in manifest.items()} == dict(batches)
    allowed = {"Advanced Voting", "Advance Voting", "Election Day", "Elections Day", "Absentee by Mail", "Provisional"}
    assert {c for c, _ in manifest.values()} <= allowed


def test_the_cvr_rows_match_the_manifest_batches_and_positions():
    manifest = parse_manifest(arlo_ballot_manifest_csv(RECORDS))
    _, ballots = parse_dominion(dominion_cvr_csv(ELECTION, RECORDS))
    per_batch = defaultdict(list)
    for ids, _ in ballots:
        per_batch[(ids["TabulatorNum"], ids["BatchId"])].append(int(ids["RecordId"]))
    assert set(per_batch) == set(manifest)
    for key, record_ids in per_batch.items():
        assert sorted(record_ids) == list(range(1, manifest[key][1] + 1))
    assert [int(ids["CvrNumber"]) for ids, _ in ballots] == list(range(1, len(RECORDS) + 1))


def test_the_cvr_round_trips_every_sheets_votes():
    columns, ballots = parse_dominion(dominion_cvr_csv(ELECTION, RECORDS))
    by_place = {(r.tabulator, r.batch, r.position): r for r in RECORDS}
    titles = {c.title: c for c in ELECTION.contests}
    for ids, values in ballots:
        r = by_place[(ids["TabulatorNum"], ids["BatchId"], int(ids["RecordId"]))]
        assert ids["BallotType"] == r.style_id and ids["PrecinctPortion"] == r.precinct_id
        on_style = set(ELECTION.style(r.style_id).contests)
        for contest in ELECTION.contests:
            cells = [v for (title, _, _), v in zip(columns, values) if title == contest.title]
            assert len(cells) == len(contest.options)
            if contest.id not in on_style:
                assert cells == [""] * len(cells)
                continue
            chosen = {o.id for o, v in zip(contest.options, cells) if v == "1"}
            cv = r.votes.contest(contest.id)
            if cv.overvotes:  # the marks as read, for Arlo to apply the overvote rule
                marks = r.marks.marks.get(contest.id, {})
                assert chosen == {o for o, m in marks.items() if m.scan == "marked"} and len(chosen) > contest.vote_for
            else:
                assert chosen == set(cv.selections)
            assert titles[contest.title].vote_for == next(n for t, n, _ in columns if t == contest.title)


def test_totals_read_from_the_cvr_as_arlo_does_equal_the_tally():
    counted = [r for r in RECORDS if r.status == "counted"]
    columns, ballots = parse_dominion(dominion_cvr_csv(ELECTION, counted))
    totals = defaultdict(int)
    for _, values in ballots:
        per_contest = defaultdict(list)
        for (title, allowed, choice), v in zip(columns, values):
            per_contest[(title, allowed)].append((choice, v))
        for (title, allowed), cells in per_contest.items():
            if any(v == "" for _, v in cells):
                continue  # not on this ballot
            if sum(int(v) for _, v in cells) > allowed:
                continue  # Arlo skips overvotes
            for choice, v in cells:
                totals[(title, choice)] += int(v)
    tally = tally_records(ELECTION, counted)
    hale = tally.contest("president").counts().votes_for("pres-hale")
    assert totals[("President and Vice President", "Marcus Hale and Dana Prewitt")] == hale
    for ct in tally.contests:
        for o, name in zip(ct.contest.options, [c for t, _, c in columns if t == ct.contest.title]):
            assert totals[(ct.contest.title, name)] == ct.counts().votes_for(o.id)


def test_an_overvoted_contest_carries_the_marks_as_read_as_dominions_export_does():
    """Arlo compares reported marks with the marks the audit board records and applies the overvote rule
    itself; zeros would be a one-vote discrepancy on an audited overvote (shared/formats/arlo.md)."""
    r = make_record(ELECTION, "o", {"president": "overvote"}, style_id="1", precinct_id="A101")
    assert r.votes.contest("president").selections == ()  # our rules credit no one, 31 KAR 6:030 §2(2)(b)
    columns, ballots = parse_dominion(dominion_cvr_csv(ELECTION, [r]))
    president = [v for (t, _, _), v in zip(columns, ballots[0][1]) if t == ELECTION.contest("president").title]
    assert president[:2] == ["1", "1"] and set(president[2:]) == {"0"}


def test_the_cvr_and_the_manifest_use_one_set_of_arlo_counting_groups():
    """Arlo's batch-inventory builds a manifest from the CVR's CountingGroup and checks it against its allow-list."""
    allowed = {"Advanced Voting", "Advance Voting", "Election Day", "Elections Day", "Absentee by Mail", "Provisional"}
    manifest = parse_manifest(arlo_ballot_manifest_csv(RECORDS))
    _, ballots = parse_dominion(dominion_cvr_csv(ELECTION, RECORDS))
    for ids, _ in ballots:
        assert ids["CountingGroup"] == manifest[(ids["TabulatorNum"], ids["BatchId"])][0]
        assert ids["CountingGroup"] in allowed
    assert {ids["CountingGroup"] for ids, _ in ballots} >= {"Election Day", "Absentee by Mail"}


@pytest.mark.parametrize(
    "second, match",
    [
        (dict(ballot_id="b", position=1), "two sheets at position 1"),
        (dict(ballot_id="b", position=2, vote_type="provisional"), "a batch has one vote type"),
        (dict(ballot_id="a", position=2), "appears twice"),
    ],
)
def test_exports_refuse_sheets_an_auditor_could_not_find(second, match):
    first = make_record(ELECTION, "a", {}, style_id="1", precinct_id="A101")
    kw = dict(style_id="1", precinct_id="A101") | second
    other = make_record(ELECTION, kw.pop("ballot_id"), {}, **kw)
    with pytest.raises(ReportError, match=match):
        arlo_ballot_manifest_csv([first, other])
    with pytest.raises(ReportError, match=match):
        dominion_cvr_csv(ELECTION, [first, other])
