"""What signing every journal entry costs: recording sheets signed and unsigned, and `verify --fast`.

    python benchmarks/journal_signing.py                 # 4000 sheets
    python benchmarks/journal_signing.py --sheets 20000

The same synthetic sheets as `benchmarks/journal.py` (64 per transaction, as
the scan pipeline commits them) are recorded into two stores: one that
registers no station (unsigned) and one whose station is registered by a
county key, so each entry is signed (Ed25519) and each write first reads the
registrations. Then both are verified as every report does (``--fast``: the
chain, every signature, every sealed row). Rates and ratios from one run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from journal import GROUP, SAMPLE, record_batch

from tabulate.core.keys import entry_signature_valid, make_key_pair
from tabulate.election import load_election
from tabulate.store import open_store
from tabulate.store.journal_signing import Signer, signing_as


def record(path: Path, n: int, signer: Signer | None, county: Signer | None) -> float:
    election = load_election(SAMPLE)
    store = open_store(path)
    if signer is not None and county is not None:
        store.register_station("bench", signer.public_key, county=county)
    with signing_as(signer):
        elapsed = record_batch(store, election, n)
    store.close()
    return elapsed


def verify_fast(path: Path) -> tuple[float, int]:
    from tabulate.adjudicate.schema import connect
    from tabulate.commands.verify import check

    store, conn = open_store(path, create=False), connect(path)
    start = time.perf_counter()
    result = check(store, conn, fast=True)
    elapsed = time.perf_counter() - start
    assert result.ok, result.problem
    store.close()
    conn.close()
    return elapsed, result.entries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sheets", type=int, default=4000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_key_pair(root, "county")
        make_key_pair(root, "station")
        county, station = Signer.from_file(root / "county.key"), Signer.from_file(root / "station.key")
        unsigned = record(root / "unsigned.db", args.sheets, None, None)
        signed = record(root / "signed.db", args.sheets, station, county)
        # Best of three, alternating: the machine is shared, the first pass warms the page cache.
        runs = [(verify_fast(root / "unsigned.db"), verify_fast(root / "signed.db")) for _ in range(3)]
        v_unsigned, entries = min(u for u, _ in runs)[0], runs[0][0][1]
        v_signed = min(s[0] for _, s in runs)
        h = "ab" * 32
        start = time.perf_counter()
        for _ in range(2000):
            station.sign(h)
        sign_us = (time.perf_counter() - start) / 2000 * 1e6
        signature = station.sign(h)
        start = time.perf_counter()
        for _ in range(2000):
            entry_signature_valid(station.public_key, h, signature)
        check_us = (time.perf_counter() - start) / 2000 * 1e6
    n = args.sheets
    print(f"{n} sheets, {GROUP} per transaction, {entries} journal entries")
    print(
        f"record  unsigned {unsigned / n * 1e3:.3f} ms/sheet   signed {signed / n * 1e3:.3f} ms/sheet   "
        f"ratio {signed / unsigned:.3f}"
    )
    print(f"verify --fast  unsigned {v_unsigned:.2f} s   signed {v_signed:.2f} s   ratio {v_signed / v_unsigned:.3f}")
    print(f"one entry: Ed25519 signature {sign_us:.0f} us, its check {check_us:.0f} us")


if __name__ == "__main__":
    main()
