"""Hand-to-eye audit on a simulated batch: does the explanation account for the whole difference?

    python benchmarks/handeye.py --sheets 500 --seed 2029 --workers 2

Simulates ``--sheets`` voted sheets of the sample general election (the
"realistic" voters: some circle the oval, some put an X or check beside the
name, some fill lightly ...), reads every sheet with the real reader
(`tabulate.central.interpret_sheet`) into a new store as one scanner's batch,
and then, for every race on the ballots:

* before any count, predicts from the store which ballots a hand count under
  31 KAR 6:030 §3(1) reads differently from the scanner (§2(1));
* makes the simulated hand tally from the simulator's truth (what careful poll
  workers count: a circled oval and an X beside a name are votes);
* compares it with the machine count and explains the difference.

It prints, per race, the difference, the share the listed ballots explain, and
whether the predicted ballots are exactly those whose hand-count reading (from
the truth) differs from the machine's ("named": sure changes; "maybe": a faint
mark that may go either way; "missed"; "extra": named for sure, not differing).
``--readings planned`` writes the readings from the simulator's expected
readings of the planned marks and draws nothing: the audit logic alone, fast. Then it runs one whole audit through the
workflow (seeded selection, two tallies, comparison). Same arguments, same
numbers.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tabulate.adjudicate.schema import connect  # noqa: E402
from tabulate.audit.handeye import audit_state, enter_tally, migrate, start_audit  # noqa: E402
from tabulate.audit.handeye.explain import explain, predict  # noqa: E402
from tabulate.audit.handeye.simulated import hand_selections, planned_outcome, simulate_outcome  # noqa: E402
from tabulate.audit.handeye.workbench import audit_pool, hand_clauses, machine_counts, scanner_sheets  # noqa: E402
from tabulate.election import load_election  # noqa: E402
from tabulate.store import open_store  # noqa: E402

SAMPLE = ROOT / "samples" / "general" / "election.json"


def build_store(db: Path, n: int, seed: int, workers: int, read: bool, population: str) -> dict[str, dict]:
    """Simulate and read ``n`` sheets into a new store; return each sheet's truth by ballot id."""
    election = load_election(SAMPLE)
    import json

    store = open_store(db)
    store.bind_election(election, json.loads(SAMPLE.read_text(encoding="utf-8")))
    batch = store.open_batch("sim-election-day", "election_day", operator="benchmark", tabulator="1")
    jobs = [(election, k, seed, read, population) for k in range(n)]
    work = simulate_outcome if read else planned_outcome
    truths = {}
    with Pool(workers if workers > 1 else 1) as pool:
        results = pool.map(work, jobs, chunksize=8) if workers > 1 else map(work, jobs)
        outcomes = []
        for outcome, truth in results:
            outcomes.append(outcome)
            truths[outcome.identity] = truth
    store.record_sheets(batch.id, outcomes)
    store.close_batch(batch.id)
    store.close()
    return truths


def race_rows(db: Path, truths: dict[str, dict]) -> list[dict]:
    election = load_election(SAMPLE)
    store = open_store(db, create=False)
    conn = connect(db)
    migrate(conn)
    rows = []
    try:
        pool = audit_pool(store, conn)
        sheets = scanner_sheets(store, conn, "1")
        for contest_id in pool.races["1"]:
            # Before the count: from the store alone (as `prediction_for`, the sheets read once for every race).
            prediction = predict(election, "1", contest_id, sheets.sheets, sheets.set_aside, hand_clauses(store))
            hand: dict[str, int] = {o.id: 0 for o in election.contest(contest_id).options}
            differs = set()
            for s in sheets.sheets:
                got = hand_selections(election, truths[s.record.ballot_id], contest_id)
                for o in got:
                    hand[o] += 1
                try:
                    machine = s.record.votes.contest(contest_id).selections
                except KeyError:
                    machine = ()
                if sorted(got) != sorted(machine):
                    differs.add(s.sheet_id)
            x = explain(prediction, hand, machine_counts(election, sheets, contest_id))
            sure = {b.sheet_id for b in prediction.ballots if b.sure}
            maybe = {b.sheet_id for b in prediction.ballots if b.possible and not b.sure}
            rows.append(
                {
                    "race": contest_id,
                    "difference": x.total_difference,
                    "unexplained": x.total_unexplained,
                    "explained": x.share_explained,
                    "truth_ballots": len(differs),
                    "named": len(sure),
                    "maybe": len(maybe),
                    "missed": len(differs - sure - maybe),
                    "extra": len(sure - differs),
                }
            )
    finally:
        conn.close()
        store.close()
    return rows


def whole_audit(db: Path, truths: dict[str, dict], seed: str) -> str:
    """Select from the seed, enter the simulated hand tally twice, compare: one line."""
    election = load_election(SAMPLE)
    store = open_store(db, create=False)
    conn = connect(db)
    try:
        migrate(conn)
        audit, sel = start_audit(store, conn, actor="benchmark", seed=seed)
        sheets = scanner_sheets(store, conn, sel.tabulator)
        hand = {o.id: 0 for o in election.contest(sel.contest_id).options}
        for s in sheets.sheets:
            for o in hand_selections(election, truths[s.record.ballot_id], sel.contest_id):
                hand[o] += 1
        enter_tally(store, conn, audit.id, counter="Counter A", party="REP", counts=hand, actor="benchmark")
        enter_tally(store, conn, audit.id, counter="Counter B", party="DEM", counts=hand, actor="benchmark")
        state = audit_state(store, conn, audit.id)
        x = state.explanation
        return (
            f"audit {audit.id}: seed {seed!r} chose scanner {sel.tabulator}, race {sel.contest_id}; "
            f"difference {x.total_difference}, unexplained {x.total_unexplained} "
            f"({100 * x.share_explained:.1f} % explained); ballots named at selection = named after the count: "
            f"{state.same_ballots_as_predicted}"
        )
    finally:
        conn.close()
        store.close()


def _print(rows: list[dict]) -> int:
    print(
        f"{'race':<22}{'hand-machine':>13}{'unexplained':>12}{'explained':>10}{'ballots':>8}{'named':>7}"
        f"{'maybe':>6}{'missed':>7}{'extra':>6}"
    )
    for r in rows:
        print(
            f"{r['race']:<22}{r['difference']:>13}{r['unexplained']:>12}{100 * r['explained']:>9.1f}%"
            f"{r['truth_ballots']:>8}{r['named']:>7}{r['maybe']:>6}{r['missed']:>7}{r['extra']:>6}"
        )
    total = sum(r["difference"] for r in rows)
    unexplained = sum(r["unexplained"] for r in rows)
    print(
        f"all races: difference {total} votes, unexplained {unexplained} "
        f"({100 * (1 - unexplained / total) if total else 100:.1f} % explained); ballots whose hand reading "
        f"differs {sum(r['truth_ballots'] for r in rows)}, named for sure {sum(r['named'] for r in rows)}, "
        f"named as maybe (a faint mark) {sum(r['maybe'] for r in rows)}, missed {sum(r['missed'] for r in rows)}, "
        f"named for sure but not differing {sum(r['extra'] for r in rows)}"
    )
    return unexplained


def _scanned(db: Path, truth_file: Path) -> int:
    import json

    sheets = json.loads(truth_file.read_text(encoding="utf-8"))["sheets"]
    store = open_store(db, create=False)
    try:
        truths = {s.ballot_id: sheets[s.position - 1] for s in store.sheets()}
    finally:
        store.close()
    print(f"{len(truths)} scanned sheets of {db.name}, read by the real reader, against {truth_file}")
    return 0 if _print(race_rows(db, truths)) == 0 else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=500)
    ap.add_argument("--seed", type=int, default=2029)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--population", default="realistic", choices=("realistic", "stress", "clean"))
    ap.add_argument(
        "--readings",
        choices=("reader", "planned"),
        default="reader",
        help="reader: draw, scan and read every sheet (default); planned: write each sheet's readings "
        "from the simulator's expected readings of its planned marks, drawing nothing (the audit "
        "logic alone, in seconds)",
    )
    ap.add_argument("--keep", type=Path, metavar="DIR", help="keep the store in DIR")
    ap.add_argument(
        "--scanned",
        type=Path,
        nargs=2,
        metavar=("DB", "TRUTH"),
        help="instead of simulating, evaluate a store already scanned (one batch, tabulator 1) against "
        "the truth.json of its scans, sheet k of the batch being sheet k of the truth "
        "(e.g. the demo's store and samples/general/scans/truth.json)",
    )
    args = ap.parse_args(argv)
    if args.scanned:
        return _scanned(*args.scanned)
    out = args.keep or Path(tempfile.mkdtemp(prefix="handeye-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    db = out / "handeye.db"
    if db.exists():
        db.unlink()
    t0 = time.perf_counter()
    truths = build_store(db, args.sheets, args.seed, args.workers, args.readings == "reader", args.population)
    t1 = time.perf_counter()
    rows = race_rows(db, truths)
    t2 = time.perf_counter()
    print(
        f"{args.sheets} sheets, seed {args.seed}, population {args.population}, "
        f"{'readings from the planned marks' if args.readings == 'planned' else 'read by the real reader'} "
        f"({t1 - t0:.0f} s to simulate and read, {t2 - t1:.1f} s to predict and explain every race)"
    )
    unexplained = _print(rows)
    print(whole_audit(db, truths, "31415926535897932384"))
    return 0 if unexplained == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
