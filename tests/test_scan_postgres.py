"""Several scan stations, one PostgreSQL count: real ``tabulate scan`` processes, the real reader.

Exactly once across stations (issue 14): two stations scanning different
batches at once count every sheet; the same sheet fed on both is counted
once and the other copy is its duplicate; a station killed with SIGKILL
mid-batch and run again changes nothing. The commands that read a store
(status, results, cvr) work on the same URL.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

from pg_server import new_database, pg_url  # noqa: F401 - a fixture

from tabulate.central.pipeline import TEST_PAUSE_ENV, TEST_PAUSE_MARK
from tabulate.store import LIVE_STATUSES, open_store

REPO = Path(__file__).resolve().parents[1]
ELECTION = REPO / "samples" / "general" / "election.json"
SCANS = REPO / "samples" / "general" / "scans"


def scan_cmd(folder, db, batch, station):
    return [
        sys.executable,
        "-m",
        "tabulate.cli",
        "scan",
        str(folder),
        "--election",
        str(ELECTION),
        "--db",
        db,
        "--batch",
        batch,
        "--vote-type",
        "election_day",
        "--tabulator",
        station,
        "--workers",
        "1",
        "--no-progress",
    ]


def tabulate(*args):
    return subprocess.run(
        [sys.executable, "-m", "tabulate.cli", *map(str, args)], capture_output=True, text=True, timeout=300, cwd=REPO
    )


def copy_sheets(folder: Path, numbers) -> Path:
    folder.mkdir()
    for n in numbers:
        for f in SCANS.glob(f"sheet-{n:05d}-*"):
            shutil.copy(f, folder / f.name)
    return folder


def snapshot(db: str):
    store = open_store(db, create=False)
    try:
        return [
            (s.batch.name, s.position, s.identity, s.status, tuple(r.code for r in s.reasons)) for s in store.sheets()
        ]
    finally:
        store.close()


def test_two_stations_at_once_count_every_sheet_once_and_the_sheet_fed_on_both_is_a_duplicate(tmp_path, pg_url):
    a = copy_sheets(tmp_path / "a", range(1, 5))
    b = copy_sheets(tmp_path / "b", range(4, 8))  # sheet 4 is fed on both stations
    stations = [
        subprocess.Popen(
            scan_cmd(folder, pg_url, batch, station),
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for folder, batch, station in ((a, "tub-a", "1"), (b, "tub-b", "2"))
    ]
    for p in stations:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    sheets = snapshot(pg_url)
    assert len(sheets) == 8  # every sheet fed is accounted for
    live = Counter(identity for _b, _p, identity, status, _r in sheets if status in LIVE_STATUSES)
    rejected = {identity for _b, _p, identity, status, _r in sheets if status == "rejected"}
    duplicates = [row for row in sheets if row[3] == "duplicate"]
    assert all(n == 1 for n in live.values())  # no sheet counted twice
    assert len(live) + len(rejected) == 7 and len(duplicates) == 1
    assert {row[4] for row in duplicates} == {("duplicate_sheet",)}
    status = tabulate("status", "--db", pg_url)
    assert status.returncode == 0 and "hash chain intact" in status.stdout, status.stdout + status.stderr
    assert "tub-a" in status.stdout and "tub-b" in status.stdout


def test_a_station_killed_mid_batch_and_run_again_changes_nothing(tmp_path, pg_url):
    import psycopg

    folder = copy_sheets(tmp_path / "tub", range(1, 9))
    reference = pg_url
    done = subprocess.run(
        scan_cmd(folder, reference, "tub", "1"), cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    expected = snapshot(reference)

    crashed = new_database()
    # Kill it once it has committed exactly one sheet (the test hook, a count of sheets, never a time):
    # a group is in, the rest is not.
    proc = subprocess.Popen(
        scan_cmd(folder, crashed, "tub", "1"),
        cwd=REPO,
        env={**os.environ, TEST_PAUSE_ENV: "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        paused = next((line for line in proc.stderr if line.startswith(TEST_PAUSE_MARK)), None)
        assert paused is not None, "the scan ended without reaching its test pause"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    with psycopg.connect(crashed, autocommit=True) as watch:
        before = watch.execute("SELECT COUNT(*) FROM sheets").fetchone()[0]
    assert before == 1
    again = subprocess.run(scan_cmd(folder, crashed, "tub", "1"), cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert re.search(rf"already in store\s+{before}\s", again.stdout), again.stdout
    assert snapshot(crashed) == expected


def test_reports_status_and_verify_read_a_postgresql_store(tmp_path, pg_url):
    folder = copy_sheets(tmp_path / "tub", range(1, 3))
    assert (
        subprocess.run(scan_cmd(folder, pg_url, "tub", "1"), cwd=REPO, capture_output=True, timeout=300).returncode == 0
    )
    results = tabulate("results", "--db", pg_url, "--format", "csv")
    assert results.returncode == 0 and results.stdout.count("\n") > 5, results.stderr
    cvr = tabulate("cvr", "--db", pg_url, "--out", tmp_path / "cvr.json")
    assert cvr.returncode == 0 and '"CVR"' in (tmp_path / "cvr.json").read_text(), cvr.stderr
    store = open_store(pg_url, create=False)
    assert [e.kind for e in store.events()][-1] == "export"
    store.close()
    verified = tabulate("verify", "--db", pg_url)  # review, users and verify too (tests/test_review_postgres.py)
    assert verified.returncode == 0 and "head" in verified.stdout, verified.stderr
    wrong = tabulate("status", "--db", "postgresql://nobody@/nodb?host=/nonexistent")
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr and len(wrong.stderr.splitlines()) == 1
