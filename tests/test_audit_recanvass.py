"""Recanvass (31 KAR 4:071, KRS 117.305), unofficial snapshots, and the margins the law names (KRS 120.157)."""

from __future__ import annotations

import copy
import io

from pypdf import PdfReader
from test_audit_support import county

from tabulate.audit.margins import race_margin
from tabulate.audit.recanvass import SNAPSHOT_EVENT, last_snapshot, recanvass, totals_of
from tabulate.audit.recanvass_report import recanvass_text, sbe49a_form
from tabulate.cli import main
from tabulate.election.model import Candidate, Contest
from tabulate.report import tally_records
from tabulate.report.tally import ContestCounts
from tabulate.store import open_store
from tabulate.store.records import ballot_records

RACE = "us-house-6"


def _counts(contest: Contest, **votes: int) -> ContestCounts:
    return ContestCounts(0, 0, 0, 0, tuple((o.id, votes.get(o.id, 0)) for o in contest.options))


def _race(office: str | None, vote_for: int = 1) -> Contest:
    return Contest(
        "r",
        "candidate",
        "Race",
        vote_for=vote_for,
        office=office,
        candidates=(Candidate("a", "A", "REP"), Candidate("b", "B", "DEM"), Candidate("c", "C", "LIB")),
    )


def test_automatic_recount_at_not_more_than_half_a_percent():
    """KRS 120.157(1): "a recount of the vote shall be required when a candidate is defeated by a margin of not
    more than one-half of one percent (0.5%) of the votes cast for the office"."""
    race = _race("us_house")
    assert race_margin(race, _counts(race, a=500, b=496)).automatic_recount  # 4 of 996 = 0.40 %
    assert not race_margin(race, _counts(race, a=500, b=495)).automatic_recount  # 5 of 995 = 0.503 %
    assert not race_margin(race, _counts(race, a=503, b=497)).automatic_recount  # 6 of 1000 = 0.6 %
    exactly = race_margin(race, _counts(race, a=500, b=495, c=5))  # 5 of 1000 = exactly 0.5 %
    assert exactly.margin == 5 and exactly.votes_cast == 1000 and exactly.automatic_recount


def test_automatic_recount_only_for_the_offices_krs_120_157_names():
    """KRS 120.157(1) names the General Assembly, the U.S. Senate and House, Governor, Treasurer, Auditor,
    Commissioner of Agriculture, Secretary of State and Attorney General; not the President."""
    for office, flagged in (
        ("state_senate", True),
        ("state_representative", True),
        ("governor", True),
        ("attorney_general", True),
        ("president", False),
        ("other", False),
        (None, False),
    ):
        race = _race(office)
        assert race_margin(race, _counts(race, a=500, b=499)).automatic_recount is flagged, office


def test_margin_of_a_vote_for_n_race_is_between_the_last_elected_and_the_first_defeated():
    race = _race("state_representative", vote_for=2)
    m = race_margin(race, _counts(race, a=900, b=400, c=399))
    assert m.elected == ("a", "b") and m.first_defeated == "c" and m.margin == 1


def test_recanvass_request_sufficient_under_one_percent():
    """KRS 117.305(1) as issue #13 states it: a margin under 1 % of the votes cast for the office."""
    race = _race(None)
    assert race_margin(race, _counts(race, a=504, b=496)).recanvass_sufficient  # 8 of 1000
    assert not race_margin(race, _counts(race, a=505, b=495)).recanvass_sufficient  # exactly 1 %: not under


def _tally(db):
    store = open_store(db, create=False)
    try:
        election = store.election()
        return tally_records(election, list(ballot_records(store)))
    finally:
        store.close()


def test_recanvass_finds_a_deliberately_altered_precinct_total(tmp_path):
    """31 KAR 4:071 Section 4(1)(a): the recanvass is taken "By clearing the system, such as by setting the
    tabulation system to zero and retabulating the votes recorded"; every number that differs from the report
    is listed."""
    _election, _doc, db = county(tmp_path, barr=6, king=4)
    tally = _tally(db)
    reported = copy.deepcopy(totals_of(tally))
    assert reported[RACE]["A101"]["house-barr"]["election_day"] == 3
    reported[RACE]["A101"]["house-barr"]["election_day"] = 13  # what was reported for A101 was altered
    store = open_store(db, create=False)
    store.log(SNAPSHOT_EVENT, actor="test", data={"taken_at": "2028-11-07T19:00:00+00:00", "totals": reported})
    snapshot = last_snapshot(store)
    store.close()

    r = recanvass(tally, snapshot, contests=[RACE])
    assert [(d.precinct_id, d.option_id, d.vote_type, d.reported, d.recanvassed) for d in r.differences] == [
        ("A101", "house-barr", "election_day", 13, 3)
    ]
    text = recanvass_text(r)
    assert "DIFFERENCE precinct A101" in text and "reported 13, recanvassed 3 (-10)" in text
    form = PdfReader(io.BytesIO(sbe49a_form(r).to_bytes())).pages[0].extract_text()
    for field in (
        "County",
        "Date of report",
        "Date of election",
        "Office",
        "Machine votes",
        "Absentee votes",
        "Provisional votes",
        "Total votes",
    ):  # 4:071 Section 1(3)
        assert field in form


def test_recanvass_of_one_precinct_lists_only_that_precinct(tmp_path):
    """4:071 Section 3(1): the board "shall only check and tabulate the votes of the candidate requesting a
    recanvass and each opposing candidate seeking the same office"."""
    _election, _doc, db = county(tmp_path, barr=2, king=2)
    tally = _tally(db)
    reported = copy.deepcopy(totals_of(tally))
    reported[RACE]["A102"]["house-king"]["election_day"] += 1
    reported["president"] = {}
    store = open_store(db, create=False)
    store.log(SNAPSHOT_EVENT, data={"totals": reported})
    snapshot = last_snapshot(store)
    store.close()
    assert recanvass(tally, snapshot, contests=[RACE], precincts=["A101"]).differences == ()
    assert len(recanvass(tally, snapshot, contests=[RACE], precincts=["A102"]).differences) == 1


def test_unofficial_keeps_a_dated_snapshot_and_recanvass_compares_with_the_last(tmp_path, capsys):
    _election, _doc, db = county(tmp_path, barr=3, king=2)
    assert main(["recanvass", "--db", str(db)]) == 2
    assert "run `tabulate unofficial" in capsys.readouterr().err
    assert main(["unofficial", "--db", str(db)]) == 0
    assert main(["unofficial", "--db", str(db), "--format", "json"]) == 0
    store = open_store(db, create=False)
    snaps = [e for e in store.events() if e.kind == SNAPSHOT_EVENT]
    store.close()
    assert len(snaps) == 2 and snaps[-1].data["taken_at"] and snaps[-1].data["totals"][RACE]
    capsys.readouterr()
    assert main(["recanvass", "--db", str(db), "--contest", RACE, "--out", str(tmp_path / "rc")]) == 0
    out = capsys.readouterr().out
    assert "Differences found: 0" in out and "SUFFICIENT" not in out  # 3 to 2: a 20 % margin
    assert main(["recanvass", "--db", str(db)]) == 0  # every race, those without a vote included
    assert "no votes cast for the office" in capsys.readouterr().out
    assert (tmp_path / "rc" / "recanvass-sbe49a.pdf").is_file()


def test_results_flag_the_automatic_recount(tmp_path, capsys):
    """KRS 120.157(1): the results flag a U.S. House race won by 1 vote in 401 (0.249 %)."""
    _election, _doc, db = county(tmp_path, barr=201, king=200)
    assert main(["results", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "AUTOMATIC RECOUNT (KRS 120.157(1))" in out and "[us-house-6]" in out
    assert "[president]" not in out.split("AUTOMATIC RECOUNT", 1)[1]
