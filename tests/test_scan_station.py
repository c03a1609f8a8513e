"""A station that stays up across tubs (``tabulate scan --watch DIR --batch-per-folder``).

Every sub-folder is a tub, read as a batch named after it once the scanner
writes its done marker (``batch.done``). The scanner here is a script of file
writes performed by the station's sleep hook, with a fake clock: no real
waiting, no races. The readers are started once and handed to the station;
most tests read in this process (`InlineReaders`), one keeps a real pool.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import Future

from test_scan_support import ELECTION_PATH, e, election, fake_interpreter, make_batch, page_text, store  # noqa: F401 (fixtures)

from tabulate.central import HotFolder
from tabulate.central.pipeline import start_readers
from tabulate.central.station import Station, run_station
from tabulate.central.tubs import DONE_MARKER, RELIST_SECONDS, SETTINGS_FILE, TubFolders, TubSettings, list_subfolders
from tabulate.central.worker import read_sheet_source
from tabulate.cli import main
from tabulate.store.batch_lock import BatchLock


class InlineReaders:
    """Readers that read each sheet in this process (the station's contract, without a pool)."""

    workers, dashboard = 1, None

    def __init__(self, e):
        self.e, self.closed, self.read = e, False, 0

    def submit(self, sheet) -> Future:
        f: Future = Future()
        self.read += 1
        f.set_result(read_sheet_source(self.e, fake_interpreter, sheet))
        return f

    def restart(self) -> None:  # pragma: no cover - nothing crashes here
        pass

    def isolated(self, sheet):  # pragma: no cover
        return read_sheet_source(self.e, fake_interpreter, sheet)

    def close(self) -> None:
        self.closed = True


class Scanner:
    """Performs the next scripted write each time the station sleeps; the clock moves only then."""

    def __init__(self, steps=()):
        self.steps, self.now = list(steps), 0.0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        if self.steps:
            self.steps.pop(0)()


def station(store, e, root, scanner, readers, *, until_idle=5.0):
    tubs = TubFolders(root, poll=0.5, until_idle=until_idle, clock=scanner.clock, sleep=scanner.sleep)

    def hot(folder):
        return HotFolder(
            folder,
            settle=1.0,
            poll=0.5,
            done_marker=DONE_MARKER,
            not_pages=frozenset({SETTINGS_FILE}),
            clock=scanner.clock,
            sleep=scanner.sleep,
        )

    s = Station(
        store,
        e,
        readers,
        TubSettings("election_day"),
        lock_for=lambda name: BatchLock(store.path, name),
        hot_folder=hot,
    )
    shown = []
    return run_station(s, tubs, on_tub=shown.append), shown


def counted(store) -> dict[str, int]:
    return {c.batch.name: c.sheets for c in store.batch_counts()}


def done(folder):
    return lambda: (folder / DONE_MARKER).write_text("")


def test_two_tubs_in_one_run_each_a_batch_and_a_tub_without_its_marker_is_never_opened(tmp_path, store, e):
    root = tmp_path / "station"
    make_batch(root / "tub-01", e, 3)
    (root / "tub-01" / DONE_MARKER).write_text("")
    # Tub 2 is still being scanned when the station starts; its clerk says it holds absentee ballots.
    make_batch(root / "tub-02", e, 2, start=10)
    (root / "tub-02" / SETTINGS_FILE).write_text('{"vote_type": "mail_in_absentee", "precinct": "A101"}')
    make_batch(root / "tub-03", e, 1, start=20)  # never finished: the scanner jammed
    scanner = Scanner(
        [
            lambda: make_batch(root / "tub-02", e, 2, start=12),  # the rest of tub 2 after a pause
            lambda: None,
            done(root / "tub-02"),
        ]
    )
    readers = InlineReaders(e)
    summary, shown = station(store, e, root, scanner, readers)

    assert [s.batch.name for s in shown] == ["tub-01", "tub-02"]
    assert [(s.sheets_read, s.counted, s.balanced, s.complete) for s in shown] == [
        (3, 3, True, True),
        (4, 4, True, True),
    ]
    assert counted(store) == {"tub-01": 3, "tub-02": 4}
    batches = {b.name: b for b in store.batches()}
    assert (batches["tub-02"].vote_type, batches["tub-02"].precinct_id) == ("mail_in_absentee", "A101")
    assert batches["tub-01"].vote_type == "election_day"
    assert all(b.ended_at is not None for b in batches.values())
    # One set of readers for the whole evening, left running for the next tub (the caller closes it).
    assert (readers.read, readers.closed) == (7, False)
    assert [os.path.basename(p) for p in summary.open] == ["tub-03"]
    assert "tub-03" not in batches
    # The marker and batch.json are the station's files, not ignored scanner output.
    assert all(s.ignored == () for s in shown)


def test_a_restart_in_the_middle_of_a_tub_records_each_sheet_once(tmp_path, store, e):
    root = tmp_path / "station"
    make_batch(root / "tub-01", e, 2)
    (root / "tub-01" / DONE_MARKER).write_text("")
    tub2 = root / "tub-02"
    make_batch(tub2, e, 3, start=10)
    (tub2 / DONE_MARKER).write_text("")
    # Sheet 4 of tub 2 is still being written when the station reaches it; the clerk then stops the station.
    last = page_text(e, "1", "A101", 1, {"president": ["pres-hale"]}) + b";#late"
    (tub2 / "sheet-00099-front.png").write_bytes(last[:10])

    def grow_then_ctrl_c():
        # The scanner keeps writing that page; the clerk presses Ctrl-C once tub 2 shows 3 sheets.
        with open(tub2 / "sheet-00099-front.png", "ab") as f:
            f.write(b"x")
        if counted(store).get("tub-02") == 3:
            raise KeyboardInterrupt

    summary, _shown = station(store, e, root, Scanner([grow_then_ctrl_c] * 20), InlineReaders(e))
    assert summary.interrupted and summary.stopped_in == "tub-02"  # the station's summary, not a traceback
    assert counted(store) == {"tub-01": 2, "tub-02": 3}  # what was read before the stop is committed
    assert {b.name: b.ended_at is None for b in store.batches()} == {"tub-01": False, "tub-02": True}

    # The page is finished (with its back) and the station started again.
    (tub2 / "sheet-00099-front.png").write_bytes(last)
    (tub2 / "sheet-00099-back.png").write_bytes(page_text(e, "1", "A101", 2, {}) + b";#late")
    readers = InlineReaders(e)
    summary, shown = station(store, e, root, Scanner(), readers)
    assert summary.already == ["tub-01"]  # closed with every sheet: not even fingerprinted again
    assert [(s.batch.name, s.sheets_read, s.already, s.counted) for s in shown] == [("tub-02", 4, 3, 1)]
    assert readers.read == 1
    assert counted(store) == {"tub-01": 2, "tub-02": 4}
    assert all(b.ended_at is not None for b in store.batches())
    identities = [s.identity for s in store.sheets()]
    assert len(identities) == len(set(identities)) == 6


def test_a_finished_tub_sets_a_lone_page_aside_and_a_late_page_is_recorded_once(tmp_path, store, e):
    root = tmp_path / "station"
    tub = root / "tub-01"
    make_batch(tub, e, 2)
    (tub / "sheet-00003-front.png").write_bytes(page_text(e, "1", "A101", 1, {}) + b";#lone")
    (tub / DONE_MARKER).write_text("")
    late = page_text(e, "1", "A101", 1, {"president": ["pres-okafor"]}) + b";#late"
    scanner = Scanner(
        [
            lambda: None,
            lambda: None,
            lambda: (tub / "sheet-00004-front.png").write_bytes(late),
            lambda: (tub / "sheet-00004-back.png").write_bytes(page_text(e, "1", "A101", 2, {}) + b";#late"),
        ]
    )
    summary, shown = station(store, e, root, scanner, InlineReaders(e))
    first, again, *rest = shown
    # The marker says the tub is whole: the front without its back is a sheet set aside, as `scan DIR` does.
    assert (first.sheets_read, first.counted, first.rejected) == (3, 2, 1)
    assert ("rejected", "missing_back_page") in first.by_reason
    # Pages dropped into the tub's folder after it was recorded: the batch resumes, only they are added
    # (each later change of the folder resumes it again, adding nothing that is recorded).
    assert (again.batch.name, again.already, again.counted) == ("tub-01", 3, 1)
    assert all((r.batch.name, r.already, r.added) == ("tub-01", 4, 0) for r in rest)
    assert counted(store) == {"tub-01": 4}


def test_a_page_replaced_in_a_recorded_tub_is_fingerprinted_and_recorded(tmp_path, store, e):
    root = tmp_path / "station"
    tub = root / "tub-01"
    make_batch(tub, e, 2)
    (tub / DONE_MARKER).write_text("")
    rescanned = page_text(e, "1", "A101", 1, {"president": ["pres-okafor"]}) + b";#rescanned"

    def replace_front():  # written aside and renamed over the old page, as scanner software does
        (tub / "new.tmp").write_bytes(rescanned)
        os.replace(tub / "new.tmp", tub / "sheet-00002-front.png")

    summary, shown = station(store, e, root, Scanner([lambda: None, lambda: None, replace_front]), InlineReaders(e))
    first, again = shown
    # As many page files as before: only the fingerprints tell the new image from the recorded one.
    assert (first.counted, again.sheets_read, again.already, again.added) == (2, 2, 1, 1)
    assert counted(store) == {"tub-01": 3}


def test_a_tub_with_a_bad_batch_json_is_refused_and_the_station_goes_on(tmp_path, store, e):
    root = tmp_path / "station"
    make_batch(root / "tub-01", e, 1)
    (root / "tub-01" / SETTINGS_FILE).write_text('{"vote_type": "mail_in_absentee", "box": 3}')
    make_batch(root / "tub-02", e, 1, start=5)
    (root / "tub-02" / SETTINGS_FILE).write_text('{"precinct": "Z999"}')
    make_batch(root / "tub-03", e, 1, start=9)
    for t in ("tub-01", "tub-02", "tub-03"):
        (root / t / DONE_MARKER).write_text("")
    summary, shown = station(store, e, root, Scanner(), InlineReaders(e))
    assert [s.batch.name for s in shown] == ["tub-03"]
    refused = dict(summary.refused)
    assert "unknown key(s) box" in refused["tub-01"] and "no precinct 'Z999'" in refused["tub-02"]
    assert counted(store) == {"tub-03": 1}


def test_the_station_keeps_one_real_pool_up_across_tubs(tmp_path, store, e):
    root = tmp_path / "station"
    for k in (1, 2):
        make_batch(root / f"tub-{k:02d}", e, 2, start=10 * k)
        (root / f"tub-{k:02d}" / DONE_MARKER).write_text("")
    readers = start_readers(e, workers=1, interpreter=fake_interpreter)
    pools = []

    def note(_summary):
        pools.append((readers._pool, sorted((readers._pool._processes or {}).keys())))

    try:
        s = Station(
            store,
            e,
            readers,
            TubSettings("election_day"),
            lock_for=lambda name: BatchLock(store.path, name),
            hot_folder=lambda f: HotFolder(f, settle=0.0, done_marker=DONE_MARKER),
        )
        run_station(s, TubFolders(root, until_idle=0.0), on_tub=note)
    finally:
        readers.close()
    assert counted(store) == {"tub-01": 2, "tub-02": 2}
    (pool1, pids1), (pool2, pids2) = pools
    assert pool1 is pool2 and pids1 == pids2 and len(pids1) == 1  # the same reader process read both tubs


def _cli(root, db, *extra):
    return [
        "scan",
        "--watch",
        str(root),
        "--election",
        str(ELECTION_PATH),
        "--db",
        str(db),
        "--vote-type",
        "election_day",
        "--workers",
        "1",
        "--no-progress",
        *extra,
    ]


def test_the_station_on_the_command_line(tmp_path, capsys, e):
    root = tmp_path / "station"
    make_batch(root / "tub-01", e, 2)
    (root / "tub-01" / "DONE").write_text("")
    make_batch(root / "tub-02", e, 1, start=7)  # no marker yet
    db = tmp_path / "s.db"
    args = _cli(root, db, "--batch-per-folder", "--done-file", "DONE", "--until-idle", "0", "--settle", "0")
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Batch 'tub-01' (election_day)" in out and re.search(r"sheets read +2 ", out)
    assert "Station: 1 tub(s) read (2 sheets)" in out
    assert "waiting for their done marker (nothing of them recorded yet): tub-02" in out
    assert "NOT READ" not in out

    # A page put in the station's folder itself, in no tub: never read, and said so (exit status 1).
    make_batch(root, e, 1, start=30)
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "already recorded (closed, every sheet in the store): tub-01" in out
    assert "NOT READ: 2 page file(s) directly in the station's folder" in out

    assert main(_cli(root, db, "--batch-per-folder", "--batch", "x")) == 2
    assert "named after its folder" in capsys.readouterr().err
    assert main(["scan", *_cli(root, db, "--batch-per-folder")[3:]]) == 2  # no --watch
    assert "--batch-per-folder goes with --watch DIR" in capsys.readouterr().err
    assert main(_cli(root, db)) == 2  # --watch without a batch name
    assert "the batch needs a name" in capsys.readouterr().err


def test_a_marker_is_seen_on_a_file_system_whose_folder_mtimes_do_not_move(tmp_path, e):
    """Between full listings the station only stats each open tub's folder; a coarse mtime must not hide a marker."""
    root = tmp_path / "station"
    make_batch(root / "tub-01", e, 1)
    scanner = Scanner([lambda: None, done(root / "tub-01")] + [lambda: None] * 30)

    def frozen_mtimes(folder):  # a file system (FAT, some shares) that did not move the folder's mtime
        return [(name, 0) for name, _mtime in list_subfolders(folder)]

    tubs = TubFolders(
        root, poll=0.1, until_idle=None, clock=scanner.clock, sleep=scanner.sleep, subfolders=frozen_mtimes
    )
    for folder in tubs:
        if folder is not None:
            break
        tubs.wait()
    marker_at = 0.2  # the second sleep wrote it
    assert os.path.basename(folder) == "tub-01"
    assert marker_at < scanner.now <= marker_at + RELIST_SECONDS + 0.1 + 1e-9
