"""The reader's CPU per sheet in one process, decode apart: run it on two trees, alternately, to compare them.

    python benchmarks/reader_cpu.py --work /tmp/sheets                       # this tree
    python /path/to/old/benchmarks/reader_cpu.py --work /tmp/sheets          # a copy of the old tree

Simulates throughput.py's 16 base sheets of each format once into ``--work``
(kept, so both trees read the same files), reads each sheet through
`tabulate.central.interpret_sheet` (decode, register, identify, score, rules,
evidence) and decodes it alone, ``--rounds`` times interleaved, and prints
the least process CPU of a round per sheet: the whole, the decode, and the
rest. The tree measured is the one this script sits in. On a shared machine
run the two trees one after the other, twice, and compare runs taken side by
side (docs/perf.md, round 6).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import throughput  # noqa: E402

from tabulate.central import ScanPlan, interpret_sheet  # noqa: E402
from tabulate.detect.decode import decode_page, headers  # noqa: E402
from tabulate.election import load_election  # noqa: E402


def measure(folder: Path, rounds: int) -> tuple[float, float]:
    """(interpret, decode) least CPU ms a sheet over ``rounds`` interleaved rounds."""
    election = load_election(throughput.ELECTION)
    pages = [[Path(p.path).read_bytes() for p in s.pages] for s in ScanPlan([folder])]
    for p in pages:  # warm: numba's cache, each style's layout
        interpret_sheet(election, p)
    whole = decode = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for p in pages:
            interpret_sheet(election, p)
        whole = min(whole, time.process_time() - start)
        start = time.process_time()
        for p in pages:
            [decode_page(d, h) for d in p for h in headers(d)]
        decode = min(decode, time.process_time() - start)
    return 1e3 * whole / len(pages), 1e3 * decode / len(pages)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="where the sheets are simulated once and kept")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--formats", default="g4,jpeg")
    a = ap.parse_args(argv)
    a.work.mkdir(parents=True, exist_ok=True)
    for fmt in a.formats.split(","):
        whole, decode = measure(throughput.make_base(fmt, a.work), a.rounds)
        print(
            f"{ROOT.name} {fmt}: interpret_sheet {whole:.2f}, decode {decode:.2f}, "
            f"after decoding {whole - decode:.2f} CPU ms a sheet",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
