"""One digest over every row a scan stored, to show two versions of the scan stored the same thing.

    python benchmarks/throughput.py --sheets 400 --workers 2 --keep /tmp/old     # in the old tree
    python benchmarks/throughput.py --sheets 400 --workers 2 --keep /tmp/new     # in this one
    python benchmarks/rows_digest.py /tmp/old/*-g4-1.db /tmp/new/*-g4-1.db

Each SQLite store's sheets, pages, reasons, votes and readings, in id order,
with the SHA-256 of every evidence and marks blob: the time a sheet was
recorded and the folder a page came from (its file name is kept) are left
out, as they differ between two runs of the same scan. Prints the rows
counted and the digest of each store (docs/perf.md, branches poolgap and g4page7).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sqlite3
import sys

QUERIES = (
    "SELECT id, batch_id, position, identity, occurrence, status, style_id, precinct_id, straight_party, blank, "
    "duplicate_of FROM sheets ORDER BY id",
    "SELECT sheet_id, side, source, sha256 FROM pages ORDER BY sheet_id, side",
    "SELECT sheet_id, seq, code, detail, contest_id, option_id, queued FROM sheet_reasons ORDER BY sheet_id, seq",
    "SELECT sheet_id, contest_id, seq, status, selections, overvotes, undervotes, from_straight_party, clauses, "
    "modified FROM votes ORDER BY sheet_id, seq",
    "SELECT sheet_id, evidence, marks, marks_z FROM readings ORDER BY sheet_id",
)


def _value(v) -> str:
    if isinstance(v, bytes):
        return "sha256:" + hashlib.sha256(v).hexdigest()
    return repr(v)


def rows_digest(path: str) -> tuple[int, str]:
    """(rows, SHA-256) of the store at ``path`` (see above)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    h = hashlib.sha256()
    n = 0
    try:
        for q in QUERIES:
            for row in db.execute(q):
                if q.startswith("SELECT sheet_id, side, source"):
                    row = (row[0], row[1], os.path.basename(row[2]), row[3])
                h.update(("|".join(_value(v) for v in row) + "\n").encode())
                n += 1
    finally:
        db.close()
    return n, h.hexdigest()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stores", nargs="+", help="SQLite store files")
    a = ap.parse_args(argv)
    digests = set()
    for path in a.stores:
        n, d = rows_digest(path)
        digests.add(d)
        print(f"{path}: {n} rows, sha256 {d}")
    print("the same rows" if len(digests) == 1 else f"{len(digests)} different digests")
    return 0 if len(digests) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
