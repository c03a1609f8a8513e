"""The prediction from real readings: sheets drawn with a circle and an X beside a name, read by the reader.

The smaller version of benchmarks/handeye.py (500 sheets): here two sheets,
each with one mark the scanner does not count and a hand count does.
"""

from __future__ import annotations

import hashlib
import json

from test_audit_handeye_support import ELECTION

from tabulate.adjudicate.schema import connect
from tabulate.audit.handeye import explain
from tabulate.audit.handeye.simulated import simulated_hand_tally
from tabulate.audit.handeye.workbench import machine_counts, prediction_for, scanner_sheets
from tabulate.ballots.plan import forced_plan
from tabulate.ballots.simulate import simulate_sheet
from tabulate.central import interpret_sheet
from tabulate.election import load_election
from tabulate.election.layout import layout_style
from tabulate.election.render import png_bytes
from tabulate.store import PageImage, SheetOutcome, open_store, sheet_identity

SHEETS = (
    {("us-senate", "sen-caldwell"): "circle", ("president", "pres-hale"): "full_fill"},  # §3(1)(b)
    {("us-senate", "sen-caldwell"): "beside_name", ("president", "pres-okafor"): "full_fill"},  # §3(1)(e)
)


def test_circled_and_marked_beside_the_name_are_predicted_and_explain_the_hand_count(tmp_path):
    election = load_election(ELECTION)
    layout = layout_style(election, "1")
    store = open_store(tmp_path / "s.db")
    store.bind_election(election, json.loads(ELECTION.read_text(encoding="utf-8")))
    batch = store.open_batch("box-1", "election_day", tabulator="1")
    outcomes, truths = [], []
    for k, marks in enumerate(SHEETS):
        sheet = simulate_sheet(election, k, 5, plan=forced_plan(layout, "A101", marks))
        pngs = [png_bytes(p, 200) for p in sheet.pages]
        digests = [hashlib.sha256(b).hexdigest() for b in pngs]
        r = interpret_sheet(election, pngs)
        outcomes.append(
            SheetOutcome(
                k + 1,
                sheet_identity(digests),
                tuple(PageImage(f"{k}-{n}.png", d) for n, d in enumerate(digests)),
                r.status,
                reasons=r.reasons,
                style_id=r.style_id,
                precinct_id=r.precinct_id,
                evidence=r.evidence,
                marks=r.marks,
                votes=r.votes,
            )
        )
        truths.append(sheet.truth)
    store.record_sheets(batch.id, outcomes)
    conn = connect(tmp_path / "s.db")
    try:
        prediction = prediction_for(store, conn, "1", "us-senate")
        assert prediction.option("sen-caldwell").sure == 2
        assert [b.position for b in prediction.ballots if b.sure] == [1, 2]
        assert any("circled (31 KAR 6:030 §3(1)(b))" in c for c in prediction.ballots[0].clauses)
        assert any("beside the name (31 KAR 6:030 §3(1)(e))" in c for c in prediction.ballots[1].clauses)
        hand = simulated_hand_tally(election, truths, "us-senate")
        assert hand == {"sen-caldwell": 2, "sen-brennan": 0, "write-in-1": 0}
        x = explain(prediction, hand, machine_counts(election, scanner_sheets(store, conn, "1"), "us-senate"))
        assert x.total_difference == 2 and x.total_unexplained == 0
    finally:
        conn.close()
        store.close()
