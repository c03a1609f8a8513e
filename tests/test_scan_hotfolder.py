"""A scanner's hot folder: pages arrive slowly and half-written, each sheet is recorded once, a stop loses nothing.

The scanner here is a script of file writes; the hot folder's sleep hook
performs the next write and moves a fake clock, so every test is
deterministic: no real waiting, no races with the file system's timestamps.
"""

from __future__ import annotations

import hashlib
import os
import re

from test_scan_support import ELECTION_PATH, e, election, fake_interpreter, page_text, store  # noqa: F401 (fixtures)

from tabulate.central import HotFolder, run_batch
from tabulate.central.hotfolder import has_end_marker
from tabulate.central.report import format_summary
from tabulate.cli import main


class SlowScanner:
    """A scanner that performs one write each time the watcher sleeps; the clock moves only then."""

    def __init__(self, folder, steps):
        self.folder, self.steps, self.now, self.sleeps = folder, list(steps), 0.0, 0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        self.now += seconds
        if self.steps:
            self.steps.pop(0)(self.folder)


def write(name: str, data: bytes, *, start: int = 0, end: int | None = None):
    """A step writing bytes [start:end) of ``data`` to ``name`` (appending, as a scanner streams a page)."""

    def step(folder):
        with open(folder / name, "ab" if start else "wb") as f:
            f.write(data[start:end])

    return step


def pause(_folder):
    """A step in which the scanner writes nothing."""


def sheet_pages(e, n: int) -> tuple[bytes, bytes]:
    marks = {"president": [["pres-hale", "pres-okafor", "pres-lindqvist"][n % 3]], "amendment-1": ["yes"]}
    salt = f";#sheet{n}".encode()
    return page_text(e, "1", "A101", 1, marks) + salt, page_text(e, "1", "A101", 2, {}) + salt


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def watch(store, e, folder, scanner, *, name="hot", until_idle=3.0):
    hot = HotFolder(folder, settle=1.0, poll=0.5, until_idle=until_idle, clock=scanner.clock, sleep=scanner.sleep)
    batch = store.open_batch(name, "election_day")
    return run_batch(store, e, batch, hot, workers=1, interpreter=fake_interpreter), hot


def test_pages_written_slowly_and_half_way_are_recorded_only_once_complete(tmp_path, store, e):
    folder = tmp_path / "hot"
    folder.mkdir()
    steps = []
    for n in range(1, 4):
        front, back = sheet_pages(e, n)
        half = len(front) // 2
        # Each page streams in over several polls; a poll between two writes sees half a page.
        steps += [
            write(f"sheet-{n:05d}-front.png", front, end=half),
            write(f"sheet-{n:05d}-front.png", front, start=half),
            write(f"sheet-{n:05d}-back.png", back, end=10),
            write(f"sheet-{n:05d}-back.png", back, start=10),
            pause,
            pause,
            pause,
        ]
    (folder / "scanner.log").write_text("not a page")
    scanner = SlowScanner(folder, steps)
    summary, hot = watch(store, e, folder, scanner)

    assert (summary.sheets_read, summary.counted, summary.balanced, summary.complete) == (3, 3, True, True)
    assert not scanner.steps, "the watch stopped before the scanner finished"
    recorded = {p.sha256 for s in store.sheets() for p in s.pages}
    complete = {sha(page) for n in range(1, 4) for page in sheet_pages(e, n)}
    assert recorded == complete  # never a half-written page's content
    assert [os.path.basename(p) for p in summary.ignored] == ["scanner.log"]
    assert store.batches()[0].ended_at is not None


def test_a_jpeg_without_its_end_marker_is_not_taken_however_long_it_sits(tmp_path):
    folder = tmp_path / "hot"
    folder.mkdir()
    body = b"\xff\xd8\xff\xe0" + bytes(200)
    scanner = SlowScanner(folder, [write("p1.jpg", body), write("p2.jpg", body + b"\xff\xd9")] + [pause] * 6)
    hot = HotFolder(
        folder,
        simplex=True,
        settle=1.0,
        poll=0.5,
        stale=100.0,
        clock=scanner.clock,
        sleep=scanner.sleep,
        until_idle=2.0,
    )
    seen = []
    for sheet in hot:
        if sheet is None:
            hot.wait()
        else:
            seen.append(os.path.basename(sheet.pages[0].path))
    # p1 stalled half-written (no FFD9); p2 sorts after it, so it waits too: no page pairs across a gap.
    assert seen == []
    assert hot.backlog == 2
    assert not has_end_marker(str(folder / "p1.jpg")) and has_end_marker(str(folder / "p2.jpg"))


def test_a_stop_loses_nothing_and_a_restart_carries_on(tmp_path, store, e):
    folder = tmp_path / "hot"
    folder.mkdir()
    f1, b1 = sheet_pages(e, 1)
    f2, b2 = sheet_pages(e, 2)
    # The scanner writes sheet 1 and the front of sheet 2, then the watch stops (idle).
    first, hot = watch(
        store,
        e,
        folder,
        SlowScanner(folder, [write("s1-front.png", f1), write("s1-back.png", b1), write("s2-front.png", f2)]),
    )
    assert (first.sheets_read, first.counted) == (1, 1)
    assert [os.path.basename(p) for p in first.waiting] == ["s2-front.png"]
    assert "waiting for their other side" in format_summary(first)
    assert store.batches()[0].ended_at is None  # the batch is not finished

    # Restarted later, after the back arrived: sheet 1 is already recorded, sheet 2 is added, once.
    (folder / "s2-back.png").write_bytes(b2)
    again, _ = watch(store, e, folder, SlowScanner(folder, [pause] * 4))
    assert (again.sheets_read, again.already, again.counted, again.waiting) == (2, 1, 1, ())
    assert [c.counted for c in store.batch_counts()] == [2]
    assert store.batches()[0].ended_at is not None


def test_a_hot_folder_yields_nothing_and_waits_while_a_page_keeps_growing(tmp_path):
    folder = tmp_path / "hot"
    folder.mkdir()
    grow = [write("1.png", b"x" * (k + 1), start=k, end=k + 1) for k in range(8)]
    scanner = SlowScanner(folder, grow)
    hot = HotFolder(
        folder, simplex=True, settle=1.0, poll=0.5, until_idle=1.5, clock=scanner.clock, sleep=scanner.sleep
    )
    taken_at = []
    for sheet in hot:
        if sheet is None:
            hot.wait()
        else:
            taken_at.append((scanner.now, (folder / "1.png").stat().st_size))
    # Taken once, after the last write (8 polls of growth) and a settle period, with all 8 bytes.
    assert len(taken_at) == 1 and taken_at[0][1] == 8 and taken_at[0][0] >= 8 * 0.5 + 1.0


def test_watch_on_the_command_line_records_a_folder_and_stops_when_idle(tmp_path, capsys):
    e = election()
    folder = tmp_path / "hot"
    folder.mkdir()
    for n in (1, 2):
        front, back = sheet_pages(e, n)
        (folder / f"s{n}-front.png").write_bytes(front)
        (folder / f"s{n}-back.png").write_bytes(back)
    db = tmp_path / "w.db"
    args = [
        "scan",
        "--watch",
        str(folder),
        "--until-idle",
        "0",
        "--settle",
        "0",
        "--election",
        str(ELECTION_PATH),
        "--db",
        str(db),
        "--batch",
        "hot",
        "--vote-type",
        "election_day",
        "--workers",
        "1",
        "--no-progress",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    # The real reader reads these fake pages as unreadable images: set aside, each accounted for.
    assert re.search(r"sheets read +2 ", out) and "accounted for" in out
    assert (
        main(
            [
                "scan",
                str(folder),
                "--watch",
                str(folder),
                "--election",
                str(ELECTION_PATH),
                "--db",
                str(db),
                "--batch",
                "hot",
                "--vote-type",
                "election_day",
            ]
        )
        == 2
    )
    assert "give no other PATH" in capsys.readouterr().err


def test_pages_never_pair_across_a_file_still_being_written(tmp_path):
    folder = tmp_path / "hot"
    folder.mkdir()
    scanner = SlowScanner(
        folder,
        [
            write("0001.png", b"FAKE|one"),
            write("0002.png", b"FAKE|two"),
            write("0003.png", b"FAKE|three", end=7),
            write("0004.png", b"FAKE|four"),
            write("0005.png", b"FAKE|five"),  # land while 0003 is still open
            write("0003.png", b"FAKE|three", start=7),
            write("0006.png", b"FAKE|six"),
        ],
    )
    hot = HotFolder(folder, settle=2.0, poll=0.5, until_idle=3.0, clock=scanner.clock, sleep=scanner.sleep)
    sheets = []
    for sheet in hot:
        if sheet is None:
            hot.wait()
        else:
            sheets.append((sheet.position, [os.path.basename(p.path) for p in sheet.pages]))
    # 0004 and 0005 were complete before 0003: paired with each other they would have shifted every sheet after.
    assert sheets == [(1, ["0001.png", "0002.png"]), (2, ["0003.png", "0004.png"]), (3, ["0005.png", "0006.png"])]
