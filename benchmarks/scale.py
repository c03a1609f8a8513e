"""Throughput of ``tabulate scan``: process pool, Dask, PostgreSQL, two stations; and the byte-identical check.

    python benchmarks/scale.py                      # 2,000 sheets, 2 readers each way
    python benchmarks/scale.py --sheets 200 --workers 2
    python benchmarks/scale.py --pg postgresql://clerk@db/bench   # an existing, empty database

It copies the shipped sample scans (the JPEG sheets of samples/general/scans)
into a batch of ``--sheets`` distinct sheets (bytes appended after each
image's data change its SHA-256, not its pixels), then runs the real command,
each in a process of its own, on the same files:

* **pool**: ``tabulate scan DIR --db pool.db --workers N`` (SQLite, process pool);
* **dask**: ``tabulate scan DIR --db dask.db --cluster local:N`` (SQLite, a local Dask cluster of N worker processes);
* **postgres**: ``tabulate scan DIR --db postgresql://... --workers N``;
* **2 stations**: two ``tabulate scan`` processes at once into one PostgreSQL
  database, each on half of the sheets with N/2 readers (at least 1).

Figures: sheets/s as each run's summary reports it (from the batch's start to
its end) and the wall time of the whole command (imports and start-up
included). Then every store's results CSV, NIST CVR and Arlo manifest are
exported (SOURCE_DATE_EPOCH fixed) and compared, byte for byte, with the
pool's. Without ``--pg`` a throw-away server is started as the tests do
(tests/pg_server.py, Debian's postgresql package).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ELECTION = REPO / "samples" / "general" / "election.json"
SCANS = REPO / "samples" / "general" / "scans"


def make_batch(out: Path, n: int) -> Path:
    """``n`` distinct sheets from the sample's JPEG sheets, named sheet-00001-front.jpg ..."""
    fronts = sorted(SCANS.glob("sheet-*-front.jpg"))
    base = [(f.read_bytes(), Path(str(f).replace("-front.", "-back.")).read_bytes()) for f in fronts]
    folder = out / f"batch-{n}"
    folder.mkdir(parents=True)
    for i in range(n):
        front, back = base[i % len(base)]
        (folder / f"sheet-{i + 1:05d}-front.jpg").write_bytes(front + b"copy%d" % i)
        (folder / f"sheet-{i + 1:05d}-back.jpg").write_bytes(back + b"copy%d" % i)
    return folder


def scan(paths: list[Path], db: str, batch: str, *extra: str) -> subprocess.Popen:
    cmd = [
        sys.executable,
        "-m",
        "tabulate.cli",
        "scan",
        *map(str, paths),
        "--election",
        str(ELECTION),
        "--db",
        db,
        "--batch",
        batch,
        "--vote-type",
        "election_day",
        "--no-progress",
        *extra,
    ]
    return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen, started: float) -> tuple[float, float, str]:
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"scan failed ({proc.returncode}): {err.strip()[-500:]}")
    m = re.search(r"sheets read\s+(\d+)\s+in ([\d.]+) s \(([\d.]+) sheets/s\)", out)
    return float(m[3]), time.monotonic() - started, out


def run(label: str, paths: list[Path], db: str, *extra: str) -> dict:
    started = time.monotonic()
    rate, wall, out = finish(scan(paths, db, "bench", *extra), started)
    sheets = int(re.search(r"sheets read\s+(\d+)", out)[1])
    print(
        f"  {label:<12} {sheets:6d} sheets  {rate:7.1f} sheets/s in the batch   {wall:7.1f} s wall "
        f"({sheets / wall:.1f} sheets/s)",
        flush=True,
    )
    return {"label": label, "sheets": sheets, "rate": rate, "wall": wall}


def two_stations(folder: Path, db: str, workers: int, out: Path) -> dict:
    """Two scan processes at once into one database, each on half of the sheets."""
    files = sorted(folder.iterdir())
    halves = [out / "station-1", out / "station-2"]
    half = len(files) // 4 * 2  # whole sheets: front and back stay together
    for h, part in zip(halves, (files[:half], files[half:])):
        h.mkdir()
        for f in part:
            os.link(f, h / f.name)
    started = time.monotonic()
    procs = [
        scan([h], db, f"station-{k}", "--tabulator", str(k), "--workers", str(max(1, workers // 2)))
        for k, h in enumerate(halves, 1)
    ]
    outs = [finish(p, started) for p in procs]
    wall = time.monotonic() - started
    sheets = sum(int(re.search(r"sheets read\s+(\d+)", o)[1]) for _r, _w, o in outs)
    print(
        f"  {'2 stations':<12} {sheets:6d} sheets  {sum(r for r, _w, _o in outs):7.1f} sheets/s summed       "
        f"{wall:7.1f} s wall ({sheets / wall:.1f} sheets/s)",
        flush=True,
    )
    return {"label": "2 stations", "sheets": sheets, "wall": wall}


def exports(db: str, out: Path) -> dict[str, bytes]:
    got = {}
    for command, extra, suffix in (
        ("results", ["--format", "csv"], "csv"),
        ("cvr", [], "json"),
        ("manifest", [], "csv"),
    ):
        path = out / f"{command}.{suffix}"
        r = subprocess.run(
            [sys.executable, "-m", "tabulate.cli", command, "--db", db, *extra, "--out", str(path)],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            raise SystemExit(f"{command} failed: {r.stderr.strip()[-300:]}")
        got[command] = path.read_bytes()
    return got


def postgres_url(given: str | None) -> str:
    if given:
        return given
    sys.path.insert(0, str(REPO / "tests"))
    import pytest  # noqa: F401 - pg_server skips through pytest
    from pg_server import new_database

    try:
        return new_database()
    except BaseException as e:  # pytest's Skipped is a BaseException
        raise SystemExit(f"no PostgreSQL server: {e}") from None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pg", help="an empty PostgreSQL database (default: start a throw-away server)")
    ap.add_argument("--keep", type=Path, help="keep the batch and the stores here")
    ap.add_argument(
        "--runs",
        default="pool,dask,postgres,stations",
        help="which runs, comma-separated (default: pool,dask,postgres,stations; pool always runs)",
    )
    args = ap.parse_args()
    os.environ["SOURCE_DATE_EPOCH"] = "1830297600"
    out = args.keep or Path(tempfile.mkdtemp(prefix="tabulate-scale-"))
    out.mkdir(parents=True, exist_ok=True)
    try:
        folder = make_batch(out, args.sheets)
        runs = set(args.runs.split(","))
        print(
            f"{args.sheets} sheets, {args.workers} readers, {os.cpu_count()} cores "
            f"(load average {os.getloadavg()[0]:.1f})",
            flush=True,
        )
        stores = {"pool": str(out / "pool.db")}
        run("pool", [folder], stores["pool"], "--workers", str(args.workers))
        if "dask" in runs:
            stores["dask"] = str(out / "dask.db")
            run("dask", [folder], stores["dask"], "--cluster", f"local:{args.workers}")
        if "postgres" in runs:
            stores["postgres"] = postgres_url(args.pg)
            run("postgres", [folder], stores["postgres"], "--workers", str(args.workers))
        if "stations" in runs and not args.pg:
            two_stations(folder, postgres_url(None), args.workers, out)
        reference = None
        for name, db in stores.items():
            (out / f"exports-{name}").mkdir(exist_ok=True)
            got = exports(db, out / f"exports-{name}")
            if reference is None:
                reference = got
                continue
            same = [c for c in got if got[c] == reference[c]]
            print(
                f"  exports {name} vs pool: "
                + ", ".join(f"{c} {'identical' if c in same else 'DIFFERENT'} ({len(got[c])} bytes)" for c in got),
                flush=True,
            )
    finally:
        if args.keep is None:
            shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
