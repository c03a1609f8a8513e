"""Reader throughput: per-page time of each stage and duplex sheets per second, end to end.

    python benchmarks/throughput_detect.py --sheets 200 --workers 2

Simulated 200 DPI duplex sheets (default scanner profile) are encoded once as
greyscale JPEG (quality 85) and as CCITT G4 TIFF (the same pages thresholded),
held in memory, then read with `tabulate.detect.read_sheet` from bytes by a
pool of worker processes (one sheet per task; numba kernels are compiled and
templates cached once per worker before the clock starts). Reported: the
median per-page time of each stage (decode, register, identify, score) from
the readings' own timings, the stages after decoding as a share of decoding,
and sheets per second over the wall clock.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import simplejpeg  # noqa: E402
from PIL import Image  # noqa: E402

from tabulate.ballots.simulate import simulate_sheet  # noqa: E402
from tabulate.detect import read_sheet  # noqa: E402
from tabulate.election import load_election  # noqa: E402

SAMPLE = ROOT / "samples" / "general" / "election.json"
STAGES = ("decode", "register", "identify", "score")
_E = None


def _election():
    global _E
    if _E is None:
        _E = load_election(SAMPLE)
    return _E


def encode_sheet(pages, fmt: str) -> list[bytes]:
    out = []
    for img in pages:
        if fmt == "jpeg":
            out.append(simplejpeg.encode_jpeg(img[:, :, None], quality=85, colorspace="GRAY"))
        else:
            buf = io.BytesIO()
            Image.fromarray(img).point(lambda v: 255 if v >= 128 else 0).convert("1").save(
                buf, format="TIFF", compression="group4", dpi=(200, 200)
            )
            out.append(buf.getvalue())
    return out


def _warm(sheet: list[bytes]) -> int:
    read_sheet(_election(), sheet)
    return os.getpid()


def _read(sheet: list[bytes]) -> list[dict]:
    r = read_sheet(_election(), sheet)
    if not r.ok:
        raise RuntimeError(r.reason)
    return [dict(p.timings_ms) for p in r.pages]


def run(sheets: list[list[bytes]], workers: int) -> tuple[float, list[dict]]:
    if workers <= 1:
        for s in sheets[:4]:
            _warm(s)
        t0 = time.perf_counter()
        timings = [_read(s) for s in sheets]
        return time.perf_counter() - t0, [t for ts in timings for t in ts]
    with Pool(workers) as pool:
        pool.map(_warm, [sheets[i % len(sheets)] for i in range(4 * workers)], chunksize=1)
        t0 = time.perf_counter()
        timings = pool.map(_read, sheets, chunksize=4)
        wall = time.perf_counter() - t0
    return wall, [t for ts in timings for t in ts]


def decoder_table(page, repeat: int = 20) -> list[str]:
    """Median ms to decode one page to greyscale uint8, per format and library."""
    import cv2
    import imagecodecs
    import numpy as np
    import tifffile

    def tiff(img, compression):
        buf = io.BytesIO()
        tifffile.imwrite(buf, img, compression=compression)
        return buf.getvalue()

    def pil(data):
        return np.asarray(Image.open(io.BytesIO(data)).convert("L"))

    bw = page >= 128
    g4 = encode_sheet([page], "g4")[0]
    cases = {
        "jpeg q85": (
            simplejpeg.encode_jpeg(page[:, :, None], quality=85, colorspace="GRAY"),
            {
                "simplejpeg": lambda d: simplejpeg.decode_jpeg(d, colorspace="GRAY"),
                "imagecodecs": imagecodecs.jpeg8_decode,
                "opencv": lambda d: cv2.imdecode(np.frombuffer(d, np.uint8), cv2.IMREAD_GRAYSCALE),
                "pillow": pil,
            },
        ),
        "tiff g4": (
            g4,
            {
                "imagecodecs": lambda d: np.multiply(imagecodecs.tiff_decode(d).view(np.uint8), 255, dtype=np.uint8),
                "opencv": lambda d: cv2.imdecode(np.frombuffer(d, np.uint8), cv2.IMREAD_GRAYSCALE),
                "pillow": pil,
            },
        ),
        "tiff deflate": (
            tiff(page, "zlib"),
            {
                "imagecodecs": imagecodecs.tiff_decode,
                "tifffile": lambda d: tifffile.imread(io.BytesIO(d)),
                "opencv": lambda d: cv2.imdecode(np.frombuffer(d, np.uint8), cv2.IMREAD_GRAYSCALE),
                "pillow": pil,
            },
        ),
        "tiff lzw": (
            tiff(page, "lzw"),
            {
                "imagecodecs": imagecodecs.tiff_decode,
                "opencv": lambda d: cv2.imdecode(np.frombuffer(d, np.uint8), cv2.IMREAD_GRAYSCALE),
                "pillow": pil,
            },
        ),
        "png": (
            cv2.imencode(".png", page)[1].tobytes(),
            {
                "opencv": lambda d: cv2.imdecode(np.frombuffer(d, np.uint8), cv2.IMREAD_GRAYSCALE),
                "imagecodecs": imagecodecs.png_decode,
                "pillow": pil,
            },
        ),
    }
    del bw
    lines = []
    for name, (data, libs) in cases.items():
        cells = []
        for lib, fn in libs.items():
            fn(data)
            ts = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                fn(data)
                ts.append((time.perf_counter() - t0) * 1e3)
            cells.append(f"{lib} {statistics.median(ts):.1f}")
        lines.append(f"{name:12s} ({len(data) / 1024:5.0f} KiB): " + ", ".join(cells) + " ms")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--decoders", action="store_true", help="only time each decoder on one page")
    a = ap.parse_args(argv)
    e = _election()
    if a.decoders:
        page = simulate_sheet(e, 0, a.seed, scan_profile="default").pages[0]
        print("\n".join(decoder_table(page)))
        return 0
    t0 = time.perf_counter()
    sims = [simulate_sheet(e, k, a.seed, scan_profile="default", bitonal_fraction=0.0) for k in range(a.sheets)]
    print(
        f"simulated {a.sheets} duplex sheets at 200 DPI in {time.perf_counter() - t0:.0f} s; "
        f"{os.cpu_count()} CPUs, {a.workers} workers"
    )
    for fmt in ("jpeg", "g4"):
        sheets = [encode_sheet(s.pages, fmt) for s in sims]
        size = statistics.mean(len(p) for s in sheets for p in s) / 1024
        for workers in sorted({1, a.workers}):
            wall, timings = run(sheets, workers)
            med = {s: statistics.median(t.get(s, 0.0) for t in timings) for s in STAGES}
            after = med["register"] + med["identify"] + med["score"]
            print(
                f"{fmt:4s} ({size:.0f} KiB/page) workers={workers}: {a.sheets / wall:6.1f} sheets/s  | per page "
                + "  ".join(f"{s} {med[s]:.2f} ms" for s in STAGES)
                + f"  | after decode {after:.2f} ms = {100 * after / med['decode']:.0f} % of decode"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
