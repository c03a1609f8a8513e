"""The simulator of another tree and this one, alternating sheet by sheet in one process: CPU ms a sheet.

    python benchmarks/sim_ab.py --old DIR [--sheets 30] [--rounds 2] [--seed 2026] [--read]

``DIR`` is a checkout of the tree to compare with (``git worktree add DIR REV``, or ``git archive REV |
tar -x -C DIR``). Its ``tabulate`` package is copied under another name into a temporary folder (every
import inside the package is relative), so both simulators run in the same process, on the same sheets, in
alternating order: on a shared machine two runs one after the other measure the load as much as the code.
``--read`` adds this tree's reader to both sides (the sheet as `accuracy.read_one` reads it). The last
line says whether every image was byte-identical between the two.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import accuracy  # noqa: E402
import cv2  # noqa: E402

from tabulate.ballots import simulate as new_simulate  # noqa: E402
from tabulate.detect import identify_from_other_side, pair_pages, read_image  # noqa: E402


def _old_package(old_tree: Path, into: Path):
    """The other tree's simulator and election loader, imported as ``tabulate_old``."""
    shutil.copytree(old_tree / "tabulate", into / "tabulate_old", ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(into))
    return importlib.import_module("tabulate_old.ballots.simulate"), importlib.import_module("tabulate_old.election")


def _one(mod, election, reader_election, k: int, seed: int, read: bool) -> tuple[float, bytes]:
    t = time.process_time()
    sim = mod.simulate_sheet(election, k, seed, **accuracy.sheet_options(k))
    if read:
        pages = [read_image(reader_election, img, source=f"sheet{k}-{i}") for i, img in enumerate(sim.pages)]
        pair_pages(reader_election, identify_from_other_side(reader_election, pages, sim.pages))
    took = time.process_time() - t
    return took, hashlib.sha256(sim.pages[0].tobytes() + sim.pages[1].tobytes()).digest()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, required=True, help="a checkout of the tree to compare with")
    ap.add_argument("--sheets", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--read", action="store_true", help="read each sheet too (this tree's reader for both)")
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)  # as in the benchmark's workers
    with tempfile.TemporaryDirectory() as tmp:
        old_sim, old_election_mod = _old_package(a.old.resolve(), Path(tmp))
        new_el = accuracy._election()
        old_el = old_election_mod.load_election(accuracy.SAMPLE)
        sides = {"old": (old_sim, old_el), "new": (new_simulate, new_el)}
        for k in range(3):  # blank pages rendered, noise pools drawn, kernels loaded, before the clock
            for mod, el in sides.values():
                _one(mod, el, new_el, k, a.seed, a.read)
        cpu = {"old": 0.0, "new": 0.0}
        same = True
        for rnd in range(a.rounds):
            for k in range(100, 100 + a.sheets):
                order = ("old", "new") if (k + rnd) % 2 else ("new", "old")
                got = {}
                for name in order:
                    took, got[name] = _one(*sides[name], new_el, k, a.seed, a.read)
                    cpu[name] += took
                same &= got["old"] == got["new"]
    n = a.sheets * a.rounds
    what = "simulation and reading" if a.read else "simulation only"
    print(
        f"old {1000 * cpu['old'] / n:.1f}, new {1000 * cpu['new'] / n:.1f} CPU ms a sheet ({what}, {n} sheets, "
        f"seed {a.seed}), old/new {cpu['old'] / cpu['new']:.2f}; images byte-identical: {same}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
