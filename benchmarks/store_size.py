"""Store size: kB per sheet, by table and by column, for a JPEG-grey and a G4 batch.

    python benchmarks/store_size.py                 # 400 sheets of each format
    python benchmarks/store_size.py --sheets 2000 --workers 2

It simulates 16 sheets of each format with the sample general election
(seeded; 200 DPI duplex, grayscale JPEG or bitonal CCITT G4) and copies them
into a batch of ``--sheets`` distinct sheets as `benchmarks/throughput.py`
does (bytes after the image data change each file's SHA-256, not its
pixels), scans the batch into a new SQLite store with the real reader, and
prints:

* the file's size per sheet (after a ``VACUUM``, so free pages do not count);
* per table (and index), the bytes SQLite's ``dbstat`` gives it, per sheet;
* per column, the bytes its values take, per sheet (a TEXT or BLOB column's
  length in bytes; an INTEGER's SQLite record size, 1-8 bytes).

The journal's share grows with the batch's group size (one entry per group of
sheets committed), so the per-sheet figures are for a whole batch in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ELECTION = REPO / "samples" / "general" / "election.json"
FORMATS = {"jpeg": ("jpeg", 0.0), "g4": ("jpeg", 1.0)}
BASE_SHEETS = 16


def simulate(fmt: str, n: int, out: Path, seed: int) -> Path:
    """``n`` distinct sheets of one format, copied from BASE_SHEETS simulated ones (bitonal: G4 TIFF)."""
    from tabulate.ballots.samples import write_samples
    from tabulate.election import load_election

    base = out / f"base-{fmt}-{seed}"
    image_fmt, bitonal = FORMATS[fmt]
    if not base.is_dir():
        election = load_election(ELECTION)
        write_samples(election, base, BASE_SHEETS, seed=seed, fmt=image_fmt, bitonal_fraction=bitonal, jobs=1)
    pages = sorted(p for p in base.iterdir() if p.suffix in (".jpg", ".tif"))
    folder = out / f"sheets-{fmt}-{n}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    sheets = [pages[i : i + 2] for i in range(0, len(pages), 2)]  # sheet-NNNNN-back, sheet-NNNNN-front
    for i in range(n):
        for page in sheets[i % len(sheets)]:
            name = page.name.replace(page.name[:11], f"sheet-{i + 1:05d}")
            (folder / name).write_bytes(page.read_bytes() + b"copy%d" % i)
    return folder


def scan(folder: Path, db: Path, workers: int) -> None:
    """Scan a folder into a new store with the real reader (what ``tabulate scan`` does)."""
    from tabulate.central import ScanPlan, run_batch
    from tabulate.election import load_election
    from tabulate.store import open_store

    election = load_election(ELECTION)
    store = open_store(db)
    try:
        store.bind_election(election, json.loads(ELECTION.read_text()))
        batch = store.open_batch(folder.name, "election_day")
        run_batch(store, election, batch, ScanPlan([folder]), workers=workers)
        store.close_batch(batch.id)
    finally:
        store.close()


def _column_bytes(db: sqlite3.Connection, table: str, column: str, decl: str) -> int:
    if decl.upper().startswith("INT"):
        # SQLite's record format: 0 bytes for 0 and 1, then 1, 2, 3, 4, 6 or 8.
        sql = (
            f"SELECT SUM(CASE WHEN {column} IS NULL OR {column} IN (0, 1) THEN 0 "
            f"WHEN ABS({column}) < 128 THEN 1 WHEN ABS({column}) < 32768 THEN 2 "
            f"WHEN ABS({column}) < 8388608 THEN 3 WHEN ABS({column}) < 2147483648 THEN 4 ELSE 8 END) FROM {table}"
        )
    else:
        sql = f"SELECT SUM(LENGTH(CAST({column} AS BLOB))) FROM {table}"
    return db.execute(sql).fetchone()[0] or 0


def measure(path: Path) -> dict:
    """Bytes per table (dbstat) and per column, the file's size, and the number of sheets."""
    db = sqlite3.connect(str(path))
    db.execute("VACUUM")
    sheets = db.execute("SELECT COUNT(*) FROM sheets").fetchone()[0]
    tables = dict(db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"))
    columns = {}
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in names:
        if table.startswith("sqlite_"):
            continue
        for _cid, column, decl, *_ in db.execute(f"PRAGMA table_info({table})").fetchall():
            columns[(table, column)] = _column_bytes(db, table, column, decl or "")
    db.close()
    return {"sheets": sheets, "file": path.stat().st_size, "tables": tables, "columns": columns}


def report(fmt: str, m: dict) -> None:
    n = m["sheets"]
    kb = lambda b: b / n / 1000
    print(f"\n== {fmt}: {n} sheets, {m['file'] / 1e6:.2f} MB file, {kb(m['file']):.2f} kB per sheet ==")
    print(f"{'table or index (dbstat pages)':<32} {'kB/sheet':>9}")
    for name, size in sorted(m["tables"].items(), key=lambda kv: -kv[1]):
        if size / n >= 10:
            print(f"  {name:<30} {kb(size):9.3f}")
    print(f"{'column (value bytes)':<32} {'kB/sheet':>9}")
    for (table, column), size in sorted(m["columns"].items(), key=lambda kv: -kv[1]):
        if size / n >= 10:
            print(f"  {table + '.' + column:<30} {kb(size):9.3f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=400)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--formats", nargs="+", default=list(FORMATS), choices=list(FORMATS))
    ap.add_argument("--keep", metavar="DIR", help="keep the stores (and images) in this folder")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.keep) if args.keep else Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        for fmt in args.formats:
            folder = simulate(fmt, args.sheets, out, args.seed)
            db = out / f"store-{fmt}.db"
            for stale in out.glob(f"store-{fmt}.db*"):
                stale.unlink()
            scan(folder, db, args.workers)
            report(fmt, measure(db))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
