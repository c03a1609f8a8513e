"""Two hand tallies by counters of different parties, every attempt kept; the scanner's tape (31 KAR 4:230 §2)."""

from __future__ import annotations

import json
import sqlite3

import pytest
from test_audit_handeye_support import counts_csv, hand_tally, truth_store, truth_template  # noqa: F401

from tabulate.adjudicate import auditlog
from tabulate.adjudicate.schema import connect
from tabulate.audit.handeye import TallyError, audit_state, enter_tally, migrate, read_tape, start_audit
from tabulate.audit.handeye.book import AuditError, add_finding
from tabulate.audit.handeye.tallies import read_counts_csv
from tabulate.report import cast_vote_record_report, dominion_cvr_csv
from tabulate.store import open_store
from tabulate.store.records import ballot_records

RACE = "us-senate"


@pytest.fixture
def audit(truth_store):
    store = open_store(truth_store, create=False)
    conn = connect(truth_store)
    migrate(conn)
    a, _ = start_audit(store, conn, actor="test", tabulator="1", contest_id=RACE)
    yield store, conn, a.id
    conn.close()
    store.close()


def test_two_counters_of_the_same_party_cannot_tally_together(audit):
    """The two poll workers who tally must not be of the same political party."""
    store, conn, aid = audit
    counts = hand_tally(RACE)
    enter_tally(store, conn, aid, counter="Ann Lee", party="REP", counts=counts, actor="t")
    with pytest.raises(TallyError, match="must not be of the same political party"):
        enter_tally(store, conn, aid, counter="Bo Diaz", party="rep", counts=counts, actor="t")
    with pytest.raises(TallyError, match="already entered"):
        enter_tally(store, conn, aid, counter="ann lee", party="DEM", counts=counts, actor="t")
    assert enter_tally(store, conn, aid, counter="Bo Diaz", party="DEM", counts=counts, actor="t").matched


def test_a_counter_party_must_be_one_of_the_election_parties(audit):
    store, conn, aid = audit
    with pytest.raises(TallyError, match="not one of this election's parties"):
        enter_tally(store, conn, aid, counter="Cy", party="Whig", counts=hand_tally(RACE), actor="t")


def test_differing_tallies_start_a_new_attempt_and_every_attempt_is_kept(audit):
    store, conn, aid = audit
    good = hand_tally(RACE)
    off = dict(good, **{"sen-brennan": good["sen-brennan"] + 1})
    enter_tally(store, conn, aid, counter="Ann", party="REP", counts=good, actor="t")
    first = enter_tally(store, conn, aid, counter="Bo", party="DEM", counts=off, actor="t")
    assert first.number == 1 and first.complete and first.differences == ("sen-brennan",)
    assert audit_state(store, conn, aid).comparison is None  # nothing to compare until they match
    enter_tally(store, conn, aid, counter="Ann", party="REP", counts=good, actor="t")
    second = enter_tally(store, conn, aid, counter="Bo", party="DEM", counts=good, actor="t")
    assert second.number == 2 and second.matched
    state = audit_state(store, conn, aid)
    assert [a.number for a in state.attempts] == [1, 2] and state.matched.number == 2
    assert [e.counts["sen-brennan"] for e in state.attempts[0].entries] == [good["sen-brennan"], off["sen-brennan"]]
    with pytest.raises(TallyError, match="already match"):
        enter_tally(store, conn, aid, counter="Cy", party="LIB", counts=good, actor="t")
    actions = [e.action for e in auditlog.entries(conn) if e.action.startswith("handeye")]
    assert actions == [
        "handeye_select",
        "handeye_prediction",
        "handeye_tally",
        "handeye_tally",
        "handeye_tallies_differ",
        "handeye_tally",
        "handeye_tally",
        "handeye_tallies_match",
    ]


def test_tallies_cannot_be_changed_in_the_database(audit):
    store, conn, aid = audit
    enter_tally(store, conn, aid, counter="Ann", party="REP", counts=hand_tally(RACE), actor="t")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE he_tallies SET counts = '{}'")


def test_once_signed_an_audit_takes_only_annotations(audit):
    store, conn, aid = audit
    from tabulate.audit.handeye import sign

    with pytest.raises(AuditError, match="not matched"):
        sign(store, conn, aid, member="Bea", party="DEM", actor="t")
    for name, party in (("Ann", "REP"), ("Bo", "DEM")):
        enter_tally(store, conn, aid, counter=name, party=party, counts=hand_tally(RACE), actor="t")
    sign(store, conn, aid, member="Bea", party="DEM", actor="t")
    sign(store, conn, aid, member="Cal", party="REP", actor="t")
    with pytest.raises(AuditError, match="only annotated"):
        add_finding(conn, aid, "determination", "Bea", "late", actor="t")
    add_finding(conn, aid, "annotation", "Bea", "sent to the Attorney General", actor="t")
    state = audit_state(store, conn, aid)
    assert state.signed and [f.author for f in state.signatures] == ["Bea", "Cal"]
    assert [f.text for f in state.annotations] == ["sent to the Attorney General"]


def test_a_tally_file_names_every_option_once_by_id_or_name(audit):
    store, *_ = audit
    contest = store.election().contest(RACE)
    assert read_counts_csv(contest, "option,votes\nRobert Caldwell,3\nsen-brennan,4\nwrite-in-1,0\n") == {
        "sen-caldwell": 3,
        "sen-brennan": 4,
        "write-in-1": 0,
    }
    with pytest.raises(TallyError, match="no count for write-in-1"):
        read_counts_csv(contest, "sen-caldwell,3\nsen-brennan,4\n")
    with pytest.raises(TallyError, match="whole number"):
        read_counts_csv(contest, "sen-caldwell,three\nsen-brennan,4\nwrite-in-1,0\n")
    with pytest.raises(TallyError, match="not an option"):
        read_counts_csv(contest, "Abe Lincoln,1\n")


def test_the_tape_from_another_vendors_cvr_equals_the_scanners_count(audit):
    """A Dominion-style CVR export and a NIST SP 1500-103 report of the same ballots sum to the store's count."""
    store, conn, aid = audit
    election = store.election()
    records = list(ballot_records(store))
    contest = election.contest(RACE)
    machine = audit_state(store, conn, aid).machine
    assert read_tape(contest, dominion_cvr_csv(election, records), "dominion", tabulator="1") == machine
    nist = json.dumps(cast_vote_record_report(election, records))
    assert read_tape(contest, nist, "nist", tabulator="1") == machine
    assert read_tape(contest, counts_csv(machine), "csv") == machine
    assert read_tape(contest, dominion_cvr_csv(election, records), "dominion", tabulator="7") == dict.fromkeys(
        machine, 0
    )
