"""The worker's evidence encoding, old path and new, interleaved in one process (docs/perf.md).

    python benchmarks/evidence_encode.py --sheets 6 --rounds 30

Reads ``--sheets`` simulated sheets (seed 17, default scanner profile) from
JPEG and from G4, then times, round after round in the same process,
``encode_evidence(reading.to_dict(), election)`` (what the worker did) and
`tabulate.store.evidence_reading.encode_reading` (what it does now), and
checks that both give the same bytes. Process CPU ms per sheet.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.profile_stages import encode  # noqa: E402
from tabulate.ballots.simulate import simulate_sheet  # noqa: E402
from tabulate.detect import read_sheet  # noqa: E402
from tabulate.election import load_election  # noqa: E402
from tabulate.store.evidence import encode_evidence  # noqa: E402
from tabulate.store.evidence_reading import encode_reading  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=30)
    a = ap.parse_args(argv)
    election = load_election(ROOT / "samples" / "general" / "election.json")
    readings = [
        read_sheet(election, [encode(img, fmt) for img in simulate_sheet(election, k, 17).pages])
        for k in range(a.sheets)
        for fmt in ("jpeg", "g4")
    ]
    assert all(encode_reading(r, election) == encode_evidence(r.to_dict(), election) for r in readings)
    old = new = 0.0
    for _ in range(a.rounds):
        t0 = time.process_time()
        for r in readings:
            encode_evidence(r.to_dict(), election)
        t1 = time.process_time()
        for r in readings:
            encode_reading(r, election)
        new += time.process_time() - t1
        old += t1 - t0
    n = a.rounds * len(readings)
    print(
        f"to_dict + encode_evidence {1e3 * old / n:.3f} CPU ms/sheet; encode_reading {1e3 * new / n:.3f} CPU ms/sheet; "
        f"ratio {new / old:.2f} (same bytes; {a.rounds} rounds x {len(readings)} sheets, interleaved)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
