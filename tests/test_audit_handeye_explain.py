"""The ballots behind every difference between the hand count (31 KAR 6:030 §3(1)) and the scanner (§2(1))."""

from __future__ import annotations

import pytest
from test_audit_handeye_support import ELECTION, build_truth_store, truth_store, truth_template  # noqa: F401

from tabulate.adjudicate.schema import connect
from tabulate.audit.handeye import audit_state, enter_tally, explain, migrate, predict, start_audit
from tabulate.audit.handeye.explain import AuditedSheet
from tabulate.audit.handeye.simulated import hand_selections
from tabulate.audit.handeye.workbench import audit_pool, machine_counts, prediction_for, scanner_sheets
from tabulate.core import BallotRecord
from tabulate.election import load_election
from tabulate.rules import BallotMarks, OptionMark, apply_rules
from tabulate.store import open_store

ELECTION_ = load_election(ELECTION)


def _sheet(n: int, marks: dict, *, style: str = "1") -> AuditedSheet:
    bm = BallotMarks(f"b{n}", style, marks, "A101")
    return AuditedSheet(
        n, BallotRecord(f"b{n}", "box-1", n, "election_day", "A101", style, bm, apply_rules(ELECTION_, bm))
    )


def test_a_circled_oval_is_a_vote_the_hand_count_finds_and_the_scanner_does_not():
    """§3(1)(b): "The oval, box, or space next to the candidate's name ... is circled or underlined"."""
    circled = _sheet(1, {"us-senate": {"sen-caldwell": OptionMark("unmarked", "marked")}})
    filled = _sheet(2, {"us-senate": {"sen-brennan": OptionMark("marked", "marked")}})
    p = predict(ELECTION_, "1", "us-senate", [circled, filled])
    assert p.option("sen-caldwell").sure == 1 and p.option("sen-caldwell").ballots == (1,)
    assert p.option("sen-brennan").sure == 0
    assert p.sheet_ids == (1,)
    x = explain(
        p,
        {"sen-caldwell": 1, "sen-brennan": 1, "write-in-1": 0},
        {"sen-caldwell": 0, "sen-brennan": 1, "write-in-1": 0},
    )
    assert x.total_difference == 1 and x.total_unexplained == 0 and x.share_explained == 1.0


def test_a_mark_beside_the_name_that_makes_an_overvote_by_hand_takes_a_vote_away():
    """§3(1)(e) makes the X beside Brennan a vote by hand; with Caldwell filled that is an overvote (§2(2)(b))."""
    s = _sheet(
        1,
        {
            "us-senate": {
                "sen-caldwell": OptionMark("marked", "marked"),
                "sen-brennan": OptionMark("unmarked", "marked"),
            }
        },
    )
    p = predict(ELECTION_, "1", "us-senate", [s])
    assert p.option("sen-caldwell").sure == -1 and p.option("sen-brennan").sure == 0
    assert "overvote" not in p.ballots[0].why  # the machine saw one vote; the hand count sees the overvote
    assert "hand_reading_differs" in p.ballots[0].why


def test_a_faint_mark_gives_a_range_and_a_difference_outside_it_is_unexplained():
    s = _sheet(1, {"us-senate": {"sen-caldwell": OptionMark("marginal", "marginal")}})
    p = predict(ELECTION_, "1", "us-senate", [s])
    o = p.option("sen-caldwell")
    assert (o.sure, o.low, o.high, o.maybe) == (0, 0, 1, (1,))
    machine = {"sen-caldwell": 0, "sen-brennan": 0, "write-in-1": 0}
    inside = explain(p, dict(machine, **{"sen-caldwell": 1}), machine)
    assert inside.total_unexplained == 0
    outside = explain(p, dict(machine, **{"sen-caldwell": 3}), machine)
    assert outside.options[0].unexplained == 2 and outside.options[0].explained == 1
    assert outside.share_explained == pytest.approx(1 / 3)


def test_overvotes_and_write_ins_are_listed_to_look_at_even_with_no_change():
    over = _sheet(1, {"us-senate": {"sen-caldwell": OptionMark("marked"), "sen-brennan": OptionMark("marked")}})
    wi = _sheet(2, {"us-senate": {"write-in-1": OptionMark("marked", write_in_ink=True)}})
    p = predict(ELECTION_, "1", "us-senate", [over, wi])
    assert [(b.sheet_id, b.why) for b in p.ballots] == [(1, ("overvote",)), (2, ("write_in",))]
    assert p.sheet_ids == () and all("31 KAR 6:030" in b.clauses[0] for b in p.ballots)


def test_on_a_simulated_batch_every_difference_is_explained_by_the_predicted_ballots(truth_store):
    """The simulator's hand-count truth makes the hand tally; circled ovals and X beside names make it exceed
    the machine count, and the prediction, made before the count, names exactly the ballots behind it."""
    from test_audit_handeye_support import truth_sheets

    store = open_store(truth_store, create=False)
    conn = connect(truth_store)
    by_position = {t["sheet"]: t for t in truth_sheets()}
    total = 0
    try:
        sheets = scanner_sheets(store, conn, "1")
        for race in audit_pool(store, conn).races["1"]:
            prediction = prediction_for(store, conn, "1", race)
            hand = {o.id: 0 for o in ELECTION_.contest(race).options}
            differs = set()
            for s in sheets.sheets:
                got = hand_selections(ELECTION_, by_position[s.record.position], race)
                hand.update({o: hand[o] + 1 for o in got})
                on_ballot = {c.contest_id: c.selections for c in s.record.votes.contests}
                if sorted(got) != sorted(on_ballot.get(race, ())):
                    differs.add(s.sheet_id)
            x = explain(prediction, hand, machine_counts(ELECTION_, sheets, race))
            assert x.total_unexplained == 0, race
            assert set(prediction.sheet_ids) == differs, race
            total += x.total_difference
    finally:
        conn.close()
        store.close()
    assert total >= 20  # the sample's X marks, circles and the mark beside a name


def test_the_prediction_at_selection_names_the_ballots_found_after_the_count(truth_store):
    store = open_store(truth_store, create=False)
    conn = connect(truth_store)
    migrate(conn)
    try:
        audit, sel = start_audit(store, conn, actor="t", seed="31415926535897932384")
        from test_audit_handeye_support import hand_tally

        for name, party in (("Ann", "REP"), ("Bo", "DEM")):
            enter_tally(store, conn, audit.id, counter=name, party=party, counts=hand_tally(sel.contest_id), actor="t")
        state = audit_state(store, conn, audit.id)
        assert state.explanation.total_difference > 0 and state.explanation.total_unexplained == 0
        assert state.same_ballots_as_predicted
        assert [b["sheet_id"] for b in audit.prediction["ballots"]] == [b.sheet_id for b in state.prediction.ballots]
    finally:
        conn.close()
        store.close()


def test_sheets_the_scanner_set_aside_are_listed(tmp_path):
    from tabulate.store import PageImage, SheetOutcome, SheetReason

    db = tmp_path / "s.db"
    build_truth_store(db)
    store = open_store(db, create=False)
    b = store.open_batch("box-2", "election_day", tabulator="1")
    store.record_sheets(
        b.id,
        [
            SheetOutcome(
                1,
                "f" * 64,
                (PageImage("x.png", "e" * 64),),
                "rejected",
                reasons=(SheetReason("unreadable_style", "style code unreadable"),),
            )
        ],
    )
    conn = connect(db)
    try:
        p = prediction_for(store, conn, "1", "us-senate")
        assert [(n.batch, n.position, n.why) for n in p.set_aside] == [("box-2", 1, ("set_aside",))]
        assert "style code unreadable" in p.set_aside[0].detail
    finally:
        conn.close()
        store.close()


def test_a_duplicate_scan_is_set_aside_not_counted_twice(tmp_path):
    """The same paper fed again in another batch is a duplicate: listed as set aside, never in the pile twice."""
    from tabulate.store import SheetOutcome

    db = tmp_path / "s.db"
    build_truth_store(db)
    store = open_store(db, create=False)
    first = next(store.sheets())
    again = store.open_batch("box-2", "election_day", tabulator="1")
    store.record_sheets(
        again.id,
        [
            SheetOutcome(
                1,
                first.identity,
                first.pages,
                first.status,
                votes=first.interpreted,
                marks=first.marks,
                style_id=first.style_id,
                precinct_id=first.precinct_id,
            )
        ],
    )
    conn = connect(db)
    try:
        sheets = scanner_sheets(store, conn, "1")
        assert len(sheets.sheets) == 18 and [(s.batch, s.status) for s in sheets.set_aside] == [("box-2", "duplicate")]
    finally:
        conn.close()
        store.close()


def test_a_larger_simulated_batch_from_planned_marks_is_explained_in_full(tmp_path):
    """The smaller twin of `benchmarks/handeye.py --readings planned` (500 sheets there, 80 here)."""
    import json as _json

    from tabulate.audit.handeye.simulated import planned_outcome, simulated_hand_tally

    db = tmp_path / "p.db"
    store = open_store(db)
    store.bind_election(ELECTION_, _json.loads(ELECTION.read_text(encoding="utf-8")))
    batch = store.open_batch("sim", "election_day", tabulator="1")
    made = [planned_outcome((ELECTION_, k, 2029, False, "varied")) for k in range(80)]  # the former "realistic" mix
    store.record_sheets(batch.id, [o for o, _ in made])
    conn = connect(db)
    try:
        sheets = scanner_sheets(store, conn, "1")
        for race in ("president", "city-council"):
            p = prediction_for(store, conn, "1", race)
            x = explain(
                p, simulated_hand_tally(ELECTION_, [t for _, t in made], race), machine_counts(ELECTION_, sheets, race)
            )
            assert x.total_difference > 5 and x.total_unexplained == 0, race
    finally:
        conn.close()
        store.close()
