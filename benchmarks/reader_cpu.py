"""The reader's CPU per sheet in one process, decode apart: run it on two trees, alternately, to compare them.

    python benchmarks/reader_cpu.py --work /tmp/sheets                       # this tree
    python /path/to/old/benchmarks/reader_cpu.py --work /tmp/sheets          # a copy of the old tree

Simulates throughput.py's 16 base sheets of each format once into ``--work``
(kept, so both trees read the same files), reads each sheet through
`tabulate.central.interpret_sheet` (decode, register, identify, score, rules,
evidence) and decodes it alone, ``--rounds`` times interleaved, and prints
the least process CPU of a round per sheet: the whole, the decode, and the
rest (decoding as the reader does: a bitonal page is not converted to grey where
the tree has `decode_native`). The tree measured is the one this script sits in. On a shared machine
run the two trees one after the other, twice, and compare runs taken side by
side (docs/perf.md, round 6).

``--stages`` also times each step of reading on the decoded pages alone, the
steps interleaved round by round (registration, the streak check, the QR crop
and zxing, the target kernel, the rest of scoring: docs/perf.md, "This round
(branch g4bits)"; then the sheet's own steps: hashing and headers, the marks
and rules, the marks' JSON, the evidence), least CPU ms a sheet; the load
average is printed beside.

``--rules-ab`` (this tree): the marks and rules of the sheets as built, against the same with the rules'
skip of quiet options turned off and the election's contests, options and a style's contests worked out on
every call, as before branch g4target7 (both on the same readings, interleaved in one process).

``--in-flow`` times each step where `interpret_sheet` runs it, sheet after sheet
(every function wrapped by a CPU timer), and what `read_sheet` and
`interpret_sheet` spend outside the steps: a step meets the page as the step
before it left it, not in the CPU's cache as ``--stages`` has it (docs/perf.md,
branch g4page7: where the ~1.2 ms a G4 sheet that the steps did not add up to went).

``--bitonal-ab`` (this tree, G4 only): each page decoded to grey and read,
against the same page read as its decoder's bytes, interleaved in one
process: the one comparison of branch g4direct that two loaded runs of two
trees could not resolve.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import throughput  # noqa: E402

from tabulate.central import ScanPlan, interpret_sheet  # noqa: E402
from tabulate.detect import decode as _decode  # noqa: E402
from tabulate.detect.decode import headers  # noqa: E402
from tabulate.election import load_election  # noqa: E402
from tabulate.election.model import PAPER_SIZES_IN  # noqa: E402

#: The decoder the reader uses: a bitonal page as its decoder's bytes where the tree has `decode_native`.
decode_page = getattr(_decode, "decode_native", _decode.decode_page)


def _native(page) -> tuple:
    """(pixels, the keyword arguments that read them): a `BitonalPage`'s bytes with their levels, or a grey page."""
    if hasattr(page, "bits"):
        return page.bits, {"levels": page.levels}, {"levels": page.levels}
    return page, {}, {}


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


def stages(folder: Path, rounds: int) -> dict[str, float]:
    """Each step of reading the decoded pages alone: least CPU ms a sheet over ``rounds`` interleaved rounds."""
    import tabulate.detect.score as score
    from tabulate.detect.dither import diffused_bits
    from tabulate.detect.identify import check_style_code, code_crop, read_style_code
    from tabulate.detect.register import register_page
    from tabulate.detect.settings import DEFAULT_SETTINGS
    from tabulate.detect.streaks import streak_columns

    election = load_election(throughput.ELECTION)
    w, h = PAPER_SIZES_IN[election.paper_size]
    sheets = [[Path(p.path).read_bytes() for p in s.pages] for s in ScanPlan([folder])]
    native = [_native(decode_page(d, hd)) for s in sheets for d in s for hd in headers(d)]
    pages, luts, levels = [n[0] for n in native], [n[1] for n in native], [n[2] for n in native]
    regs = [register_page(im, w, h, **lt) for im, lt in zip(pages, luts)]
    streaks = [streak_columns(im, r.dpi, r.paper, r.ink, **lt) for im, r, lt in zip(pages, regs, luts)]
    crops = [code_crop(im, r.affine, w, h, st, *lt.values()) for im, r, st, lt in zip(pages, regs, streaks, luts)]
    codes = [check_style_code(election, read_style_code(c)) for c in crops]
    calls = []

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    real, score.score_targets = score.score_targets, spy
    try:
        for im, r, st, c, lv in zip(pages, regs, streaks, codes, levels):
            score.score_page(election, im, r, c.style_id, c.page, DEFAULT_SETTINGS, st, **lv)
    finally:
        score.score_targets = real
    steps = {
        # A G4 page's check for error diffusion (`read_image` runs it on every bitonal page before registering).
        "dither check": lambda: [diffused_bits(im, lt["levels"]) for im, lt in zip(pages, luts) if lt],
        "register": lambda: [register_page(im, w, h, **lt) for im, lt in zip(pages, luts)],
        "streaks": lambda: [streak_columns(im, r.dpi, r.paper, r.ink, **lt) for im, r, lt in zip(pages, regs, luts)],
        "QR crop + zxing": lambda: [
            read_style_code(code_crop(im, r.affine, w, h, st, *lt.values()))
            for im, r, st, lt in zip(pages, regs, streaks, luts)
        ],
        "target kernel": lambda: [real(*a, **k) for a, k in calls],
        "score_page (kernel and classes)": lambda: [
            score.score_page(election, im, r, c.style_id, c.page, DEFAULT_SETTINGS, st, **lv)
            for im, r, st, c, lv in zip(pages, regs, streaks, codes, levels)
        ],
    }
    steps.update(_sheet_steps(election, sheets))
    return _least(steps, rounds, len(sheets))


def _sheet_steps(election, sheets: list) -> dict:
    """The sheet's own steps after reading its pages: each page hashed and its header read, the marks and
    the rules, the marks' JSON, the evidence encoded (`interpret_sheet`'s, on the same readings)."""
    import json

    from tabulate.core.pagebytes import page_sha256
    from tabulate.detect import read_sheet, sheet_marks
    from tabulate.rules import apply_rules, marks_to_dict
    from tabulate.store.evidence_reading import encode_reading

    readings = [read_sheet(election, s) for s in sheets]
    marks = [sheet_marks(r) for r in readings if r.ok]
    return {
        "SHA-256 + headers": lambda: [(page_sha256(d), headers(d)) for s in sheets for d in s],
        "sheet_marks + apply_rules": lambda: [apply_rules(election, sheet_marks(r)) for r in readings if r.ok],
        "marks JSON": lambda: [json.dumps(marks_to_dict(m), separators=(",", ":"), ensure_ascii=False) for m in marks],
        "evidence encoding": lambda: [encode_reading(r, election) for r in readings],
    }


#: The steps `in_flow` times inside `read_sheet` (names in `tabulate.detect.read`), then the sheet's own.
_READ_STEPS = (
    "headers",
    "page_sha256",
    "decode_native",
    "diffused_bits",
    "register_page",
    "streak_columns",
    "code_crop",
    "read_style_code",
    "check_style_code",
    "score_page",
    "identify_from_other_side",
    "pair_pages",
)


def in_flow(folder: Path, rounds: int) -> dict[str, float]:
    """Each step's CPU where `interpret_sheet` runs it, sheet after sheet (each function wrapped by a timer):
    least CPU ms a sheet of each over ``rounds``, what `read_sheet` and `interpret_sheet` spend outside them,
    and the whole. Unlike ``--stages`` (each step alone, over and over on pages in the CPU's cache), a step
    here meets the page as the one before it left it: what the "whole" of ``--stages`` could not account for.

    The process CPU clock is a system call (4-5 us here, 2 a wrapped call): what a wrapped call that does
    nothing costs, seen from inside and from outside, is measured first and taken off every figure."""
    import tabulate.central.interpret as interpret
    import tabulate.detect as detect
    import tabulate.detect.read as read
    import tabulate.rules as rules
    import tabulate.store.evidence_reading as evidence

    spent: dict[str, int] = {}
    calls: dict[str, int] = {}
    clock = time.process_time_ns

    def timer(name: str, real):
        def step(*args, **kwargs):
            start = clock()
            try:
                return real(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0) + clock() - start
                calls[name] = calls.get(name, 0) + 1

        return step

    inner, outer_cost = _clock_cost(timer, spent)
    steps = [n for n in _READ_STEPS if hasattr(read, n)]
    for name in steps:
        setattr(read, name, timer(name, getattr(read, name)))
    outer = ("encode_reading", "sheet_marks", "apply_rules", "marks_to_dict", "_json")
    for module, name in zip((evidence, detect, rules, rules, interpret), outer):
        setattr(module, name, timer(name, getattr(module, name)))
    detect.read_sheet = timer("read_sheet", detect.read_sheet)
    election = load_election(throughput.ELECTION)
    sheets = [[Path(p.path).read_bytes() for p in s.pages] for s in ScanPlan([folder])]
    for s in sheets:
        interpret_sheet(election, s)
    best: dict[str, float] = {}
    for _ in range(rounds):
        spent.clear()
        calls.clear()
        start = clock()
        for s in sheets:
            interpret_sheet(election, s)
        whole = clock() - start - sum(calls.values()) * outer_cost
        own = {n: spent[n] - calls[n] * inner for n in spent}  # each step without its own clock
        # read_sheet's figure holds each inner step's whole wrapper; its steps' own figures hold one clock.
        own["read_sheet"] -= sum(calls.get(n, 0) for n in steps) * (outer_cost - inner)
        own["read_sheet's own (pages, pairing)"] = own["read_sheet"] - sum(own.get(n, 0) for n in steps)
        own["interpret_sheet's own"] = whole - sum(own[n] for n in ("read_sheet", *outer))
        own["interpret_sheet whole"] = whole
        for name, ns in own.items():
            best[name] = min(best.get(name, float("inf")), ns / 1e6 / len(sheets))
    return best


def _clock_cost(timer, spent: dict) -> tuple[float, float]:
    """(inside, outside): ns a wrapped call that does nothing adds to its own figure, and to its caller's;
    the least of a few tries."""
    noop = timer("noop", lambda: None)
    inside = outside = float("inf")
    for _ in range(20):
        spent.clear()
        start = time.process_time_ns()
        for _ in range(500):
            noop()
        outside = min(outside, (time.process_time_ns() - start) / 500)
        inside = min(inside, spent["noop"] / 500)
    spent.clear()
    return inside, outside


def bitonal_ab(folder: Path, rounds: int) -> dict[str, float]:
    """A G4 page decoded to grey and read, against the same page read as its decoder's bytes (`decode_native`),
    in this one process, interleaved round by round: least CPU ms a page (docs/perf.md, branch g4direct)."""
    from tabulate.detect.decode import decode_page as grey_decode
    from tabulate.detect.read import read_image

    election = load_election(throughput.ELECTION)
    data = [Path(p.path).read_bytes() for s in ScanPlan([folder]) for p in s.pages]
    heads = [headers(d)[0] for d in data]
    pairs = list(zip(data, heads))
    grey = [read_image(election, grey_decode(d, h)) for d, h in pairs]
    assert [read_image(election, decode_page(d, h)) for d, h in pairs] == grey  # the same readings

    def each(decode, read: bool):
        def step():
            for d, h in pairs:  # one page at a time, none kept: as the worker holds them
                img = decode(d, h)
                if read:
                    read_image(election, img)

        return step

    steps = {
        "decode to grey": each(grey_decode, False),
        "decode as bytes": each(decode_page, False),
        "decode to grey + read": each(grey_decode, True),
        "decode as bytes + read": each(decode_page, True),
    }
    return _least(steps, rounds, len(pairs))


def rules_ab(folder: Path, rounds: int) -> dict[str, float]:
    """`sheet_marks` + `apply_rules` as built, against the same as before branch g4target7 (every option read
    in full; `Contest.options`, the straight-party contest and a style's contests built on every call):
    least CPU ms a sheet, interleaved in one process (docs/perf.md, "This round (branch g4target7)")."""
    from contextlib import ExitStack
    from unittest import mock

    from tabulate.detect import read_sheet, sheet_marks
    from tabulate.election.model import Contest, Election
    from tabulate.rules import _contest, apply_rules

    election = load_election(throughput.ELECTION)
    readings = [
        r
        for r in (read_sheet(election, [Path(p.path).read_bytes() for p in s.pages]) for s in ScanPlan([folder]))
        if r.ok
    ]

    def as_before():
        stack = ExitStack()
        stack.enter_context(mock.patch.object(_contest, "_quiet", lambda mark, option: False))
        stack.enter_context(mock.patch.object(Contest, "options", property(Contest.__dict__["options"].func)))
        sp = Election.__dict__["straight_party_contest"].func
        stack.enter_context(mock.patch.object(Election, "straight_party_contest", property(sp)))
        stack.enter_context(mock.patch.object(Election, "style_contests", Election._find_style_contests))
        return stack

    def before():
        with as_before():
            return [apply_rules(election, sheet_marks(r)) for r in readings]

    def built():
        return [apply_rules(election, sheet_marks(r)) for r in readings]

    assert before() == built()  # the same votes and reasons, field for field
    steps = {"marks + rules as before": before, "marks + rules as built": built}
    return _least(steps, rounds, len(readings))


def _least(steps: dict, rounds: int, per: int) -> dict[str, float]:
    """Each step's least CPU ms over ``rounds``, the steps taking turns, divided by ``per`` (sheets or pages)."""
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(rounds):
        for name, step in steps.items():
            start = time.process_time()
            step()
            best[name] = min(best[name], time.process_time() - start)
    return {name: 1e3 * v / per for name, v in best.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="where the sheets are simulated once and kept")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--formats", default="g4,jpeg")
    ap.add_argument("--stages", action="store_true", help="also time each step of reading alone (see above)")
    ap.add_argument("--bitonal-ab", action="store_true", help="G4 only: grey page against its own bytes (see above)")
    ap.add_argument("--rules-ab", action="store_true", help="the rules as before g4target7 against now (see above)")
    ap.add_argument("--in-flow", action="store_true", help="each step's CPU inside the real flow (see above)")
    a = ap.parse_args(argv)
    a.work.mkdir(parents=True, exist_ok=True)
    if a.bitonal_ab:
        for name, ms in bitonal_ab(throughput.make_base("g4", a.work), a.rounds).items():
            print(f"{ROOT.name} g4 {name:<24} {ms:6.3f} CPU ms a page", flush=True)
        print(f"  (load average {os.getloadavg()[0]:.1f})", flush=True)
        return 0
    if a.rules_ab:
        for fmt in a.formats.split(","):
            for name, ms in rules_ab(throughput.make_base(fmt, a.work), a.rounds).items():
                print(f"{ROOT.name} {fmt} {name:<24} {ms:6.3f} CPU ms a sheet", flush=True)
        print(f"  (load average {os.getloadavg()[0]:.1f})", flush=True)
        return 0
    if a.in_flow:
        for fmt in a.formats.split(","):
            for name, ms in in_flow(throughput.make_base(fmt, a.work), a.rounds).items():
                print(f"{ROOT.name} {fmt} in flow {name:<36} {ms:6.3f} CPU ms a sheet", flush=True)
            print(f"  (load average {os.getloadavg()[0]:.1f})", flush=True)
        return 0
    for fmt in a.formats.split(","):
        whole, decode = measure(throughput.make_base(fmt, a.work), a.rounds)
        print(
            f"{ROOT.name} {fmt}: interpret_sheet {whole:.2f}, decode {decode:.2f}, "
            f"after decoding {whole - decode:.2f} CPU ms a sheet (load average {os.getloadavg()[0]:.1f})",
            flush=True,
        )
        if a.stages:
            for name, ms in stages(throughput.make_base(fmt, a.work), a.rounds).items():
                print(f"  {name:<32} {ms:6.3f} CPU ms a sheet", flush=True)
            print(f"  (load average {os.getloadavg()[0]:.1f})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
