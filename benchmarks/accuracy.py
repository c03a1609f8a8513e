"""Accuracy of the reader against the simulator's truth (prints a table).

    python benchmarks/accuracy.py --sheets 2000 --workers 2

Sheets alternate between the "stress" population (every mark kind equally
often) and the "varied" one (the hard cases common), and between the "default" and "rough" scan
profiles (one sheet in four rough), with a quarter of the sheets scanned
bitonal, all at 200 DPI. Every target is compared with the truth's expected
scanner reading (`tabulate.ballots.mark_kinds.MARK_KINDS`):

* definite marks read as unmarked  - truth "marked", read unmarked (must be 0)
* clear non-marks read as marked   - truth "unmarked", read marked (must be 0)
* ambiguous marks sent to a person - truth "ambiguous" (scan or hand), read
  marginal, or scan and hand readings disagree, or the page was rejected
* clean ballots sent for nothing   - sheets the truth needs no review for,
  flagged by the reader (a marginal mark, a scan/hand disagreement, a rejection)
* the highest score of any blank target, the lowest of any definite mark.

`evaluate` is also used by tests/test_detect_accuracy.py on a small run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tabulate.ballots.arrows import mark_kind  # noqa: E402
from tabulate.ballots.simulate import simulate_sheet  # noqa: E402
from tabulate.detect import identify_from_other_side, pair_pages, read_image  # noqa: E402
from tabulate.election import load_election  # noqa: E402

SAMPLE = ROOT / "samples" / "general" / "election.json"
HAND = {"marked": "vote", "unmarked": "no_vote", "marginal": "ambiguous"}


def sheet_options(k: int, bitonal_fraction: float = 0.25) -> dict:
    """The simulator options of sheet ``k`` of the benchmark's mix."""
    return {
        "population": ("stress", "varied")[k % 2],
        "scan_profile": "rough" if k % 4 == 3 else "default",
        "bitonal_fraction": bitonal_fraction,
        "dpi": 200,
    }


def read_one(args: tuple) -> dict:
    """Simulate sheet k and read it: compact per-target records and the sheet's outcome."""
    k, seed, bitonal_fraction = args
    cpu = time.process_time()
    election = _election()
    sim = simulate_sheet(election, k, seed, **sheet_options(k, bitonal_fraction))
    truth = {(t["contest"], t["option"]): t for t in sim.truth["targets"]}
    pages = [read_image(election, img, source=f"sheet{k}-{i}") for i, img in enumerate(sim.pages)]
    pages = identify_from_other_side(election, pages, sim.pages)  # as `read_sheet` does
    sheet = pair_pages(election, pages)
    targets = []
    for i, p in enumerate(pages):
        image = sim.truth["images"][i]
        for t in p.targets:
            tt = truth.get((t.contest_id, t.option_id))
            kind = tt["kind"] if tt else "none"
            # Only a drawn mark's ink can be lost; a target with nothing drawn is "none" whatever is left.
            seen = _ink_left(election, sim.pages[i], image, p.style_id, t) if image["bitonal"] and tt else True
            ink = tt["ink"] if tt else 0.0
            # The truth's own expected reading where its rule relabelled the mark (tabulate.ballots.truth.expected_reading).
            rule = (tt["scan"], tt["hand"], tuple(tt["scan_accepts"])) if tt and "rule" in tt else None
            targets.append(
                (
                    kind,
                    image["bitonal"],
                    sim.truth["pen"]["kind"],
                    t.scan,
                    t.hand,
                    round(t.score, 4),
                    seen,
                    "oval",
                    ink,
                    rule,
                )
            )
    flagged = (not sheet.ok) or any(t.scan == "marginal" or t.scan != t.hand for t in sheet.targets)
    return {
        "k": k,
        "ok": sheet.ok,
        "reason": sheet.reason_code,
        "detail": sheet.reason,
        "targets": targets,
        "needs_review": sim.truth["needs_review"],
        "flagged": flagged,
        "profile": sheet_options(k)["scan_profile"],
        "rejected_kinds": [t["kind"] for t in sim.truth["targets"]] if not sheet.ok else [],
        "cpu": time.process_time() - cpu,
    }


def _ink_left(election, img, image_truth, style_id, reading) -> bool:
    """Whether two or more black pixels are left inside a target on a bitonal page (a light pencil may
    vanish at the threshold), located with the simulator's own transform, not the reader's; the columns
    of a dust streak do not count: a streak is the scanner's line, not the voter's ink."""
    from tabulate.ballots.seen import interior_black

    _page, t = _targets(election, style_id)[(reading.contest_id, reading.option_id)]
    tr = image_truth["transform"]
    return interior_black(img, tr["page_to_image"], t, tr["streaks"]).black >= 2


_TARGETS: dict = {}


def _targets(election, style_id: str) -> dict:
    """A style's targets by (contest, option), once per process (`layout_style` hashes the whole election)."""
    if style_id not in _TARGETS:
        from tabulate.ballots.plan import target_index
        from tabulate.election.layout import layout_style

        _TARGETS[style_id] = target_index(layout_style(election, style_id))
    return _TARGETS[style_id]


_ELECTION = None


def _election():
    global _ELECTION
    if _ELECTION is None:
        _ELECTION = load_election(SAMPLE)
    return _ELECTION


@dataclass
class Accuracy:
    sheets: int = 0
    rejected: Counter = field(default_factory=Counter)
    rejected_ids: list = field(default_factory=list)
    definite_unmarked: list = field(default_factory=list)
    #: Definite marks read unmarked with no ink left inside the target in a bitonal image (a scanner limit).
    definite_lost: list = field(default_factory=list)
    nonmark_marked: list = field(default_factory=list)
    ambiguous: int = 0
    ambiguous_sent: int = 0
    ambiguous_lost: int = 0
    ambiguous_kept: Counter = field(default_factory=Counter)
    #: Ambiguous marks the reader decided alone: (sheet, kind, grey/bitonal, scan/hand, score, drawn ink).
    ambiguous_missed: list = field(default_factory=list)
    definite_marginal: Counter = field(default_factory=Counter)
    #: Marks the truth relabelled by their drawn ink: (kind, expected scanner reading) -> count.
    relabelled: Counter = field(default_factory=Counter)
    disagree: int = 0
    disagree_sent: int = 0
    clean: int = 0
    clean_sent: int = 0
    blank_max: float = 0.0
    definite_min: float = 1.0
    by_kind: dict = field(default_factory=lambda: defaultdict(list))
    #: How many of each list of misses `table` prints.
    detail: int = 20
    #: CPU seconds the workers spent simulating and reading (less sensitive to a shared machine's load than wall time).
    cpu: float = 0.0

    def add(self, r: dict) -> None:
        self.sheets += 1
        self.cpu += r.get("cpu", 0.0)
        if not r["ok"]:
            self.rejected[r["reason"]] += 1
            self.rejected_ids.append((r["k"], r["detail"]))
        if not r["needs_review"]:
            self.clean += 1
            self.clean_sent += r["flagged"]
        for kind, bitonal, pen, scan, hand, score, seen, *rest in r["targets"]:
            # rest: the target's shape (template sets), then the ink the simulator drew inside it
            mk = mark_kind(kind, rest[0] if rest else "oval")  # an arrow's gap has its own table
            ink = rest[1] if len(rest) > 1 else None
            if len(rest) > 2 and rest[2]:  # relabelled by the truth's rule (31 KAR 6:030 §2(1)(a), §3(3)(a))
                self.relabelled[(kind, rest[2][0])] += 1
                mk = replace(mk, scan=rest[2][0], hand=rest[2][1], scan_accepts=tuple(rest[2][2]))
            self.by_kind[kind].append((scan, score, scan in mk.scan_accepts or (bitonal and kind == "light_pencil")))
            if mk.scan == "marked" and scan == "unmarked" and not seen:
                self.definite_lost.append((r["k"], kind, "bitonal", pen, score))
            elif mk.scan == "marked":
                self.definite_min = min(self.definite_min, score)
                if scan == "unmarked":
                    self.definite_unmarked.append((r["k"], kind, "bitonal" if bitonal else "grey", pen, score))
                elif scan == "marginal":
                    self.definite_marginal[("bitonal" if bitonal else "grey", pen)] += 1
            if mk.scan == "unmarked" and scan == "marked":
                self.nonmark_marked.append((r["k"], kind, "bitonal" if bitonal else "grey", pen, score))
            if kind == "none":
                self.blank_max = max(self.blank_max, score)
            sent = scan == "marginal" or scan != hand
            if (mk.scan == "ambiguous" or mk.hand == "ambiguous") and not seen:
                self.ambiguous_lost += 1  # no ink left in the image: nothing for anyone to see
            elif mk.scan == "ambiguous" or mk.hand == "ambiguous":
                self.ambiguous += 1
                self.ambiguous_sent += sent
                if not sent:
                    self.ambiguous_kept[(kind, scan)] += 1
                    where = "bitonal" if bitonal else "grey"
                    self.ambiguous_missed.append(
                        (r["k"], kind, where, f"{scan}/{hand}", score, "" if ink is None else f"drawn ink {ink:.3f}")
                    )
            elif (mk.scan == "unmarked") != (mk.hand == "no_vote"):
                self.disagree += 1
                self.disagree_sent += sent
        for item in r["rejected_kinds"]:  # a rejected sheet goes to a person with all its marks
            kind, shape = (item, "oval") if isinstance(item, str) else item
            mk = mark_kind(kind, shape)
            if mk.scan == "ambiguous" or mk.hand == "ambiguous":
                self.ambiguous += 1
                self.ambiguous_sent += 1

    def table(self) -> str:
        pct = lambda a, b: f"{100 * a / b:.2f} %" if b else "n/a"
        lines = [
            f"sheets read                          {self.sheets} (rejected: {dict(self.rejected) or 0})",
            f"definite marks read as unmarked      {len(self.definite_unmarked)}   (must be 0)",
            f"definite marks with no ink left in the image: {len(self.definite_lost)} -- a scanner limit "
            "(the bitonal threshold erased them; nothing for a reader or a person to see)",
            f"clear non-marks read as marked       {len(self.nonmark_marked)}   (must be 0)",
            "definite marks sent to a person      "
            + (", ".join(f"{n} {scan} {pen}" for (scan, pen), n in sorted(self.definite_marginal.items())) or "0"),
            f"ambiguous marks sent to a person     {self.ambiguous_sent}/{self.ambiguous} = "
            f"{pct(self.ambiguous_sent, self.ambiguous)}   (target >= 99.9 %; {self.ambiguous_lost} more left no "
            "ink in a bitonal image)",
            "  not sent: " + ", ".join(f"{k} read {s} {n}" for (k, s), n in sorted(self.ambiguous_kept.items())),
            "relabelled by the truth's rule: "
            + (", ".join(f"{k} expected {s} {n}" for (k, s), n in sorted(self.relabelled.items())) or "0"),
            f"scan/hand-disagreement marks sent    {self.disagree_sent}/{self.disagree} = "
            f"{pct(self.disagree_sent, self.disagree)}   (circled, X beside the name)",
            f"clean ballots sent for nothing       {self.clean_sent}/{self.clean} = "
            f"{pct(self.clean_sent, self.clean)}   (target <= 2 %)",
            f"highest score of a blank target      {self.blank_max:.3f}",
            f"lowest score of a definite mark      {self.definite_min:.3f}   (marks with ink left in the image)",
            "",
            f"{'kind':14s} {'n':>6s} {'accepted':>9s} {'marked':>7s} {'marginal':>8s} {'unmarked':>8s}  "
            "score min/median/max",
        ]
        for kind in sorted(self.by_kind):
            rows = self.by_kind[kind]
            c = Counter(s for s, _, _ in rows)
            scores = sorted(sc for _, sc, _ in rows)
            ok = sum(a for _, _, a in rows)
            lines.append(
                f"{kind:14s} {len(rows):6d} {pct(ok, len(rows)):>9s} {c['marked']:7d} {c['marginal']:8d} "
                f"{c['unmarked']:8d}  {scores[0]:.3f}/{scores[len(scores) // 2]:.3f}/{scores[-1]:.3f}"
            )
        for k, detail in self.rejected_ids[:20]:
            lines.append(f"  rejected: sheet {k}: {detail}")
        for name, items in (
            ("definite read unmarked", self.definite_unmarked),
            ("definite, no ink left", self.definite_lost),
            ("non-mark read marked", self.nonmark_marked),
            ("ambiguous not sent", self.ambiguous_missed),
        ):
            for it in items[: self.detail]:
                extra = f" {it[5]}" if len(it) > 5 else ""
                lines.append(f"  {name}: sheet {it[0]} {it[1]} {it[2]} {it[3]} score {it[4]:.3f}{extra}")
        return "\n".join(lines)


def evaluate(
    n: int,
    seed: int = 2024,
    *,
    workers: int = 1,
    bitonal_fraction: float = 0.25,
    start: int = 0,
    progress: int = 0,
    detail: int = 20,
) -> Accuracy:
    """Simulate and read sheets ``start`` .. ``start + n - 1``; with ``progress``, print the table of the
    first so many sheets every ``progress`` sheets (results arrive in sheet order, so a long run that is
    stopped still leaves the exact result of its first sheets)."""
    acc = Accuracy(detail=detail)
    jobs = [(k, seed, bitonal_fraction) for k in range(start, start + n)]
    t0 = time.perf_counter()
    if workers > 1:
        with Pool(workers, initializer=_init_worker) as pool:
            for r in pool.imap(read_one, jobs, chunksize=4):
                _add(acc, r, progress, seed, t0)
    else:
        for j in jobs:
            _add(acc, read_one(j), progress, seed, t0)
    return acc


def _add(acc: Accuracy, r: dict, progress: int, seed: int, t0: float) -> None:
    acc.add(r)
    if progress and acc.sheets % progress == 0:
        took = time.perf_counter() - t0
        cpu = 1000 * acc.cpu / acc.sheets
        load = os.getloadavg()[0]
        print(
            f"--- first {acc.sheets} sheets, seed {seed}, {took:.0f} s, {cpu:.1f} CPU ms a sheet, load {load:.1f} ---\n"
            f"{acc.table()}\n",
            flush=True,
        )


def simulate_one(args: tuple) -> float:
    """Simulate sheet k (no reading); returns the CPU seconds it took in this process."""
    k, seed, bitonal_fraction = args
    t = time.process_time()
    simulate_sheet(_election(), k, seed, **sheet_options(k, bitonal_fraction))
    return time.process_time() - t


def _init_worker(warm_seed: int | None = None, bitonal_fraction: float = 0.25) -> None:
    import cv2

    cv2.setNumThreads(1)  # one process per core already: OpenCV's own threads would only contend
    if warm_seed is not None:  # render the blank pages and draw the noise pools before the clock starts
        for k in range(4):
            simulate_one((k, warm_seed, bitonal_fraction))


def _ready(_: int) -> None:
    time.sleep(0.2)  # long enough that each worker takes one of these


def simulate_only(n: int, seed: int, *, workers: int, bitonal_fraction: float) -> int:
    """Time the simulator alone: wall-clock sheets/s and CPU ms per sheet, measured in one run."""
    jobs = [(k, seed, bitonal_fraction) for k in range(4, 4 + n)]
    # OpenCV must not run in this process before the fork: a child would inherit its thread pool's locks.
    with Pool(workers, initializer=_init_worker, initargs=(seed, bitonal_fraction)) as pool:
        pool.map(_ready, range(workers))  # wait until every worker has warmed up
        t0 = time.perf_counter()
        cpu = sum(pool.imap_unordered(simulate_one, jobs, chunksize=8))
        wall = time.perf_counter() - t0
    print(
        f"simulated {n} sheets in {wall:.1f} s with {workers} workers: {n / wall:.1f} sheets/s, "
        f"{1000 * cpu / n:.1f} CPU ms per sheet (after the workers warmed up), seed {seed}"
    )
    return 0


def profile_simulation(n: int, seed: int, *, bitonal_fraction: float, top: int = 15, sort: str = "tottime") -> int:
    """Where a simulated sheet's CPU goes: cProfile over ``n`` sheets in this process, after 16 warm-up sheets
    (most blank pages rendered, noise pools drawn), OpenCV on one thread as in the benchmark's workers."""
    import cProfile
    import pstats

    _init_worker(None)
    for k in range(16):
        simulate_one((k, seed, bitonal_fraction))
    prof = cProfile.Profile(timer=time.process_time)  # CPU time: wall time on a shared machine is mostly waiting
    t = time.process_time()
    prof.enable()
    for k in range(16, 16 + n):
        simulate_one((k, seed, bitonal_fraction))
    prof.disable()
    print(f"{1000 * (time.process_time() - t) / n:.1f} CPU ms per simulated sheet ({n} sheets, seed {seed})")
    pstats.Stats(prof).sort_stats(sort).print_stats(top)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--bitonal", type=float, default=0.25, help="share of sheets scanned bitonal")
    ap.add_argument("--progress", type=int, default=0, help="print the table so far every N sheets")
    ap.add_argument("--detail", type=int, default=20, help="how many of each kind of miss to list")
    ap.add_argument(
        "--simulate-only", action="store_true", help="only simulate the sheets (no reading): prints sheets/s"
    )
    ap.add_argument("--profile", action="store_true", help="with --simulate-only: cProfile in one process")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    if a.simulate_only and a.profile:
        return profile_simulation(a.sheets, a.seed, bitonal_fraction=a.bitonal)
    if a.simulate_only:
        return simulate_only(a.sheets, a.seed, workers=a.workers, bitonal_fraction=a.bitonal)
    acc = evaluate(
        a.sheets, a.seed, workers=a.workers, bitonal_fraction=a.bitonal, progress=a.progress, detail=a.detail
    )
    print(acc.table())
    took = time.perf_counter() - t0
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\n{a.sheets} sheets in {took:.0f} s (simulation included), seed {a.seed}; "
        f"{1000 * acc.cpu / max(acc.sheets, 1):.1f} CPU ms per sheet in the workers; load average at the end {load}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
