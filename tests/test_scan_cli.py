"""``tabulate scan`` as a clerk runs it: real images, the real reader, a real process killed with SIGKILL.

A crash, a power cut or a rerun must never lose or double a vote; bad input
never stops a batch; only misuse makes the command fail, in one line.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import simplejpeg

from tabulate.ballots.samples import write_samples
from tabulate.central.pipeline import TEST_PAUSE_ENV, TEST_PAUSE_MARK
from tabulate.election import parse_election
from tabulate.election.layout import layout_style
from tabulate.election.render import render_page
from tabulate.store import open_store

REPO = Path(__file__).resolve().parents[1]
ELECTION = REPO / "samples" / "general" / "election.json"


def tabulate(*args, timeout=120, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tabulate.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        **kw,
    )


def scan_args(paths, db, batch="A", *extra):
    return [
        "scan",
        *paths,
        "--election",
        ELECTION,
        "--db",
        db,
        "--batch",
        batch,
        "--vote-type",
        "election_day",
        "--workers",
        "2",
        "--no-progress",
        *extra,
    ]


def jpeg(image, quality=85) -> bytes:
    return simplejpeg.encode_jpeg(image[:, :, None], quality=quality, colorspace="GRAY")


@pytest.fixture(scope="module")
def election():
    return parse_election(json.loads(ELECTION.read_text()))


@pytest.fixture(scope="module")
def good_scans(tmp_path_factory, election):
    """Ten simulated sheets, cleanly marked, scanned with sensor noise (sheet-00001-front.jpg ...).

    A noiseless scan of two blank backs can be byte-identical, and the store rightly takes the
    second for a page already scanned; real scanners never repeat a byte-identical image.
    """
    out = tmp_path_factory.mktemp("good")
    write_samples(election, out, 10, seed=11, population="clean", bitonal_fraction=0.0, jobs=2)
    (out / "truth.json").unlink()
    return out


def snapshot(db: Path):
    """Everything that decides the count, in a comparable form."""
    store = open_store(db, create=False)
    try:
        return [
            (
                s.batch.name,
                s.position,
                s.identity,
                s.status,
                tuple(r.code for r in s.reasons),
                None
                if s.interpreted is None
                else tuple((c.contest_id, c.status, c.selections) for c in s.interpreted.contests),
            )
            for s in store.sheets()
        ]
    finally:
        store.close()


def one_line_error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tabulate: "), result.stderr
    return lines[0]


# -- bad input ----------------------------------------------------------------------------------
def test_every_kind_of_bad_input_is_set_aside_with_its_reason_and_the_batch_goes_on(tmp_path, good_scans, election):
    folder = tmp_path / "batch"
    folder.mkdir()
    for f in good_scans.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    pages = layout_style(election, "1").pages
    blank_back = render_page(election, pages[1], "A101")

    def bad_sheet(n: int, front: bytes, back: bytes | None = None, ext: str = "jpg"):
        (folder / f"sheet-{n:05d}-front.{ext}").write_bytes(front)
        # Each bad sheet gets a back of its own (JPEG quality varies the bytes), so none repeats another's page.
        (folder / f"sheet-{n:05d}-back.jpg").write_bytes(back if back is not None else jpeg(blank_back, 60 + n))

    good_front = (good_scans / "sheet-00001-front.jpg").read_bytes()
    bad_sheet(11, good_front[: len(good_front) // 2] + b"x")  # truncated mid-transfer
    bad_sheet(12, b"")  # empty file
    bad_sheet(13, b"Scanner log: paper jam at sheet 12\n")  # not an image
    other = copy.deepcopy(json.loads(ELECTION.read_text()))
    other["title"] = "Another County's Election"
    other_election = parse_election(other)
    other_pages = layout_style(other_election, "1").pages
    bad_sheet(
        14,
        jpeg(render_page(other_election, other_pages[0], "A101")),  # a page from another election
        jpeg(render_page(other_election, other_pages[1], "A101")),
    )
    forged = [dataclasses.replace(p, style_id="99") for p in pages]
    bad_sheet(
        15,
        jpeg(render_page(election, forged[0], "A101")),  # a style the election lacks
        jpeg(render_page(election, forged[1], "A101")),
    )
    bomb = (
        b"\x89PNG\r\n\x1a\n"
        + (13).to_bytes(4, "big")
        + b"IHDR"
        + (60000).to_bytes(4, "big") * 2
        + b"\x08\x00\x00\x00\x00"
        + b"\x00" * 4
        + b"\x00\x00\x00\x00IEND\xaeB`\x82"
    )
    bad_sheet(16, bomb, ext="png")  # decompression bomb
    (folder / "sheet-00017-front.jpg").write_bytes(jpeg(blank_back, 95))  # its back never came

    db = tmp_path / "store.db"
    result = tabulate(*scan_args([folder], db))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    by_position = {row[1]: row for row in snapshot(db)}
    assert len(by_position) == 17
    assert all(by_position[p][3] in ("counted", "needs_review") for p in range(1, 11))
    reasons = {p: set(by_position[p][4]) for p in range(11, 18)}
    assert all(by_position[p][3] == "rejected" for p in range(11, 18))
    assert reasons == {
        11: {"corrupt_image"},
        12: {"empty_file"},
        13: {"not_an_image"},
        14: {"wrong_election"},
        15: {"unknown_style"},
        16: {"image_too_large"},
        17: {"missing_back_page"},
    }
    # The summary names the reasons in the review app's words (tabulate.core.vocabulary).
    assert re.search(r"rejected\s+7\s+Image is corrupt 1, Image file is empty 1, Image too large 1", result.stdout)
    assert "accounted for:" in result.stdout and "= 17" in result.stdout


# -- misuse --------------------------------------------------------------------------------------
def test_misuse_fails_with_one_line_and_no_traceback(tmp_path, good_scans, capsys):
    from tabulate.cli import main

    def error(*argv) -> str:
        code = main(list(map(str, argv)))
        err = capsys.readouterr().err
        assert code == 2, err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tabulate: "), err
        return lines[0]

    db = tmp_path / "store.db"
    assert "no such file or folder" in error(*scan_args([tmp_path / "missing"], db))
    assert "does not exist" in error(*scan_args([good_scans], tmp_path / "no" / "store.db"))
    (tmp_path / "adir.db").mkdir()
    assert "cannot" in error(*scan_args([good_scans], tmp_path / "adir.db"))
    assert "no precinct" in error(*scan_args([good_scans], db, "A", "--precinct", "Z9"))
    assert "no store at" in error("status", "--db", tmp_path / "never.db")
    assert "no store at" in error("results", "--db", tmp_path / "never.db")
    with pytest.raises(SystemExit) as bad_type:  # argparse's own usage error
        main(
            [
                "scan",
                str(good_scans),
                "--election",
                str(ELECTION),
                "--db",
                str(db),
                "--batch",
                "A",
                "--vote-type",
                "mail",
            ]
        )
    assert bad_type.value.code == 2 and "invalid choice" in capsys.readouterr().err
    assert not db.exists()
    # The same through `python -m tabulate.cli`, as a clerk's shell runs it.
    assert "cannot use the election definition" in one_line_error(
        tabulate(
            "scan",
            good_scans,
            "--election",
            tmp_path / "nope.json",
            "--db",
            db,
            "--batch",
            "A",
            "--vote-type",
            "election_day",
        )
    )


def test_a_store_refuses_a_second_election_and_a_batch_its_other_vote_type(tmp_path, good_scans):
    db = tmp_path / "store.db"
    assert (
        tabulate(*scan_args([good_scans / "sheet-00001-front.jpg", good_scans / "sheet-00001-back.jpg"], db)).returncode
        == 0
    )
    other = json.loads(ELECTION.read_text())
    other["title"] = "Another Election"
    (tmp_path / "other.json").write_text(json.dumps(other))
    line = one_line_error(
        tabulate(
            "scan",
            good_scans,
            "--election",
            tmp_path / "other.json",
            "--db",
            db,
            "--batch",
            "B",
            "--vote-type",
            "election_day",
        )
    )
    assert "holds the election" in line
    line = one_line_error(
        tabulate(
            "scan", good_scans, "--election", ELECTION, "--db", db, "--batch", "A", "--vote-type", "mail_in_absentee"
        )
    )
    assert "vote type election_day" in line


def test_resuming_a_batch_with_another_tabulator_or_operator_is_refused_in_one_line(tmp_path, good_scans, capsys):
    from tabulate.cli import main

    db = tmp_path / "store.db"
    sheet = [good_scans / "sheet-00001-front.jpg", good_scans / "sheet-00001-back.jpg"]
    assert tabulate(*scan_args(sheet, db, "A", "--tabulator", "7", "--operator", "kim")).returncode == 0

    def refused(*extra) -> str:  # refused before any sheet is read: in-process is enough
        assert main(list(map(str, scan_args(sheet, db, "A", *extra)))) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tabulate: "), lines
        return lines[0]

    assert "batch 'A' was opened with tabulator 7, this run 1" in refused("--operator", "kim")
    assert "operator kim, this run lee" in refused("--tabulator", "7", "--operator", "lee")


def _event_count(db: Path) -> int:
    store = open_store(db, create=False)
    try:
        return len(list(store.events()))
    finally:
        store.close()


def test_a_second_scan_into_a_batch_another_process_is_scanning_is_refused(tmp_path, good_scans, capsys):
    """Two scans into one batch at once would interleave their positions; the second is refused before it
    opens the batch. Another batch of the same store may be scanned meanwhile, and a killed scan's lock goes
    with it."""
    from tabulate.cli import main
    from tabulate.store.batch_lock import BatchBusyError, BatchLock

    db = tmp_path / "store.db"
    first = tmp_path / "first"
    _many_sheets(first, good_scans, 4)
    proc = _start_paused(scan_args([first], db, "A"), 0)  # holds batch A, nothing committed
    try:
        events = _event_count(db)
        assert main(list(map(str, scan_args([good_scans], db, "A")))) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [
            "tabulate: batch 'A' is being scanned by another process right now; wait for that scan "
            "to finish, or scan these sheets into another batch"
        ]
        assert _event_count(db) == events  # the refused scan changed nothing
        with BatchLock(db, "B"):
            pass
        with pytest.raises(BatchBusyError):
            BatchLock(db, "A").acquire()
    finally:
        _kill(proc)
    with BatchLock(db, "A"):  # the kernel let go of the killed scan's lock
        pass


# -- exactly once, across SIGKILL ----------------------------------------------------------------
def _many_sheets(folder: Path, good_scans: Path, n: int) -> None:
    """``n`` distinct sheets from the ten good ones: bytes after a JPEG's end marker change its
    SHA-256 (a different scan, to the store) but not its pixels (the same votes)."""
    folder.mkdir()
    for i in range(n):
        src = i % 10 + 1
        for side in ("front", "back"):
            data = (good_scans / f"sheet-{src:05d}-{side}.jpg").read_bytes()
            (folder / f"sheet-{i + 1:05d}-{side}.jpg").write_bytes(data + f"copy {i}".encode())


def _committed(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as c:
            return c.execute("SELECT COUNT(*) FROM sheets").fetchone()[0]
    except sqlite3.Error:
        return 0


def _start_paused(args, pause_after: int) -> subprocess.Popen:
    """Start ``tabulate scan`` with the test hook that stops it for good once it has committed ``pause_after``
    sheets, and return once it is there. The point is a count of committed sheets, never a time."""
    env = {**os.environ, TEST_PAUSE_ENV: str(pause_after)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabulate.cli", *map(str, args)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    lines = []
    for line in proc.stderr:  # blocks until the run reaches its pause (or ends without it)
        lines.append(line)
        if line.startswith(TEST_PAUSE_MARK):
            assert line.startswith(f"{TEST_PAUSE_MARK} {pause_after} sheet(s)"), line
            return proc
    _kill(proc)
    pytest.fail(f"the scan ended before committing {pause_after} sheets: {''.join(lines)}")


def _kill(proc: subprocess.Popen) -> None:
    """SIGKILL the scan (the main process only, as a crash would) and check its reader processes go by themselves."""
    try:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        # Orphaned readers notice their parent is gone and exit by themselves (a hang guard, not a timing test).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            pytest.fail("reader processes outlived the killed scan")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.stderr.close()


def _kill_at(args, pause_after: int) -> None:
    _kill(_start_paused(args, pause_after))


def _kill_and_resume(tmp_path, good_scans, sheets: int, kill_points: list[int]) -> None:
    """Kill a scan after each number of committed sheets in turn (each run resuming the last), finish it,
    and compare with an uninterrupted run."""
    folder = tmp_path / "batch"
    _many_sheets(folder, good_scans, sheets)
    reference = tmp_path / "reference.db"
    assert tabulate(*scan_args([folder], reference)).returncode == 0
    expected = snapshot(reference)
    assert len(expected) == sheets and all(row[3] in ("counted", "needs_review") for row in expected)

    db = tmp_path / "crashed.db"
    for pause_after in kill_points:
        at_start = _committed(db)
        _kill_at(scan_args([folder], db), pause_after)
        assert _committed(db) == at_start + pause_after
    before = _committed(db)
    assert before == sum(kill_points) < sheets

    final = tabulate(*scan_args([folder], db))
    assert final.returncode == 0, final.stderr
    assert re.search(rf"already in store\s+{before}\s", final.stdout)
    assert snapshot(db) == expected
    status = tabulate("status", "--db", db)
    assert status.returncode == 0 and "hash chain intact" in status.stdout


@pytest.mark.slow
def test_a_scan_killed_at_several_points_and_rerun_counts_exactly_what_an_uninterrupted_scan_counts(
    tmp_path, good_scans
):
    # During start-up (readers running, nothing committed), mid-batch, and just after a resumed run's first commit.
    _kill_and_resume(tmp_path, good_scans, 30, [0, 7, 1])


@pytest.mark.slow
def test_a_long_scan_killed_many_times_still_counts_every_sheet_once(tmp_path, good_scans):
    rng = random.Random(7)
    _kill_and_resume(tmp_path, good_scans, 120, [0, *(rng.randint(1, 20) for _ in range(2)), 20, 1])
